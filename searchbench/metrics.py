"""Per-query scores of a ranked list of files against the files that declare the symbol.

Relevance is binary: a docid is right when its qrels relevance is > 0. The measures and their
definitions are declared once, in searchbench.measures; this module applies them to runs and
reads and writes scores.tsv.
"""

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from searchbench.artifacts import read_tsv_frame, tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.measures import (  # noqa: F401 - re-exported: the per-query functions
    MEASURES,
    METRICS,
    first_rank,
    ndcg_at,
    recall_at,
    reciprocal_rank,
    success_at,
)
from searchbench.raw_io import read_raw_records  # noqa: F401 - re-exported for its readers
from searchbench.statuses import (  # noqa: F401 - re-exported: the statistics import them here
    FAILED_STATUSES,
    NOT_APPLICABLE,
    STATUSES,
    STOPPED,
    UNSCORED_STATUSES,
)

SCORE_COLUMNS = (
    "qid",
    "tool",
    "status",
    "rank",
    *METRICS,
    "returned",
    "lines_before",
    "bytes_before",
    "line_rank",
    "files_containing",
    "trivial",
    "language",
)
FLOAT_COLUMNS = METRICS
INT_COLUMNS = ("rank", "returned", "line_rank", "files_containing")
NULLABLE_INT_COLUMNS = ("lines_before", "bytes_before")


def files_containing(run: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Distinct files per query in a run (the baseline's run counts files holding the query)."""
    return {qid: len(set(docids)) for qid, docids in run.items()}


def relevant_docids(qrels: Mapping[str, Mapping[str, int]], qid: str) -> frozenset[str]:
    """The right docids of one query (relevance > 0)."""
    return frozenset(docid for docid, rel in qrels.get(qid, {}).items() if rel > 0)


def _optional_int(record: Mapping, key: str, where: str) -> int | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BenchError(f"{where}: {key} = {value!r} is not an integer or null")
    return value


def _check_known(
    qid: str,
    where: str,
    qrels: Mapping[str, Mapping[str, int]],
    raw_records: Mapping[str, Mapping],
    files_containing: Mapping[str, int],
) -> None:
    if qid not in qrels:
        raise BenchError(f"{where}: no qrels for this query; regenerate qrels.txt")
    if not relevant_docids(qrels, qid):
        # recall@10 divides by the right files: a query without one is a broken qrels file
        raise BenchError(f"{where}: qrels name no right file for this query; regenerate qrels.txt")
    if qid not in raw_records:
        raise BenchError(f"{where}: no raw record; rerun the search for this tool")
    if qid not in files_containing:
        raise BenchError(f"{where}: files_containing is not known for this query")


def _query_scores(
    record: Mapping, ranked: Sequence[str], relevant: frozenset[str], where: str
) -> dict[str, object]:
    """status, rank, every measure and the cost columns of one query. An error or a timeout
    scores 0 whatever it printed; the cost columns are null when the answer was not printed."""
    status = record.get("status")
    if status not in STATUSES:
        raise BenchError(f"{where}: status {status!r} is not one of {sorted(STATUSES)}")
    lines_before = _optional_int(record, "lines_before_answer", where)
    bytes_before = _optional_int(record, "bytes_before_answer", where)
    line_rank = _optional_int(record, "decl_line_rank", where) or 0
    rank = 0 if status in UNSCORED_STATUSES else first_rank(ranked, relevant)
    scores = {
        m.name: 0.0 if status in UNSCORED_STATUSES else m.score(ranked, relevant) for m in MEASURES
    }
    if rank == 0:
        lines_before = bytes_before = None
        line_rank = 0
    return {
        "status": status,
        "rank": rank,
        **scores,
        "lines_before": lines_before,
        "bytes_before": bytes_before,
        "line_rank": line_rank,
    }


def score_queries(
    queries: Sequence[str],
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[str]],
    raw_records: Mapping[str, Mapping],
    *,
    tool: str,
    files_containing: Mapping[str, int],
    languages: Mapping[str, str],
) -> pd.DataFrame:
    """Score one tool's run: one row per query, columns SCORE_COLUMNS, sorted by qid.

    A query whose raw status is error, timeout or stopped scores 0 (rank 0, line_rank 0) whatever it
    printed, and keeps its status. lines_before / bytes_before are the raw record's
    lines_before_answer / bytes_before_answer, None (an empty TSV field) when the answer was
    not printed; line_rank is decl_line_rank, 0 when absent. ``returned`` counts the files in
    the run. trivial = files_containing <= the number of right files (at least 1): every file
    holding the name is a right one, so any tool that lists only such files ranks perfectly
    (with one right file, the name is in one file). language is the query's (the answer file's
    language, from queries.tsv), so results can be read per language.
    """
    query_set = set(queries)
    for qid in run:
        if qid not in query_set:
            raise BenchError(f"run of tool {tool!r} has qid {qid!r} that is not a query; rerun it")
    rows = []
    for qid in sorted(query_set):
        where = f"tool {tool!r}, qid {qid!r}"
        _check_known(qid, where, qrels, raw_records, files_containing)
        ranked = list(run.get(qid, ()))
        rows.append(
            {
                "qid": qid,
                "tool": tool,
                **_query_scores(raw_records[qid], ranked, relevant_docids(qrels, qid), where),
                "returned": len(ranked),
                "files_containing": int(files_containing[qid]),
                "trivial": int(files_containing[qid]) <= max(1, len(relevant_docids(qrels, qid))),
                "language": languages[qid],
            }
        )
    frame = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    for column in NULLABLE_INT_COLUMNS:
        frame[column] = frame[column].astype("Int64")
    return frame


def score_tools(
    queries: Sequence[str],
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    raw_records: Mapping[str, Mapping[str, Mapping]],
    *,
    baseline: str,
    languages: Mapping[str, str],
) -> pd.DataFrame:
    """Score every tool; files_containing comes from the baseline's run. Sorted (tool, qid).
    ``languages`` gives each query's language (queries.tsv)."""
    if baseline not in runs:
        raise BenchError(
            f"baseline tool {baseline!r} has no run (tools: {sorted(runs)}); "
            "set 'baseline' in config/config.yaml to an available tool"
        )
    missing = sorted(set(runs) ^ set(raw_records))
    if missing:
        raise BenchError(f"tools {missing} have a run but no raw records, or the reverse")
    counts = files_containing(runs[baseline])
    counts = {qid: counts.get(qid, 0) for qid in queries}
    unnamed = sorted(set(queries) - set(languages))
    if unnamed:
        raise BenchError(f"queries {unnamed[:3]} have no language; rerun the queries rule")
    frames = [
        score_queries(
            queries,
            qrels,
            runs[tool],
            raw_records[tool],
            tool=tool,
            files_containing=counts,
            languages=languages,
        )
        for tool in sorted(runs)
    ]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return sort_scores(frame)


def sort_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted by (tool, qid), columns in SCORE_COLUMNS order."""
    return frame.sort_values(["tool", "qid"], kind="mergesort").reset_index(drop=True)[
        list(SCORE_COLUMNS)
    ]


def _cell(column: str, value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        if column in NULLABLE_INT_COLUMNS:
            return ""
        raise BenchError(f"scores column {column!r} has a missing value")
    if column == "trivial":
        return "true" if bool(value) else "false"
    if column in FLOAT_COLUMNS:
        return f"{float(value):.17g}"
    if column in INT_COLUMNS or column in NULLABLE_INT_COLUMNS:
        return str(int(value))
    text = str(value)
    if "\t" in text or "\n" in text:
        raise BenchError(f"scores column {column!r} value {text!r} contains a tab or newline")
    return text


def scores_text(frame: pd.DataFrame) -> str:
    """scores.tsv content: header, rows sorted by (tool, qid), floats as %.17g."""
    frame = sort_scores(frame)
    rows = frame[list(SCORE_COLUMNS)].itertuples(index=False)
    return tsv_text(
        SCORE_COLUMNS, ([_cell(c, v) for c, v in zip(SCORE_COLUMNS, r, strict=True)] for r in rows)
    )


def write_scores(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write scores.tsv atomically."""
    write_text(path, scores_text(frame))


def damaged_scores_line(path: str | os.PathLike, what: str) -> str:
    """One line for a scores.tsv that is not what the score rule wrote, and how to remake it."""
    return (
        f"{path} is truncated or damaged ({what}); delete it and rerun snakemake, which "
        "rewrites it (rule score)"
    )


def _scores_ending_problem(path: str | os.PathLike) -> str | None:
    """write_scores ends the file with a newline: an empty file or one ending mid-line was
    cut while being copied or edited."""
    path = Path(path)
    if not path.is_file():
        return None  # tsv_rows names the missing file
    size = path.stat().st_size
    if size == 0:
        return "it is empty"
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        if handle.read(1) != b"\n":
            return "its last line is cut short"
    return None


def _scores_grid_problem(frame: pd.DataFrame) -> str | None:
    """The score rule writes one row per query for every tool: no rows, or a tool with fewer
    queries than another, is a file cut short."""
    if frame.empty:
        return "it has a header and no rows"
    queries = frame.groupby("tool", sort=True)["qid"].agg(frozenset)
    every = frozenset().union(*queries)
    for tool, qids in queries.items():
        if qids != every:
            return f"tool {tool} has {len(qids)} of the {len(every)} queries"
    return None


def check_scored_tools(frame: pd.DataFrame, path: str | os.PathLike, tools: Sequence[str]) -> None:
    """The tools the score rule scored for this track must all have rows: a file cut at a
    row boundary loses the last tools (rows are sorted by tool) and would read as a run
    without them, or as a missing baseline."""
    missing = sorted(set(tools) - set(frame["tool"]))
    if missing:
        raise BenchError(damaged_scores_line(path, f"no rows of {', '.join(missing)}"))


def read_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Read scores.tsv with explicit types (qid/tool/status as text, never as NaN); a file
    cut short (empty, ending mid-line, a tool with fewer queries) stops with one line."""
    ending = _scores_ending_problem(path)
    if ending:
        raise BenchError(damaged_scores_line(path, ending))
    frame = read_tsv_frame(path, SCORE_COLUMNS)
    grid = _scores_grid_problem(frame)
    if grid:
        raise BenchError(damaged_scores_line(path, grid))
    for column in FLOAT_COLUMNS:
        frame[column] = frame[column].astype(float)
    for column in INT_COLUMNS:
        frame[column] = frame[column].astype(int)
    for column in NULLABLE_INT_COLUMNS:
        frame[column] = pd.array(
            [None if v == "" else int(v) for v in frame[column]], dtype="Int64"
        )
    bad = sorted(set(frame["trivial"]) - {"true", "false"})
    if bad:
        raise BenchError(f"{path}: column trivial has values {bad}, expected true or false")
    frame["trivial"] = frame["trivial"] == "true"
    return frame
