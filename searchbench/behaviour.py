"""The behavioural track's queries and qrels for one corpus, from mined searches
(searchbench.transcripts; docs/behaviour.md).

A mined search becomes a question of this corpus when its repository is one of the corpus's
and its revision is the corpus's; its answers are the files it opened that hold the literal
(bytes) in the corpus checkout. Searches for the same literal are one question whose answers
are the union. The sample is the code track's sorted, seeded draw (sampling.draw_sample),
written by the code track's writers, with every answer in the qrels (relevance 1).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import pandas as pd

from searchbench.artifacts import write_text
from searchbench.errors import BenchError
from searchbench.fileset import read_files_tsv
from searchbench.paths import encode_path
from searchbench.sampling import (
    CANDIDATE_COLUMNS,
    QUERY_COLUMNS,
    draw_sample,
    funnel_text,
    queries_text,
)
from searchbench.transcripts import MinedSearch
from searchbench.trec import qrels_lines

TRACK = "behaviour"
KIND = "behaviour"

STEP_MINED = "mined-searches"
STEP_REPOSITORY = "this-repository"
STEP_REVISION = "this-revision"
STEP_MIN_LENGTH = "min-length"
STEP_CONTAINS = "answer-holds-literal"
STEP_DISTINCT = "distinct-queries"
STEP_SAMPLED = "sampled"

Funnel = list[tuple[str, int]]
Qrels = dict[str, dict[str, int]]


def languages_from_files_tsv(path: str | os.PathLike) -> Callable[[str], str]:
    """language_of for behaviour_queries: a path's language in the corpus's files.tsv
    (`-` for a path it does not list)."""
    table = {entry.path: entry.language for entry in read_files_tsv(Path(path))}
    return lambda relpath: table.get(relpath, "-")


class _Checkout:
    """Reads answer files once each: is it a regular file at the root, and where is a literal."""

    def __init__(self, root: Path):
        self.base = os.fsencode(root)
        self.cache: dict[str, bytes | None] = {}

    def data(self, relpath: str) -> bytes | None:
        if relpath not in self.cache:
            full = os.path.join(self.base, os.fsencode(relpath))
            try:
                info = os.lstat(full)
                self.cache[relpath] = (
                    Path(os.fsdecode(full)).read_bytes() if stat.S_ISREG(info.st_mode) else None
                )
            except OSError:
                self.cache[relpath] = None
        return self.cache[relpath]

    def line_of(self, relpath: str, literal: bytes) -> int | None:
        """1-based line of the literal's first occurrence in the file, None if absent."""
        data = self.data(relpath)
        if data is None:
            return None
        at = data.find(literal)
        return None if at < 0 else data.count(b"\n", 0, at) + 1


def searched_revision(configured: str, corpus_record: dict) -> str:
    """The revision a corpus's searches must have been made at: the one its config names, else
    what was fetched (corpus.json's resolved revision, a full commit for git sources)."""
    if configured:
        return configured
    resolved = corpus_record.get("resolved_revision")
    if not isinstance(resolved, str) or not resolved:
        raise BenchError(
            "corpus.json has no resolved_revision; rerun fetch_corpus or set the corpus's "
            "behaviour.revision"
        )
    return resolved


def behaviour_queries(
    mined: Sequence[MinedSearch],
    corpus: str,
    root: Path,
    repositories: Collection[str],
    revision: str,
    n: int | str,
    seed: int,
    min_length: int,
    *,
    language_of: Callable[[str], str],
) -> tuple[list[dict], Qrels, Funnel]:
    """(queries rows with QUERY_COLUMNS, qrels {qid: {docid: 1}}, funnel [(step, count)]).

    The funnel counts what is left after each step (as the code track's does): mined
    searches, of this corpus's repositories, at its revision, at least min_length
    characters, with an answer holding the literal at `root`, distinct queries (searches for
    the same literal merged), sampled. language_of: a corpus path's language
    (languages_from_files_tsv)."""
    if not Path(root).is_dir():
        raise BenchError(f"corpus root {root} is not a folder: fetch the corpus first")
    wanted = set(repositories)
    rows = list(mined)
    funnel: Funnel = [(STEP_MINED, len(rows))]
    rows = [r for r in rows if r.repository in wanted]
    funnel.append((STEP_REPOSITORY, len(rows)))
    rows = [r for r in rows if r.revision == revision]
    funnel.append((STEP_REVISION, len(rows)))
    rows = [r for r in rows if len(r.query) >= min_length]
    funnel.append((STEP_MIN_LENGTH, len(rows)))
    checkout = _Checkout(Path(root))
    # query -> (answers in order, searches merged); rows come sorted, so this is too.
    questions: dict[str, tuple[list[str], int]] = {}
    kept = 0
    for row in sorted(rows, key=_row_key):
        literal = row.query.encode("utf-8", "surrogateescape")
        answers = [p for p in row.opened if checkout.line_of(p, literal) is not None]
        if not answers:
            continue
        kept += 1
        known, searches = questions.get(row.query, ([], 0))
        questions[row.query] = (known + [p for p in answers if p not in known], searches + 1)
    funnel.append((STEP_CONTAINS, kept))
    funnel.append((STEP_DISTINCT, len(questions)))
    candidates = _candidates(questions, checkout, language_of)
    sample = draw_sample(candidates, n, seed, corpus, TRACK)
    funnel.append((STEP_SAMPLED, len(sample)))
    qrels: Qrels = {
        qid: {encode_path(p): 1 for p in questions[query][0]}
        for qid, query in zip(sample["qid"], sample["query"], strict=True)
    }
    return sample[QUERY_COLUMNS].to_dict("records"), qrels, funnel


def _row_key(row: MinedSearch) -> tuple:
    enc = lambda s: s.encode("utf-8", "surrogateescape")  # noqa: E731
    return (enc(row.query), row.source, tuple(enc(p) for p in row.opened), enc(row.repository))


def _candidates(
    questions: dict[str, tuple[list[str], int]],
    checkout: _Checkout,
    language_of: Callable[[str], str],
) -> pd.DataFrame:
    records = []
    for query, (answers, searches) in questions.items():
        first = answers[0]
        line = checkout.line_of(first, query.encode("utf-8", "surrogateescape"))
        records.append(
            {
                "query": query,
                "language": language_of(first),
                "kind": KIND,
                "path": encode_path(first),
                "line": str(line),
                "eligibility": f"behaviour:{searches}-searches:{len(answers)}-answers",
            }
        )
    return pd.DataFrame(records, columns=CANDIDATE_COLUMNS, dtype=str)


def outputs_text(rows: list[dict], qrels: Qrels, funnel: Funnel) -> tuple[str, str, str]:
    """queries.tsv, qrels.txt and funnel.tsv, rendered by the code track's writers."""
    frame = pd.DataFrame(rows, columns=QUERY_COLUMNS, dtype=str)
    return queries_text(frame), "".join(qrels_lines(qrels, "qrels.txt")), funnel_text(funnel)


def write_behaviour_outputs(
    rows: list[dict],
    qrels: Qrels,
    funnel: Funnel,
    queries: str | os.PathLike,
    qrels_path: str | os.PathLike,
    funnel_path: str | os.PathLike,
) -> None:
    """Render all three first, then write: a bad field leaves no file written."""
    texts = zip((queries, qrels_path, funnel_path), outputs_text(rows, qrels, funnel), strict=True)
    for path, text in list(texts):
        write_text(path, text)
