"""Timing runs: a seeded subsample of a track's queries, timed within a budget.

Quality runs and timing runs are separate (docs/method.md §8): timing uses the plain tool
invocation, one search at a time, and a tool's peak memory is the maximum over all its timed
queries, never the first one's.

The budget (per tool and corpus, in the style of hyperfine): every sampled query gets one
measured run whatever it costs; warm-ups and further measured runs happen only while the
budget lasts. Which queries are timed is seeded; how many runs each figure rests on depends
on measured times, so it is recorded per row (`runs`, `warmups`). The plan is the pure
function `next_step` of the runs so far, so tests drive it with simulated durations.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import median
from typing import TypeVar

from searchbench.artifacts import tsv_text
from searchbench.runner import SearchResult

TIMING_HEADER = (
    "qid",
    "repeat",
    "runs",
    "warmups",
    "wall",
    "user",
    "sys",
    "peak_rss_kib",
    "rss_source",
    "timed_out",
    "exit_code",
)

R = TypeVar("R")


@dataclass(frozen=True)
class TimingRow:
    qid: str
    repeat: int  # 1-based index of this measured run among its query's runs
    runs: int  # measured runs of this query: how many its figure rests on
    warmups: int  # untimed runs of this query before its first measured run
    wall: float
    user: float
    sys: float
    peak_rss_kib: int
    rss_source: str
    timed_out: bool
    exit_code: int | None


@dataclass(frozen=True)
class TimingSettings:
    warmups: int  # at most, per query
    repeats: int  # measured runs per query, at most
    budget_seconds: float  # per (tool, corpus), over warm-ups and measured runs

    @classmethod
    def from_config(cls, timing: Mapping) -> "TimingSettings":
        return cls(int(timing["warmups"]), int(timing["repeats"]), float(timing["budget_seconds"]))


@dataclass(frozen=True)
class Step:
    """A run to start: on the query at this index of the sample, warm-up or measured."""

    query: int
    measured: bool


@dataclass(frozen=True)
class Run:
    """A finished run, as it counts: its step (settled) and its wall time."""

    query: int
    measured: bool
    wall: float


def next_step(done: Sequence[Run], n_queries: int, settings: TimingSettings) -> Step | None:
    """The next run of the plan, or None when it is over.

    First round: each query in order gets its measured run, unconditionally, preceded by
    warm-ups only while a warm-up plus every first run still owed (at the median wall time so
    far) fits in the budget. Then rounds of one more measured run per query, in order, up to
    `repeats`, each started only if it is expected to fit. Rounds rather than query after
    query, so that a budget cut leaves the queries' run counts within one of each other.
    Warm-ups are off for the whole job when its first run became a measured one (`settle`).
    """
    if n_queries == 0:
        return None
    spent = sum(run.wall for run in done)
    expected = median(run.wall for run in done) if done else 0.0
    measured = Counter(run.query for run in done if run.measured)
    warmed = Counter(run.query for run in done if not run.measured)
    warm_ups_on = settings.warmups > 0 and not (done and done[0].measured)
    owed = [q for q in range(n_queries) if measured[q] == 0]
    if owed:
        query = owed[0]
        fits = spent + expected * (1 + len(owed)) <= settings.budget_seconds
        if warm_ups_on and warmed[query] < settings.warmups and fits:
            return Step(query, measured=False)
        return Step(query, measured=True)
    fewest = min(measured[q] for q in range(n_queries))
    if fewest >= settings.repeats or spent + expected > settings.budget_seconds:
        return None
    return Step(next(q for q in range(n_queries) if measured[q] == fewest), measured=True)


def settle(
    step: Step, wall: float, done: Sequence[Run], n_queries: int, settings: TimingSettings
) -> Run:
    """What a finished step counts as. The job's first run is planned as a warm-up (when
    warm-ups are configured); if it alone took more than one query's share of the budget,
    it stands as that query's measured run instead, and no warm-ups follow: a warm-up would
    cost as much as the measurement it prepares, and the tree was just read by this
    corpus's quality runs (the timing job runs after them)."""
    share = settings.budget_seconds / n_queries
    if not done and not step.measured and wall > share:
        return Run(step.query, True, wall)
    return Run(step.query, step.measured, wall)


def execute(
    n_queries: int,
    settings: TimingSettings,
    run: Callable[[Step], R],
    wall_of: Callable[[R], float],
) -> list[tuple[Run, R]]:
    """Run the plan: `run(step)` performs one run; every run and its result, in order."""
    done: list[Run] = []
    results: list[tuple[Run, R]] = []
    while (step := next_step(done, n_queries, settings)) is not None:
        result = run(step)
        done.append(settle(step, wall_of(result), done, n_queries, settings))
        results.append((done[-1], result))
    return results


def simulate(n_queries: int, settings: TimingSettings, walls: Iterable[float]) -> list[Run]:
    """The runs the plan makes when successive runs take these wall times (tests)."""
    supply = iter(walls)
    return [run for run, _ in execute(n_queries, settings, lambda _: next(supply), float)]


def timing_rows(
    qids: Sequence[str], outcomes: Sequence[tuple[Run, SearchResult]]
) -> list[TimingRow]:
    """The measured runs as table rows, by query then repeat; warm-ups only counted."""
    runs = Counter(run.query for run, _ in outcomes if run.measured)
    warmups: Counter[int] = Counter()
    repeat: Counter[int] = Counter()
    rows = []
    for run, result in outcomes:
        if not run.measured:
            if repeat[run.query] == 0:
                warmups[run.query] += 1
            continue
        repeat[run.query] += 1
        rows.append(
            TimingRow(
                qids[run.query],
                repeat[run.query],
                runs[run.query],
                warmups[run.query],
                result.elapsed,
                result.user,
                result.sys,
                result.peak_rss_kib,
                result.rss_source,
                result.timed_out,
                result.exit_code,
            )
        )
    return sorted(rows, key=lambda row: (row.qid, row.repeat))


def time_queries(
    qids: Sequence[str], settings: TimingSettings, run_query: Callable[[str], SearchResult]
) -> list[TimingRow]:
    """Time one tool on these queries within the budget; `run_query(qid)` runs it once."""
    outcomes = execute(
        len(qids), settings, lambda step: run_query(qids[step.query]), lambda r: r.elapsed
    )
    return timing_rows(qids, outcomes)


def format_timing(rows: Iterable[TimingRow]) -> str:
    return tsv_text(TIMING_HEADER, (timing_fields(row) for row in rows))


def timing_fields(row: TimingRow) -> tuple[object, ...]:
    exit_code = "-" if row.exit_code is None else str(row.exit_code)
    return (
        *(row.qid, row.repeat, row.runs, row.warmups),
        *(f"{row.wall:.6f}", f"{row.user:.6f}", f"{row.sys:.6f}"),
        *(row.peak_rss_kib, row.rss_source, str(row.timed_out).lower(), exit_code),
    )


def peak_rss_kib(rows: Iterable[TimingRow]) -> int:
    """A tool's peak memory: the maximum over all its timed queries."""
    return max((row.peak_rss_kib for row in rows), default=0)
