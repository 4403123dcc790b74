"""An independent check of the ground truth: does universal-ctags agree with ast-grep?

For every sampled query, the answer is the one file where ast-grep saw the name declared.
We ask universal-ctags (a different parser, written by other people) where it places a
definition of that name, once per corpus, over the files that mention any query name
(ctags can only tag a name in a file that contains it, so this equals a whole-corpus run,
at a fraction of the cost). A query agrees when ctags defines the name in the answer file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from searchbench.artifacts import write_text
from searchbench.errors import BenchError
from searchbench.paths import decode_path, encode_path
from searchbench.sampling import frame_tsv_text

AUDIT_COLUMNS = [
    "qid",
    "query",
    "language",
    "path",
    "ctags_agrees",
    "ctags_paths",
    "ctags_elsewhere",
    "ctags_parses",
]
# parsed: queries whose answer file ctags has a parser for (5.9 has none for Swift, and none
# for .tsx/.mts/.pyi files); agree and contradicted are shares of those, so a language it
# cannot read says "no parser" instead of looking like broken ground truth.
# contradicted: ctags defines the name in another file too, so exactly-once is in doubt
# (a declaration kind our rules miss, e.g. a Rust field or module); goal: share <= 0.5%.
SUMMARY_COLUMNS = [
    "language",
    "queries",
    "parsed",
    "agree",
    "share",
    "contradicted",
    "contradicted_share",
    "note",
]

# Kinds ctags emits that name something without defining it there. C/C++ prototypes and
# extern declarations are off by default; we turn them on only to explain disagreements.
NOT_DEFINITIONS = {
    ("C", "prototype"),
    ("C", "externvar"),
    ("C++", "prototype"),
    ("C++", "externvar"),
    ("Go", "package"),  # the `package net` clause, in every file of the package
    ("Go", "packageName"),  # an imported package's local name
    ("Go", "unknown"),
    ("Go", "anonMember"),  # an embedded field `*resolverConfig` names a type declared elsewhere
    ("Python", "namespace"),  # `import x as name`
    ("Python", "unknown"),  # `from m import name as other`
    ("Rust", "implementation"),  # `impl Name` names a type defined elsewhere
}
# A name declared inside a function or method body is a local (ctags' TypeScript parser tags
# `const config = {...}` in a function as a constant); the symbol pass records declarations at
# module and type level only, which is what one searches a repository for.
LOCAL_SCOPES = {"function", "method"}
# ctags also tags prose, data and build files (reST sections, JSON keys, Make targets): a
# heading or a key named like a symbol is not a definition of it.
NOT_CODE = {
    "Asciidoc",
    "Autoconf",
    "Automake",
    "BibTeX",
    "CSS",
    "DosBatch",
    "HTML",
    "Iniconf",
    "JSON",
    "Make",
    "Man",
    "Markdown",
    "Org",
    "RpmSpec",
    "ReStructuredText",
    "SVG",
    "Tex",
    "XML",
    "Yaml",
}
CTAGS_OPTIONS = [
    "--output-format=json",
    "--fields=+nKlZ",
    "--sort=no",
    "--kinds-C=+px",
    "--kinds-C++=+px",
    "-f",
    "-",
    "-L",
    "-",
]
_FEW_NAMES = 64
_TOKEN = re.compile(rb"[A-Za-z0-9_$]+")


@dataclass(frozen=True)
class Tag:
    name: str
    path: str  # encoded, relative to the corpus root
    line: int
    language: str
    kind: str
    scope_kind: str = ""  # ctags' scopeKind: what the tag is declared inside

    @property
    def defines(self) -> bool:
        return (
            self.language not in NOT_CODE
            and (self.language, self.kind) not in NOT_DEFINITIONS
            and self.scope_kind not in LOCAL_SCOPES
        )


def resolve_ctags(binary: str = "ctags") -> tuple[str, str]:
    """Absolute path and first --version line; refuse anything but Universal Ctags
    (docs/method.md §8: make sure you are holding the thing you measure)."""
    found = shutil.which(binary)
    if found is None:
        raise BenchError(f"`{binary}` not found on PATH; install universal-ctags")
    absolute = os.path.realpath(found)
    out = subprocess.run(
        [absolute, "--version"], capture_output=True, text=True, check=False
    ).stdout
    first = out.splitlines()[0] if out else ""
    if "Universal Ctags" not in first:
        raise BenchError(f"{absolute} is not Universal Ctags ({first!r}); install universal-ctags")
    return absolute, first


def corpus_files(root: str | os.PathLike) -> list[bytes]:
    """Regular files under root (relative, bytes, sorted); symlinks are not followed."""
    base = os.fsencode(root)
    found: list[bytes] = []
    for directory, dirs, files in os.walk(base, followlinks=False):
        dirs.sort()
        for name in files:
            full = os.path.join(directory, name)
            if os.path.isfile(full) and not os.path.islink(full):
                found.append(os.path.relpath(full, base))
    return sorted(found)


def mentioning_files(root: str | os.PathLike, names: Iterable[str]) -> list[bytes]:
    """Files (relative, bytes, sorted) whose bytes contain any of the names."""
    wanted = sorted({n.encode("utf-8") for n in names})
    if not wanted:
        return []
    base = os.fsencode(root)
    token_set = set(wanted)
    hits = []
    for rel in corpus_files(root):
        try:
            with open(os.path.join(base, rel), "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if len(wanted) <= _FEW_NAMES:
            hit = any(name in data for name in wanted)
        else:
            hit = not token_set.isdisjoint(_TOKEN.findall(data))
        if hit:
            hits.append(rel)
    return hits


def run_ctags(
    root: str | os.PathLike, files: list[bytes], names: Iterable[str], ctags: str
) -> list[Tag]:
    """One ctags run over files (relative to root); keep tags whose name is in names."""
    wanted = set(names)
    listable = [f for f in files if b"\n" not in f]
    if not listable:
        return []
    env = {**os.environ, "LC_ALL": "C"}
    proc = subprocess.run(
        [ctags, *CTAGS_OPTIONS],
        # `./`: ctags reads a list line starting with `-` as an option (`--kinds-C=-f`).
        input=b"".join(b"./" + f + b"\n" for f in listable),
        cwd=os.fsencode(root),
        capture_output=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BenchError(f"ctags exited {proc.returncode} in {root}: {err[-1] if err else ''}")
    tags = []
    for raw in proc.stdout.splitlines():
        record = json.loads(raw)
        if record.get("_type") != "tag" or record.get("name") not in wanted:
            continue
        path = os.fsencode(record["path"]) if isinstance(record["path"], str) else b""
        tags.append(
            Tag(
                name=record["name"],
                path=encode_path(path.removeprefix(b"./")),
                line=int(record.get("line", 0)),
                language=record.get("language", ""),
                kind=record.get("kind", ""),
                scope_kind=record.get("scopeKind", ""),
            )
        )
    return sorted(tags, key=lambda t: (t.name, t.path, t.line, t.kind))


def parsed_paths(root: str | os.PathLike, paths: Iterable[str], ctags: str) -> set[str]:
    """The (encoded) paths ctags has a parser for, asked of ctags itself (--print-language)."""
    wanted = sorted({os.fsencode(decode_path(p)) for p in paths})
    listable = [p for p in wanted if b"\n" not in p]
    if not listable:
        return set()
    proc = subprocess.run(
        [ctags, "--print-language", "-L", "-"],
        # `./`: ctags reads a list line starting with `-` as an option.
        input=b"".join(b"./" + p + b"\n" for p in listable),
        cwd=os.fsencode(root),
        capture_output=True,
        env={**os.environ, "LC_ALL": "C"},
        check=False,
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BenchError(f"ctags --print-language exited {proc.returncode} in {root}: {err[-1:]}")
    parsed = set()
    for line in proc.stdout.splitlines():
        path, _, language = line.rpartition(b": ")
        if language.strip() != b"NONE":
            parsed.add(encode_path(path.removeprefix(b"./")))
    return parsed


def ctags_tags(
    root: str | os.PathLike, queries: pd.DataFrame, scope: str = "mentions", ctags: str = "ctags"
) -> list[Tag]:
    """Tags named like a query: scope `mentions` (files containing a query name: complete)
    or `answers` (only the answer files: cheaper, but ctags_paths then lists no other file)."""
    names = set(queries["query"])
    answers = sorted({os.fsencode(decode_path(p)) for p in queries["path"]})
    base = os.fsencode(root)
    for path in answers:
        if not os.path.isfile(os.path.join(base, path)):
            raise BenchError(
                f"answer file {os.fsdecode(path)!r} is not in {root}; rerun the queries rule"
            )
    if scope == "answers":
        files = answers
    elif scope == "mentions":
        files = mentioning_files(root, names)
    else:
        raise BenchError(f"gt_audit scope {scope!r} is unknown; use `mentions` or `answers`")
    return run_ctags(root, files, names, ctags)


def audit(queries: pd.DataFrame, tags: list[Tag], parsed: set[str] | None = None) -> pd.DataFrame:
    """One row per query: does ctags define the name in the answer file, and where.

    parsed: answer paths ctags has a parser for (None: all); for the others agreement is
    `n/a`, not `no`."""
    by_name: dict[str, list[Tag]] = {}
    for tag in tags:
        by_name.setdefault(tag.name, []).append(tag)
    rows = []
    for q in queries.itertuples(index=False):
        defining = sorted({t.path for t in by_name.get(q.query, []) if t.defines})
        parses = parsed is None or q.path in parsed
        rows.append(
            {
                "qid": q.qid,
                "query": q.query,
                "language": q.language,
                "path": q.path,
                "ctags_agrees": ("yes" if q.path in defining else "no") if parses else "n/a",
                "ctags_paths": ",".join(defining) if defining else "-",
                "ctags_elsewhere": "yes" if any(p != q.path for p in defining) else "no",
                "ctags_parses": "yes" if parses else "no",
            }
        )
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


def _share(agree: int, total: int) -> str:
    return "%.17g" % (agree / total) if total else "nan"


def summarize(table: pd.DataFrame) -> pd.DataFrame:
    """Per language (sorted), then `all`: queries, agreeing queries, share."""
    parts = [(lang, table[table["language"] == lang]) for lang in sorted(set(table["language"]))]
    rows = [_summary_row(language, part) for language, part in [*parts, ("all", table)]]
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def _summary_row(language: str, part: pd.DataFrame) -> tuple:
    readable = part[part["ctags_parses"] == "yes"]
    agree = int((readable["ctags_agrees"] == "yes").sum())
    elsewhere = int((readable["ctags_elsewhere"] == "yes").sum())
    total, parsed = len(part), len(readable)
    return (
        language,
        total,
        parsed,
        agree,
        _share(agree, parsed),
        elsewhere,
        _share(elsewhere, parsed),
        no_parser_note(part[part["ctags_parses"] != "yes"]),
    )


def no_parser_note(unparsed: pd.DataFrame) -> str:
    """`no ctags parser for .swift (30 queries)`, or `-` when ctags reads every answer file."""
    if unparsed.empty:
        return "-"
    suffixes = sorted({_suffix(decode_path(p)) for p in unparsed["path"]})
    return f"no ctags parser for {', '.join(suffixes)} ({len(unparsed)} queries)"


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[1] if "." in name.lstrip(".") else name


def reason(query: pd.Series | object, tags: list[Tag]) -> str:
    """Why ctags does not define the query's name in the answer file, in one phrase."""
    path = query.path
    at_answer = [t for t in tags if t.path == path]
    elsewhere = sorted({(t.path, t.kind) for t in tags if t.path != path and t.defines})
    if at_answer:
        kinds = ",".join(sorted({f"{t.kind}@{t.line}" for t in at_answer}))
        return f"ctags-declaration-only ({kinds})"
    if elsewhere:
        where = ",".join(f"{p}:{k}" for p, k in elsewhere[:5])
        return f"ctags-defines-elsewhere ({where})"
    return "ctags-no-tag"


def disagreements(queries: pd.DataFrame, table: pd.DataFrame, tags: list[Tag]) -> list[str]:
    """Log lines: each disagreement with the ast-grep answer and ctags' view of the name."""
    by_name: dict[str, list[Tag]] = {}
    for tag in tags:
        by_name.setdefault(tag.name, []).append(tag)
    lines = []
    merged = queries.merge(table[["qid", "ctags_agrees", "ctags_paths"]], on="qid")
    for q in merged.itertuples(index=False):
        named = by_name.get(q.query, [])
        if q.ctags_agrees == "n/a":
            lines.append(
                f"no-parser\t{q.qid}\t{q.query}\t{q.language}\t{q.kind}\t{q.path}:{q.line}"
                "\tctags has no parser for this file"
            )
        elif q.ctags_agrees == "no":
            lines.append(
                f"disagree\t{q.qid}\t{q.query}\t{q.language}\t{q.kind}\t{q.path}:{q.line}"
                f"\t{reason(q, named)}"
            )
        elif q.ctags_paths != q.path:
            lines.append(
                f"also-elsewhere\t{q.qid}\t{q.query}\t{q.language}\t{q.kind}\t{q.path}:{q.line}"
                f"\tctags defines it in {q.ctags_paths}"
            )
    return lines


def reason_counts(lines: list[str]) -> list[str]:
    """`count language reason` for the disagreement lines, most frequent first."""
    counts: dict[tuple[str, str], int] = {}
    for line in lines:
        fields = line.split("\t")
        if fields[0] == "disagree":
            key = (fields[3], fields[6].split(" ")[0])
            counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [f"reason\t{n}\t{language}\t{why}" for (language, why), n in ranked]


def write_audit(table: pd.DataFrame, summary: pd.DataFrame, audit_path, summary_path) -> None:
    texts = [(audit_path, frame_tsv_text(table, AUDIT_COLUMNS))]
    texts.append((summary_path, frame_tsv_text(summary, SUMMARY_COLUMNS)))
    for path, text in texts:
        write_text(path, text)
