"""Whether a tool ran at all on a corpus and track: a tool that fails is never a tool that lost.

Per tool, corpus and track, from its raw records (results/{corpus}/{track}/raw/{tool}.jsonl):
the queries it was asked (not-applicable ones are not), how they ended, and its failures:
every `error` (a printed path outside the corpus is one: searchbench.runner), `timeout` and
`stopped` query, and every `no-match` whose output had unparsed lines (a tool that printed 328
lines none of which parse did not "find nothing"). A tool is *broken* there when its
failures exceed `max_failure_share` of the queries it was asked, or when it was stopped
early (`stop_after` consecutive errors or timeouts: the rest were not run). A broken tool
takes no verdict (Verdict.BROKEN) and leaves its Holm family (searchbench.inference); the
run goes on, and results/run_status.tsv and the report say which tools broke and why.

Config `tool_health` (config/config.yaml): the defaults are declared here once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from searchbench.artifacts import read_tsv, tsv_text
from searchbench.errors import BenchError
from searchbench.statuses import ERROR, NO_MATCH, NOT_APPLICABLE, STOPPED, TIMEOUT
from searchbench.statuses import OK as STATUS_OK  # OK here is the health verdict

# Above this share of its asked queries failing, a tool is broken on that corpus and track.
MAX_FAILURE_SHARE = 0.2
# After this many consecutive errors or timeouts a tool's job stops on that corpus and track.
STOP_AFTER = 5
# Statuses that end a streak toward an early stop, and count as failures.
STREAK_STATUSES = frozenset({ERROR, TIMEOUT})
HEALTH_COLUMNS = (
    "tool",
    "asked",
    STATUS_OK,  # each status's count (not-applicable queries are not asked)
    NO_MATCH,
    ERROR,
    TIMEOUT,
    STOPPED,
    "unparsed_lines",
    "unparsed_no_match",
    "foreign_paths",
    "failures",
    "failure_share",
    "health",
)
OK, BROKEN = "ok", "broken"


@dataclass(frozen=True)
class HealthRule:
    """config `tool_health`: when a tool is broken, and when its job stops."""

    max_failure_share: float = MAX_FAILURE_SHARE
    stop_after: int = STOP_AFTER

    @classmethod
    def of_config(cls, section: Mapping | None) -> HealthRule:
        section = dict(section or {})
        rule = cls(
            max_failure_share=float(section.get("max_failure_share", MAX_FAILURE_SHARE)),
            stop_after=int(section.get("stop_after", STOP_AFTER)),
        )
        if not 0.0 <= rule.max_failure_share < 1.0:
            raise BenchError(
                f"tool_health.max_failure_share = {rule.max_failure_share} must be in [0, 1); "
                "set it in config/config.yaml"
            )
        if rule.stop_after < 1:
            raise BenchError(
                f"tool_health.stop_after = {rule.stop_after} must be at least 1; "
                "set it in config/config.yaml"
            )
        return rule


class EarlyStop:
    """Counts consecutive errors and timeouts of one job; `stopped` once there were enough,
    and for good: the job runs none of its remaining queries."""

    def __init__(self, stop_after: int) -> None:
        self.stop_after = stop_after
        self.streak = 0
        self.stopped = False

    def record(self, status: str) -> None:
        # A query not asked (not-applicable) neither breaks nor extends the streak.
        if status in STREAK_STATUSES:
            self.streak += 1
        elif status != NOT_APPLICABLE:
            self.streak = 0
        self.stopped = self.stopped or self.streak >= self.stop_after


Q = TypeVar("Q")


def until_stopped(
    queries: Iterable[Q], run: Callable[[Q], tuple[Any, ...]], stop_after: int
) -> Iterator[tuple[Q, tuple[Any, ...] | None]]:
    """Each query with what `run` returned for it (a tuple whose first item has `.status`),
    until stop_after consecutive errors or timeouts; every later query with None: not run.
    The search job, fast path and language-server session alike go through `run`."""
    stop = EarlyStop(stop_after)
    for query in queries:
        if stop.stopped:
            yield query, None
            continue
        outcome = run(query)
        stop.record(outcome[0].status)
        yield query, outcome


@dataclass(frozen=True)
class ToolHealth:
    """How one tool's queries on one corpus and track ended, and whether it is broken."""

    tool: str
    asked: int
    ok: int
    no_match: int
    error: int
    timeout: int
    stopped: int
    unparsed_lines: int
    unparsed_no_match: int  # no-match queries whose output had unparsed lines
    foreign_paths: int  # printed paths outside the corpus (each made its query an error)
    reason: str  # empty when healthy

    @property
    def failures(self) -> int:
        return self.error + self.timeout + self.stopped + self.unparsed_no_match

    @property
    def share(self) -> float:
        return self.failures / self.asked if self.asked else 0.0

    @property
    def broken(self) -> bool:
        return bool(self.reason)

    def row(self) -> list[object]:
        health = f"{BROKEN}: {self.reason}" if self.broken else OK
        counts = (self.ok, self.no_match, self.error, self.timeout, self.stopped)
        extra = (self.unparsed_lines, self.unparsed_no_match, self.foreign_paths)
        return [self.tool, self.asked, *counts, *extra, self.failures, f"{self.share:.4f}", health]


def failure_words(h: ToolHealth) -> str:
    """`12 error, 3 timeout` ...: what the failures were, in the report's words."""
    foreign = f" ({h.foreign_paths} printed paths outside the corpus)" if h.foreign_paths else ""
    parts = [
        (h.error, ERROR + foreign),
        (h.timeout, TIMEOUT),
        (h.stopped, STOPPED),
        (h.unparsed_no_match, "no-match with unparsed lines"),
    ]
    return ", ".join(f"{n} {word}" for n, word in parts if n)


def broken_reason(h: ToolHealth, rule: HealthRule) -> str:
    """Why the tool is broken, in one phrase; empty when it is not."""
    if h.stopped:
        return (
            f"stopped after {rule.stop_after} consecutive errors or timeouts; "
            f"{h.failures} of {h.asked} queries failed ({failure_words(h)})"
        )
    if h.asked and h.failures / h.asked > rule.max_failure_share:
        return (
            f"{h.failures} of {h.asked} queries failed ({failure_words(h)}), "
            f"above the {rule.max_failure_share:.0%} allowed"
        )
    return ""


def tool_health(tool: str, records: Iterable[Mapping], rule: HealthRule) -> ToolHealth:
    """Count one tool's raw records of one corpus and track, and judge them."""
    counts = dict.fromkeys((STATUS_OK, NO_MATCH, ERROR, TIMEOUT, STOPPED), 0)
    asked = unparsed = unparsed_no_match = foreign = 0
    for record in records:
        status = str(record.get("status"))
        if status == NOT_APPLICABLE:
            continue
        asked += 1
        counts[status] = counts.get(status, 0) + 1
        lines = int(record.get("unparsed") or 0)
        unparsed += lines
        unparsed_no_match += status == NO_MATCH and lines > 0
        foreign += int(record.get("foreign_paths") or 0)
    health = ToolHealth(
        tool, asked, counts[STATUS_OK], counts[NO_MATCH], counts[ERROR], counts[TIMEOUT],
        counts[STOPPED], unparsed, unparsed_no_match, foreign, reason="",
    )  # fmt: skip
    return ToolHealth(**{**health.__dict__, "reason": broken_reason(health, rule)})


def raw_records(path: Path) -> list[dict]:
    """The records of one raw/{tool}.jsonl, in order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def health_text(healths: Iterable[ToolHealth]) -> str:
    """health.tsv of one corpus and track: one row per tool, by name."""
    rows = [h.row() for h in sorted(healths, key=lambda h: h.tool)]
    return tsv_text(HEALTH_COLUMNS, rows)


def read_health(path: str | Path) -> dict[str, dict[str, str]]:
    """tool -> its health.tsv row."""
    return {row["tool"]: row for row in read_tsv(path, HEALTH_COLUMNS)}


def broken_tools(rows: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """tool -> why it is broken, for the broken tools of one health.tsv."""
    prefix = f"{BROKEN}: "
    return {
        tool: row["health"].removeprefix(prefix)
        for tool, row in sorted(rows.items())
        if row["health"].startswith(prefix)
    }
