"""The pooled leaderboard of a track (results/pooled/{track}.json, rule `pooled`): read once,
checked against its contract, and the small pure functions the front page draws from it.

Layout: {track, metric, metric_label, baseline, alpha, resamples, seed, weighting, corpora,
leaderboard: [{rank, tool, family, corpora, queries, subset, pooled, ci_low, ci_high,
query_weighted, wins, ties, losses, broken, median_seconds, bytes_before_answer, index_seconds,
repeatable}], not_applicable: [{tool, reason}], verdicts: [{tool, reference, family, corpora,
queries, diff, ci_low, ci_high, p, p_holm, verdict}], forest: [{tool, reference, corpus, n, diff,
ci_low, ci_high, verdict}]}. Adapt only `load_pooled` if the producer's layout changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from searchbench.artifacts import read_json
from searchbench.errors import BenchError

TOP_KEYS = ("track", "metric", "metric_label", "baseline", "weighting", "corpora")
LIST_KEYS = ("leaderboard", "not_applicable", "verdicts", "forest")
ROW_KEYS = {
    "leaderboard": ("rank", "tool", "pooled", "ci_low", "ci_high", "wins", "ties", "losses"),
    "not_applicable": ("tool", "reason"),
    "verdicts": ("tool", "reference", "family", "diff", "ci_low", "ci_high", "verdict"),
    "forest": ("tool", "reference", "corpus", "diff", "ci_low", "ci_high", "verdict"),
}


def load_pooled(path: str | Path) -> dict[str, Any]:
    """One pooled document, its leaderboard sorted by rank; a missing key is one clear error
    naming the file and the rule that writes it (never a silent blank row)."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise BenchError(f"{path}: expected a JSON object; rerun the pooled rule")
    missing = [k for k in (*TOP_KEYS, *LIST_KEYS) if k not in doc]
    if missing:
        raise BenchError(f"{path}: missing {', '.join(missing)}; rerun the pooled rule")
    for name, keys in ROW_KEYS.items():
        if not isinstance(doc[name], list):
            raise BenchError(f"{path}: '{name}' is not a list; rerun the pooled rule")
        for i, row in enumerate(doc[name]):
            lacking = [k for k in keys if not isinstance(row, dict) or k not in row]
            if lacking:
                raise BenchError(
                    f"{path}: {name}[{i}] lacks {', '.join(lacking)}; rerun the pooled rule"
                )
    return {**doc, "leaderboard": sorted(doc["leaderboard"], key=rank_order)}


def rank_order(row: dict[str, Any]) -> tuple[bool, int]:
    """Ranked tools by rank; a tool broken on every corpus has no rank and comes last."""
    rank = row["rank"]
    return (rank is None, int(rank) if rank is not None else 0)


def number(value: Any) -> float | None:
    """A measured number, or None where the contract says "not measured"."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None


def pareto_front(points: Sequence[tuple[str, float | None, float | None]]) -> set[str]:
    """The names of the (name, quality, cost) points no other point dominates: none has at
    least their quality at no more cost, with one of the two strictly better. Points lacking
    either value are not on any front."""
    known = [(n, q, c) for n, q, c in points if q is not None and c is not None]
    return {
        name
        for name, q, c in known
        if not any(q2 >= q and c2 <= c and (q2 > q or c2 < c) for _, q2, c2 in known)
    }


def fmt_seconds(value: Any) -> str:
    s = number(value)
    if s is None:
        return "–"
    if s < 1:
        return f"{s * 1000:.3g} ms"
    return f"{s:.3g} s" if s < 100 else f"{s:.0f} s"


def fmt_bytes(value: Any) -> str:
    b = number(value)
    if b is None:
        return "–"
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.0f} B"


def fmt_repeatable(row: dict[str, Any]) -> str:
    """The repeatability audit beside the scores: "no (2 of 30 differ)", "yes", or "–" when
    not audited (a null flag is never read as repeated)."""
    value = row.get("repeatable")
    if value is True:
        return "yes"
    if value is False:
        differ, asked = row.get("repeat_differ"), row.get("repeat_queries")
        return f"no ({differ} of {asked} differ)" if differ is not None and asked else "no"
    return "–"
