"""Cost to an agent: the bytes and lines it reads before reaching the answer, per tool, beside
MRR, and whether a better rank means less reading (issue: cost to an agent).

A proxy for tokens, not tokens: no tokenizer is run. What is counted is what the search
stage already measured (searchbench/runner.py): the match lines a tool printed, each in one
rendering shared by every tool (``path:line:text\\n``, so a tool's own decoration, headings or
JSON do not count), in the order it printed them.

Per query, the agent reads the tool's output from the top:

- found (scores.tsv rank > 0): it stops at the first line of a right file, so the cost is
  ``bytes_before`` / ``lines_before`` of scores.tsv (the bytes and lines printed before that
  line, the line itself not included);
- not found (rank 0: no match, a wrong-file-only output, an error or a timeout): it reads the
  whole output and still fails, so the cost is every match line printed, the raw record's
  ``bytes`` / ``lines``. That is the runner's own definition of bytes_before_answer when the
  answer never appears, in the same rendering as the found queries' cost. The raw
  ``stdout_bytes`` (the tool's own format) is not used for the cost: beside a found query's
  normalized bytes it would charge a JSON-printing tool (ast-grep prints 4 to 6 times its
  counted bytes) more for failing than for succeeding, for formatting alone. It is reported
  apart, beside the same output in the shared rendering: ``mean_stdout_bytes`` and
  ``mean_output_bytes``, the tool's whole output per query as printed and as counted here.
  Their ratio is how far the proxy understates what the tool's own format makes an agent
  read.

MRR on every track, whatever the track's primary metric (searchbench.design): the cost is
read up to the first right file, the event the reciprocal rank places; nDCG@10 weighs every
right file and has no point at which the agent stops reading.

Per (corpus, track) and tool, one row (COLUMNS): queries, found and not found apart; MRR;
mean and median bytes and lines before the answer over the found queries; mean and median
bytes read over every query (found or not); the whole output per query, counted and as
printed; the share of queries whose bytes read exceed ``budget_bytes`` (10,000 by default: a
typical size at which an agent harness truncates a tool's output; a choice, recorded in
every row); Spearman's rank correlation across queries
between the reciprocal rank and the bytes read, with its p-value (negative: a better rank
costs fewer bytes; near zero: MRR says nothing of the cost); and, the same in every row of
the file, Spearman's correlation across tools between MRR and mean bytes read (does ordering
tools by MRR order them by cost?), over the tools that are not ablation variants.

A correlation is empty when it is undefined: fewer than MIN_PAIRS pairs, or either side
constant (every query at rank 1, say). Rows are sorted by tool; floats are written with
%.17g, so the same inputs give the same bytes.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from scipy.stats import spearmanr

from searchbench.artifacts import tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.metrics import NOT_APPLICABLE

BUDGET_BYTES = 10_000
MIN_PAIRS = 3  # below three pairs a rank correlation is ±1 or undefined, never evidence
SCORE_FIELDS = ("qid", "tool", "status", "rank", "rr", "lines_before", "bytes_before")
RAW_FIELDS = (
    "status",
    "lines",
    "bytes",
    "lines_before_answer",
    "bytes_before_answer",
    "stdout_bytes",
)
COLUMNS = (
    "corpus",
    "track",
    "tool",
    "n",
    "found",
    "not_found",
    "mrr",
    "median_bytes_before",
    "mean_bytes_before",
    "median_lines_before",
    "mean_lines_before",
    "median_bytes_read",
    "mean_bytes_read",
    "mean_lines_read",
    "mean_output_bytes",
    "mean_stdout_bytes",
    "budget_bytes",
    "share_over_budget",
    "rho_rr_bytes",
    "p_rr_bytes",
    "tools_n",
    "tools_rho_mrr_bytes",
    "tools_p_mrr_bytes",
)


@dataclass(frozen=True)
class QueryCost:
    """What one query cost the agent with one tool."""

    qid: str
    rr: float
    found: bool
    bytes_read: int  # before the answer's first line when found; all output otherwise
    lines_read: int
    output_bytes: int  # every match line printed, in the shared rendering
    stdout_bytes: int  # the tool's whole output as printed (its own format)


def _count(record: Mapping[str, Any], key: str, where: str) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BenchError(f"{where}: raw {key} = {value!r} is not a non-negative integer")
    return value


def _nullable(value: Any) -> int | None:
    """A scores.tsv cost cell (Int64, int or text) as an int; None when empty."""
    if value is None or value is pd.NA or value == "":
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return int(value)


def query_cost(score: Mapping[str, Any], record: Mapping[str, Any], where: str) -> QueryCost:
    """The cost of one scored query, from its scores.tsv row and its raw record. A raw record
    that disagrees with the scores (status, or bytes before a found answer) is a stale input."""
    for key in RAW_FIELDS:
        if key != "status":
            _count(record, key, where)
    if record.get("status") != score["status"]:
        raise BenchError(
            f"{where}: raw status {record.get('status')!r} but scored {score['status']!r}; "
            "rerun the score rule"
        )
    rank = int(score["rank"])
    if rank > 0:
        lines, size = _nullable(score["lines_before"]), _nullable(score["bytes_before"])
        if lines is None or size is None:
            raise BenchError(f"{where}: found at rank {rank} but bytes_before is empty")
        if (lines, size) != (record["lines_before_answer"], record["bytes_before_answer"]):
            raise BenchError(
                f"{where}: scores say {size} bytes before the answer, the raw record "
                f"{record['bytes_before_answer']}; rerun the score rule"
            )
    else:
        lines, size = record["lines"], record["bytes"]
    return QueryCost(
        qid=str(score["qid"]),
        rr=float(score["rr"]),
        found=rank > 0,
        bytes_read=size,
        lines_read=lines,
        output_bytes=record["bytes"],
        stdout_bytes=record["stdout_bytes"],
    )


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, float | None]:
    """Spearman's rho and its two-sided p-value; (None, None) when undefined (fewer than
    MIN_PAIRS pairs, or a constant side: scipy would warn and return NaN)."""
    if len(x) != len(y):
        raise BenchError(f"spearman: {len(x)} values against {len(y)}")
    if len(x) < MIN_PAIRS or len(set(x)) < 2 or len(set(y)) < 2:
        return None, None
    result = spearmanr(x, y)
    rho, p = float(result.statistic), float(result.pvalue)
    return (rho if math.isfinite(rho) else None), (p if math.isfinite(p) else None)


def _median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _mean(values: Sequence[float]) -> float | None:
    # math.fsum: the mean does not depend on the order the values are summed in
    return math.fsum(values) / len(values) if values else None


def tool_summary(costs: Sequence[QueryCost], budget_bytes: int) -> dict[str, Any]:
    """The per-tool figures of COLUMNS (all but corpus, track, tool and the across-tools
    correlation) from its queries' costs."""
    found = [c for c in costs if c.found]
    rho, p = spearman([c.rr for c in costs], [float(c.bytes_read) for c in costs])
    over = sum(c.bytes_read > budget_bytes for c in costs)
    return {
        "n": len(costs),
        "found": len(found),
        "not_found": len(costs) - len(found),
        "mrr": _mean([c.rr for c in costs]),
        "median_bytes_before": _median([c.bytes_read for c in found]),
        "mean_bytes_before": _mean([c.bytes_read for c in found]),
        "median_lines_before": _median([c.lines_read for c in found]),
        "mean_lines_before": _mean([c.lines_read for c in found]),
        "median_bytes_read": _median([c.bytes_read for c in costs]),
        "mean_bytes_read": _mean([c.bytes_read for c in costs]),
        "mean_lines_read": _mean([c.lines_read for c in costs]),
        "mean_output_bytes": _mean([c.output_bytes for c in costs]),
        "mean_stdout_bytes": _mean([c.stdout_bytes for c in costs]),
        "budget_bytes": budget_bytes,
        "share_over_budget": over / len(costs) if costs else None,
        "rho_rr_bytes": rho,
        "p_rr_bytes": p,
    }


def tool_costs(
    scores: pd.DataFrame, records: Mapping[str, Mapping[str, Any]], tool: str
) -> list[QueryCost]:
    """Every scored query of one tool, by qid, priced against its raw records."""
    rows = scores[scores["tool"] == tool].to_dict("records")
    if not rows:
        raise BenchError(f"tool {tool!r} has no rows in scores.tsv; rerun the score rule")
    out = []
    # A query outside the tool's languages was never asked: it costs nothing and finds nothing.
    asked = [r for r in rows if r["status"] != NOT_APPLICABLE]
    for row in sorted(asked, key=lambda r: str(r["qid"])):
        where = f"tool {tool!r}, qid {row['qid']!r}"
        if row["qid"] not in records:
            raise BenchError(f"{where}: no raw record; rerun the search for this tool")
        out.append(query_cost(row, records[row["qid"]], where))
    return out


def _check_frame(scores: pd.DataFrame) -> None:
    missing = [c for c in SCORE_FIELDS if c not in scores.columns]
    if missing:
        raise BenchError(f"scores have no column(s) {missing}; read scores.tsv with read_scores")
    pairs = scores[["qid", "tool"]].astype(str)
    if pairs.duplicated().any():
        qid, tool = pairs[pairs.duplicated()].iloc[0]
        raise BenchError(f"scores hold the (qid, tool) pair ({qid!r}, {tool!r}) twice")


def cost_rows(
    scores: pd.DataFrame,
    raw_records_by_tool: Mapping[str, Mapping[str, Mapping[str, Any]]],
    *,
    corpus: str,
    track: str,
    variants: Iterable[str] = (),
    budget_bytes: int = BUDGET_BYTES,
) -> list[dict[str, Any]]:
    """One row per tool of raw_records_by_tool (sorted by name), columns COLUMNS.

    ``scores`` is scores.tsv as searchbench.metrics.read_scores gives it; raw_records_by_tool
    maps each tool to its raw records by qid (metrics.read_raw_records). ``variants`` (the
    ablation variants) keep their rows but stay out of the across-tools correlation: they
    are copies of one tool, not tools an agent would choose between."""
    if budget_bytes <= 0:
        raise BenchError(f"budget_bytes = {budget_bytes} must be a positive number of bytes")
    if not raw_records_by_tool:
        raise BenchError("no tools to price: pass at least one tool's raw records")
    _check_frame(scores)
    rows = []
    for tool in sorted(raw_records_by_tool):
        summary = tool_summary(tool_costs(scores, raw_records_by_tool[tool], tool), budget_bytes)
        rows.append({"corpus": corpus, "track": track, "tool": tool, **summary})
    # The across-tools correlation: one figure per (corpus, track), repeated in each row.
    excluded = set(variants)
    chosen = [r for r in rows if r["tool"] not in excluded and r["mean_bytes_read"] is not None]
    rho, p = spearman([r["mrr"] for r in chosen], [r["mean_bytes_read"] for r in chosen])
    for r in rows:
        r.update(tools_n=len(chosen), tools_rho_mrr_bytes=rho, tools_p_mrr_bytes=p)
    return [{c: r[c] for c in COLUMNS} for r in rows]


def cell(value: Any) -> str:
    """One TSV field: empty for None, %.17g for floats (-0.0 as 0), ints as written."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BenchError(f"a non-finite figure {value!r} would be written; this is a bug")
        return f"{value + 0.0:.17g}"  # + 0.0 turns -0.0 into 0.0
    return str(value)


def agent_cost_tsv(rows: Iterable[Mapping[str, Any]]) -> str:
    return tsv_text(COLUMNS, ([cell(r[c]) for c in COLUMNS] for r in rows))


def write_agent_cost(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike) -> None:
    """Write agent_cost.tsv atomically (searchbench.artifacts)."""
    write_text(path, agent_cost_tsv(rows))
