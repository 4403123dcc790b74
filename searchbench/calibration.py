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

The rule applied is the published one, by its own functions: searchbench.inference's
paired_comparison (percentile bootstrap interval and sign-flip p, each from its own seeded
Generator per simulation), adjust_family (Tarone's rule, then Holm within each declared
family), verdict. Only the primary metric over all queries is simulated (the headline
verdicts); ``resamples`` may be lower than the inference's to keep the run to seconds (a
Monte Carlo p stays valid at any resamples; the interval's ends move only by Monte Carlo
error) and is recorded in every row.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from searchbench.artifacts import tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.inference import (
    CONFIDENCE,
    DECLARED_FAMILIES,
    adjust_family,
    check_declared,
    check_finite,
    comparison_rng,
    declared_pairs,
    paired_comparison,
    tsv_cell,
)
from searchbench.measures import DETECTED, MIN_QUERIES, PRIMARY_METRIC

SIMULATIONS = 200
RESAMPLES = 2000
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
    own Generator, so a comparison's draws do not depend on which others are configured."""
    rng = comparison_rng(seed, "calibration", "swaps", *pair, PRIMARY_METRIC, SUBSET)
    return rng.random((simulations, n)) < 0.5


def simulate_family(
    wide: pd.DataFrame,
    pairs: Sequence[Pair],
    *,
    seed: int,
    simulations: int,
    resamples: int,
    alpha: float,
    min_queries: int,
    metric: str = PRIMARY_METRIC,
) -> list[list[dict[str, Any]]]:
    """Per simulation, the family's comparisons with their verdicts (the inference's own
    functions: paired_comparison, then adjust_family's Tarone + Holm + verdict)."""
    n = len(wide)
    values = {pair: (wide[pair[0]].to_numpy(), wide[pair[1]].to_numpy()) for pair in pairs}
    for (tool, ref), (t, r) in values.items():
        check_finite(t - r, (tool, ref, PRIMARY_METRIC, SUBSET), list(wide.index))
    swaps = {pair: swap_matrix(seed, pair, simulations, n) for pair in pairs}
    out = []
    for sim in range(simulations):
        family = []
        for pair in pairs:
            tool_values, ref_values = swapped(*values[pair], swaps[pair][sim])
            result = paired_comparison(
                tool_values,
                ref_values,
                seed=seed,
                name=(*pair, PRIMARY_METRIC, SUBSET, f"calibration {sim}"),
                resamples=resamples,
            )
            # rr is a one-to-one function of the rank: equal rr everywhere is the same rank
            # everywhere, the inference's "identical" (and a swap never changes it).
            result.update(
                tool=pair[0],
                baseline=pair[1],
                metric=metric,
                subset=SUBSET,
                identical=result["n_eff"] == 0,
            )
            family.append(result)
        adjust_family(family, alpha, min_queries)
        out.append(family)
    return out


def interval_excludes_zero(c: Mapping[str, Any]) -> bool:
    """The bootstrap alone: the interval excludes 0 (no randomization test, no Holm)."""
    return c["ci_low"] is not None and (c["ci_low"] > 0.0 or c["ci_high"] < 0.0)


def combined_detects(c: Mapping[str, Any]) -> bool:
    """The published rule: the verdict is detected better or worse."""
    return c["verdict"] in DETECTED


def rate(hits: int, total: int) -> tuple[float | None, float | None, float | None]:
    """Share and its 95% Clopper-Pearson interval; None when there is nothing to count."""
    if total == 0:
        return None, None, None
    ci = binomtest(hits, total).proportion_ci(confidence_level=CONFIDENCE, method="exact")
    return hits / total, float(ci.low), float(ci.high)


def rate_fields(name: str, hits: int, total: int) -> dict[str, float | None]:
    share, low, high = rate(hits, total)
    return {name: share, f"{name}_low": low, f"{name}_high": high}


Runs = Sequence[Sequence[Mapping[str, Any]]]
Predicate = Callable[[Mapping[str, Any]], bool]


def per_comparison(runs: Runs, index: Sequence[int], hit: Predicate) -> dict[str, int]:
    """How often the comparisons at ``index`` are hit, over every simulation."""
    return {"hits": sum(1 for run in runs for i in index if hit(run[i])),
            "total": len(runs) * len(index)}  # fmt: skip


def family_wise(runs: Runs, index: Sequence[int], hit: Predicate) -> dict[str, int]:
    """In how many simulations at least one comparison at ``index`` is hit."""
    hits = sum(1 for run in runs if any(hit(run[i]) for i in index))
    return {"hits": hits, "total": len(runs) if index else 0}


def rate_columns(runs: Runs, index: Sequence[int], alpha: float, family: bool) -> dict:
    """The five rates of the comparisons at ``index`` (family-wise ones only for a family)."""

    def randomization(c: Mapping[str, Any]) -> bool:
        return c["p_randomization"] is not None and c["p_randomization"] < alpha

    none = {"hits": 0, "total": 0}
    counts = {
        "fwer_combined": family_wise(runs, index, combined_detects) if family else none,
        "fwer_bootstrap": family_wise(runs, index, interval_excludes_zero) if family else none,
        "rate_combined": per_comparison(runs, index, combined_detects),
        "rate_bootstrap": per_comparison(runs, index, interval_excludes_zero),
        "rate_randomization": per_comparison(runs, index, randomization),
    }
    return {k: v for name, c in counts.items() for k, v in rate_fields(name, **c).items()}


def family_rows(
    family: str, runs: Runs, *, alpha: float, min_queries: int, base: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The family's row, then one per tested comparison, from the simulated verdicts."""
    first = runs[0]
    tested = [i for i, c in enumerate(first) if not c["identical"]]
    # n and n_eff do not change under a swap, so neither do Tarone's exclusions nor m.
    m = sum(1 for c in first if c["holm_excluded"] is None)
    n = int(first[0]["n"])
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
            "reference": ",".join(sorted({first[i]["baseline"] for i in tested})),
            "n": n,
            "n_eff": statistics.median(first[i]["n_eff"] for i in tested) if tested else None,
            "comparisons": len(tested),
            "m": m,
            **rate_columns(runs, tested, alpha, family=True),
            "note": note,
        }
    ]
    for i in tested:
        c = first[i]
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
                **rate_columns(runs, [i], alpha, family=False),
                # why it stays out of Holm (Tarone), if it does: then it is never detected
                "note": c["holm_excluded"] or "",
            }
        )
    return rows


def check_options(simulations: int, resamples: int, alpha: float) -> None:
    if simulations < 1:
        raise BenchError(f"calibration simulations = {simulations} must be a positive integer")
    if resamples < 1:
        raise BenchError(f"calibration resamples = {resamples} must be a positive integer")
    if not 0.0 < alpha < 1.0:
        raise BenchError(f"alpha = {alpha} must lie strictly between 0 and 1")


def calibration_rows(
    scores: pd.DataFrame,
    *,
    baseline: str,
    seed: int,
    simulations: int = SIMULATIONS,
    resamples: int = RESAMPLES,
    alpha: float = 0.05,
    min_queries: int = MIN_QUERIES,
    primary: Sequence[str] = (),
    ablations: Mapping[str, str] | None = None,
    corpus: str = "",
    track: str = "",
    metric: str = PRIMARY_METRIC,
) -> list[dict[str, Any]]:
    """calibration.tsv's rows for one corpus and track's scores (see the module docstring).

    The families are the inference's (declared_pairs): with no primary and no ablations,
    every tool against the baseline in one family."""
    check_options(simulations, resamples, alpha)
    wide = wide_scores(scores, metric)
    tools = sorted(map(str, wide.columns))
    ablations = dict(ablations or {})
    check_declared(tools, baseline, list(primary), ablations)
    declared = declared_pairs(tools, baseline, primary, ablations)
    base = {
        "corpus": corpus,
        "track": track,
        "simulations": simulations,
        "resamples": resamples,
        "alpha": alpha,
        "seed": seed,
    }
    options = {
        "seed": seed,
        "simulations": simulations,
        "resamples": resamples,
        "alpha": alpha,
        "min_queries": min_queries,
        "metric": metric,
    }
    rows = []
    for family in DECLARED_FAMILIES:
        if not declared[family]:
            continue
        runs = simulate_family(wide, declared[family], **options)
        rows += family_rows(family, runs, alpha=alpha, min_queries=min_queries, base=base)
    return [{k: r[k] for k in COLUMNS} for r in rows]


def calibration_tsv(rows: Iterable[Mapping[str, Any]]) -> str:
    return tsv_text(COLUMNS, ([tsv_cell(r[c]) for c in COLUMNS] for r in rows))


def write_calibration(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike) -> None:
    """Write calibration.tsv atomically."""
    write_text(path, calibration_tsv(rows))
