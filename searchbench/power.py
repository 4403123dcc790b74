"""Minimum detectable MRR difference of one corpus and track, by simulation (issue 7, item 3).

"Not detected" says little unless the sample could have detected a difference of that size.
For the primary metric (rr) over all queries, this estimates the smallest true mean
difference the verdict rule of searchbench.inference would detect with 80% power, simulated
from this corpus's own scores.

Model, from scores.tsv:

- every non-baseline tool's per-query rr differences against the baseline are pooled; tools
  whose output equals the baseline's are left out (they say nothing about how a tool that
  does differ spreads its differences);
- the tie share t is the share of zero differences in the pool; the magnitudes are the pooled
  non-zero |d| (mean mu);
- a simulated tool has the corpus's n queries; each difference is 0 with probability t, else
  a magnitude drawn from the pool with sign + with probability q = 1/2 + delta / (2 (1 - t)
  mu), so that its expected mean is delta. The largest feasible delta is (1 - t) mu (q = 1):
  a tool that differs as rarely as the configured ones cannot differ by more on average.

Rule, for each simulated sample (as the inference applies it): detected better only when the
95% percentile bootstrap interval's low end is > 0 AND the sign-flip p (exact for n_eff <=
EXACT_MAX_N_EFF, else Monte Carlo) is < alpha / m, where m is the size of the primary family's
Holm adjustment of rr over all queries after Tarone's rule (at least 1; with no primary tool,
the tools compared with the baseline). alpha / m is Holm's first
step: the worst case for a single true effect among the family (with other true effects the
threshold only gets easier). Fewer than MIN_QUERIES queries: nothing is detectable.

Computation (exact and fast; the settings are recorded in the output):

- common random numbers: each simulated sample fixes its ties, its magnitudes and one uniform
  per query; a query's sign is + when its uniform is < q. Raising delta only turns - signs
  into +, which only raises the observed sum and every bootstrap sum, so detection is
  monotone in delta. Each sample therefore has a threshold delta (bisection over its number
  of + signs), power(delta) is the share of samples whose threshold lies below delta, and the
  MDE is the 80% quantile of the thresholds: no grid, no resolution lost;
- a sign flip of s * d is a flip of s * |d|: the null distribution of a sample does not depend
  on delta, so its critical sum is computed once;
- one bootstrap count matrix and one sign matrix serve every sample (each sample still gets an
  interval and a p from resamples drawn independently of its values; only the Monte Carlo
  error is shared between samples), so a bisection step is one matrix product;
- differences are rounded to multiples of QUANTUM and held as integer-valued floats: every
  sum is exact in any summation order, so ties are exact and the output is byte-identical
  across BLAS builds and thread counts.

Fewer resamples than the inference (BOOTSTRAP_RESAMPLES, FLIP_RESAMPLES) keep it to seconds
at n = 1000; tests/test_power.py checks the simulated power against the real inference run
on simulated samples.
"""

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from searchbench.artifacts import json_text, write_text
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.inference import (
    CONFIDENCE,
    EXACT_MAX_N_EFF,
    all_sign_patterns,
    comparison_rng,
    min_p,
)
from searchbench.measures import MIN_QUERIES, PRIMARY_METRIC

POWER_TARGET = 0.8
SIMULATIONS = 1000
BOOTSTRAP_RESAMPLES = 1000
FLIP_RESAMPLES = 2000
QUANTUM = 2.0**-24
CURVE_POINTS = 20
SUBSET = "all"


@dataclass(frozen=True)
class Settings:
    """How many samples and resamples a simulation uses."""

    simulations: int = SIMULATIONS
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES
    flip_resamples: int = FLIP_RESAMPLES
    exact_max: int = EXACT_MAX_N_EFF


@dataclass(frozen=True)
class Pool:
    """The observed differences a simulation rests on."""

    n: int
    tie_share: float
    magnitudes: np.ndarray  # non-zero |d| in units of QUANTUM (integer-valued floats)
    n_eff: dict[str, int]  # per non-baseline tool, over all queries
    identical: list[str]
    pooled: list[str]

    @property
    def mean_magnitude(self) -> float:
        return float(self.magnitudes.mean() * QUANTUM) if self.magnitudes.size else 0.0

    @property
    def max_delta(self) -> float:
        return (1.0 - self.tie_share) * self.mean_magnitude


def difference_pool(scores: pd.DataFrame, baseline: str, metric: str = PRIMARY_METRIC) -> Pool:
    """Per-query differences of every tool against the baseline, pooled (see the docstring)."""
    if scores.duplicated(["qid", "tool"]).any():
        raise BenchError("scores have a (qid, tool) pair twice; rerun the score rule")
    wide = scores.pivot(index="qid", columns="tool", values=metric).sort_index()
    if baseline not in wide.columns:
        raise BenchError(
            f"baseline tool {baseline!r} has no scores; set 'baseline' to a scored tool"
        )
    if wide.isna().to_numpy().any():
        raise BenchError(
            f"{metric}: some tool has no score (or a NaN) for some query; rerun the score rule"
        )
    diffs = wide.drop(columns=baseline).sub(wide[baseline], axis=0)
    if not np.isfinite(diffs.to_numpy()).all():
        raise BenchError(f"{metric}: a per-query difference is infinite; rerun the score rule")
    n_eff = {str(t): int(np.count_nonzero(diffs[t].to_numpy())) for t in diffs.columns}
    # Every metric is a function of the rank: an rr difference of 0 everywhere is identity.
    identical = sorted(t for t, k in n_eff.items() if k == 0)
    pooled = sorted(t for t in n_eff if t not in identical)
    values = diffs[pooled].to_numpy().ravel() if pooled else np.zeros(0)
    nonzero = np.abs(values[values != 0.0])
    return Pool(
        n=int(len(wide)),
        tie_share=float(np.mean(values == 0.0)) if values.size else 1.0,
        magnitudes=np.maximum(1.0, np.rint(np.sort(nonzero) / QUANTUM)),
        n_eff=n_eff,
        identical=identical,
        pooled=pooled,
    )


def family_m(pool: Pool, alpha: float, resamples: int, family: Sequence[str] | None = None) -> int:
    """Size of the Holm adjustment of the metric over all queries in the family of the given
    tools (default: every tool compared with the baseline), after Tarone's rule as
    searchbench.inference applies it, and at least 1 (the simulated tool)."""
    members = pool.n_eff if family is None else [t for t in family if t in pool.n_eff]
    reachable = [
        t for t in members if t not in pool.identical and min_p(pool.n_eff[t], resamples) < alpha
    ]
    return max(1, len(reachable))


def flip_critical_count(threshold: float, patterns: int, monte_carlo: bool) -> int:
    """The largest count b of sums at least as extreme as the observed one (the observed one
    included when exact) that still gives p < threshold; -1 when none does.

    exact: p = b / patterns; Monte Carlo: p = (b + 1) / (patterns + 1).
    """
    if monte_carlo:
        return math.ceil(threshold * (patterns + 1)) - 2
    return math.ceil(threshold * patterns) - 1


def critical_sums(
    magnitudes: np.ndarray,
    threshold: float,
    signs: np.ndarray,
    exact_max: int,
) -> np.ndarray:
    """Per sample (rows of magnitudes, zeros for ties): the sum its observed sum must exceed
    for the sign-flip p to fall below threshold (inf when no sum can)."""
    critical = np.full(magnitudes.shape[0], np.inf)
    n_eff = np.count_nonzero(magnitudes, axis=1)
    for k in range(1, exact_max + 1):
        rows = np.flatnonzero(n_eff == k)
        b = flip_critical_count(threshold, 2**k, monte_carlo=False)
        if not rows.size or b < 0:
            continue
        # Samples with the same n_eff share the 2**k patterns: one product per chunk, in
        # chunks of at most 2**22 sums (32 MB).
        values = magnitudes[rows][magnitudes[rows] != 0.0].reshape(rows.size, k)
        kth = 2**k - 1 - b  # the (b+1)-th largest, in ascending order
        step = max(1, 2 ** (22 - k))
        for start in range(0, rows.size, step):
            null = np.abs(all_sign_patterns(k) @ values[start : start + step].T)
            critical[rows[start : start + step]] = np.partition(null, kth, axis=0)[kth]
    monte_carlo = np.flatnonzero(n_eff > exact_max)
    b = flip_critical_count(threshold, signs.shape[0], monte_carlo=True)
    if monte_carlo.size and b >= 0:
        # Zeros do not move under a flip, so flipping all n signs equals flipping the n_eff.
        null = np.abs(signs @ magnitudes[monte_carlo].T)
        kth = signs.shape[0] - 1 - b  # the (b+1)-th largest, in ascending order
        critical[monte_carlo] = np.partition(null, kth, axis=0)[kth]
    return critical


def bootstrap_counts(n: int, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """How often each query is drawn in each of ``resamples`` bootstrap resamples (the index
    matrix the inference draws, as counts: counts @ d = the resample sums)."""
    index = rng.integers(0, n, (resamples, n), dtype=np.int32)  # the inference's indices
    flat = (index + n * np.arange(resamples)[:, None]).ravel()
    return np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(float)


@dataclass(frozen=True)
class Samples:
    """Simulated samples under common random numbers (one row per sample)."""

    magnitudes: np.ndarray  # |d| in units of QUANTUM, 0 for a tie
    ranks: np.ndarray  # rank of each query's uniform among the sample's non-ties
    sorted_uniform: np.ndarray  # the uniforms ascending, ties (2.0) last

    def signed(self, plus: np.ndarray) -> np.ndarray:
        """The differences when each sample's ``plus`` lowest-ranked ones are +."""
        return self.magnitudes * np.where(self.ranks < plus[:, None], 1.0, -1.0)

    def rows(self, index: np.ndarray) -> "Samples":
        return Samples(self.magnitudes[index], self.ranks[index], self.sorted_uniform[index])


def draw_samples(pool: Pool, n: int, samples: int, rng: np.random.Generator) -> Samples:
    """``samples`` simulated tools of n queries drawn from the pool (see the docstring)."""
    tie = rng.random((samples, n)) < pool.tie_share
    drawn = pool.magnitudes[rng.integers(0, pool.magnitudes.size, (samples, n))]
    uniform = np.where(tie, 2.0, rng.random((samples, n)))  # ties sort last, never flip
    order = np.argsort(uniform, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(n), (samples, n)), axis=1)
    return Samples(
        magnitudes=np.where(tie, 0.0, drawn),
        ranks=ranks,
        sorted_uniform=np.take_along_axis(uniform, order, axis=1),
    )


def detected_with(
    samples: Samples, plus: np.ndarray, critical: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """Detected better, per sample, with ``plus`` + signs: the bootstrap interval's low end
    is > 0 and the observed sum exceeds the critical sum (so p < the test's alpha)."""
    signed = samples.signed(plus)
    observed = signed.sum(axis=1)
    detected = (observed > 0.0) & (observed > critical)
    # the interval only where the sum test passed: the rest is not detected whatever it is
    tested = np.flatnonzero(detected)
    detected[tested] = low_end_above_zero(counts @ signed[tested].T)
    return detected


def low_end_above_zero(sums: np.ndarray) -> np.ndarray:
    """Per column, whether np.quantile(column, tail) > 0, without sorting: the low end lies
    between the order statistics floor(h) and floor(h) + 1 (h = tail * (rows - 1)), so it is
    > 0 when at most floor(h) sums are <= 0 and <= 0 when more than floor(h) + 1 are; only
    columns with exactly floor(h) + 1 go through np.quantile (the same float result)."""
    tail = (1.0 - CONFIDENCE) / 2.0
    below = math.floor(tail * (sums.shape[0] - 1))
    at_most_zero = np.count_nonzero(sums <= 0.0, axis=0)
    above = at_most_zero <= below
    edge = np.flatnonzero(at_most_zero == below + 1)
    if edge.size:
        above[edge] = np.quantile(sums[:, edge], tail, axis=0) > 0.0
    return above


def fewest_plus_signs(
    samples: Samples, critical: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(fewest + signs at which each sample is detected, whether it is at all): bisection,
    every sample in step. No + sign is never detected (the sum is negative); if all + is not
    detected, nothing is (detection is monotone in the number of + signs)."""
    lo = np.zeros(samples.magnitudes.shape[0], dtype=np.int64)
    hi = np.count_nonzero(samples.magnitudes, axis=1)
    detected = detected_with(samples, hi, critical, counts)
    while True:
        open_ = np.flatnonzero(detected & (hi - lo > 1))
        if not open_.size:
            return hi, detected
        mid = (lo[open_] + hi[open_]) // 2
        hit = detected_with(samples.rows(open_), mid, critical[open_], counts)
        hi[open_[hit]] = mid[hit]
        lo[open_[~hit]] = mid[~hit]


def simulate_thresholds(
    pool: Pool,
    threshold: float,
    *,
    seed: int,
    settings: Settings = Settings(),
    n: int | None = None,
    min_queries: int = MIN_QUERIES,
) -> np.ndarray:
    """Per simulated sample, the smallest sign probability q at which it is detected better
    (inf when not even q = 1 is). n defaults to the pool's."""
    n = pool.n if n is None else n
    if n < min_queries or not pool.magnitudes.size:
        return np.full(settings.simulations, np.inf)
    # The draws' stream name, the same for every metric (a seed, not a label).
    name = ("power", PRIMARY_METRIC, SUBSET)
    samples = draw_samples(
        pool, n, settings.simulations, comparison_rng(seed, *name, "differences")
    )
    flips = comparison_rng(seed, *name, "sign-flips")
    signs = flips.integers(0, 2, (settings.flip_resamples, n), dtype=np.int8) * 2 - 1
    critical = critical_sums(samples.magnitudes, threshold, signs.astype(float), settings.exact_max)
    counts = bootstrap_counts(
        n, comparison_rng(seed, *name, "bootstrap"), settings.bootstrap_resamples
    )
    plus, detected = fewest_plus_signs(samples, critical, counts)
    # With q just above the plus-th smallest uniform, exactly plus signs are +.
    q = samples.sorted_uniform[np.arange(plus.size), np.maximum(plus - 1, 0)]
    return np.where(detected, q, np.inf)


def to_delta(q: np.ndarray, pool: Pool) -> np.ndarray:
    """Sign probability -> expected mean difference of the simulated tool."""
    finite = np.isfinite(q)
    return np.where(finite, (2.0 * np.where(finite, q, 0.5) - 1.0) * pool.max_delta, np.inf)


def power_at(thresholds: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """Share of samples detected at each delta (detected for every delta above a threshold)."""
    return (thresholds[None, :] < np.asarray(deltas)[:, None]).mean(axis=1)


def minimum_detectable(thresholds: np.ndarray, target: float = POWER_TARGET) -> float | None:
    """The smallest delta with power >= target (None when no feasible delta reaches it)."""
    ordered = np.sort(thresholds)
    value = ordered[math.ceil(target * ordered.size) - 1]
    return float(max(value, 0.0)) if np.isfinite(value) else None


PLAN_QUERIES = (30, 100, 300, 1000, 3000)  # the planning table's sample sizes
PLAN_TARGETS = (0.05, 0.10)  # mean MRR differences a reader may want to detect


def mde_at(
    pool: Pool,
    threshold: float,
    n: int,
    *,
    seed: int,
    settings: Settings,
    min_queries: int,
    known: dict[int, float | None] | None = None,
) -> float | None:
    """The MDE a sample of n queries like this corpus's would have. ``known``: the MDEs
    already simulated with these same arguments, by n (the plan and both targets' bisections
    ask for some sizes twice; a simulation at n = 3000 costs seconds)."""
    if known is not None and n in known:
        return known[n]
    found = simulate_thresholds(
        pool, threshold, seed=seed, settings=settings, n=n, min_queries=min_queries
    )
    mde = minimum_detectable(to_delta(found, pool))
    if known is not None:
        known[n] = mde
    return mde


def queries_needed(
    pool: Pool,
    threshold: float,
    target: float,
    *,
    seed: int,
    settings: Settings,
    min_queries: int,
    most: int = PLAN_QUERIES[-1],
    known: dict[int, float | None] | None = None,
) -> int | None:
    """The fewest queries (within 2%, and within simulation noise: the simulated MDE falls
    with n but not strictly at every step) whose MDE is <= target, by bisection; None when
    even `most` queries would not do, or the tie share makes the target infeasible."""

    def enough(n: int) -> bool:
        options = {"seed": seed, "settings": settings, "min_queries": min_queries, "known": known}
        mde = mde_at(pool, threshold, n, **options)
        return mde is not None and mde <= target

    if target > pool.max_delta or not enough(most):
        return None
    low, high = min_queries, most  # low: not known to be enough; high: enough
    if enough(low):
        return low
    while high - low > max(1, high // 50):
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def run_power(
    scores: pd.DataFrame,
    design: Design,
    *,
    settings: Settings = Settings(),
    context: Mapping[str, str] | None = None,
) -> dict:
    """The content of power.json for one corpus and track's scores: the power of a primary
    question (with no primary tool scored, of a comparison with the baseline), on the
    track's primary metric."""
    baseline, seed, alpha, resamples = design.baseline, design.seed, design.alpha, design.resamples
    min_queries, primary, metric = design.min_queries, design.primary, design.primary_metric
    pool = difference_pool(scores, baseline, metric)
    family = [t for t in primary if t in pool.n_eff] or None
    m = family_m(pool, alpha, resamples, family)
    thresholds = to_delta(
        simulate_thresholds(pool, alpha / m, seed=seed, settings=settings, min_queries=min_queries),
        pool,
    )
    mde = minimum_detectable(thresholds)
    # the same simulation as mde_at(pool.n): the plan and the targets reuse every size's
    known: dict[int, float | None] = {pool.n: mde}
    options = {"seed": seed, "settings": settings, "min_queries": min_queries, "known": known}
    plan = [{"queries": n, "mde": mde_at(pool, alpha / m, n, **options)} for n in PLAN_QUERIES]
    needed = [
        {"mde": target, "queries": queries_needed(pool, alpha / m, target, **options)}
        for target in PLAN_TARGETS
    ]
    curve = [pool.max_delta * i / CURVE_POINTS for i in range(CURVE_POINTS + 1)]
    if pool.n < min_queries:
        note = f"fewer than {min_queries} queries: no verdict is a claim, nothing is detectable"
    elif not pool.pooled:
        note = "no tool's output differs from the baseline's: no difference to simulate from"
    elif mde is None:
        note = (
            f"no mean difference up to the largest feasible one ({pool.max_delta:.3f}, every "
            f"differing query better) reaches {POWER_TARGET:.0%} power"
        )
    else:
        note = f"{POWER_TARGET:.0%} power from a true mean {metric} difference of {mde:.3f}"
    return {
        "metadata": {
            **dict(context or {}),
            "alpha": alpha,
            "baseline": baseline,
            "metric": metric,
            "subset": SUBSET,
            "seed": seed,
            "power_target": POWER_TARGET,
            "simulations": settings.simulations,
            "bootstrap_resamples": settings.bootstrap_resamples,
            "flip_resamples": settings.flip_resamples,
            "exact_max_n_eff": settings.exact_max,
            "inference_resamples": resamples,
            "quantum": QUANTUM,
            "model": (
                "per query: 0 with the pooled tie share, else a magnitude drawn from the pooled "
                "non-zero |differences| of the tools that differ from the baseline, signed + "
                "with the probability that makes the expected mean difference delta"
            ),
            "rule": (
                f"detected better: {CONFIDENCE:.0%} percentile bootstrap interval above 0 and "
                "sign-flip p < alpha / m (exact when n_eff <= "
                f"{settings.exact_max}, else Monte Carlo)"
            ),
            "holm": (
                f"m = the {'primary' if family else 'vs-baseline'} family's Holm adjustment of "
                "this metric over all queries after Tarone's rule (at least 1); alpha / m is "
                "Holm's first step, the worst case for a single true effect among the family"
            ),
            "plan": (
                "the MDE of a sample of n queries drawn like this corpus's (same tie share and "
                "differences), and the fewest queries (within 2%, at most "
                f"{PLAN_QUERIES[-1]}) whose MDE reaches each target; null: not within "
                f"{PLAN_QUERIES[-1]} or not feasible at this tie share"
            ),
            "family": "primary" if family else "vs-baseline",
            "family_tools": sorted(family or pool.n_eff),
        },
        "n": pool.n,
        "tie_share": pool.tie_share,
        "pooled_tools": pool.pooled,
        "identical_tools": pool.identical,
        "nonzero_differences": int(pool.magnitudes.size),
        "mean_abs_nonzero": pool.mean_magnitude,
        "n_eff": pool.n_eff,
        "n_eff_expected": pool.n * (1.0 - pool.tie_share),
        "holm_m": m,
        "test_alpha": alpha / m,
        "max_feasible_delta": pool.max_delta,
        "mde": mde,
        "mde_note": note,
        "plan": plan,
        "queries_needed": needed,
        "power_curve": [
            {"delta": d, "power": float(p)}
            for d, p in zip(curve, power_at(thresholds, np.array(curve)), strict=True)
        ],
    }


def power_json(result: Mapping) -> str:
    """power.json content: sorted keys, no NaN, trailing newline."""
    return json_text(result)


def write_power(result: Mapping, path: str | os.PathLike) -> None:
    write_text(path, power_json(result))
