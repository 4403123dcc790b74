"""Timing runs: a seeded subsample of a track's queries, warm-ups, then timed repeats.

Quality runs and timing runs are separate (§8): timing uses the plain tool invocation, one
search at a time, and a tool's peak memory is the maximum over all its timed queries, never
the first one's.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

TIMING_HEADER = (
    "qid",
    "repeat",
    "wall",
    "user",
    "sys",
    "peak_rss_kib",
    "rss_source",
    "timed_out",
    "exit_code",
)


@dataclass(frozen=True)
class TimingRow:
    qid: str
    repeat: int
    wall: float
    user: float
    sys: float
    peak_rss_kib: int
    rss_source: str
    timed_out: bool
    exit_code: int | None


def timing_sample(qids: Sequence[str], n: int, seed: int) -> list[str]:
    """Up to n qids drawn with the seed from the sorted list, returned sorted."""
    ordered = sorted(qids)
    if n >= len(ordered):
        return ordered
    picks = np.random.default_rng(seed).choice(len(ordered), size=n, replace=False)
    return sorted(ordered[i] for i in picks)


def format_timing(rows: Iterable[TimingRow]) -> str:
    lines = ["\t".join(TIMING_HEADER)]
    for row in rows:
        exit_code = "-" if row.exit_code is None else str(row.exit_code)
        lines.append(
            f"{row.qid}\t{row.repeat}\t{row.wall:.6f}\t{row.user:.6f}\t{row.sys:.6f}\t"
            f"{row.peak_rss_kib}\t{row.rss_source}\t{str(row.timed_out).lower()}\t{exit_code}"
        )
    return "\n".join(lines) + "\n"


def peak_rss_kib(rows: Iterable[TimingRow]) -> int:
    """A tool's peak memory: the maximum over all its timed queries."""
    return max((row.peak_rss_kib for row in rows), default=0)
