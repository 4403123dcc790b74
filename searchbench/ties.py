"""Why tools tie: for every pair of tools, how often their answers agree and, where the rank
of the answer differs, what in the artifacts made it differ (results/{corpus}/{track}/ties.tsv).

Per query and unordered pair (a, b), from the run files, qrels, scores.tsv and each tool's
file set (filesets/{tool}.txt, its own listing of what it searches):

- identical_order: the two run lists are equal (both empty included).
- identical_rank: the scored rank of the first right file is equal (both 0, not found or
  failed, included). Equal lists give equal ranks unless exactly one tool failed.
- otherwise exactly one cause, the first of CAUSES (their precedence) that applies:

  tool_failed   one tool's status is error or timeout: scoring counts it as not found
                whatever it printed, so its list says nothing about the rank.
  file_skipped  a deciding file (below) is absent from the other tool's output and from its
                file set: that tool never searches it (hidden, ignored, binary, language).
  match_rule    a deciding file is absent from the other tool's output although its file set
                holds it: the tool searched it and did not print it (word or case rule, a
                structural pattern, an encoding it cannot match).
  other         a deciding file is absent from the output of a tool that cannot list what it
                searches (no list_files_argv, e.g. ctags): skip and match rule look alike.
  order         every deciding file is printed by both tools, only on different sides of the
                answer: walk order, sort order or ranking.

Deciding files: when both tools found an answer, the files of each tool's list up to and
including its answer that are not among the other's (the symmetric difference of the two
windows; it is never empty, since the windows' sizes are the two ranks). When only one
tool found an answer, its answer alone: the other printed no right file at all. Each
deciding file is judged from the tool that lacks it in its window; the query takes the cause
of highest precedence among its files, so a set difference wins over an order difference.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from pathlib import Path

from searchbench.artifacts import tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.measures import first_rank
from searchbench.metrics import read_scores, relevant_docids
from searchbench.statuses import FAILED_STATUSES
from searchbench.trec import read_qrels, read_run

TOOL_FAILED = "tool_failed"
FILE_SKIPPED = "file_skipped"
MATCH_RULE = "match_rule"
OTHER = "other"
ORDER = "order"
# In precedence order: the first that applies to a query is its cause.
CAUSES = (TOOL_FAILED, FILE_SKIPPED, MATCH_RULE, OTHER, ORDER)
NO_EXAMPLE = "-"

COLUMNS = (
    "corpus",
    "track",
    "tool_a",
    "tool_b",
    "queries",
    "identical_order",
    "identical_rank",
    *CAUSES,
    *(f"example_{cause}" for cause in CAUSES),
)

Fileset = frozenset[str] | None  # encoded paths; None: the tool cannot list what it searches
Score = tuple[str, int]  # (status, rank) of one query, as scores.tsv has it
Scored = Mapping[str, Score]  # qid -> its Score


def absence_cause(docid: str, printed_by_other: frozenset[str], other_fileset: Fileset) -> str:
    """Why a file is missing from the other tool's window (judged from that other tool)."""
    if docid in printed_by_other:
        return ORDER
    if other_fileset is None:
        return OTHER
    if docid not in other_fileset:
        return FILE_SKIPPED
    return MATCH_RULE


def deciding_causes(
    ranked_a: Sequence[str],
    ranked_b: Sequence[str],
    rank_a: int,
    rank_b: int,
    fileset_a: Fileset,
    fileset_b: Fileset,
) -> set[str]:
    """The cause of each deciding file of a query whose (non-failed) ranks differ."""
    printed_a, printed_b = frozenset(ranked_a), frozenset(ranked_b)
    if not rank_a or not rank_b:
        # Only one found: the other never printed the finder's answer.
        if rank_a:
            return {absence_cause(ranked_a[rank_a - 1], printed_b, fileset_b)}
        return {absence_cause(ranked_b[rank_b - 1], printed_a, fileset_a)}
    window_a, window_b = frozenset(ranked_a[:rank_a]), frozenset(ranked_b[:rank_b])
    causes = {absence_cause(d, printed_b, fileset_b) for d in window_a - window_b}
    causes |= {absence_cause(d, printed_a, fileset_a) for d in window_b - window_a}
    return causes


def first_by_precedence(causes: Iterable[str]) -> str:
    found = set(causes)
    for cause in CAUSES:
        if cause in found:
            return cause
    raise AssertionError(f"no cause among {sorted(found)}")  # deciding files are never empty


def query_cause(
    ranked_a: Sequence[str],
    ranked_b: Sequence[str],
    scored_a: Score,
    scored_b: Score,
    fileset_a: Fileset,
    fileset_b: Fileset,
) -> str | None:
    """The cause of a differing rank; None when the two ranks are equal."""
    (status_a, rank_a), (status_b, rank_b) = scored_a, scored_b
    if rank_a == rank_b:
        return None
    if status_a in FAILED_STATUSES or status_b in FAILED_STATUSES:
        return TOOL_FAILED
    causes = deciding_causes(ranked_a, ranked_b, rank_a, rank_b, fileset_a, fileset_b)
    return first_by_precedence(causes)


def checked_rank(
    tool: str, qid: str, ranked: Sequence[str], relevant: frozenset[str], scored: Scored
) -> Score:
    """(status, rank) as scored; a rank the run and qrels do not give means stale inputs."""
    if qid not in scored:
        raise BenchError(f"scores.tsv has no row for tool {tool!r}, query {qid!r}; rerun score")
    status, rank = scored[qid]
    expected = 0 if status in FAILED_STATUSES else first_rank(ranked, relevant)
    if rank != expected:
        raise BenchError(
            f"{tool} {qid}: scores.tsv says rank {rank} but the run and qrels give {expected}; "
            "the inputs come from different runs: rerun score"
        )
    return status, rank


def pair_row(
    corpus: str,
    track: str,
    pair: tuple[str, str],
    queries: Sequence[str],
    lists: Mapping[str, Mapping[str, Sequence[str]]],
    scored: Mapping[str, Mapping[str, Score]],
    filesets: Mapping[str, Fileset],
) -> list[str]:
    """One output row: the pair's counts over `queries` and the first qid of each cause."""
    a, b = pair
    same_order = same_rank = 0
    counts = dict.fromkeys(CAUSES, 0)
    examples = dict.fromkeys(CAUSES, NO_EXAMPLE)
    for qid in queries:
        ranked_a, ranked_b = lists[a][qid], lists[b][qid]
        same_order += ranked_a == ranked_b
        cause = query_cause(
            ranked_a, ranked_b, scored[a][qid], scored[b][qid], filesets[a], filesets[b]
        )
        if cause is None:
            same_rank += 1
            continue
        counts[cause] += 1
        if examples[cause] == NO_EXAMPLE:
            examples[cause] = qid  # queries are sorted: the first by qid
    return [
        corpus,
        track,
        a,
        b,
        str(len(queries)),
        str(same_order),
        str(same_rank),
        *(str(counts[c]) for c in CAUSES),
        *(examples[c] for c in CAUSES),
    ]


def tie_rows(
    corpus: str,
    track: str,
    tools: Sequence[str],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
    scored: Mapping[str, Scored],
    filesets: Mapping[str, Fileset],
) -> list[list[str]]:
    """Every unordered pair of `tools` (names sorted, a < b), over every query of qrels.

    runs: tool -> {qid: docids in rank order} (read_run); scored: tool -> {qid: (status,
    rank)} from scores.tsv; filesets: tool -> encoded paths it searches, None if unlisted.
    """
    names = sorted(set(tools))
    queries = sorted(qrels)
    lists: dict[str, dict[str, Sequence[str]]] = {}
    checked: dict[str, dict[str, Score]] = {}
    for tool in names:
        for what, where in (("run", runs), ("scores", scored), ("file-set entry", filesets)):
            if tool not in where:
                raise BenchError(f"tool {tool!r} has no {what} for {corpus}/{track}")
        stray = sorted(set(runs[tool]) - set(queries))
        if stray:
            raise BenchError(
                f"{tool}'s run for {corpus}/{track} has query {stray[0]!r}, not in qrels; "
                "the run and qrels come from different query sets: rerun the search"
            )
        # Lists, so that equal orders compare equal whatever sequence type the caller gave.
        lists[tool] = {qid: list(runs[tool].get(qid, ())) for qid in queries}
        checked[tool] = {
            qid: checked_rank(
                tool, qid, lists[tool][qid], relevant_docids(qrels, qid), scored[tool]
            )
            for qid in queries
        }
    rows = [
        pair_row(corpus, track, pair, queries, lists, checked, filesets)
        for pair in combinations(names, 2)
    ]
    return sorted(rows)


def scored_by_tool(records: Iterable[tuple[str, str, str, int]]) -> dict[str, dict[str, Score]]:
    """(tool, qid, status, rank) records (scores.tsv rows) as tool -> {qid: (status, rank)}."""
    out: dict[str, dict[str, Score]] = {}
    for tool, qid, status, rank in records:
        out.setdefault(tool, {})[qid] = (status, int(rank))
    return out


def read_fileset(path: str | os.PathLike) -> frozenset[str]:
    """A tool's listing (filesets/{tool}.txt: encoded paths, one a line, as the audit reads it)."""
    return frozenset(line for line in Path(path).read_text().splitlines() if line)


def ties_from_files(
    corpus: str,
    track: str,
    runs: Mapping[str, str | os.PathLike],
    qrels: str | os.PathLike,
    scores: str | os.PathLike,
    listings: Mapping[str, str | os.PathLike],
) -> list[list[str]]:
    """tie_rows from the artifacts: runs per tool, and listings per tool that has one (a tool
    without, such as ctags, is judged as unlisted)."""
    frame = read_scores(scores)
    missing = sorted(set(runs) - set(frame["tool"]))
    if missing:
        raise BenchError(f"{scores} has no rows for {', '.join(missing)}; rerun score")
    scored = scored_by_tool(frame[["tool", "qid", "status", "rank"]].itertuples(index=False))
    filesets = {tool: read_fileset(listings[tool]) if tool in listings else None for tool in runs}
    ranked = {tool: read_run(path) for tool, path in runs.items()}
    return tie_rows(corpus, track, list(runs), ranked, read_qrels(qrels), scored, filesets)


def ties_text(rows: Iterable[Sequence[str]]) -> str:
    return tsv_text(COLUMNS, sorted(list(r) for r in rows))


def write_ties(rows: Iterable[Sequence[str]], path: str | os.PathLike) -> None:
    """ties.tsv, atomically: header COLUMNS, rows sorted by (corpus, track, tool_a, tool_b)."""
    write_text(path, ties_text(rows))
