"""From a symbol table to a deterministic query sample with TREC qrels (docs/method.md §2, §8).

A query is a name that the parser saw declared in exactly one file. Names declared in two
or more files have no single right answer and are dropped, never guessed. Names that occur
in a file the parser did not see (unseen.tsv) might be declared there, so they are dropped
too. The sample is drawn from candidates sorted by name, so it does not depend on the order
of the rows it came from: a fixed seed over an unordered list is not deterministic
(docs/method.md §8).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from searchbench import artifacts
from searchbench.artifacts import read_tsv_frame, write_text
from searchbench.errors import BenchError
from searchbench.paths import decode_path, encode_path
from searchbench.queries_io import CANDIDATE_COLUMNS, QUERY_COLUMNS
from searchbench.symbols import SYMBOL_COLUMNS, UNSEEN_COLUMNS, names_among, tokens_in_files
from searchbench.trec import qrels_lines

FUNNEL_COLUMNS = ["step", "count"]
# Unicode letters count (größe_berechnen is a name a user searches for); `$` is a letter in
# JavaScript and PHP. Operators (`operator==`) and other non-names are dropped.
IDENTIFIER = r"(?:[^\W\d][\w$]*|\$[\w$]*)"

STEP_DECLARATIONS = "declarations"
STEP_DISTINCT = "distinct-names"
STEP_IDENTIFIER = "identifier-shaped"
STEP_MIN_LENGTH = "min-length"
STEP_ONE_FILE = "declared-in-one-file"
STEP_KIND = "kind-allowed"
STEP_NOT_UNSEEN = "not-in-unseen-files"
STEP_SAMPLED = "sampled"

Funnel = list[tuple[str, int]]


# ---------------------------------------------------------------- reading


def read_symbols(path: str | os.PathLike) -> pd.DataFrame:
    return read_tsv_frame(path, SYMBOL_COLUMNS)


def read_unseen(path: str | os.PathLike) -> pd.DataFrame:
    return read_tsv_frame(path, UNSEEN_COLUMNS)


# ---------------------------------------------------------------- selection


def exactly_once(
    symbols: pd.DataFrame, min_length: int, shape: str = IDENTIFIER
) -> tuple[Funnel, pd.DataFrame]:
    """Names that are identifiers of at least min_length characters and are declared in exactly
    one file (several declarations in that one file, e.g. overloads, still count as one;
    the first line is the answer line). Returns the funnel so far and the candidates.

    Vectorised over runs of equal names (symbols.tsv is sorted by name; other input is
    sorted first): the kernel's 4.2 M declarations took minutes through pandas groupby on
    string columns and 16 s in a Python loop."""
    frame = _by_symbol(symbols)
    names = frame["symbol"].to_numpy(dtype=object)
    paths = frame["path"].to_numpy(dtype=object)
    starts = _run_starts(names)
    counts = np.diff(np.append(starts, len(names)))
    distinct = names[starts]
    shaped = _identifier_mask(distinct, shape)
    looks = shaped & (_lengths(distinct) >= min_length)
    owner = np.repeat(np.arange(len(starts)), counts)
    other_file = paths != paths[starts][owner] if len(names) else np.zeros(0, bool)
    several_files = np.logical_or.reduceat(other_file, starts) if len(starts) else np.zeros(0, bool)
    funnel: Funnel = [
        (STEP_DECLARATIONS, len(symbols)),
        (STEP_DISTINCT, len(distinct)),
        (STEP_IDENTIFIER, int(shaped.sum())),
        (STEP_MIN_LENGTH, int(looks.sum())),
    ]
    groups = np.flatnonzero(looks & ~several_files)
    columns = {c: frame[c].to_numpy(dtype=object) for c in ("kind", "language", "line", "rule")}
    first = starts[groups]
    for i in np.flatnonzero(counts[groups] > 1):  # overloads: few
        first[i] = _first_declaration(columns, int(first[i]), int(counts[groups[i]]))
    once = distinct[groups].tolist()
    decls = counts[groups]
    labels = {int(c): f"exactly-once:1-file:{c}-decls" for c in np.unique(decls)}
    candidates = pd.DataFrame(
        {
            "query": once,
            "language": columns["language"][first].tolist(),
            "kind": columns["kind"][first].tolist(),
            "path": paths[first].tolist(),
            "line": columns["line"][first].astype(np.int64).astype(str).tolist(),
            "eligibility": [labels[c] for c in decls.tolist()],
        },
        columns=CANDIDATE_COLUMNS,
    )
    # Already in byte order: the rows are sorted by name, and UTF-8 keeps code-point order.
    funnel.append((STEP_ONE_FILE, len(candidates)))
    return funnel, candidates


def _lengths(names: np.ndarray) -> np.ndarray:
    return np.fromiter(map(len, names), np.int64, len(names))


def _identifier_mask(names: np.ndarray, shape: str = IDENTIFIER) -> np.ndarray:
    """Which names are identifiers: one regex pass over all the names joined by newlines (a
    name holds none), rather than a call per name."""
    if len(names) == 0:
        return np.zeros(0, dtype=bool)
    joined = "\n".join(names.tolist())
    ends = np.cumsum(_lengths(names) + 1)
    shaped = re.compile(rf"^(?:{shape})$", re.MULTILINE)
    mask = np.zeros(len(names), dtype=bool)
    starts = np.fromiter((m.start() for m in shaped.finditer(joined)), np.int64)
    mask[np.searchsorted(ends, starts, side="right")] = True
    return mask


def _by_symbol(symbols: pd.DataFrame) -> pd.DataFrame:
    names = symbols["symbol"].to_numpy(dtype=object)
    if len(names) < 2 or bool((names[1:] >= names[:-1]).all()):
        return symbols
    return symbols.sort_values("symbol", kind="mergesort")


def _run_starts(values: np.ndarray) -> np.ndarray:
    """Indices where a run of equal values begins."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))


def _first_declaration(columns: dict[str, np.ndarray], start: int, count: int) -> int:
    """The row of the lowest line (then kind, language, rule) among one name's rows."""
    rows = range(start, start + count)
    return min(
        rows,
        key=lambda i: (
            int(columns["line"][i]),
            columns["kind"][i],
            columns["language"][i],
            columns["rule"][i],
        ),
    )


def funnel_and_candidates(
    symbols: pd.DataFrame,
    unseen_names: Iterable[str],
    min_length: int,
    once: tuple[Funnel, pd.DataFrame] | None = None,
) -> tuple[Funnel, pd.DataFrame]:
    """The funnel (every step but `sampled`) and the candidate queries, sorted by query.

    unseen_names: names that occur as whole identifiers in a file the parser did not see.
    once: exactly_once(symbols, min_length), when the caller has it already."""
    funnel, candidates = once if once is not None else exactly_once(symbols, min_length)
    funnel = list(funnel)
    unseen = set(unseen_names)
    candidates = candidates[~candidates["query"].isin(unseen)].reset_index(drop=True)
    funnel.append((STEP_NOT_UNSEEN, len(candidates)))
    return funnel, candidates


def _sort_by_query(frame: pd.DataFrame) -> pd.DataFrame:
    """Sort by query in byte order (UTF-8), independent of locale and input order."""
    keys: list = frame["query"].tolist()
    if not all(key.isascii() for key in keys):
        keys = [key.encode("utf-8") for key in keys]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return frame.iloc[order].reset_index(drop=True)


def parse_n(n: int | str) -> int | None:
    """`all` -> None (take every candidate), a positive int -> itself."""
    if isinstance(n, str) and n.strip().lower() == "all":
        return None
    try:
        value = int(n)
    except (TypeError, ValueError):
        value = 0
    if value < 1 or (isinstance(n, float) and n != value):
        raise BenchError(f"queries_per_corpus is {n!r}; set it to a positive integer or `all`")
    return value


def draw_sample(
    candidates: pd.DataFrame, n: int | str, seed: int, corpus: str, track: str = "code"
) -> pd.DataFrame:
    """Sort candidates by name, draw min(n, len) of them without replacement with
    numpy's default_rng(seed), order the sample by query and number it from 1."""
    ordered = _sort_by_query(candidates)
    size = parse_n(n)
    if size is None or size >= len(ordered):
        picked = ordered
    else:
        rng = np.random.default_rng(int(seed))
        index = rng.choice(len(ordered), size=size, replace=False)
        picked = ordered.iloc[np.sort(index)]
    sample = _sort_by_query(picked)
    sample.insert(0, "qid", [f"{corpus}-{track}-{i:04d}" for i in range(1, len(sample) + 1)])
    return sample[QUERY_COLUMNS]


def with_sampled(funnel: Funnel, sample: pd.DataFrame) -> Funnel:
    return [*funnel, (STEP_SAMPLED, len(sample))]


# ---------------------------------------------------------------- unseen files


def select_queries(
    symbols: pd.DataFrame,
    unseen: pd.DataFrame,
    root: str | os.PathLike,
    *,
    min_length: int,
    n: int | str,
    seed: int,
    corpus: str,
    kinds: Sequence[str] = (),
    unseen_tokens: Callable[[], set[bytes]] | None = None,
    shape: str = IDENTIFIER,
    track: str = "code",
) -> tuple[Funnel, pd.DataFrame]:
    """The whole step: funnel (all six steps) and the numbered sample. With `kinds`, only
    names whose declaration is of one of those kinds are sampled (a seventh step, before
    `sampled`); exactly-once is still decided over every kind of declaration.

    unseen_tokens: the identifier tokens of the unseen files (tokens_in_files), when the
    caller reads them elsewhere meanwhile; called once the candidates are known.
    shape: the regex a query must match whole (the docs track's tokens are not identifiers)."""
    once = exactly_once(symbols, min_length, shape)
    tokens = unseen_tokens() if unseen_tokens else tokens_in_files(root, unseen["path"])
    unseen_names = names_among(tokens, once[1]["query"])
    funnel, candidates = funnel_and_candidates(symbols, unseen_names, min_length, once)
    if kinds:
        candidates = candidates[candidates["kind"].isin(list(kinds))].reset_index(drop=True)
        funnel.append((STEP_KIND, len(candidates)))
    sample = draw_sample(candidates, n, seed, corpus, track)
    check_answer_files(root, sample)
    return with_sampled(funnel, sample), sample


def check_answer_files(root: str | os.PathLike, sample: pd.DataFrame) -> None:
    """Every answer path, decoded once, must be a file under root."""
    base = os.fsencode(root)
    for path in sample["path"]:
        check_docid(path)
        if not os.path.isfile(os.path.join(base, os.fsencode(decode_path(path)))):
            raise BenchError(
                f"answer file {path!r} (from symbols.tsv) is not a file under {root}: "
                "rerun the symbols rule for this corpus (paths are encoded exactly once)"
            )


# ---------------------------------------------------------------- writing


def frame_tsv_text(frame: pd.DataFrame, columns: Sequence[str]) -> str:
    """A frame's `columns` as TSV text (artifacts.tsv_text takes rows, this a frame)."""
    return artifacts.tsv_text(columns, frame[list(columns)].itertuples(index=False))


def check_docid(path: str) -> str:
    """symbols.tsv paths are already encode_path'ed: use them as they are, but verify it
    (an unencoded path with white space does not round-trip; select_queries also checks
    that every answer file exists, which catches a double encoding)."""
    if not path or encode_path(decode_path(path)) != path:
        raise BenchError(
            f"path {path!r} is not an encode_path token; symbols.tsv must hold encoded paths"
        )
    return path


def queries_text(sample: pd.DataFrame) -> str:
    for path in sample["path"]:
        check_docid(path)
    return frame_tsv_text(sample, QUERY_COLUMNS)


def qrels_text(sample: pd.DataFrame) -> str:
    """TREC qrels: `qid 0 docid 1`, one right file per query (searchbench.trec's format)."""
    pairs = zip(sample["qid"], sample["path"], strict=True)
    qrels = {qid: {check_docid(path): 1} for qid, path in pairs}
    return "".join(qrels_lines(qrels, "qrels.txt"))


def funnel_text(funnel: Funnel) -> str:
    return artifacts.tsv_text(FUNNEL_COLUMNS, funnel)


def write_outputs(sample: pd.DataFrame, funnel: Funnel, queries, qrels, funnel_path) -> None:
    """Render all three first, then write: a bad path leaves no file written."""
    texts = [(queries, queries_text(sample)), (qrels, qrels_text(sample))]
    texts.append((funnel_path, funnel_text(funnel)))
    for path, text in texts:
        write_text(path, text)
