"""Computed from scores.tsv and the timing tables: means, rank buckets, cost, timing medians."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from searchbench.report.fmt import METRICS, as_bool, as_float, mean, median, present
from searchbench.statuses import ERROR, NO_MATCH, NOT_APPLICABLE, TIMEOUT

RANK_BUCKETS = ("1", "2-3", "4-10", ">10", "absent")


def rank_bucket(rank: int) -> str:
    """The rank-distribution bucket of a file rank (0 = absent)."""
    if rank <= 0:
        return "absent"
    if rank == 1:
        return "1"
    if rank <= 3:
        return "2-3"
    if rank <= 10:
        return "4-10"
    return ">10"


def order_tools(tools: Iterable[str], baseline: str) -> list[str]:
    """Baseline first, the others by name."""
    names = sorted(set(tools))
    return ([baseline] if baseline in names else []) + [t for t in names if t != baseline]


def trivial_qids(rows: Sequence[dict[str, str]], baseline: str) -> set[str]:
    """Queries flagged trivial (found in one file only); read from the baseline's rows."""
    base_rows = [r for r in rows if r["tool"] == baseline] or list(rows)
    return {r["qid"] for r in base_rows if as_bool(r.get("trivial", "0"))}


def asked(rows: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of queries a tool was asked (not those outside its languages)."""
    return [r for r in rows if r.get("status") != NOT_APPLICABLE]


def metric_means(rows: Sequence[dict[str, str]], qids: set[str]) -> dict[str, dict[str, float]]:
    """tool -> metric -> mean over the given queries the tool was asked (a query outside its
    languages is not-applicable, as in its comparisons); NaN when it was asked none."""
    out: dict[str, dict[str, float]] = {}
    for tool in sorted({r["tool"] for r in rows}):
        sel = [r for r in asked(rows) if r["tool"] == tool and r["qid"] in qids]
        out[tool] = {m: mean([as_float(r[m]) for r in sel]) for m, _ in METRICS}
    return out


def rank_distribution(rows: Sequence[dict[str, str]], qids: set[str]) -> list[dict[str, Any]]:
    """One record per tool and bucket: count and share of the given queries."""
    out = []
    for tool in sorted({r["tool"] for r in rows}):
        sel = [r for r in asked(rows) if r["tool"] == tool and r["qid"] in qids]
        counts = dict.fromkeys(RANK_BUCKETS, 0)
        for r in sel:
            counts[rank_bucket(int(as_float(r["rank"]) or 0))] += 1
        for i, bucket in enumerate(RANK_BUCKETS):
            share = counts[bucket] / len(sel) if sel else 0.0
            out.append(
                {
                    "tool": tool,
                    "bucket": bucket,
                    "order": i,
                    "count": counts[bucket],
                    "share": share,
                }
            )
    return out


def cost_summary(rows: Sequence[dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Per tool: status counts and medians of what an agent reads before the answer."""
    out: dict[str, dict[str, Any]] = {}
    for tool in sorted({r["tool"] for r in rows}):
        mine = [r for r in rows if r["tool"] == tool]
        sel = asked(mine)
        found = [r for r in sel if as_float(r["rank"]) > 0]
        statuses = [r.get("status", "") for r in sel]
        out[tool] = {
            "queries": len(sel),
            "not_applicable": len(mine) - len(sel),
            "found": len(found),
            "no_match": statuses.count(NO_MATCH),
            "error": statuses.count(ERROR),
            "timeout": statuses.count(TIMEOUT),
            "returned": median([as_float(r["returned"]) for r in sel]),
            "lines_before": median(present(r["lines_before"] for r in found)),
            "bytes_before": median(present(r["bytes_before"] for r in found)),
            "line_rank": median(present(r["line_rank"] for r in found)),
        }
    return out


def failed_run(row: dict[str, str], ok_exits: Sequence[int]) -> bool:
    """A timed-out, crashed (signal) or erroring run: its wall time is no search time."""
    code = row.get("exit_code", "0")
    return as_bool(row.get("timed_out", "0")) or not code.isdigit() or int(code) not in ok_exits


def ok_exit_codes(config: dict[str, Any], tool: str) -> tuple[int, ...]:
    """0 and the tool's "nothing found" codes (no_match_exit, default [1])."""
    spec = (config.get("tools") or {}).get(tool) or {}
    return (0, *spec.get("no_match_exit", [1]))


def timing_summary(rows: Sequence[dict[str, str]], ok_exits: Sequence[int] = (0, 1)) -> dict:
    """Median over queries of the per-query median wall time of the runs that did not fail
    (`failed` counts the excluded ones); peak RSS is the maximum over every timed query and
    repeat (the seed's trap: not the first query's). The runs each figure rests on are
    counted from the rows: the time budget may have cut repeats."""
    per_query: dict[str, list[float]] = {}
    walls: dict[str, list[float]] = {}
    for r in rows:
        per_query.setdefault(r["qid"], []).append(as_float(r["wall"]))
        if not failed_run(r, ok_exits):
            walls.setdefault(r["qid"], []).append(as_float(r["wall"]))
    runs_per_query = [len(walls) for walls in per_query.values()]
    # 0 marks a run too short to measure (rss_source below-floor), not a zero peak.
    rss = [as_float(r["peak_rss_kib"]) for r in rows if as_float(r["peak_rss_kib"]) > 0]
    return {
        "queries": len(per_query),
        "runs": len(rows),
        "min_runs": min(runs_per_query, default=0),
        "max_runs": max(runs_per_query, default=0),
        "single_run_queries": runs_per_query.count(1),
        "median_wall_s": median([median(v) for _, v in sorted(walls.items())]),
        # The spread across queries of their median times (the chart draws it).
        "min_wall_s": min((median(v) for v in walls.values()), default=float("nan")),
        "max_wall_s": max((median(v) for v in walls.values()), default=float("nan")),
        "failed": len(rows) - sum(len(v) for v in walls.values()),
        "peak_rss_kib": max(rss) if rss else float("nan"),
        "timeouts": sum(as_bool(r.get("timed_out", "0")) for r in rows),
        "rss_sources": ", ".join(
            f"{src} ×{count}"
            for src, count in sorted(Counter(r.get("rss_source") or "-" for r in rows).items())
        ),
    }


def runs_flag(t: dict[str, Any]) -> str:
    """Words flagging a figure that rests on one run per query (the budget allowed no more)."""
    single, queries = t["single_run_queries"], t["queries"]
    if not single:
        return ""
    if single == queries:
        return "one run per query"
    return f"{single} of {queries} queries on one run"


def runs_per_query(t: dict[str, Any]) -> str:
    low, high = t["min_runs"], t["max_runs"]
    return str(low) if low == high else f"{low}-{high}"


def timing_enabled(config: dict[str, Any]) -> bool:
    """timing.enabled (default true); false: quality runs only, nothing was timed."""
    return bool((config.get("timing") or {}).get("enabled", True))
