"""Paired inference: each tool against the baseline, query by query (seed §5).

For one corpus and track, for every tool, metric (rr is primary; success10 and ndcg10 are
secondary) and subset of queries (``all``; ``discriminating`` = not trivial, i.e. the baseline
found the query in more than one file), the per-query differences d = tool - baseline get:

- a 95% percentile bootstrap interval of their mean: ``resamples`` resamples of the n
  differences with replacement, drawn in one (resamples, n) matrix exactly as
  ``scipy.stats.bootstrap(method='percentile')`` draws them from the same Generator;
- a two-sided sign-flip randomization p of their mean: exact over all 2**n_eff sign patterns
  of the n_eff non-zero differences when n_eff <= EXACT_MAX_N_EFF (p = share of patterns at
  least as extreme, the observed one included), else ``resamples`` random patterns with
  p = (b + 1) / (resamples + 1); never 0;
- a Holm adjustment of p within each family: for one metric and one subset of this corpus and
  track, every tool's comparison against the baseline that has at least one query (the
  question one column of the report answers; ablation variants of hay count as tools);
- a verdict: ``detected better`` / ``detected worse`` only when the interval excludes 0 AND the
  Holm-adjusted p < alpha; ``tests disagree`` when exactly one of the two holds (read
  conservatively: nothing detected); ``not detected`` when neither; ``not evidence`` when
  n < MIN_QUERIES or when even the most extreme sign pattern could not reach p < alpha.

Each comparison draws from its own Generator seeded by (seed, crc32 of its name), so its
interval and p do not depend on which other tools are configured, and everything is
byte-identical for the same inputs and seed.
"""

import json
import os
import zlib
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np
import pandas as pd

from searchbench.atomic import write_text_atomic
from searchbench.errors import BenchError

METRICS = ("rr", "success10", "ndcg10")
PRIMARY_METRIC = "rr"
SUBSETS = ("all", "discriminating")
MIN_QUERIES = 10
EXACT_MAX_N_EFF = 16
CONFIDENCE = 0.95
VERDICTS = ("detected better", "detected worse", "tests disagree", "not detected", "not evidence")
TSV_COLUMNS = (
    "family",
    "tool",
    "baseline",
    "metric",
    "primary",
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
)


def comparison_rng(seed: int, *parts: str) -> np.random.Generator:
    """A Generator for one named draw, stable across processes and Python versions."""
    key = zlib.crc32("\x1f".join(parts).encode("utf-8"))
    return np.random.default_rng([int(seed), key])


def bootstrap_means(diffs: np.ndarray, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples (scipy.stats.bootstrap's draw order)."""
    diffs = np.asarray(diffs, dtype=float)
    index = rng.integers(0, diffs.shape[-1], (resamples, diffs.shape[-1]))
    return diffs[index].mean(axis=-1)


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
def _all_sign_patterns(k: int) -> np.ndarray:
    codes = np.arange(2**k, dtype=np.int64)[:, None] >> np.arange(k, dtype=np.int64)
    return ((codes & 1) * 2 - 1).astype(float)


def _extreme(null_sums: np.ndarray, observed: float) -> np.ndarray:
    # scipy.stats.permutation_test's relative tolerance for theoretically equal values.
    gamma = abs(observed) * np.finfo(float).eps * 100
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
    if nonzero.size <= exact_max:
        null_sums = _all_sign_patterns(nonzero.size) @ nonzero
        return float(np.count_nonzero(_extreme(null_sums, observed)) / null_sums.size), True
    signs = (rng.integers(0, 2, (resamples, nonzero.size), dtype=np.int8) * 2 - 1).astype(float)
    null_sums = signs @ nonzero
    extreme = int(np.count_nonzero(_extreme(null_sums, observed)))
    return (extreme + 1) / (resamples + 1), False


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
) -> str:
    """One of VERDICTS; detected only when the interval excludes 0 and p_holm < alpha."""
    if n < min_queries or p_minimum >= alpha or ci_low is None or p_holm is None:
        return "not evidence"
    interval_excludes = ci_low > 0.0 or ci_high < 0.0
    significant = p_holm < alpha
    if interval_excludes and significant:
        return "detected better" if ci_low > 0.0 else "detected worse"
    if interval_excludes or significant:
        return "tests disagree"
    return "not detected"


def paired_comparison(
    tool_values: Sequence[float] | np.ndarray,
    base_values: Sequence[float] | np.ndarray,
    *,
    seed: int,
    name: Sequence[str],
    resamples: int,
) -> dict:
    """Everything but the Holm p and the verdict for one paired comparison."""
    tool_arr = np.asarray(tool_values, dtype=float)
    base_arr = np.asarray(base_values, dtype=float)
    diffs = tool_arr - base_arr
    n = int(diffs.size)
    n_eff = int(np.count_nonzero(diffs))
    result = {
        "n": n,
        "n_eff": n_eff,
        "mean_tool": None,
        "mean_base": None,
        "diff": None,
        "ci_low": None,
        "ci_high": None,
        "p_randomization": None,
        "p_exact": None,
        "p_min": min_p(n_eff, resamples),
    }
    if n == 0:
        return result
    low, high = bootstrap_ci(diffs, comparison_rng(seed, "bootstrap", *name), resamples)
    p, exact = randomization_p(diffs, comparison_rng(seed, "randomization", *name), resamples)
    result.update(
        mean_tool=float(tool_arr.mean()),
        mean_base=float(base_arr.mean()),
        diff=float(diffs.mean()),
        ci_low=low,
        ci_high=high,
        p_randomization=p,
        p_exact=exact,
    )
    return result


def _per_query(scores: pd.DataFrame, tool: str) -> pd.DataFrame:
    rows = scores[scores["tool"] == tool].set_index("qid").sort_index()
    if rows.index.has_duplicates:
        raise BenchError(f"scores of tool {tool!r} have a qid twice; rerun the score rule")
    return rows


def _family(
    scores: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    family: str,
    *,
    seed: int,
    alpha: float,
    resamples: int,
) -> list[dict]:
    trivial = scores.groupby("qid")["trivial"].first().sort_index()
    subsets = {"all": trivial.index, "discriminating": trivial.index[~trivial.to_numpy()]}
    # Each tool's metric columns, per subset, as arrays in qid order: computed once per tool,
    # not once per pair (all pairs of 12 tools would redo it 132 times).
    rows = {t: _per_query(scores, t) for t in sorted({t for pair in pairs for t in pair})}
    arrays = {
        (t, metric, subset): frame.loc[subsets[subset], metric].to_numpy()
        for t, frame in rows.items()
        for metric in METRICS
        for subset in SUBSETS
    }
    comparisons = []
    for tool, base in pairs:
        if not rows[tool].index.equals(rows[base].index):
            raise BenchError(
                f"tool {tool!r} and {base!r} were scored on different queries; "
                "rerun the search and score rules"
            )
        for metric in METRICS:
            for subset in SUBSETS:
                result = paired_comparison(
                    arrays[(tool, metric, subset)],
                    arrays[(base, metric, subset)],
                    seed=seed,
                    name=(family, tool, base, metric, subset),
                    resamples=resamples,
                )
                result.update(
                    family=family,
                    tool=tool,
                    baseline=base,
                    metric=metric,
                    primary=metric == PRIMARY_METRIC,
                    subset=subset,
                )
                comparisons.append(result)
    # One Holm family per (metric, subset): the question one column of the report answers,
    # "which tools differ from the baseline here?", over every tool (ablations included).
    for metric in METRICS:
        for subset in SUBSETS:
            tested = [
                c
                for c in comparisons
                if c["metric"] == metric
                and c["subset"] == subset
                and c["p_randomization"] is not None
            ]
            for comparison, adjusted in zip(
                tested, holm([c["p_randomization"] for c in tested]), strict=True
            ):
                comparison["p_holm"] = adjusted
    for comparison in comparisons:
        comparison.setdefault("p_holm", None)
        comparison["verdict"] = verdict(
            comparison["n"],
            comparison["ci_low"],
            comparison["ci_high"],
            comparison["p_holm"],
            comparison["p_min"],
            alpha,
        )
    return comparisons


def _tested(comparisons: Sequence[dict]) -> int:
    return sum(1 for c in comparisons if c["p_randomization"] is not None)


def run_inference(
    scores: pd.DataFrame,
    *,
    baseline: str,
    seed: int,
    alpha: float = 0.05,
    resamples: int = 10_000,
    all_pairs: bool = False,
    context: Mapping[str, str] | None = None,
) -> dict:
    """The content of inference.json for one corpus and track's scores.

    ``comparisons`` holds every tool against the baseline (one Holm family); with all_pairs,
    ``pairs`` holds every unordered pair of tools (a second, separate Holm family; diff is
    the first-named tool minus the second).
    """
    if not 0.0 < alpha < 1.0:
        raise BenchError(f"alpha = {alpha} must lie strictly between 0 and 1")
    if resamples < 1:
        raise BenchError(f"resamples = {resamples} must be a positive integer")
    tools = sorted(set(scores["tool"]))
    if baseline not in tools:
        raise BenchError(
            f"baseline tool {baseline!r} has no scores (tools: {tools}); "
            "set 'baseline' in config/config.yaml to a scored tool"
        )
    options = {"seed": seed, "alpha": alpha, "resamples": resamples}
    versus = [(tool, baseline) for tool in tools if tool != baseline]
    result = {
        "metadata": {
            **dict(context or {}),
            "alpha": alpha,
            "baseline": baseline,
            "bootstrap": (
                f"{CONFIDENCE:.0%} percentile bootstrap of the mean paired difference "
                "(tool - baseline), resampling queries with replacement"
            ),
            "confidence": CONFIDENCE,
            "family": (
                "Holm adjustment within each (metric, subset) of this corpus and track, over "
                "every tool compared with the baseline that has at least one query"
                + ("; 'pairs' (all tool pairs) is a separate Holm family" if all_pairs else "")
            ),
            "exact_max_n_eff": EXACT_MAX_N_EFF,
            "metrics": list(METRICS),
            "min_queries": MIN_QUERIES,
            "primary_metric": PRIMARY_METRIC,
            "queries": int(scores["qid"].nunique()),
            "randomization": (
                "two-sided sign-flip test of the mean paired difference; exact over all "
                f"2^n_eff sign patterns when n_eff <= {EXACT_MAX_N_EFF}, else Monte Carlo "
                "with p = (b+1)/(resamples+1)"
            ),
            "resamples": resamples,
            "seed": seed,
            "subsets": {
                "all": "every query",
                "discriminating": "queries the baseline found in more than one file",
            },
            "tools": tools,
            "trivial_queries": int(scores.groupby("qid")["trivial"].first().sum()),
            "verdict_rule": (
                "detected only when the CI excludes 0 and p_holm < alpha; 'tests disagree' "
                "when exactly one holds (not detected); 'not evidence' when n < "
                f"{MIN_QUERIES} or p_min >= alpha"
            ),
        },
        "comparisons": _family(scores, versus, "vs-baseline", **options),
    }
    if all_pairs:
        result["pairs"] = _family(scores, list(combinations(tools, 2)), "all-pairs", **options)
        result["metadata"]["pairs_family_size"] = _tested(result["pairs"])
    result["metadata"]["family_size"] = len(versus)
    return result


def _tsv_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.17g}"
    return str(value)


def inference_json(result: Mapping) -> str:
    """inference.json content: sorted keys, no NaN, trailing newline."""
    return json.dumps(result, sort_keys=True, indent=2, allow_nan=False) + "\n"


def inference_tsv(result: Mapping) -> str:
    """inference.tsv content: one row per comparison, baseline family first, then pairs."""
    lines = ["\t".join(TSV_COLUMNS)]
    for comparison in [*result["comparisons"], *result.get("pairs", [])]:
        lines.append("\t".join(_tsv_cell(comparison[c]) for c in TSV_COLUMNS))
    return "\n".join(lines) + "\n"


def write_inference(result: Mapping, json_path: str | os.PathLike, tsv_path: str | os.PathLike):
    """Write inference.json and inference.tsv atomically (each)."""
    write_text_atomic(json_path, inference_json(result))
    write_text_atomic(tsv_path, inference_tsv(result))
