"""The usage track's queries: where is this name used? (docs/usage.md)

A query is a name the code track could ask (declared in exactly one file, identifier-shaped,
long enough, in no unseen file: searchbench.sampling decides, this module does not repeat it)
that uses.tsv shows used in at least `min_other_files` (2) files other than the declaring one
and in at most `max_files` (30) files. The right answers are every file with a use; the
declaring file is one only if it uses the name too. Resolution is by name, within the
declaration's language family (C with C++, JavaScript with TypeScript and TSX; every other
language alone): a call `open(x)` in a C file is a use of the one C or C++ `open`, never of
a Python `open`. The sample is the code track's sorted, seeded draw (sampling.draw_sample).

The GNU Global audit (reference_agreement) compares the answer sets with `global -r`. Global
is given the corpus's regular files (symlinks skipped) whose names the symbol and uses passes
can carry: a name that is not UTF-8 or holds a newline is unseen there (unseen.tsv says why),
so it is left out here too, and the audit's `all` row names how many (its Pygments plug-in
stopped the whole build on a non-UTF-8 name with a UnicodeEncodeError before).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from searchbench import artifacts
from searchbench.artifacts import read_tsv_frame, write_text
from searchbench.errors import BenchError
from searchbench.paths import encode_path
from searchbench.sampling import (
    CANDIDATE_COLUMNS,
    IDENTIFIER,
    Funnel,
    check_answer_files,
    draw_sample,
    exactly_once,
    funnel_and_candidates,
    funnel_text,
    queries_text,
    with_sampled,
)
from searchbench.symbols import name_problem, names_among, tokens_in_files
from searchbench.trec import qrels_lines
from searchbench.uses import USES_COLUMNS

TRACK = "usage"
MIN_OTHER_FILES = 2
MAX_FILES = 30
# Languages whose names resolve across each other's files (headers, declaration files).
LANGUAGE_FAMILIES = {"c": "c", "cpp": "c", "javascript": "js", "typescript": "js", "tsx": "js"}

Qrels = dict[str, dict[str, int]]


def step_used_elsewhere(min_other_files: int) -> str:
    return f"used-in-{min_other_files}-other-files"


def step_at_most(max_files: int) -> str:
    return f"used-in-at-most-{max_files}-files"


def family(language: str) -> str:
    return LANGUAGE_FAMILIES.get(language, language)


# ---------------------------------------------------------------- answers


def read_uses(path: str | os.PathLike) -> pd.DataFrame:
    """uses.tsv as a frame of strings (paths still encoded)."""
    return read_tsv_frame(path, USES_COLUMNS)


def use_files(uses: pd.DataFrame, names: Iterable[str]) -> dict[tuple[str, str], list[str]]:
    """(name, language family) -> the sorted encoded paths of the files that use the name,
    for the given names only (the kernel's table has millions of rows)."""
    wanted = uses[uses["symbol"].isin(set(names))]
    frame = pd.DataFrame(
        {
            "symbol": wanted["symbol"].to_numpy(dtype=object),
            "family": [family(lang) for lang in wanted["language"]],
            "path": wanted["path"].to_numpy(dtype=object),
        }
    ).drop_duplicates()
    files: dict[tuple[str, str], list[str]] = {}
    for name, fam, path in frame.itertuples(index=False):
        files.setdefault((name, fam), []).append(path)
    return {key: sorted(paths, key=_path_key) for key, paths in files.items()}


def _path_key(path: str) -> bytes:
    return path.encode("utf-8")


def answer_files(
    candidates: pd.DataFrame, files: Mapping[tuple[str, str], list[str]]
) -> list[list[str]]:
    """For each candidate row, the files that use its name in its language family."""
    return [
        list(files.get((name, family(lang)), []))
        for name, lang in zip(candidates["query"], candidates["language"], strict=True)
    ]


def keep_used(
    candidates: pd.DataFrame,
    answers: list[list[str]],
    min_other_files: int,
    max_files: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(used in >= min_other_files files besides the declaring one, and that and at most
    max_files files with a use) as two boolean masks over the candidates."""
    others = np.array(
        [len(set(a) - {p}) for a, p in zip(answers, candidates["path"], strict=True)], np.int64
    )
    totals = np.array([len(a) for a in answers], np.int64)
    elsewhere = others >= min_other_files
    return elsewhere, elsewhere & (totals <= max_files)


# ---------------------------------------------------------------- the whole step


@dataclass(frozen=True)
class UsageSample:
    funnel: Funnel
    sample: pd.DataFrame  # QUERY_COLUMNS
    qrels: Qrels


def select_usage_queries(
    symbols: pd.DataFrame,
    unseen: pd.DataFrame,
    uses: pd.DataFrame,
    root: str | os.PathLike,
    *,
    min_length: int,
    n: int | str,
    seed: int,
    corpus: str,
    min_other_files: int = MIN_OTHER_FILES,
    max_files: int = MAX_FILES,
    unseen_tokens: Callable[[], set[bytes]] | None = None,
) -> UsageSample:
    """Funnel (the code track's steps, then used-elsewhere, at-most, sampled), the numbered
    sample (qid `{corpus}-usage-{NNNN}`; kind, path and line are the declaration's) and the
    qrels (every file with a use, relevance 1)."""
    if min_other_files < 1 or max_files < min_other_files:
        raise BenchError(
            f"usage: min_other_files {min_other_files} and max_files {max_files} must satisfy "
            "1 <= min_other_files <= max_files"
        )
    once = exactly_once(symbols, min_length, IDENTIFIER)
    tokens = unseen_tokens() if unseen_tokens else tokens_in_files(root, unseen["path"])
    unseen_names = names_among(tokens, once[1]["query"])
    funnel, candidates = funnel_and_candidates(symbols, unseen_names, min_length, once)
    answers = answer_files(candidates, use_files(uses, candidates["query"]))
    elsewhere, kept = keep_used(candidates, answers, min_other_files, max_files)
    funnel.append((step_used_elsewhere(min_other_files), int(elsewhere.sum())))
    funnel.append((step_at_most(max_files), int(kept.sum())))
    picked = candidates[kept].reset_index(drop=True)
    by_query = {q: a for q, a, k in zip(candidates["query"], answers, kept, strict=True) if k}
    picked["eligibility"] = [
        f"{label}:used-in-{len(by_query[q])}-files"
        for q, label in zip(picked["query"], picked["eligibility"], strict=True)
    ]
    sample = draw_sample(picked[CANDIDATE_COLUMNS], n, seed, corpus, TRACK)
    check_answer_files(root, sample)
    qrels = {
        qid: dict.fromkeys(by_query[q], 1)
        for qid, q in zip(sample["qid"], sample["query"], strict=True)
    }
    return UsageSample(with_sampled(funnel, sample), sample, qrels)


def qrels_text(qrels: Qrels) -> str:
    return "".join(qrels_lines(qrels, "qrels.txt"))


def write_usage_outputs(result: UsageSample, queries, qrels, funnel) -> None:
    """Render all three first, then write: a bad path leaves no file written."""
    texts = [
        (queries, queries_text(result.sample)),
        (qrels, qrels_text(result.qrels)),
        (funnel, funnel_text(result.funnel)),
    ]
    for path, text in texts:
        write_text(path, text)


# ---------------------------------------------------------------- the GNU Global audit

AUDIT_COLUMNS = [
    "language",
    "reference",
    "queries",
    "audited",
    "exact",
    "exact_share",
    "mean_jaccard",
    "mean_precision",
    "mean_recall",
    "ours_files",
    "global_files",
    "note",
]
# Languages GNU Global 6.6.9 parses with its built-in parser: -r lists every occurrence of a
# defined name that is not its definition (calls, prototypes, reads, pointers taken).
BUILTIN_LANGUAGES = frozenset({"c", "cpp", "java"})
# ... and with its Pygments plug-in (gtags.conf langmap: .py .go .rs .js .ts only), where
# definitions come from ctags and references are every other name token outside comments
# and strings.
PYGMENTS_LANGUAGES = frozenset({"python", "go", "rust", "javascript", "typescript"})
GTAGS_CONF = Path("/etc/gtags/gtags.conf")
NO_REFERENCE = "no reference finder (GNU Global parses no file of this language)"
_GREP_LINE = re.compile(r"^(.*?):(\d+):")
_LINE_NUMBER = re.compile(rb"\d+:")


def reference_kind(language: str, pygments: bool) -> str:
    """builtin, pygments or none: how GNU Global parses files of this language."""
    if language in BUILTIN_LANGUAGES:
        return "builtin"
    if pygments and language in PYGMENTS_LANGUAGES:
        return "pygments"
    return "none"


def pygments_conf(workdir: Path, ctags: str = "/usr/bin/ctags-universal") -> Path | None:
    """A copy of Debian's gtags.conf whose Pygments parser takes definitions from universal
    ctags (the packaged one names ctags-exuberant, which Debian no longer ships); None when
    either is missing."""
    if not GTAGS_CONF.is_file() or not Path(ctags).is_file():
        return None
    text = GTAGS_CONF.read_text(encoding="utf-8").replace("/usr/bin/ctags-exuberant", ctags)
    conf = Path(workdir) / "gtags.conf"
    conf.write_text(text, encoding="utf-8")
    return conf


def audit_sample(qids: Iterable[str], size: int, seed: int) -> list[str]:
    """A sorted, seeded draw of `size` qids (all of them when fewer), in qid order."""
    ordered = sorted(set(qids))
    if size >= len(ordered):
        return ordered
    rng = np.random.default_rng(int(seed))
    return [ordered[i] for i in sorted(rng.choice(len(ordered), size=size, replace=False))]


@dataclass(frozen=True)
class GtagsFiles:
    """What Global is given: the relative paths (bytes, sorted) and the names left out
    (decoded with surrogateescape, sorted), each with the symbol pass's unseen reason."""

    given: list[bytes]
    left_out: list[tuple[str, str]]


def gtags_files(root: str | os.PathLike) -> GtagsFiles:
    """The corpus's regular files below root (no symlink followed or listed), split into
    those whose names Global's file list and the symbol pass can carry and those they
    cannot (symbols.name_problem: not UTF-8, a newline)."""
    base = os.fsencode(root)
    given: list[bytes] = []
    left_out: list[tuple[str, str]] = []
    for top, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in names:
            full = os.path.join(top, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            rel = os.path.relpath(full, base)
            problem = name_problem(os.fsdecode(rel))
            if problem is None:
                given.append(rel)
            else:
                left_out.append((os.fsdecode(rel), problem))
    return GtagsFiles(sorted(given), sorted(left_out))


def build_gtags(
    root: str | os.PathLike,
    dbpath: str | os.PathLike,
    gtags: str = "gtags",
    conf: Path | None = None,
    files: GtagsFiles | None = None,
) -> GtagsFiles:
    """gtags run in root over `files` (default gtags_files(root)), given as its -f list,
    writing GTAGS/GRTAGS/GPATH into dbpath (never into the corpus); with conf, the built-in
    parsers first, the Pygments plug-in for the other languages. Returns the files."""
    files = gtags_files(root) if files is None else files
    listing = Path(dbpath) / "gtags.files.list"
    listing.write_bytes(b"".join(b"./" + rel + b"\n" for rel in files.given))
    argv = [gtags, "--accept-dotfiles", "--skip-symlink", "--skip-unreadable"]
    argv += ["-f", str(listing), str(dbpath)]
    env = dict(os.environ)
    if conf is not None:
        argv[1:1] = ["--gtagslabel=native-pygments"]
        env["GTAGSCONF"] = str(conf)
    proc = subprocess.run(argv, cwd=root, capture_output=True, env=env, check=False)
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.decode("utf-8", "replace").strip().splitlines()[-2:])
        raise BenchError(
            f"gtags failed in {root} (exit {proc.returncode}): {tail}; "
            "rerun with `usage: {audit_sample: 0}` to skip the GNU Global audit"
        )
    return files


def global_files(
    root: str | os.PathLike,
    dbpath: str | os.PathLike,
    name: str,
    binary: str = "global",
    known: frozenset[bytes] | None = None,
) -> set[str]:
    """Encoded paths of the files GNU Global lists for `global -r NAME` (references of a
    defined name); for a name Global has no definition for, `global -s` (its other symbols).
    known: the indexed files (a printed `a:1:b.c:3:` is split at a known path)."""
    env = {
        **os.environ,
        "GTAGSROOT": str(Path(root).resolve()),
        "GTAGSDBPATH": str(dbpath),
        "LC_ALL": "C",
    }
    for flag in ("-r", "-s"):
        argv = [binary, flag, "--literal", "--result=grep", "-e", name]
        proc = subprocess.run(argv, cwd=root, capture_output=True, env=env, check=False)
        if proc.returncode != 0:
            raise BenchError(f"global {flag} {name} failed: {proc.stderr[-300:]!r}")
        paths = parse_global_grep(proc.stdout, known)
        if paths:
            return paths
    return set()


def parse_global_grep(stdout: bytes, known: frozenset[bytes] | None = None) -> set[str]:
    """Encoded paths of `--result=grep` lines (`path:line:text`). With known (the indexed
    relative paths), a line's path is the shortest known one followed by `:N:`, so a name
    holding `:` is read whole; without, the text before the first `:N:`."""
    paths = set()
    for raw in stdout.split(b"\n"):
        path = _printed_path(raw.removeprefix(b"./"), known)
        if path is not None:
            paths.add(encode_path(path))
    return paths


def _printed_path(line: bytes, known: frozenset[bytes] | None) -> bytes | None:
    if known is None:
        found = _GREP_LINE.match(line.decode("utf-8", "surrogateescape"))
        return os.fsencode(found.group(1)) if found else None
    start = 0
    while (cut := line.find(b":", start)) >= 0:
        if line[:cut] in known and _LINE_NUMBER.match(line, cut + 1):
            return line[:cut]
        start = cut + 1
    return None


def set_agreement(ours: set[str], reference: set[str]) -> tuple[float, float, float]:
    """(Jaccard, precision, recall) of our set against the reference (1.0 when both empty)."""
    both = len(ours & reference)
    union = len(ours | reference)
    jaccard = both / union if union else 1.0
    precision = both / len(ours) if ours else 1.0
    recall = both / len(reference) if reference else 1.0
    return jaccard, precision, recall


def reference_agreement(
    root: str | os.PathLike,
    queries: pd.DataFrame,
    qrels: Mapping[str, Mapping[str, int]],
    sample: int,
    seed: int,
    *,
    gtags: str = "gtags",
    binary: str = "global",
    pygments: bool = True,
) -> list[dict]:
    """Per language of the sampled queries: how far our answer sets agree with GNU Global's
    reference finder (`global -r`; precision and recall take Global as the reference).
    Rows of AUDIT_COLUMNS, sorted by language, then `all` (the audited languages pooled). A
    language Global does not parse gets its query count and the note NO_REFERENCE."""
    picked = set(audit_sample(queries["qid"], sample, seed))
    chosen = queries[queries["qid"].isin(picked)]
    scores: dict[str, list[tuple[float, float, float, int, int]]] = {}
    counts: dict[str, int] = {}
    files = GtagsFiles([], [])
    with tempfile.TemporaryDirectory(prefix="searchbench-gtags-") as work:
        conf = pygments_conf(Path(work)) if pygments else None
        kinds = {lang: reference_kind(lang, conf is not None) for lang in chosen["language"]}
        if any(kind != "none" for kind in kinds.values()):
            files = build_gtags(root, work, gtags, conf)
        known = frozenset(files.given)
        rows = zip(chosen["qid"], chosen["query"], chosen["language"], strict=True)
        for qid, name, language in rows:
            counts[language] = counts.get(language, 0) + 1
            if kinds[language] == "none":
                continue
            ours = set(qrels.get(qid, {}))  # docids: encoded paths, as Global's are here
            theirs = global_files(root, work, name, binary, known)
            found = (*set_agreement(ours, theirs), len(ours), len(theirs))
            scores.setdefault(language, []).append(found)
    result = [
        _audit_row(lang, kinds[lang], counts[lang], scores.get(lang, [])) for lang in sorted(counts)
    ]
    pooled = [r for lang in sorted(scores) for r in scores[lang]]
    audited_queries = sum(counts[lang] for lang in scores)
    result.append(_audit_row("all", "-", audited_queries, pooled, note=left_out_note(files)))
    return result


def left_out_note(files: GtagsFiles) -> str:
    """The `all` row's note: the files Global was not given, by reason ("" when none)."""
    reasons: dict[str, int] = {}
    for _, reason in files.left_out:
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return ""
    counts = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
    return f"files not given to Global (unseen.tsv lists them): {counts}"


def _audit_row(
    language: str,
    reference: str,
    queries: int,
    scores: list[tuple[float, float, float, int, int]],
    note: str | None = None,
) -> dict:
    if not scores:
        return {
            "language": language,
            "reference": reference,
            "queries": queries,
            "audited": 0,
            "exact": 0,
            "exact_share": float("nan"),
            "mean_jaccard": float("nan"),
            "mean_precision": float("nan"),
            "mean_recall": float("nan"),
            "ours_files": 0,
            "global_files": 0,
            "note": NO_REFERENCE if note is None else note,
        }
    array = np.array(scores, dtype=float)
    exact = int((array[:, 0] == 1.0).sum())
    return {
        "language": language,
        "reference": reference,
        "queries": queries,
        "audited": len(scores),
        "exact": exact,
        "exact_share": exact / len(scores),
        "mean_jaccard": float(array[:, 0].mean()),
        "mean_precision": float(array[:, 1].mean()),
        "mean_recall": float(array[:, 2].mean()),
        "ours_files": int(array[:, 3].sum()),
        "global_files": int(array[:, 4].sum()),
        "note": "" if note is None else note,
    }


def audit_text(rows: list[dict]) -> str:
    """The audit rows as TSV (floats %.17g, as every artifact)."""
    return artifacts.tsv_text(AUDIT_COLUMNS, ([row[c] for c in AUDIT_COLUMNS] for row in rows))
