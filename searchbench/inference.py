"""Paired inference: each tool against the baseline, query by query (docs/method.md §6).

For one corpus and track, for every tool, metric (every measure of searchbench.measures: rr,
success10, ndcg10, recall10; the track's primary one, rr or ndcg10, is marked) and subset of
queries (``all``; ``discriminating`` = not trivial, i.e. the baseline found the query in more
files than it has right ones), the per-query differences d = tool - baseline get:

- a 95% percentile bootstrap interval of their mean: ``resamples`` resamples of the n
  differences with replacement (the index matrix ``scipy.stats.bootstrap(method='percentile')``
  draws from the same Generator, held as counts per query: QueryDraws);
- a two-sided sign-flip randomization p of their mean: exact over all 2**n_eff sign patterns
  of the n_eff non-zero differences when n_eff <= EXACT_MAX_N_EFF (p = share of patterns at
  least as extreme, the observed one included), else ``resamples`` random patterns with
  p = (b + 1) / (resamples + 1); never 0. "At least as extreme" allows a tolerance on the
  scale of sum(|d|), the largest sum any pattern can reach, so sums that are equal in exact
  arithmetic count as ties whatever the rounding (a tolerance relative to the observed sum
  vanishes when that sum is 0 and missed such ties);
- a Holm adjustment of p within each family (below), after Tarone's rule: a comparison whose
  smallest attainable p (p_min: 2 / 2**n_eff when exact) is >= alpha can never be detected,
  so it leaves the family and does not inflate m for the others. n_eff is unchanged by sign
  flips, so the choice is made on a statistic the null distribution conditions on anyway, and
  Holm over the remaining m keeps the family-wise error rate at alpha. Excluded comparisons
  have ``holm_excluded`` (the reason) and no ``p_holm``;
- a verdict: ``detected better`` / ``detected worse`` only when the interval excludes 0 AND the
  Holm-adjusted p < alpha; ``tests disagree`` when exactly one of the two holds (read
  conservatively: nothing detected); ``not detected`` when neither; ``identical`` when the two
  tools score the same on every query and every metric (the same rank of the right file:
  there is no difference to test); ``not evidence`` when n < MIN_QUERIES or when too few
  queries differ for any result to reach alpha (p_min >= alpha); ``broken`` when either
  tool is broken on this corpus and track (searchbench.health: too many errors, timeouts or
  unparsable outputs, or stopped early): a tool that failed did not lose, so a broken
  comparison leaves its Holm family (it must not raise the others' m) and claims nothing.

Families. One comparison has one test and one verdict, in one of four families, each with its
own Holm adjustment within each (metric, subset):

- ``primary``: the benchmark's declared questions, config ``primary`` (default: hay), each tool
  named there against the baseline. Holm among the primaries only, so adding a tool or a
  variant of hay never makes the headline verdict harder to reach.
- ``secondary``: every other tool against the baseline ("which other tools differ from the
  baseline here?").
- ``ablation``: each ablation variant (tools.yaml ``ablation_of``) against the full tool it
  varies: the effect of switching its signals off, measured, not assumed. A variant whose full
  tool was not scored is compared with the baseline, in the secondary family.
- ``all-pairs`` (``pairs``, optional, exploratory): every pair of tools no declared family
  tests. A pair a declared family tests is not tested again: ``pairs`` repeats that comparison
  (same numbers, same verdict, same family). Testing it twice, in families of different sizes,
  gave one pair two verdicts.

Each family controls the family-wise error rate of its own comparisons at alpha; nothing
controls it across families (four families: at most 4 alpha over everything). That is the
point of declaring them: the primary family's claim is corrected for the questions it asks,
not for every comparison a run happens to include.

Common random numbers (issue 34 item 3). The resamples and random sign patterns do not
depend on the data, only on the queries: every comparison on the same queries (any pair of
tools, any metric) uses the same bootstrap counts and sign patterns (QueryDraws), drawn from a
Generator seeded by (seed, crc32 of the query ids). So a comparison's interval and p depend
neither on which other tools are configured nor on the family it is in; the Monte Carlo error
of two comparisons on the same queries is shared (their difference is not blurred by it), and
the draws are made once per query set instead of once per comparison (the run's inference
took 478 CPU-s, two thirds of it drawing and gathering indices). The resampled sums are taken
on the differences held as integer multiples of a power of two (exact_units): every such sum
is exact in float64 in any order, so the output is byte-identical on any BLAS, CPU and thread
count, and the rounding (< 1e-12 of the largest difference at n = 300) is far below any
printed digit. Everything is byte-identical for the same inputs and seed.
"""

import os
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
import pandas as pd

from searchbench.artifacts import json_text, tsv_text, write_text
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.measures import (  # noqa: F401 - VERDICTS re-exported for its readers
    METRICS,
    MIN_QUERIES,
    PRIMARY_METRIC,
    SUBSETS,
    VERDICTS,
    Verdict,
)
from searchbench.metrics import NOT_APPLICABLE

EXACT_MAX_N_EFF = 16
CONFIDENCE = 0.95
# A query set's draws are kept for the next comparison on it only up to this size (both
# matrices): 48 MB at 300 queries and 10,000 resamples; a larger set is drawn per use.
DRAWS_CACHE_BYTES = 160 * 2**20
FAMILIES = ("primary", "secondary", "ablation", "all-pairs")
DECLARED_FAMILIES = FAMILIES[:3]
FAMILY_CONTROLS = {
    "primary": (
        "the declared questions (config primary): each vs the baseline; Holm among them only"
    ),
    "secondary": "every other tool vs the baseline; Holm among them",
    "ablation": (
        "each ablation variant (tools.yaml ablation_of) vs the full tool it varies; Holm among them"
    ),
    "all-pairs": ("every pair no declared family tests (exploratory); Holm among them"),
}
TSV_COLUMNS = (
    "family",
    "tool",
    "baseline",
    "metric",
    "primary_metric",
    "subset",
    "n",
    "n_eff",
    "mean_tool",
    "mean_base",
    "diff",
    "ci_low",
    "ci_high",
    "p_randomization",
    "p_exact",
    "p_min",
    "p_holm",
    "verdict",
    "holm_m",
    "holm_excluded",
)


def comparison_rng(seed: int, *parts: str) -> np.random.Generator:
    """A Generator for one named draw, stable across processes and Python versions."""
    key = zlib.crc32("\x1f".join(parts).encode("utf-8"))
    return np.random.default_rng([int(seed), key])


def bootstrap_means(diffs: np.ndarray, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples (scipy.stats.bootstrap's draw order)."""
    diffs = np.asarray(diffs, dtype=float)
    # int32 draws the very same indices as the default int64 (numpy bounds both with 32-bit
    # draws below 2**32; tests/test_inference.py checks it) in three quarters of the time.
    index = rng.integers(0, diffs.shape[-1], (resamples, diffs.shape[-1]), dtype=np.int32)
    return np.take(diffs, index).mean(axis=-1)


def bootstrap_counts(rng: np.random.Generator, resamples: int, n: int) -> np.ndarray:
    """How often each query is drawn in each resample, from the very index matrix
    bootstrap_means draws from the same Generator (so counts @ d / n are its means)."""
    index = rng.integers(0, n, (resamples, n), dtype=np.int32)
    flat = (index + n * np.arange(resamples)[:, None]).ravel()
    return np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(float)


@dataclass(frozen=True)
class QueryDraws:
    """The random numbers of every comparison on one query set (common random numbers):
    ``counts`` (resamples, n), how often each query is drawn per bootstrap resample, and
    ``signs`` (resamples, n), a random +1/-1 per query per sign-flip pattern. A zero
    difference contributes nothing to a signed sum, so flipping all n queries is the same
    test as flipping the n_eff non-zero ones."""

    counts: np.ndarray
    signs: np.ndarray


def _draw(seed: int, qids: tuple[str, ...], resamples: int) -> QueryDraws:
    n = len(qids)
    counts = bootstrap_counts(comparison_rng(seed, "bootstrap", *qids), resamples, n)
    flips = comparison_rng(seed, "randomization", *qids).integers(
        0, 2, (resamples, n), dtype=np.int8
    )
    return QueryDraws(counts, (flips * 2 - 1).astype(float))


_cached_draws = lru_cache(maxsize=2)(_draw)  # a family alternates its two subsets


def query_draws(seed: int, qids: Sequence[str], resamples: int) -> QueryDraws:
    """The draws of one query set (ids in the order of the differences they resample)."""
    key = tuple(str(q) for q in qids)
    if 2 * resamples * len(key) * 8 > DRAWS_CACHE_BYTES:
        return _draw(seed, key, resamples)
    return _cached_draws(seed, key, resamples)


def exact_units(values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each column of ``values`` as integer multiples of its ``unit``, a power of two small
    enough that any sum of the column with integer weights totalling at most n is below
    2**52, hence exact in float64 in any order (a bootstrap resample's sum, a sign pattern's)."""
    values = np.asarray(values, dtype=float)
    top = np.abs(values).max(axis=0) if values.size else np.zeros(values.shape[1:])
    unit = np.ldexp(1.0, np.frexp(top)[1] - (52 - max(1, n).bit_length()))
    return np.rint(values / unit), unit


def shared_bootstrap_ci(
    diffs: np.ndarray, draws: QueryDraws, confidence: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """bootstrap_ci of each column of ``diffs`` (n, k) with the query set's counts: a
    resample's mean is its exact sum of exact_units, times the unit, over n (one rounding)."""
    n = diffs.shape[0]
    units, unit = exact_units(diffs, n)
    means = (draws.counts @ units) * unit / n
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    return low, high


def shared_randomization_p(
    diffs: np.ndarray, draws: QueryDraws, exact_max: int = EXACT_MAX_N_EFF
) -> tuple[np.ndarray, np.ndarray]:
    """randomization_p of each column of ``diffs`` (n, k): exact up to exact_max non-zero
    differences, else over the query set's sign patterns. Sums of exact_units are exact, and
    two sums equal in exact arithmetic differ by at most n_eff units once each difference is
    rounded, so that is the tie tolerance."""
    n_eff = np.count_nonzero(diffs, axis=0)
    exact = n_eff <= exact_max
    p = np.empty(diffs.shape[1])
    for j in np.flatnonzero(exact):
        p[j] = exact_randomization_p(diffs[diffs[:, j] != 0.0, j])
    monte_carlo = np.flatnonzero(~exact)
    if monte_carlo.size:
        units, _ = exact_units(diffs[:, monte_carlo], diffs.shape[0])
        null_sums = draws.signs @ units
        observed = np.abs(units.sum(axis=0))
        extreme = np.count_nonzero(np.abs(null_sums) >= observed - n_eff[monte_carlo], axis=0)
        p[monte_carlo] = (extreme + 1) / (len(null_sums) + 1)
    return p, exact


def bootstrap_ci(
    diffs: Sequence[float] | np.ndarray,
    rng: np.random.Generator,
    resamples: int,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean (equals scipy's method='percentile')."""
    means = bootstrap_means(np.asarray(diffs, dtype=float), rng, resamples)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


@lru_cache(maxsize=EXACT_MAX_N_EFF + 1)
def all_sign_patterns(k: int) -> np.ndarray:
    """Every one of the 2**k sign patterns of k values, one per row (+1/-1)."""
    codes = np.arange(2**k, dtype=np.int64)[:, None] >> np.arange(k, dtype=np.int64)
    return ((codes & 1) * 2 - 1).astype(float)


def _extreme(null_sums: np.ndarray, observed: float, scale: float) -> np.ndarray:
    """Which null sums are at least as extreme as the observed one, ties included.

    The tolerance is on the scale of sum(|d|) (every sum's rounding error is), not of the
    observed sum: when the observed sum is 0 in exact arithmetic, a relative tolerance is
    ~0 and sums that are equal but rounded differently were not counted.
    """
    gamma = scale * np.finfo(float).eps * 100
    return np.abs(null_sums) >= abs(observed) - gamma


def randomization_p(
    diffs: Sequence[float] | np.ndarray,
    rng: np.random.Generator,
    resamples: int,
    exact_max: int = EXACT_MAX_N_EFF,
) -> tuple[float, bool]:
    """Two-sided sign-flip p of the mean difference, and whether it was exact.

    Zero differences do not change under a sign flip, so only the n_eff non-zero ones are
    flipped. Exact enumeration when n_eff <= exact_max, else Monte Carlo with (b+1)/(B+1).
    """
    values = np.asarray(diffs, dtype=float)
    nonzero = values[values != 0.0]
    observed = float(nonzero.sum())
    scale = float(np.abs(nonzero).sum())
    if nonzero.size <= exact_max:
        return exact_randomization_p(nonzero), True
    signs = (rng.integers(0, 2, (resamples, nonzero.size), dtype=np.int8) * 2 - 1).astype(float)
    null_sums = signs @ nonzero
    extreme = int(np.count_nonzero(_extreme(null_sums, observed, scale)))
    return (extreme + 1) / (resamples + 1), False


def exact_randomization_p(nonzero: np.ndarray) -> float:
    """The sign-flip p over all 2**n_eff patterns of the non-zero differences."""
    null_sums = all_sign_patterns(nonzero.size) @ nonzero
    scale = float(np.abs(nonzero).sum())
    extreme = np.count_nonzero(_extreme(null_sums, float(nonzero.sum()), scale))
    return float(extreme / null_sums.size)


def min_p(n_eff: int, resamples: int, exact_max: int = EXACT_MAX_N_EFF) -> float:
    """The smallest p the randomization test can return for n_eff non-zero differences."""
    if n_eff == 0:
        return 1.0
    if n_eff <= exact_max:
        return min(1.0, 2.0 / 2**n_eff)
    return 1.0 / (resamples + 1)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order (ties keep input order)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def verdict(
    n: int,
    ci_low: float | None,
    ci_high: float | None,
    p_holm: float | None,
    p_minimum: float,
    alpha: float,
    min_queries: int = MIN_QUERIES,
    identical: bool = False,
    applicable: bool = True,
    broken: bool = False,
) -> str:
    """One of VERDICTS; detected only when the interval excludes 0 and p_holm < alpha.

    ``identical`` (the two tools score the same on every query and metric) is a fact, not an
    inference, so it holds whatever n is; with no query at all there is nothing to show.
    ``broken`` (either tool failed too often here) comes first: no other word is a claim.
    """
    if broken:
        return Verdict.BROKEN.value
    if applicable is False:
        return Verdict.NOT_APPLICABLE.value
    if identical and n > 0:
        return Verdict.IDENTICAL.value
    if n < min_queries or p_minimum >= alpha or ci_low is None or p_holm is None:
        return Verdict.NOT_EVIDENCE.value
    interval_excludes = ci_low > 0.0 or ci_high < 0.0
    significant = p_holm < alpha
    if interval_excludes and significant:
        better = ci_low > 0.0
        return (Verdict.DETECTED_BETTER if better else Verdict.DETECTED_WORSE).value
    if interval_excludes or significant:
        return Verdict.TESTS_DISAGREE.value
    return Verdict.NOT_DETECTED.value


def describe(name: Sequence[str]) -> str:
    """A comparison's name for messages: (tool, reference, metric, subset[, stratum]) or any."""
    if len(name) in (4, 5):
        tool, base, metric, subset, *stratum = name
        where = f", {stratum[0]}" if stratum else ""
        return f"tool {tool!r} vs {base!r}, metric {metric}, subset {subset}{where}"
    return "comparison " + "/".join(map(str, name))


def check_finite(diffs: np.ndarray, name: Sequence[str], qids: Sequence[str] | None = None) -> None:
    """A NaN or infinite difference makes no sign pattern 'as extreme' (p = 0): refuse it."""
    bad = np.flatnonzero(~np.isfinite(diffs))
    if bad.size:
        first = qids[int(bad[0])] if qids is not None else f"query index {int(bad[0])}"
        raise BenchError(
            f"{describe(name)}: {bad.size} per-query difference(s) are NaN or infinite "
            f"(first: {first}); every score must be a finite number: rerun the score rule "
            "and check scores.tsv"
        )


def paired_comparison(
    tool_values: Sequence[float] | np.ndarray,
    base_values: Sequence[float] | np.ndarray,
    *,
    seed: int,
    name: Sequence[str],
    resamples: int,
    qids: Sequence[str] | None = None,
) -> dict:
    """Everything but the Holm p and the verdict for one paired comparison; ``qids`` (the
    queries of the values, in order; default their positions) name its draws."""
    tool = np.asarray(tool_values, dtype=float)[:, None]
    base = np.asarray(base_values, dtype=float)[:, None]
    return paired_comparisons(tool, base, [name], seed=seed, resamples=resamples, qids=qids)[0]


def paired_comparisons(
    tool_values: np.ndarray,
    base_values: np.ndarray,
    names: Sequence[Sequence[str]],
    *,
    seed: int,
    resamples: int,
    qids: Sequence[str] | None = None,
) -> list[dict]:
    """paired_comparison of each column of ``tool_values`` and ``base_values`` (n, k) on the
    same queries: one pass over the query set's draws for all k (a matrix product)."""
    diffs = tool_values - base_values
    for j, name in enumerate(names):
        check_finite(diffs[:, j], name)
    n = diffs.shape[0]
    n_eff = np.count_nonzero(diffs, axis=0)
    results = [
        {
            "n": n,
            "n_eff": int(n_eff[j]),
            "mean_tool": None,
            "mean_base": None,
            "diff": None,
            "ci_low": None,
            "ci_high": None,
            "p_randomization": None,
            "p_exact": None,
            "p_min": min_p(int(n_eff[j]), resamples),
        }
        for j in range(len(names))
    ]
    if n == 0:
        return results
    draws = query_draws(seed, range(n) if qids is None else qids, resamples)
    low, high = shared_bootstrap_ci(diffs, draws)
    p, exact = shared_randomization_p(diffs, draws)
    for j, result in enumerate(results):
        result.update(
            # contiguous: a column's mean sums in the order a 1-D array's does
            mean_tool=float(np.ascontiguousarray(tool_values[:, j]).mean()),
            mean_base=float(np.ascontiguousarray(base_values[:, j]).mean()),
            diff=float(np.ascontiguousarray(diffs[:, j]).mean()),
            ci_low=float(low[j]),
            ci_high=float(high[j]),
            p_randomization=float(p[j]),
            p_exact=bool(exact[j]),
        )
    return results


def _per_query(scores: pd.DataFrame, tool: str) -> pd.DataFrame:
    rows = scores[scores["tool"] == tool].set_index("qid").sort_index()
    if rows.index.has_duplicates:
        raise BenchError(f"scores of tool {tool!r} have a qid twice; rerun the score rule")
    return rows


def _subset_qids(scores: pd.DataFrame) -> dict[str, pd.Index]:
    trivial = scores.groupby("qid")["trivial"].first().sort_index()
    return {"all": trivial.index, "discriminating": trivial.index[~trivial.to_numpy()]}


def holm_exclusion(comparison: Mapping, alpha: float, min_queries: int = MIN_QUERIES) -> str | None:
    """Why a comparison stays out of its Holm family, or None when it is in it."""
    if comparison.get("broken"):
        return f"broken: {comparison['broken']}"
    if not comparison.get("applicable", True):
        return "not applicable: no query in the languages the tool covers"
    if comparison["p_randomization"] is None:
        return "no query in this subset"
    if comparison["n"] < min_queries:
        # its verdict is "not evidence" whatever p is: it must not raise the others' m
        return f"fewer than {min_queries} queries: not evidence"
    if comparison["identical"]:
        return "identical: every per-query difference is 0"
    if comparison["p_min"] >= alpha:
        return (
            f"cannot reach alpha (Tarone): only {comparison['n_eff']} queries differ, "
            f"smallest possible p = {comparison['p_min']:.4g} >= {alpha:g}"
        )
    return None


def adjust_family(
    comparisons: Sequence[dict], alpha: float, min_queries: int = MIN_QUERIES
) -> None:
    """Holm within each (metric, subset) over the comparisons that can reach alpha, then each
    comparison's verdict. Sets holm_excluded, holm_m, p_holm and verdict in place."""
    for c in comparisons:
        c["holm_excluded"] = holm_exclusion(c, alpha, min_queries)
    for metric in METRICS:
        for subset in SUBSETS:
            tested = [
                c
                for c in comparisons
                if c["metric"] == metric and c["subset"] == subset and c["holm_excluded"] is None
            ]
            adjusted = holm([c["p_randomization"] for c in tested])
            for comparison, p_adjusted in zip(tested, adjusted, strict=True):
                comparison["p_holm"] = p_adjusted
                comparison["holm_m"] = len(tested)
    for c in comparisons:
        c.setdefault("p_holm", None)
        c.setdefault("holm_m", None)
        c["verdict"] = verdict(
            c["n"],
            c["ci_low"],
            c["ci_high"],
            c["p_holm"],
            c["p_min"],
            alpha,
            min_queries,
            identical=c["identical"],
            applicable=c.get("applicable", True),
            broken=bool(c.get("broken")),
        )


def family_comparisons(
    scores: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    family: str,
    design: Design,
    *,
    stratum: str = "",
    adjust: bool = True,
    broken: Mapping[str, str] | None = None,
) -> list[dict]:
    """Every comparison of one family's (tool, reference) pairs on these scores, Holm-adjusted
    within the family unless adjust is False (the caller adjusts a larger family). A stratum
    (a slice of the queries, e.g. one language) has its own draws: they are named by the queries.
    ``broken`` (tool -> why, searchbench.health): a pair with a broken tool is still computed
    (its numbers stay visible) but its verdict is ``broken`` and it is out of Holm."""
    broken = dict(broken or {})
    subsets = _subset_qids(scores)
    rows = {t: _per_query(scores, t) for t in sorted({t for pair in pairs for t in pair})}
    # A tool is compared only on the queries in the languages it covers (status
    # not-applicable elsewhere); both tools of a pair must have been asked.
    asked = {t: frame.index[frame["status"] != NOT_APPLICABLE] for t, frame in rows.items()}
    comparisons = []
    for tool, base in pairs:
        if not rows[tool].index.equals(rows[base].index):
            raise BenchError(
                f"tool {tool!r} and {base!r} were scored on different queries; "
                "rerun the search and score rules"
            )
        both = asked[tool].intersection(asked[base])
        qids = {subset: subsets[subset].intersection(both, sort=None) for subset in SUBSETS}
        tables = {  # (queries, METRICS) per tool and subset: one lookup each
            (t, subset): rows[t].loc[qids[subset], list(METRICS)].to_numpy(dtype=float)
            for t in (tool, base)
            for subset in SUBSETS
        }
        arrays = {
            (t, metric, subset): np.ascontiguousarray(tables[(t, subset)][:, i])
            for t in (tool, base)
            for i, metric in enumerate(METRICS)
            for subset in SUBSETS
        }
        # Checked before any test, so that a bad score never becomes p = 0 further down.
        for metric in METRICS:
            check_finite(
                arrays[(tool, metric, "all")] - arrays[(base, metric, "all")],
                (tool, base, metric, "all"),
                list(qids["all"]),
            )
        # Every metric is a function of the rank: equal metrics on every query mean the same
        # rank of the right file everywhere, so there is no difference to test.
        identical = all(
            np.array_equal(arrays[(tool, m, "all")], arrays[(base, m, "all")]) for m in METRICS
        )
        # every metric of one subset in one pass over its queries' draws
        by_subset = {
            subset: paired_comparisons(
                tables[(tool, subset)],
                tables[(base, subset)],
                [(tool, base, m, subset, *([stratum] if stratum else [])) for m in METRICS],
                seed=design.seed,
                resamples=design.resamples,
                qids=list(qids[subset]),
            )
            for subset in SUBSETS
        }
        for i, metric in enumerate(METRICS):
            for subset in SUBSETS:
                result = by_subset[subset][i]
                result.update(
                    family=family,
                    tool=tool,
                    baseline=base,
                    metric=metric,
                    primary_metric=metric == design.primary_metric,
                    subset=subset,
                    identical=identical,
                    applicable=bool(len(both)),
                    not_applicable=int(len(subsets[subset]) - len(qids[subset])),
                )
                reason = broken_reason(broken, tool, base)
                if reason:  # only then: inference.json of a healthy run keeps its keys
                    result["broken"] = reason
                comparisons.append(result)
    if adjust:
        adjust_family(comparisons, design.alpha, design.min_queries)
    return comparisons


def broken_reason(broken: Mapping[str, str], tool: str, base: str) -> str | None:
    """Why a comparison of tool with base is broken (either tool broken), or None."""
    reasons = [f"{t} {broken[t]}" for t in (tool, base) if t in broken]
    return "; ".join(reasons) or None


def holm_sizes(comparisons: Sequence[Mapping]) -> dict[str, dict[str, int]]:
    """m of each (metric, subset) Holm adjustment of one family after Tarone's rule."""
    return {
        metric: {
            subset: sum(
                1
                for c in comparisons
                if (c["metric"], c["subset"]) == (metric, subset) and c["holm_excluded"] is None
            )
            for subset in SUBSETS
        }
        for metric in METRICS
    }


def holm_excluded(comparisons: Sequence[Mapping]) -> list[dict]:
    """Which comparisons left their Holm family, and why (in comparison order)."""
    keys = ("family", "tool", "baseline", "metric", "subset", "n_eff")
    return [
        {**{k: c[k] for k in keys}, "reason": c["holm_excluded"]}
        for c in comparisons
        if c["holm_excluded"] is not None
    ]


def family_record(
    family: str, pairs: Sequence[tuple[str, str]], comparisons: Sequence[Mapping]
) -> dict:
    """metadata.families[family]: what it controls, its (tool, reference) pairs, Holm's m."""
    return {
        "controls": FAMILY_CONTROLS[family],
        "pairs": [list(pair) for pair in pairs],
        "holm_m": holm_sizes(comparisons),
    }


def declared_pairs(
    tools: Sequence[str],
    baseline: str,
    primary: Sequence[str] = (),
    ablations: Mapping[str, str] | None = None,
) -> dict[str, list[tuple[str, str]]]:
    """(tool, reference) pairs of each declared family, among the scored tools.

    A primary or ablation tool that was not scored has no comparison; an ablation variant
    whose full tool was not scored is compared with the baseline (secondary)."""
    scored = set(tools)
    ablations = {v: full for v, full in (ablations or {}).items() if full in scored}
    primaries = [t for t in sorted(set(primary)) if t in scored and t != baseline]
    out: dict[str, list[tuple[str, str]]] = {
        "primary": [(t, baseline) for t in primaries],
        "secondary": [
            (t, baseline)
            for t in tools
            if t != baseline and t not in primaries and t not in ablations
        ],
        "ablation": [(v, ablations[v]) for v in tools if v in ablations and v not in primaries],
    }
    return out


def _pairs(
    scores: pd.DataFrame,
    tools: Sequence[str],
    declared: Sequence[Mapping],
    design: Design,
    broken: Mapping[str, str],
) -> list[dict]:
    """Every unordered pair of tools: a pair a declared family tests repeats that comparison
    (one test, one verdict); the other pairs form the all-pairs family."""
    by_pair = {frozenset((c["tool"], c["baseline"])): c for c in declared}
    own = [pair for pair in combinations(tools, 2) if frozenset(pair) not in by_pair]
    tested = iter(family_comparisons(scores, own, "all-pairs", design, broken=broken))
    by_key = {(c["tool"], c["baseline"], c["metric"], c["subset"]): c for c in declared}
    out = []
    for pair in combinations(tools, 2):
        if frozenset(pair) in by_pair:
            c = by_pair[frozenset(pair)]
            out += [
                dict(by_key[(c["tool"], c["baseline"], m, s)]) for m in METRICS for s in SUBSETS
            ]
        else:
            out += [next(tested) for _ in range(len(METRICS) * len(SUBSETS))]
    return out


def check_declared(
    tools: Sequence[str], baseline: str, primary: Sequence[str], ablations: Mapping[str, str]
) -> None:
    if baseline not in tools:
        raise BenchError(
            f"baseline tool {baseline!r} has no scores (tools: {list(tools)}); "
            "set 'baseline' in config/config.yaml to a scored tool"
        )
    if baseline in primary:
        raise BenchError(
            f"primary names the baseline {baseline!r}: a tool is not compared with itself; "
            "remove it from 'primary' in config/config.yaml"
        )
    for variant, full in ablations.items():
        if variant == full:
            raise BenchError(
                f"tool {variant!r} is an ablation of itself; fix its ablation_of in tools.yaml"
            )


def run_inference(
    scores: pd.DataFrame,
    design: Design,
    *,
    all_pairs: bool = False,
    context: Mapping[str, str] | None = None,
    broken: Mapping[str, str] | None = None,
) -> dict:
    """The content of inference.json for one corpus and track's scores.

    ``comparisons`` holds the declared families in order: primary (each tool of
    ``design.primary`` vs the baseline), secondary (every other tool vs the baseline), ablation
    (each variant of ``design.ablations``, variant -> full tool, vs that tool). With all_pairs,
    ``pairs`` holds every unordered pair of tools (diff is the first-named tool minus the
    second) in the order of itertools.combinations: pairs a declared family tests repeat that
    comparison as it is, the others are the all-pairs family (see the module docstring).
    ``broken`` (tool -> why, from health.tsv): every comparison with a broken tool reads
    ``broken`` and leaves Holm.
    """
    baseline, primary, ablations = design.baseline, design.primary, dict(design.ablations)
    alpha, min_queries, primary_metric = design.alpha, design.min_queries, design.primary_metric
    broken = dict(sorted((broken or {}).items()))
    tools = sorted(set(scores["tool"]))
    check_declared(tools, baseline, primary, ablations)
    declared = declared_pairs(tools, baseline, primary, ablations)
    by_family = {
        f: family_comparisons(scores, pairs, f, design, broken=broken)
        for f, pairs in declared.items()
    }
    comparisons = [c for f in DECLARED_FAMILIES for c in by_family[f]]
    result = {
        "metadata": {
            **dict(context or {}),
            "alpha": alpha,
            "baseline": baseline,
            "broken_tools": broken,
            "bootstrap": (
                f"{CONFIDENCE:.0%} percentile bootstrap of the mean paired difference "
                "(tool - reference), resampling queries with replacement"
            ),
            "confidence": CONFIDENCE,
            "families": {f: family_record(f, declared[f], by_family[f]) for f in DECLARED_FAMILIES},
            "family_rule": (
                "Holm adjustment within each family and (metric, subset), over its comparisons "
                "that can reach alpha (Tarone's rule: smallest possible p >= alpha, identical "
                "tools and empty subsets are left out, listed in holm_excluded); each family "
                "keeps the family-wise error rate of its own comparisons at alpha"
            ),
            "primary": sorted(set(primary)),
            "ablations": dict(sorted(ablations.items())),
            "holm_excluded": holm_excluded(comparisons),
            "exact_max_n_eff": EXACT_MAX_N_EFF,
            "identical_tools": sorted(
                {c["tool"] for c in comparisons if c["identical"] and c["baseline"] == baseline}
            ),
            "metrics": list(METRICS),
            "min_queries": min_queries,
            "primary_metric": primary_metric,
            "queries": int(scores["qid"].nunique()),
            "randomization": (
                "two-sided sign-flip test of the mean paired difference; exact over all "
                f"2^n_eff sign patterns when n_eff <= {EXACT_MAX_N_EFF}, else Monte Carlo "
                "with p = (b+1)/(resamples+1); sums within sum(|d|) * 100 machine epsilons "
                "of the observed one count as ties"
            ),
            "resamples": design.resamples,
            "seed": design.seed,
            "subsets": {
                "all": "every query",
                "discriminating": (
                    "queries the baseline found in more files than there are right ones "
                    "(more than one file on the one-answer tracks)"
                ),
            },
            "tools": tools,
            "trivial_queries": int(scores.groupby("qid")["trivial"].first().sum()),
            "verdict_rule": (
                "detected only when the CI excludes 0 and p_holm (adjusted within the "
                "comparison's family) < alpha; 'tests disagree' when exactly one holds (not "
                "detected); 'identical' when the two tools score the same on every query and "
                f"metric; 'not evidence' when n < {min_queries} or too few queries differ for "
                "any result to reach alpha (p_min >= alpha); 'broken' when either tool is "
                "broken on this corpus and track (broken_tools: it failed too often to be "
                "measured), which also takes the comparison out of Holm"
            ),
        },
        "comparisons": comparisons,
    }
    if all_pairs:
        pairs = _pairs(scores, tools, comparisons, design, broken)
        own = [c for c in pairs if c["family"] == "all-pairs"]
        result["pairs"] = pairs
        own_pairs = [
            (c["tool"], c["baseline"])
            for c in own
            if c["metric"] == primary_metric and c["subset"] == "all"
        ]
        result["metadata"]["families"]["all-pairs"] = family_record("all-pairs", own_pairs, own)
        result["metadata"]["pairs_holm_excluded"] = holm_excluded(own)
    return result


def tsv_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.17g}"
    return str(value)


def inference_json(result: Mapping) -> str:
    """inference.json content: sorted keys, no NaN, trailing newline."""
    return json_text(result)


def inference_tsv(result: Mapping) -> str:
    """inference.tsv content: one row per comparison, the declared families first (primary,
    secondary, ablation), then the all-pairs family (a declared pair is already above)."""
    pairs = [c for c in result.get("pairs", []) if c["family"] == "all-pairs"]
    rows = [[tsv_cell(comp[c]) for c in TSV_COLUMNS] for comp in [*result["comparisons"], *pairs]]
    return tsv_text(TSV_COLUMNS, rows)


def write_inference(result: Mapping, json_path: str | os.PathLike, tsv_path: str | os.PathLike):
    """Write inference.json and inference.tsv atomically (each)."""
    write_text(json_path, inference_json(result))
    write_text(tsv_path, inference_tsv(result))
