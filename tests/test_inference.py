"""Paired inference on synthetic scores: intervals, randomization p, Holm, verdicts."""

import json
import runpy
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from design_fixture import design

from searchbench.errors import BenchError
from searchbench.health import HealthRule, health_text, tool_health
from searchbench.inference import (
    METRICS,
    SUBSETS,
    TSV_COLUMNS,
    VERDICTS,
    bootstrap_ci,
    bootstrap_counts,
    bootstrap_means,
    exact_units,
    holm,
    inference_json,
    inference_tsv,
    min_p,
    paired_comparison,
    query_draws,
    randomization_p,
    run_inference,
    verdict,
)
from searchbench.metrics import SCORE_COLUMNS, write_scores

ROOT = Path(__file__).parent.parent
SEED = 20261202


def make_scores(ranks: dict[str, list[int]], trivial: list[bool] | None = None) -> pd.DataFrame:
    """scores.tsv rows from per-tool first ranks (0 = absent), one list entry per query."""
    n = len(next(iter(ranks.values())))
    trivial = trivial if trivial is not None else [False] * n
    rows = []
    for tool, tool_ranks in ranks.items():
        for i, rank in enumerate(tool_ranks):
            rows.append(
                {
                    "qid": f"c-code-{i:04d}",
                    "tool": tool,
                    "status": "ok" if rank else "no-match",
                    "rank": rank,
                    "rr": 1.0 / rank if rank else 0.0,
                    "success10": 1.0 if 0 < rank <= 10 else 0.0,
                    "ndcg10": 1.0 / np.log2(rank + 1) if 0 < rank <= 10 else 0.0,
                    # one right file: recall@10 is success@10
                    "recall10": 1.0 if 0 < rank <= 10 else 0.0,
                    "returned": max(rank, 1),
                    "lines_before": None,
                    "bytes_before": None,
                    "line_rank": 0,
                    "files_containing": 1 if trivial[i] else 5,
                    "trivial": trivial[i],
                    "language": "c",
                }
            )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def by_key(result: dict, tool: str, metric: str, subset: str) -> dict:
    (match,) = [
        c
        for c in result["comparisons"]
        if (c["tool"], c["metric"], c["subset"]) == (tool, metric, subset)
    ]
    return match


# --- the two tests against scipy ------------------------------------------------------------


def test_bootstrap_interval_equals_scipy_percentile_bootstrap():
    diffs = np.random.default_rng(7).normal(0.1, 0.3, 30)
    ours = bootstrap_ci(diffs, np.random.default_rng(11), 10_000)
    theirs = scipy.stats.bootstrap(
        (diffs,), np.mean, n_resamples=10_000, method="percentile", rng=np.random.default_rng(11)
    ).confidence_interval
    assert ours == pytest.approx((theirs.low, theirs.high), abs=1e-12)
    assert ours[0] < diffs.mean() < ours[1]


@pytest.mark.parametrize("n", [1, 30, 300, 1_000, 70_000])
def test_bootstrap_means_draw_the_indices_of_numpy_s_default_integers(n):
    # bootstrap_means asks for int32 indices: they must be the default int64 draw's, or the
    # published intervals would move with the dtype.
    diffs = np.arange(n, dtype=float)
    ours = bootstrap_means(diffs, np.random.default_rng([3, n]), 20)
    index = np.random.default_rng([3, n]).integers(0, n, (20, n))
    assert np.array_equal(ours, diffs[index].mean(axis=-1))


def test_exact_randomization_p_equals_scipy_permutation_test():
    diffs = np.array([0.5, -0.25, 1.0, 0.0, 1 / 3, 0.5, 0.0, -1.0, 0.75, 0.2, 0.0, 0.9])
    p, exact = randomization_p(diffs, np.random.default_rng(0), 10_000)
    theirs = scipy.stats.permutation_test(
        (diffs,), np.mean, permutation_type="samples", n_resamples=10_000, vectorized=True
    )
    assert exact is True
    assert p == pytest.approx(theirs.pvalue, abs=1e-12)
    # exact p is a count over the 2^9 patterns of the 9 non-zero differences
    assert (p * 2**9) == pytest.approx(round(p * 2**9), abs=1e-9)


def test_monte_carlo_randomization_p_is_close_to_scipy():
    rng = np.random.default_rng(3)
    diffs = rng.normal(0.12, 0.35, 25)
    p, exact = randomization_p(diffs, np.random.default_rng(5), 10_000)
    theirs = scipy.stats.permutation_test(
        (diffs,),
        np.mean,
        permutation_type="samples",
        n_resamples=10_000,
        vectorized=True,
        rng=np.random.default_rng(6),
    ).pvalue
    assert exact is False
    assert 0.005 < p < 0.5  # a case where the resolution matters
    assert abs(p - theirs) < 0.015


# --- common random numbers and exact sums (issue 34 item 3) --------------------------------


def test_comparisons_on_the_same_queries_share_their_draws_and_others_do_not():
    rng = np.random.default_rng(21)
    tool, base = rng.random(120), rng.random(120)
    qids = [f"q{i:03}" for i in range(120)]
    one = paired_comparison(tool, base, seed=SEED, name=("a", "b"), resamples=2000, qids=qids)
    # doubled differences on the same queries: the same resamples, so exactly doubled ends
    # (the exact units double too) and the very same sign-flip counts
    two = paired_comparison(
        2 * tool, 2 * base, seed=SEED, name=("c", "d"), resamples=2000, qids=qids
    )
    assert (two["ci_low"], two["ci_high"]) == (2 * one["ci_low"], 2 * one["ci_high"])
    assert two["p_randomization"] == one["p_randomization"] and one["p_exact"] is False
    # other queries (one id changed) are other draws
    other = paired_comparison(
        2 * tool, 2 * base, seed=SEED, name=("c", "d"), resamples=2000, qids=[*qids[:-1], "x"]
    )
    assert (other["ci_low"], other["ci_high"]) != (two["ci_low"], two["ci_high"])
    draws = query_draws(SEED, qids, 2000)
    assert draws.counts.shape == draws.signs.shape == (2000, 120)
    assert (draws.counts.sum(axis=1) == 120).all() and set(np.unique(draws.signs)) == {-1, 1}


def test_the_resampled_sums_are_exact_in_any_summation_order():
    # what makes the intervals and p byte-identical on any BLAS or thread count
    diffs = np.random.default_rng(4).normal(0, 0.4, (300, 3)) * [1, 1e-6, 1e3]
    counts = bootstrap_counts(np.random.default_rng(5), 500, 300)
    units, unit = exact_units(diffs, 300)
    assert np.array_equal(units, np.rint(units)) and (np.abs(units).sum(axis=0) < 2**52).all()
    forward = counts @ units
    backward = sum(np.outer(counts[:, i], units[i]) for i in reversed(range(300)))
    assert np.array_equal(forward, backward)
    # and the rounding is far below any printed digit
    assert (np.abs(units * unit - diffs).max(axis=0) <= unit / 2).all()
    assert (unit / np.abs(diffs).max(axis=0) < 1e-12).all()


def test_the_shared_interval_and_p_agree_with_scipy():
    diffs = np.random.default_rng(7).normal(0.1, 0.3, 30)
    c = paired_comparison(diffs, np.zeros(30), seed=11, name=("t", "r"), resamples=10_000)
    theirs = scipy.stats.bootstrap(
        (diffs,), np.mean, n_resamples=10_000, method="percentile", rng=np.random.default_rng(1)
    ).confidence_interval
    # other resamples: equal within Monte Carlo error (the interval's width is ~0.2)
    assert c["ci_low"] == pytest.approx(theirs.low, abs=0.01)
    assert c["ci_high"] == pytest.approx(theirs.high, abs=0.01)
    p_theirs = scipy.stats.permutation_test(
        (diffs,),
        np.mean,
        permutation_type="samples",
        n_resamples=10_000,
        vectorized=True,
        rng=np.random.default_rng(6),
    ).pvalue
    assert c["p_exact"] is False and abs(c["p_randomization"] - p_theirs) < 0.015


def test_p_is_never_zero():
    p_mc, exact = randomization_p(np.ones(30), np.random.default_rng(1), 10_000)
    assert not exact and p_mc == 1 / 10_001
    p_exact, exact = randomization_p(np.ones(10), np.random.default_rng(1), 10_000)
    assert exact and p_exact == 2 / 2**10 == min_p(10, 10_000)
    assert randomization_p(np.zeros(12), np.random.default_rng(1), 10_000) == (1.0, True)


def test_exact_p_counts_ties_whose_sum_is_zero():
    # the observed sum is 0 in exact arithmetic (-1.1e-16 in floats): every one of the 32
    # patterns is at least as extreme, p = 1; a tolerance relative to the observed sum
    # missed the patterns that round to a slightly smaller |sum| (p was 0.875)
    d = np.array([-11 / 12, 1 / 6, -1 / 12, -1 / 12, 11 / 12])
    assert randomization_p(d, np.random.default_rng(0), 10_000) == (1.0, True)
    # the same in the Monte Carlo branch (n_eff = 20 > 16; it gave 0.961)
    assert randomization_p(np.tile(d, 4), np.random.default_rng(0), 10_000) == (1.0, False)


def test_holm_known_values():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []


# --- verdicts -------------------------------------------------------------------------------


def test_identical_tools_are_labelled_identical_never_detected():
    ranks = list(np.random.default_rng(2).integers(0, 40, 30))
    result = run_inference(
        make_scores({"rg": ranks, "twin": list(ranks)}), design(baseline="rg", seed=SEED)
    )
    assert len(result["comparisons"]) == len(METRICS) * len(SUBSETS)
    for c in result["comparisons"]:
        assert c["n_eff"] == 0 and c["diff"] == 0.0
        assert (c["ci_low"], c["ci_high"]) == (0.0, 0.0)
        assert c["p_randomization"] == 1.0
        assert c["verdict"] == "identical" and c["identical"] is True
        assert c["p_holm"] is None and c["holm_excluded"].startswith("identical")
    assert "identical" in VERDICTS
    assert result["metadata"]["identical_tools"] == ["twin"]
    assert "'identical'" in result["metadata"]["verdict_rule"]


def test_identical_holds_under_ten_queries_and_partial_ties_are_not_identical():
    # identity is a fact, not an inference: it holds with 8 queries too; a tool that differs
    # on two queries is not identical, and with two differing queries it is not evidence
    base = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    result = run_inference(
        make_scores({"rg": base[:8], "twin": base[:8]}), design(baseline="rg", seed=SEED)
    )
    assert {c["verdict"] for c in result["comparisons"]} == {"identical"}
    near = run_inference(
        make_scores({"rg": base, "near": [1, 1, 1, *base[3:]]}), design(baseline="rg", seed=SEED)
    )
    c = by_key(near, "near", "rr", "all")
    assert c["identical"] is False and c["n_eff"] == 2
    assert c["verdict"] == "not evidence" and "cannot reach alpha" in c["holm_excluded"]
    # success@10 does not move (ranks 2 and 3 become 1): no difference there, still not
    # identical, because the tool's output differs from the baseline's
    assert by_key(near, "near", "success10", "all")["verdict"] == "not evidence"
    assert near["metadata"]["identical_tools"] == []


def test_large_shift_with_30_queries_is_detected_better_and_worse_reversed():
    base = list(range(2, 32))  # first right file at 2..31
    better = [1] * 30
    result = run_inference(
        make_scores({"rg": base, "hay": better}), design(baseline="rg", seed=SEED)
    )
    for metric in METRICS:
        c = by_key(result, "hay", metric, "all")
        assert c["verdict"] == "detected better", c
        assert c["ci_low"] > 0 and c["p_holm"] < 0.05 and c["p_randomization"] > 0
    worse = run_inference(
        make_scores({"rg": better, "hay": base}), design(baseline="rg", seed=SEED)
    )
    assert by_key(worse, "hay", "rr", "all")["verdict"] == "detected worse"


def test_bootstrap_and_randomization_disagree_on_a_small_skewed_sample():
    # six wins and one loss among ten queries: the bootstrap interval excludes zero, the
    # exact sign-flip test does not reach 0.05 (docs/method.md §6: the bootstrap is optimistic)
    diffs = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 0.0, 0.0, 0.0]
    c = paired_comparison(diffs, [0.0] * 10, seed=SEED, name=("t",), resamples=10_000)
    assert c["ci_low"] > 0
    assert c["p_exact"] and c["p_randomization"] == 16 / 128
    assert c["p_min"] < 0.05
    v = verdict(c["n"], c["ci_low"], c["ci_high"], c["p_randomization"], c["p_min"], 0.05)
    assert v == "tests disagree"


def test_tarone_leaves_comparisons_that_cannot_reach_alpha_out_of_holm():
    # six of thirty queries improve (exact p = 2/64); ten more tools are identical to the
    # baseline or differ on at most five queries (smallest possible p >= 2/32 > 0.05). Holm
    # over all eleven would give 11 * 2/64 > 0.05 (tests disagree); those ten can never be
    # detected, so they leave the family and the win is detected with m = 1.
    base = [12] * 30
    tools = {"rg": base, "win": [1] * 6 + [12] * 24}
    tools |= {f"same{i}": list(base) for i in range(5)}
    tools |= {f"few{i}": [1] * (i + 1) + [12] * (29 - i) for i in range(5)}
    result = run_inference(make_scores(tools), design(baseline="rg", seed=SEED))
    win = by_key(result, "win", "rr", "all")
    assert win["p_randomization"] == 2 / 64 and win["ci_low"] > 0
    assert win["holm_m"] == 1 and win["p_holm"] == 2 / 64
    assert win["verdict"] == "detected better"
    meta = result["metadata"]
    secondary = meta["families"]["secondary"]
    assert len(secondary["pairs"]) == 11 and secondary["holm_m"]["rr"]["all"] == 1
    excluded = {(e["tool"], e["metric"], e["subset"]): e for e in meta["holm_excluded"]}
    assert len(excluded) == 10 * len(METRICS) * len(SUBSETS)
    assert excluded[("same0", "rr", "all")]["reason"].startswith("identical")
    few = excluded[("few4", "ndcg10", "discriminating")]
    assert few["n_eff"] == 5 and "cannot reach alpha (Tarone)" in few["reason"]
    assert "0.0625 >= 0.05" in few["reason"]
    for tool in [*(f"same{i}" for i in range(5)), *(f"few{i}" for i in range(5))]:
        c = by_key(result, tool, "rr", "all")
        assert c["p_holm"] is None and c["holm_m"] is None and c["holm_excluded"]
        assert c["verdict"] == ("identical" if tool.startswith("same") else "not evidence")
    assert meta["identical_tools"] == [f"same{i}" for i in range(5)]
    row = next(
        line for line in inference_tsv(result).splitlines() if line.startswith("secondary\t")
    )
    assert len(row.split("\t")) == len(TSV_COLUMNS)


def test_holm_adjustment_turns_a_raw_win_into_tests_disagree():
    # six of thirty queries improve, nothing else moves: raw exact p = 2/64 < 0.05 with the
    # interval above zero, but four tools in each (metric, subset) family lift it to 0.125
    base = [12] * 30
    tool = [1] * 6 + [12] * 24
    trivial = [False] * 12 + [True] * 18
    tools = {"rg": base, "t1": tool, "t2": tool, "t3": tool, "t4": tool}
    result = run_inference(make_scores(tools, trivial), design(baseline="rg", seed=SEED))
    assert len(result["metadata"]["families"]["secondary"]["pairs"]) == 4
    for c in result["comparisons"]:
        assert c["n_eff"] == 6 and c["p_randomization"] == 2 / 64
        assert c["ci_low"] > 0 and c["holm_m"] == 4
        assert c["p_holm"] == pytest.approx(4 * 2 / 64)
        assert c["verdict"] == "tests disagree"
    assert by_key(result, "t1", "rr", "discriminating")["n"] == 12
    # Alone in its family, the same comparison is detected: the family is per metric and subset.
    alone = run_inference(
        make_scores({"rg": base, "t": tool}, trivial), design(baseline="rg", seed=SEED)
    )
    assert by_key(alone, "t", "rr", "all")["verdict"] == "detected better"


def test_fewer_than_ten_queries_are_not_evidence():
    result = run_inference(
        make_scores({"rg": [20] * 8, "t": [1] * 8}), design(baseline="rg", seed=SEED)
    )
    c = by_key(result, "t", "rr", "all")
    assert c["ci_low"] > 0 and c["n"] == 8
    assert {c["verdict"] for c in result["comparisons"]} == {"not evidence"}


def test_too_few_differing_queries_are_not_evidence():
    # n = 30 but only five differ: even all five in one direction gives p = 2/32 > 0.05
    result = run_inference(
        make_scores({"rg": [3] * 30, "t": [1] * 5 + [3] * 25}), design(baseline="rg", seed=SEED)
    )
    c = by_key(result, "t", "rr", "all")
    assert c["n_eff"] == 5 and c["p_min"] == 2 / 32
    assert c["verdict"] == "not evidence"


def test_empty_discriminating_subset_is_not_evidence():
    result = run_inference(
        make_scores({"rg": [1] * 12, "t": [1] * 12}, [True] * 12), design(baseline="rg", seed=SEED)
    )
    c = by_key(result, "t", "ndcg10", "discriminating")
    assert c["n"] == 0 and c["p_randomization"] is None and c["verdict"] == "not evidence"
    assert c["holm_excluded"] == "no query in this subset"
    assert result["metadata"]["families"]["secondary"]["pairs"] == [["t", "rg"]]


# --- output ---------------------------------------------------------------------------------


def _three_tools() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    base = rng.integers(0, 30, 30)
    return make_scores(
        {
            "rg": list(base),
            "hay": [max(1, r // 3) if r else 0 for r in base],
            "ug": list(rng.integers(0, 30, 30)),
        },
        [bool(x) for x in rng.random(30) < 0.4],
    )


def test_output_is_byte_identical_and_documents_itself():
    first = run_inference(_three_tools(), design(baseline="rg", seed=SEED), all_pairs=True)
    second = run_inference(_three_tools(), design(baseline="rg", seed=SEED), all_pairs=True)
    assert inference_json(first) == inference_json(second)
    assert inference_tsv(first) == inference_tsv(second)
    meta = json.loads(inference_json(first))["metadata"]
    assert meta["primary_metric"] == "rr" and meta["baseline"] == "rg"
    assert (meta["seed"], meta["resamples"], meta["alpha"]) == (SEED, 10_000, 0.05)
    assert "Holm" in meta["family_rule"] and len(meta["families"]["secondary"]["pairs"]) == 2
    # three pairs in the matrix, each on 4 metrics x 2 subsets; only (hay, ug) is tested in
    # the all-pairs family
    assert meta["metrics"] == ["rr", "success10", "ndcg10", "recall10"]
    assert meta["families"]["all-pairs"]["pairs"] == [["hay", "ug"]] and len(first["pairs"]) == 24
    lines = inference_tsv(first).splitlines()
    assert lines[0].split("\t") == list(TSV_COLUMNS)
    assert len(lines) == 1 + 16 + 8
    primary = [line.split("\t") for line in lines[1:] if line.split("\t")[3] == "rr"]
    assert {row[4] for row in primary} == {"true"}
    other_seed = run_inference(_three_tools(), design(baseline="rg", seed=SEED + 1))
    assert (
        by_key(other_seed, "hay", "rr", "all")["ci_low"]
        != by_key(first, "hay", "rr", "all")["ci_low"]
    )


def test_a_comparison_does_not_depend_on_the_other_tools():
    scores = _three_tools()
    alone = run_inference(scores[scores["tool"] != "ug"], design(baseline="rg", seed=SEED))
    together = run_inference(scores, design(baseline="rg", seed=SEED))
    a, b = by_key(alone, "hay", "rr", "all"), by_key(together, "hay", "rr", "all")
    assert (a["ci_low"], a["ci_high"], a["p_randomization"]) == (
        b["ci_low"],
        b["ci_high"],
        b["p_randomization"],
    )
    assert a["p_holm"] <= b["p_holm"]


def test_a_nan_or_infinite_difference_is_a_clear_error_not_p_zero():
    scores = _three_tools()
    scores.loc[(scores["tool"] == "hay") & (scores["qid"] == "c-code-0003"), "rr"] = np.nan
    with pytest.raises(BenchError) as err:
        run_inference(scores, design(baseline="rg", seed=SEED))
    message = str(err.value)
    assert "tool 'hay' vs 'rg', metric rr" in message and "c-code-0003" in message
    assert "rerun the score rule" in message
    with pytest.raises(BenchError, match=r"NaN or infinite.*rerun the score rule"):
        paired_comparison([1.0] * 11 + [np.inf], [0.5] * 12, seed=SEED, name=("t",), resamples=100)


def test_one_pair_one_test_one_verdict():
    # a pair with the baseline is tested once, in its declared family, and the matrix
    # repeats that comparison as it is; the all-pairs family holds only the other pairs
    result = run_inference(
        _three_tools(), design(baseline="rg", seed=SEED, primary=["hay"]), all_pairs=True
    )
    versus = {(c["tool"], c["metric"], c["subset"]): c for c in result["comparisons"]}
    seen = set()
    for c in result["pairs"]:
        key = (frozenset((c["tool"], c["baseline"])), c["metric"], c["subset"])
        assert key not in seen
        seen.add(key)
        if "rg" in (c["tool"], c["baseline"]):
            assert c["family"] == (
                "primary" if "hay" in (c["tool"], c["baseline"]) else "secondary"
            )
            assert c == versus[(c["tool"], c["metric"], c["subset"])]
        else:
            assert c["family"] == "all-pairs" and c["holm_m"] in (None, 1)
    assert len(seen) == 3 * len(METRICS) * len(SUBSETS)
    meta = result["metadata"]
    assert meta["families"]["all-pairs"]["holm_m"]["rr"]["all"] <= 1
    assert "no declared family tests" in meta["families"]["all-pairs"]["controls"]


def _hay_and_variants() -> pd.DataFrame:
    # hay wins on 8 of 30 queries (exact p = 2/256); five other tools win the same way
    base = [12] * 30
    win = [1] * 8 + [12] * 22
    return make_scores(
        {
            "rg": base,
            "hay": win,
            **{f"other{i}": list(win) for i in range(5)},
            "hay-no-kw": [2] * 8 + [12] * 22,  # worse than hay on those 8 queries
        }
    )


def test_declared_families_hold_holm_to_the_questions_they_ask():
    # Issue 15 item 1. In one family of seven, hay's p = 2/256 becomes 7 * 2/256 > 0.05;
    # declared primary, it is tested alone and detected, whatever else the run includes.
    scores = _hay_and_variants()
    one = run_inference(scores, design(baseline="rg", seed=SEED))
    assert by_key(one, "hay", "rr", "all")["verdict"] == "tests disagree"
    assert by_key(one, "hay", "rr", "all")["holm_m"] == 7
    declared = run_inference(
        scores, design(baseline="rg", seed=SEED, primary=["hay"], ablations={"hay-no-kw": "hay"})
    )
    hay = by_key(declared, "hay", "rr", "all")
    assert (hay["family"], hay["holm_m"], hay["p_holm"]) == ("primary", 1, 2 / 256)
    assert hay["verdict"] == "detected better"
    # the others pay only for each other: five in the secondary family (5 * 2/256 < 0.05)
    other = by_key(declared, "other0", "rr", "all")
    assert (other["family"], other["holm_m"]) == ("secondary", 5)
    # the variant is compared with the full tool it varies, not with the baseline
    variant = by_key(declared, "hay-no-kw", "rr", "all")
    assert (variant["family"], variant["baseline"], variant["holm_m"]) == ("ablation", "hay", 1)
    assert variant["diff"] == pytest.approx(8 * (0.5 - 1.0) / 30)
    assert variant["verdict"] == "detected worse"
    families = declared["metadata"]["families"]
    assert families["primary"]["pairs"] == [["hay", "rg"]]
    assert families["ablation"]["pairs"] == [["hay-no-kw", "hay"]]
    assert [c["family"] for c in declared["comparisons"][:6]] == ["primary"] * 6
    # a comparison's interval and raw p do not depend on the family it is in
    assert (hay["ci_low"], hay["p_randomization"]) == (
        by_key(one, "hay", "rr", "all")["ci_low"],
        by_key(one, "hay", "rr", "all")["p_randomization"],
    )


def test_each_pair_has_one_verdict_across_declared_and_exploratory_families():
    scores = _hay_and_variants()
    result = run_inference(
        scores,
        design(baseline="rg", seed=SEED, primary=["hay"], ablations={"hay-no-kw": "hay"}),
        all_pairs=True,
    )
    pair_family = {}
    for c in result["pairs"]:
        key = frozenset((c["tool"], c["baseline"]))
        pair_family.setdefault(key, set()).add(c["family"])
    assert all(len(f) == 1 for f in pair_family.values())
    assert pair_family[frozenset(("hay", "hay-no-kw"))] == {"ablation"}
    # the variant vs the baseline is exploratory: no declared family asks it
    assert pair_family[frozenset(("hay-no-kw", "rg"))] == {"all-pairs"}
    assert len(pair_family) == 8 * 7 // 2


def test_a_variant_whose_full_tool_was_not_scored_is_secondary():
    scores = _hay_and_variants()
    without_hay = scores[scores["tool"] != "hay"]
    result = run_inference(
        without_hay,
        design(baseline="rg", seed=SEED, primary=["hay"], ablations={"hay-no-kw": "hay"}),
    )
    families = result["metadata"]["families"]
    assert families["primary"]["pairs"] == [] and families["ablation"]["pairs"] == []
    assert ["hay-no-kw", "rg"] in families["secondary"]["pairs"]


def test_the_baseline_cannot_be_a_primary_question():
    with pytest.raises(BenchError, match="primary names the baseline 'rg'"):
        run_inference(_three_tools(), design(baseline="rg", seed=SEED, primary=["rg"]))


def test_unknown_baseline_is_named():
    with pytest.raises(BenchError, match="baseline tool 'grep' has no scores"):
        run_inference(_three_tools(), design(baseline="grep", seed=SEED))


def test_thirteen_tools_thirty_queries_in_a_few_seconds():
    rng = np.random.default_rng(9)
    ranks = {f"tool{i:02d}": list(rng.integers(0, 60, 30)) for i in range(13)}
    scores = make_scores(ranks, [bool(x) for x in rng.random(30) < 0.5])
    start = time.perf_counter()
    result = run_inference(scores, design(baseline="tool00", seed=SEED))
    assert time.perf_counter() - start < 3.0
    assert len(result["comparisons"]) == 12 * len(METRICS) * len(SUBSETS)


def test_inference_script_writes_identical_files_twice(tmp_path):
    write_scores(_three_tools(), tmp_path / "scores.tsv")
    healthy = [tool_health(t, [{"status": "ok"}], HealthRule()) for t in ("rg", "hay", "grep")]
    (tmp_path / "health.tsv").write_text(health_text(healthy))
    outputs = []
    for run in ("a", "b"):
        snakemake = SimpleNamespace(
            input=SimpleNamespace(
                scores=str(tmp_path / "scores.tsv"), health=str(tmp_path / "health.tsv")
            ),
            params=SimpleNamespace(
                design=design(baseline="rg", seed=SEED, resamples=2000, primary=["hay"]).as_params()
            ),
            output=SimpleNamespace(
                json=str(tmp_path / run / "inference.json"),
                tsv=str(tmp_path / run / "inference.tsv"),
            ),
            wildcards={"corpus": "c", "track": "code"},
        )
        runpy.run_path(
            str(ROOT / "scripts" / "inference.py"), init_globals={"snakemake": snakemake}
        )
        outputs.append(
            (
                (tmp_path / run / "inference.json").read_bytes(),
                (tmp_path / run / "inference.tsv").read_bytes(),
            )
        )
    assert outputs[0] == outputs[1]
    meta = json.loads(outputs[0][0])["metadata"]
    assert (meta["corpus"], meta["track"], meta["resamples"]) == ("c", "code", 2000)
    assert meta["families"]["primary"]["pairs"] == [["hay", "rg"]]


def test_the_minimum_query_rule_is_read_from_config_not_fixed():
    """Issue 14 item 1: one constant, overridable by config `min_queries`, decides "not
    evidence"; the report takes the verdict as written and never re-applies the rule."""
    scores = make_scores({"rg": [5] * 12, "hay": [1] * 12})
    default = run_inference(scores, design(baseline="rg", seed=SEED, resamples=2000))
    stricter = run_inference(
        scores, design(baseline="rg", seed=SEED, resamples=2000, min_queries=13)
    )
    rr = [c for c in default["comparisons"] if c["metric"] == "rr" and c["subset"] == "all"]
    assert [c["verdict"] for c in rr] == ["detected better"]
    assert {c["verdict"] for c in stricter["comparisons"]} == {"not evidence"}
    assert stricter["metadata"]["min_queries"] == 13 and default["metadata"]["min_queries"] == 10


# --- a tool that covers only some languages (a language server) ----------------------------
def test_a_tool_is_compared_only_on_the_queries_it_was_asked():
    n = 40
    base = [2] * n
    # asked about the 25 Python queries, where it finds the answer first; never about the C ones
    lsp_ranks = [1] * 25 + [0] * 15
    scores = make_scores({"rg": base, "lsp": lsp_ranks, "nolang": [0] * n})
    asked = [f"c-code-{i:04d}" for i in range(25)]
    lsp_rows = (scores["tool"] == "lsp") & ~scores["qid"].isin(asked)
    scores.loc[lsp_rows, "status"] = "not-applicable"
    scores.loc[scores["tool"] == "nolang", "status"] = "not-applicable"
    result = run_inference(scores, design(baseline="rg", seed=SEED, resamples=2000))
    comp = by_key(result, "lsp", "rr", "all")
    assert (comp["n"], comp["not_applicable"], comp["applicable"]) == (25, 15, True)
    assert comp["mean_tool"] == 1.0 and comp["mean_base"] == 0.5  # on its 25 queries only
    assert comp["verdict"] == "detected better"
    none = by_key(result, "nolang", "rr", "all")
    assert none["verdict"] == "not applicable" and none["n"] == 0
    assert none["holm_excluded"].startswith("not applicable")
    # the baseline's other comparisons are untouched: all 40 queries
    assert by_key(result, "nolang", "rr", "all")["not_applicable"] == 40


def test_covers_reads_the_tools_languages():
    from searchbench.tools import ToolSpec, covers

    lsp = ToolSpec("s", "s", "s", ["{query}"], "grep", languages=["python"])
    grep = ToolSpec("g", "g", "g", ["{query}"], "grep")
    assert covers(lsp, "python") and not covers(lsp, "c") and not covers(lsp, "markdown")
    assert covers(grep, "markdown") and covers(grep, "")
