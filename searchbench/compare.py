"""Compare two result sets per track, corpus and tool: what a change did (issue 15 item 8).

A result set is a published run (evidence/NAME, its results.csv), a workflow directory or
its results/ (results/report/summary.csv), or a summary.csv itself. For one metric and query
subset, each (track, corpus, tool) gets both means, their difference, and both verdicts; a row
present in one set only says so. Differences between result sets are descriptive: the two
runs are not paired by this script (within a run, the verdicts are the paired tests).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from searchbench.errors import BenchError

CANDIDATES = ("results.csv", "report/summary.csv", "results/report/summary.csv")
Key = tuple[str, str, str]  # track, corpus, tool


def summary_path(where: str | Path) -> Path:
    path = Path(where)
    if path.is_file():
        return path
    for name in CANDIDATES:
        if (path / name).is_file():
            return path / name
    raise BenchError(
        f"{where}: no result set here (looked for {', '.join(CANDIDATES)}); name an "
        "evidence/NAME folder, a workflow folder after its report rule, or a summary.csv"
    )


def load(where: str | Path, metric: str, subset: str) -> dict[Key, dict[str, str]]:
    path = summary_path(where)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if rows and not {"corpus", "track", "tool", "metric", "subset", "mean"} <= set(rows[0]):
        raise BenchError(f"{path}: not a summary.csv (columns {sorted(rows[0])})")
    return {
        (r["track"], r["corpus"], r["tool"]): r
        for r in rows
        if r["metric"] == metric and r["subset"] == subset
    }


@dataclass(frozen=True)
class Change:
    track: str
    corpus: str
    tool: str
    mean_a: float | None
    mean_b: float | None
    verdict_a: str
    verdict_b: str

    @property
    def delta(self) -> float | None:
        if self.mean_a is None or self.mean_b is None:
            return None
        return self.mean_b - self.mean_a

    @property
    def verdict_changed(self) -> bool:
        return self.verdict_a != self.verdict_b


def _mean(row: dict[str, str] | None) -> float | None:
    return float(row["mean"]) if row and row.get("mean") not in (None, "") else None


def _verdict(row: dict[str, str] | None) -> str:
    if row is None:
        return "absent"
    return row.get("verdict") or "-"


def compare(a: dict[Key, dict[str, str]], b: dict[Key, dict[str, str]]) -> list[Change]:
    return [
        Change(
            *key, _mean(a.get(key)), _mean(b.get(key)), _verdict(a.get(key)), _verdict(b.get(key))
        )  # fmt: skip
        for key in sorted(set(a) | set(b))
    ]


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def render(changes: Sequence[Change], a_name: str, b_name: str, only_changed: bool) -> str:
    header = ["track", "corpus", "tool", f"A {a_name}", f"B {b_name}", "B-A", "verdict A",
              "verdict B"]  # fmt: skip
    rows = [
        [
            c.track,
            c.corpus,
            c.tool,
            _fmt(c.mean_a),
            _fmt(c.mean_b),
            _fmt(c.delta, True),
            c.verdict_a,
            c.verdict_b + (" *" if c.verdict_changed else ""),
        ]  # fmt: skip
        for c in changes
        if not only_changed or c.verdict_changed or (c.delta is not None and c.delta != 0)
    ]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]  # fmt: skip
    moved = sum(c.verdict_changed for c in changes)
    lines.append(f"{len(rows)} rows; {moved} verdicts changed (*)")
    return "\n".join(lines) + "\n"


def tsv(changes: Sequence[Change]) -> str:
    head = "track\tcorpus\ttool\tmean_a\tmean_b\tdelta\tverdict_a\tverdict_b\n"
    return head + "".join(
        f"{c.track}\t{c.corpus}\t{c.tool}\t{_fmt(c.mean_a)}\t{_fmt(c.mean_b)}\t"
        f"{_fmt(c.delta, True)}\t{c.verdict_a}\t{c.verdict_b}\n"
        for c in changes
    )
