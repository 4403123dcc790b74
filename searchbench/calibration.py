"""Calibration on our own data: A/A runs of the inference's verdict rule (issue: A/A runs).

For one corpus and track, how often does the project's decision rule detect a difference
where there is none? Answered by simulation from the corpus's real per-query scores.

Construction of the exchangeable pairs. For every comparison of the declared families that
tests a tool against a reference (searchbench.inference.declared_pairs: primary and secondary,
each tool vs the baseline; ablation, each variant vs its full tool), take the real pair of
per-query rr vectors (tool, reference); each simulation swaps the two values within each
query with probability 1/2, independently per query and per comparison (seeded). Swapping is
a sign flip of the query's difference, so under it the null (no difference) holds exactly,
while n, the per-query magnitudes, the ties (zero differences stay zero) and hence n_eff are
the real ones. (tool - reference is exactly -(reference - tool) in floating point, so the flip
is exact too.) Swaps are independent between comparisons: comparisons that share the baseline
are positively dependent in a real run, and independence is the less favourable case for Holm
(its family-wise rate is closest to alpha), so the simulated rate is not flattered.

The rule applied is the published one: searchbench.inference's percentile bootstrap interval
and sign-flip p (the same Generators, the same draws), then its own holm_exclusion (Tarone),
Holm within each declared family and verdict. Only the statistics are computed for all
simulations at once (simulated_statistics): the bootstrap counts and random sign patterns do
not depend on the data, so they are the queries' own (inference.query_draws, shared by every
comparison on them, as in the inference) and shared by the simulations, each of which takes
the queries in its own random order (so no two simulations see the same resamples of the
same queries). Simulation s of a comparison is thus
paired_comparison on the swapped pair in that order, which tests/test_calibration.py checks
verdict by verdict; the statistics become two matrix products per comparison, 60-80 times
less CPU per simulation than calling paired_comparison each time (measured on run-shaped
scores: 300 queries, 23 and 31 tools). Only the primary metric over
all queries is simulated (the headline verdicts); ``resamples`` may be lower than the
inference's to keep the run to seconds (a Monte Carlo p stays valid at any resamples; the
interval's ends move only by Monte Carlo error) and is recorded in every row.

Rates, each with a 95% Clopper-Pearson interval over the simulations (or comparisons):

- fwer_combined: share of simulations with at least one ``detected`` verdict in the family
  (the combined rule: interval excludes 0 AND Holm-adjusted p < alpha). The family's claim
  is that this is <= alpha;
- fwer_bootstrap: share of simulations in which some comparison's interval excludes 0 (the
  bootstrap alone: no randomization test, no Holm);
- rate_combined, rate_bootstrap, rate_randomization: per comparison, the share detected by
  the combined rule, by the interval alone, and by the randomization p < alpha alone
  (without Holm).

A comparison whose tool is identical to its reference (n_eff = 0) has nothing to simulate:
it is left out of the counts (the inference leaves it out of Holm too). Rows: one per
declared family (scope ``family``; n_eff is the median over its comparisons), then one per
comparison (scope ``comparison``; the family-wise columns are empty). Byte-identical for the
same inputs and seed: every draw comes from a Generator seeded by (seed, what it simulates).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import beta, binom, binomtest

from searchbench.artifacts import read_tsv, tsv_text, write_text
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.inference import (
    CONFIDENCE,
    DECLARED_FAMILIES,
    EXACT_MAX_N_EFF,
    all_sign_patterns,
    check_declared,
    check_finite,
    comparison_rng,
    declared_pairs,
    exact_units,
    holm_exclusion,
    min_p,
    query_draws,
    tsv_cell,
    verdict,
)
from searchbench.measures import DETECTED, PRIMARY_METRIC

# Enough simulations to tell a family-wise rate of 5% from 7.5%. The 95% Clopper-Pearson
# interval of a rate near alpha = 5% over S simulations has a half-width of about
# 1.96 * sqrt(0.05 * 0.95 / S), which is <= 1.25 points from S = 1.96**2 * 0.0475 / 0.0125**2
# = 1,168 on (the exact interval is a little wider: 1,300 is the first hundred where it is
# <= 1.25). At S = 1,500 a rate of 5.0% reads [3.95%, 6.23%] (its upper end below 7.5%) and a
# rate of 7.5% reads [6.19%, 8.92%] (its lower end above 5%); at 200 they read [2.4%, 9.0%]
# and [4.3%, 12.1%]: one row could tell neither from the other.
SIMULATIONS = 1500
SUBSET = "all"
RATES = (
    "fwer_combined",
    "fwer_bootstrap",
    "rate_combined",
    "rate_bootstrap",
    "rate_randomization",
)
COLUMNS = (
    "corpus",
    "track",
    "family",
    "scope",
    "tool",
    "reference",
    "n",
    "n_eff",
    "comparisons",
    "m",
    "simulations",
    "resamples",
    "alpha",
    "seed",
    *(f"{rate}{part}" for rate in RATES for part in ("", "_low", "_high")),
    "note",
)

Pair = tuple[str, str]


def wide_scores(scores: pd.DataFrame, metric: str = PRIMARY_METRIC) -> pd.DataFrame:
    """One column per tool, one row per qid (sorted): refuses duplicates and missing scores."""
    missing = {"qid", "tool", metric} - set(scores.columns)
    if missing:
        raise BenchError(
            f"scores have no column(s) {sorted(missing)}; pass scores.tsv as read by "
            "searchbench.metrics.read_scores"
        )
    if scores.duplicated(["qid", "tool"]).any():
        raise BenchError("scores have a (qid, tool) pair twice; rerun the score rule")
    wide = scores.pivot(index="qid", columns="tool", values=metric).sort_index()
    if wide.isna().to_numpy().any():
        raise BenchError(
            f"{metric}: some tool has no score (or a NaN) for some query; rerun the score rule"
        )
    return wide.astype(float)


def swapped(
    tool_values: np.ndarray, ref_values: np.ndarray, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pair with the two values exchanged on the queries where ``swaps`` is True."""
    return np.where(swaps, ref_values, tool_values), np.where(swaps, tool_values, ref_values)


def swap_matrix(seed: int, pair: Pair, simulations: int, n: int) -> np.ndarray:
    """Which queries each simulation swaps (one row per simulation) for one comparison: its
    own Generator, so a comparison's draws do not depend on which others are configured.
    PRIMARY_METRIC names the stream, whatever the track's metric: a seed, not a label."""
    rng = comparison_rng(seed, "calibration", "swaps", *pair, PRIMARY_METRIC, SUBSET)
    return rng.random((simulations, n)) < 0.5


@dataclass(frozen=True)
class Family:
    """One family's simulated verdicts: rows are simulations, columns its comparisons (in
    declared order). ``facts`` holds what a swap never changes (tool, baseline, n, n_eff,
    holm_excluded, identical), as adjust_family has them."""

    facts: list[dict[str, Any]]
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_randomization: np.ndarray
    verdict: np.ndarray


def permutation_matrix(seed: int, pair: Pair, simulations: int, n: int) -> np.ndarray:
    """A random order of the queries per simulation (one row each): see simulated_statistics."""
    rng = comparison_rng(seed, "calibration", "permutations", *pair, PRIMARY_METRIC, SUBSET)
    return rng.permuted(np.tile(np.arange(n), (simulations, 1)), axis=1)


def percentile_interval(means: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row's percentile interval (inference.bootstrap_ci's quantiles). A mean within
    rounding of 0 is 0: the sign of a sum that is 0 in exact arithmetic must not depend on
    the order it was added in (the sign-flip test's ties follow the same reasoning)."""
    means = np.where(np.abs(means) <= scale * np.finfo(float).eps * 100, 0.0, means)
    tail = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=1)
    return low, high


def sign_flip_p(nonzero: np.ndarray, signs: np.ndarray | None, resamples: int) -> np.ndarray:
    """inference.randomization_p for every row of ``nonzero`` (one simulation's non-zero
    differences each): exact over all 2**n_eff patterns when ``signs`` is None, else over the
    given (resamples, n_eff) random patterns with p = (b + 1) / (resamples + 1)."""
    observed = np.abs(nonzero.sum(axis=1))
    gamma = np.abs(nonzero).sum(axis=1) * np.finfo(float).eps * 100
    patterns = all_sign_patterns(nonzero.shape[1]) if signs is None else signs
    # rows per block: the (block, patterns) matrix of null sums stays near 2**22 numbers
    block = max(1, 2**22 // len(patterns))
    extreme = np.concatenate(
        [
            np.count_nonzero(
                np.abs(nonzero[i : i + block] @ patterns.T)
                >= (observed[i : i + block] - gamma[i : i + block])[:, None],
                axis=1,
            )
            for i in range(0, len(nonzero), block)
        ]
    )
    if signs is None:
        return extreme / len(patterns)
    return (extreme + 1) / (resamples + 1)


def simulated_statistics(
    tool_values: np.ndarray,
    ref_values: np.ndarray,
    swaps: np.ndarray,
    order: np.ndarray,
    *,
    seed: int,
    qids: Sequence[str],
    resamples: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ci_low, ci_high, p_randomization) of every simulation of one comparison at once.

    Simulation s is inference.paired_comparison(tool[order[s]], ref[order[s]], seed=seed,
    qids=qids) on the pair swapped by ``swaps[s]``: the queries' own bootstrap counts and
    random sign patterns (inference.query_draws: they depend on the queries, not on the
    data), applied to each simulation's differences in its own random order, in the
    inference's exact arithmetic (inference.exact_units). Sharing the two matrices makes the
    whole family a few matrix products instead of thousands of resampling loops; the random
    order per simulation keeps them from being the same resamples of the same queries in every
    simulation (each simulation on its own is the inference's rule with a fresh draw)."""
    n = tool_values.size
    swapped_tool, swapped_ref = swapped(tool_values, ref_values, swaps)
    diffs = np.take_along_axis(swapped_tool - swapped_ref, order, axis=1)
    draws = query_draws(seed, qids, resamples)
    # a swap or a reordering changes no |difference|: one unit serves every simulation
    units, unit = exact_units(diffs.T, n)
    tail = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile((draws.counts @ units) * unit / n, [tail, 1.0 - tail], axis=0)
    # a swap never turns a zero difference into a non-zero one: every row has n_eff of them
    n_eff = int(np.count_nonzero(diffs[0]))
    if n_eff > EXACT_MAX_N_EFF:
        null_sums = draws.signs @ units
        observed = np.abs(units.sum(axis=0))
        extreme = np.count_nonzero(np.abs(null_sums) >= observed - n_eff, axis=0)
        return low, high, (extreme + 1) / (resamples + 1)
    nonzero = diffs[diffs != 0.0].reshape(len(diffs), n_eff)
    return low, high, sign_flip_p(nonzero, None, resamples)


def holm_rows(pvalues: np.ndarray) -> np.ndarray:
    """inference.holm on every row at once (ties keep column order, as there)."""
    m = pvalues.shape[1]
    order = np.argsort(pvalues, axis=1, kind="stable")
    ranked = np.take_along_axis(pvalues, order, axis=1)
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked), axis=1)
    out = np.empty_like(pvalues)
    np.put_along_axis(out, order, adjusted, axis=1)
    return out


def simulate_family(
    wide: pd.DataFrame,
    pairs: Sequence[Pair],
    design: Design,
) -> Family:
    """Every simulation's verdicts of one family: each comparison's interval and sign-flip p
    (simulated_statistics), then the inference's own Tarone exclusion (holm_exclusion), Holm
    within the family and verdict function. The calibration's simulations and resamples."""
    seed, simulations, resamples = design.seed, design.simulations, design.calibration_resamples
    alpha, min_queries = design.alpha, design.min_queries
    n = len(wide)
    facts, lows, highs, ps = [], [], [], []
    for pair in pairs:
        tool_values, ref_values = wide[pair[0]].to_numpy(), wide[pair[1]].to_numpy()
        label = (*pair, design.primary_metric, SUBSET)
        check_finite(tool_values - ref_values, label, list(wide.index))
        n_eff = int(np.count_nonzero(tool_values - ref_values))
        fact: dict[str, Any] = {
            "tool": pair[0],
            "baseline": pair[1],
            "n": n,
            "n_eff": n_eff,
            "p_min": min_p(n_eff, resamples),
            # rr is a one-to-one function of the rank: equal rr everywhere is the same rank
            # everywhere, the inference's "identical" (and a swap never changes it).
            "identical": n_eff == 0,
            "p_randomization": 1.0 if n else None,  # only whether there is one matters here
        }
        fact["holm_excluded"] = holm_exclusion(fact, alpha, min_queries)
        facts.append(fact)
        if n_eff == 0:  # nothing to simulate: identical in every simulation
            lows.append(np.zeros(simulations))
            highs.append(np.zeros(simulations))
            ps.append(np.ones(simulations))
            continue
        low, high, p = simulated_statistics(
            tool_values,
            ref_values,
            swap_matrix(seed, pair, simulations, n),
            permutation_matrix(seed, pair, simulations, n),
            seed=seed,
            qids=list(wide.index),
            resamples=resamples,
        )
        lows.append(low)
        highs.append(high)
        ps.append(p)
    shape = (simulations, len(pairs))
    ci_low, ci_high = np.column_stack(lows).reshape(shape), np.column_stack(highs).reshape(shape)
    p_randomization = np.column_stack(ps).reshape(shape)
    tested = [j for j, f in enumerate(facts) if f["holm_excluded"] is None]
    p_holm = np.full(shape, np.nan)
    if tested:
        p_holm[:, tested] = holm_rows(p_randomization[:, tested])
    verdicts = np.empty(shape, dtype=object)
    for j, f in enumerate(facts):
        for s in range(simulations):
            verdicts[s, j] = verdict(
                n,
                float(ci_low[s, j]) if n else None,
                float(ci_high[s, j]) if n else None,
                None if f["holm_excluded"] else float(p_holm[s, j]),
                f["p_min"],
                alpha,
                min_queries,
                identical=f["identical"],
            )
    return Family(facts, ci_low, ci_high, p_randomization, verdicts)


def rate(hits: int, total: int) -> tuple[float | None, float | None, float | None]:
    """Share and its 95% Clopper-Pearson interval; None when there is nothing to count."""
    if total == 0:
        return None, None, None
    ci = binomtest(hits, total).proportion_ci(confidence_level=CONFIDENCE, method="exact")
    return hits / total, float(ci.low), float(ci.high)


def rate_fields(name: str, hits: int, total: int) -> dict[str, float | None]:
    share, low, high = rate(hits, total)
    return {name: share, f"{name}_low": low, f"{name}_high": high}


def rate_columns(sim: Family, index: Sequence[int], alpha: float, family: bool) -> dict:
    """The five rates of the comparisons at ``index`` (family-wise ones only for a family):
    the combined rule (the verdict is detected), the interval alone (it excludes 0), the
    randomization p < alpha alone (no Holm)."""
    index = list(index)
    hits = {
        "combined": np.isin(sim.verdict[:, index], list(DETECTED)),
        "bootstrap": (sim.ci_low[:, index] > 0.0) | (sim.ci_high[:, index] < 0.0),
        "randomization": sim.p_randomization[:, index] < alpha,
    }
    runs = len(sim.verdict)
    none = {"hits": 0, "total": 0}
    counts = {
        "fwer_combined": none,
        "fwer_bootstrap": none,
        **{f"rate_{k}": {"hits": int(h.sum()), "total": h.size} for k, h in hits.items()},
    }
    if family and index:
        for k in ("combined", "bootstrap"):
            counts[f"fwer_{k}"] = {"hits": int(hits[k].any(axis=1).sum()), "total": runs}
    return {k: v for name, c in counts.items() for k, v in rate_fields(name, **c).items()}


def family_rows(
    family: str, sim: Family, design: Design, base: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The family's row, then one per tested comparison, from the simulated verdicts."""
    alpha, min_queries = design.alpha, design.min_queries
    facts = sim.facts
    tested = [i for i, c in enumerate(facts) if not c["identical"]]
    # n and n_eff do not change under a swap, so neither do Tarone's exclusions nor m.
    m = sum(1 for c in facts if c["holm_excluded"] is None)
    n = int(facts[0]["n"])
    note = ""
    if not tested:
        note = "every tool of the family is identical to its reference: nothing to simulate"
    elif n < min_queries:
        note = f"fewer than {min_queries} queries: no verdict is a claim"
    rows = [
        {
            **base,
            "family": family,
            "scope": "family",
            "tool": "",
            "reference": ",".join(sorted({facts[i]["baseline"] for i in tested})),
            "n": n,
            "n_eff": statistics.median(facts[i]["n_eff"] for i in tested) if tested else None,
            "comparisons": len(tested),
            "m": m,
            **rate_columns(sim, tested, alpha, family=True),
            "note": note,
        }
    ]
    for i in tested:
        c = facts[i]
        rows.append(
            {
                **base,
                "family": family,
                "scope": "comparison",
                "tool": c["tool"],
                "reference": c["baseline"],
                "n": n,
                "n_eff": c["n_eff"],
                "comparisons": 1,
                "m": m,
                **rate_columns(sim, [i], alpha, family=False),
                # why it stays out of Holm (Tarone), if it does: then it is never detected
                "note": c["holm_excluded"] or "",
            }
        )
    return rows


def calibration_rows(
    scores: pd.DataFrame,
    design: Design,
    *,
    corpus: str = "",
    broken: Collection[str] = (),
) -> list[dict[str, Any]]:
    """calibration.tsv's rows for one corpus and the design's track (see the module
    docstring), on the track's primary metric with the calibration's simulations and
    resamples.

    The families are the inference's (declared_pairs): with no primary and no ablations,
    every tool against the baseline in one family. A pair with a broken tool (health.tsv)
    leaves its family, as it leaves the inference's Holm family."""
    wide = wide_scores(scores, design.primary_metric)
    tools = sorted(map(str, wide.columns))
    ablations = dict(design.ablations)
    check_declared(tools, design.baseline, list(design.primary), ablations)
    declared = {
        family: [pair for pair in pairs if not set(pair) & set(broken)]
        for family, pairs in declared_pairs(
            tools, design.baseline, design.primary, ablations
        ).items()
    }
    base = {
        "corpus": corpus,
        "track": design.track,
        "simulations": design.simulations,
        "resamples": design.calibration_resamples,
        "alpha": design.alpha,
        "seed": design.seed,
    }
    rows = []
    for family in DECLARED_FAMILIES:
        if not declared[family]:
            continue
        sim = simulate_family(wide, declared[family], design)
        rows += family_rows(family, sim, design, base)
    return [{k: r[k] for k in COLUMNS} for r in rows]


def calibration_tsv(rows: Iterable[Mapping[str, Any]]) -> str:
    return tsv_text(COLUMNS, ([tsv_cell(r[c]) for c in COLUMNS] for r in rows))


def write_calibration(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike) -> None:
    """Write calibration.tsv atomically."""
    write_text(path, calibration_tsv(rows))


# The run's family rows read together (the report's calibration section and
# results/calibration_status.tsv). One row's rate above alpha is not a finding: with ~50 rows,
# each its own estimate with its own 95% interval, some land above alpha by chance alone.
STATUS_COLUMNS = (
    "corpus",
    "track",
    "family",
    "m",
    "simulations",
    "alpha",
    "fwer_combined",
    "fwer_combined_low",
    "fwer_combined_high",
    "status",
)
ABOVE_ALPHA = "above alpha"  # the whole 95% interval of the family-wise rate lies above alpha
WITHIN_ALPHA = "within alpha"
CANNOT_DETECT = "cannot detect"  # no comparison in Holm (Tarone, identical, too few queries)


def can_detect(row: Mapping[str, Any]) -> bool:
    """A family row whose rule can detect anything: it has a rate and Holm's m >= 1. A family
    that can never detect has rate 0, not alpha: it is left out of the pooled check."""
    return (
        row["scope"] == "family"
        and row["fwer_combined"] not in ("", None)
        and int(row["m"] or 0) >= 1
    )


def above_alpha(row: Mapping[str, Any]) -> bool:
    """The family's rate stays above alpha at its precision: its whole interval lies above."""
    return can_detect(row) and float(row["fwer_combined_low"]) > float(row["alpha"])


@lru_cache(maxsize=8)
def chance_above(simulations: int, alpha: float) -> tuple[float, float]:
    """If a family's true rate is exactly alpha: the chance that its rate over ``simulations``
    reads above alpha, and that its whole 95% Clopper-Pearson interval does (flagged)."""
    hits = np.arange(simulations + 1)
    chance = binom.pmf(hits, simulations, alpha)
    # the exact interval's lower end (0 for no hit), as binomtest's proportion_ci has it
    tail = (1.0 - CONFIDENCE) / 2.0
    low = np.where(hits > 0, beta.ppf(tail, np.maximum(hits, 1), simulations - hits + 1), 0.0)
    return float(chance[hits / simulations > alpha].sum()), float(chance[low > alpha].sum())


def at_least(count: int, chances: Sequence[float]) -> float:
    """P(at least ``count`` of independent events with these chances happen): the binomial
    tail when the chances are equal (every row of one run has the same simulations)."""
    dist = np.array([1.0])
    for q in chances:
        dist = np.convolve(dist, [1.0 - q, q])
    return float(min(1.0, dist[count:].sum()))


@dataclass(frozen=True)
class PooledCheck:
    rows: int
    above: int
    expected_above: float
    p_above: float
    flagged: list[Mapping[str, Any]]
    expected_flagged: float
    p_flagged: float


def pooled_check(rows: Iterable[Mapping[str, Any]]) -> PooledCheck:
    """Over a run's family rows that can detect: how many read above alpha and how many are
    flagged (interval above alpha), against what chance gives if every family's true rate
    were exactly alpha (expected counts and one-sided p of the observed ones)."""
    pooled = [r for r in rows if can_detect(r)]
    chances = [chance_above(int(r["simulations"]), float(r["alpha"])) for r in pooled]
    above = sum(1 for r in pooled if float(r["fwer_combined"]) > float(r["alpha"]))
    flagged = [r for r in pooled if above_alpha(r)]
    return PooledCheck(
        rows=len(pooled),
        above=above,
        expected_above=sum(c[0] for c in chances),
        p_above=at_least(above, [c[0] for c in chances]),
        flagged=flagged,
        expected_flagged=sum(c[1] for c in chances),
        p_flagged=at_least(len(flagged), [c[1] for c in chances]),
    )


def status_of(row: Mapping[str, Any]) -> str:
    if not can_detect(row):
        return CANNOT_DETECT
    return ABOVE_ALPHA if above_alpha(row) else WITHIN_ALPHA


def status_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """calibration_status.tsv: one row per family row of the run, with its status."""
    return [
        {**{c: r[c] for c in STATUS_COLUMNS[:-1]}, "status": status_of(r)}
        for r in rows
        if r["scope"] == "family"
    ]


def status_tsv(rows: Iterable[Mapping[str, Any]]) -> str:
    found = status_rows(rows)
    return tsv_text(STATUS_COLUMNS, ([tsv_cell(r[c]) for c in STATUS_COLUMNS] for r in found))


def write_status(paths: Iterable[str | os.PathLike], out: str | os.PathLike) -> None:
    """results/calibration_status.tsv from every calibration.tsv of the run (atomically)."""
    rows = [r for path in paths for r in read_tsv(path, COLUMNS)]
    write_text(out, status_tsv(sorted(rows, key=lambda r: (r["corpus"], r["track"]))))
