"""A/A calibration (searchbench/calibration.py): the published verdict rule applied to
exchangeable pairs built from real-looking scores, and the report's table of it."""

from pathlib import Path

import numpy as np
import pytest
import yaml
from design_fixture import design
from scipy.stats import binomtest
from test_inference import make_scores

from searchbench.artifacts import read_tsv
from searchbench.calibration import (
    ABOVE_ALPHA,
    CANNOT_DETECT,
    COLUMNS,
    SIMULATIONS,
    STATUS_COLUMNS,
    WITHIN_ALPHA,
    at_least,
    calibration_rows,
    calibration_tsv,
    chance_above,
    holm_rows,
    permutation_matrix,
    pooled_check,
    rate,
    simulate_family,
    swap_matrix,
    swapped,
    wide_scores,
    write_calibration,
    write_status,
)
from searchbench.errors import BenchError
from searchbench.inference import adjust_family, declared_pairs, holm, paired_comparison

ROOT = Path(__file__).parent.parent
SEED = 11
FAST = {"seed": SEED, "simulations": 200, "calibration_resamples": 400, "alpha": 0.05}


def same_distribution(n: int = 40, tools: int = 4) -> dict[str, list[int]]:
    """Every tool's first ranks drawn from the baseline's distribution: no tool differs."""
    rng = np.random.default_rng(3)
    draw = lambda: [int(x) for x in rng.choice([0, 1, 1, 2, 3, 5], size=n)]  # noqa: E731
    return {"rg": draw(), **{f"t{i}": draw() for i in range(tools)}}


def realistic_ranks(n: int, n_effs: list[int], seed: int = 5) -> dict[str, list[int]]:
    """A run's shape: a baseline whose first ranks are mostly 1 (ties everywhere), and tools
    that differ from it on n_eff queries each (0: identical), with rr values like 1/3 and 1/7
    whose sums do not round exactly."""
    rng = np.random.default_rng(seed)
    pool = [1, 1, 1, 1, 1, 1, 2, 2, 3, 4, 5, 7, 12, 30, 0, 0]
    base = rng.choice(pool, size=n)
    out = {"rg": [int(x) for x in base]}
    for i, k in enumerate(n_effs):
        ranks = base.copy()
        for q in rng.choice(n, size=k, replace=False):
            ranks[q] = rng.choice([r for r in pool if r != ranks[q]])
        out[f"t{i:02d}"] = [int(x) for x in ranks]
    return out


def family(rows: list[dict], name: str) -> dict:
    return next(r for r in rows if r["family"] == name and r["scope"] == "family")


def test_a_swap_flips_the_sign_of_each_swapped_difference_exactly():
    tool, ref = np.array([1.0, 0.5, 1 / 3, 0.0]), np.array([0.2, 0.5, 1.0, 1 / 7])
    swaps = np.array([True, True, False, True])
    t, r = swapped(tool, ref, swaps)
    assert np.array_equal(t - r, np.where(swaps, -(tool - ref), tool - ref))


def test_the_combined_rule_keeps_the_family_wise_rate_near_alpha():
    rows = calibration_rows(make_scores(same_distribution()), design(baseline="rg", **FAST))
    row = family(rows, "secondary")
    assert row["comparisons"] == 4 and row["m"] == 4 and row["n"] == 40
    # the exact binomial interval of the simulated rate must contain a rate <= alpha
    assert row["fwer_combined_low"] <= 0.05 and row["fwer_combined"] <= 0.10
    assert row["fwer_combined_low"] <= row["fwer_combined"] <= row["fwer_combined_high"]
    # without Holm, four tests fire more often than the family as a whole
    assert row["fwer_bootstrap"] >= row["fwer_combined"]
    assert [r["tool"] for r in rows if r["scope"] == "comparison"] == ["t0", "t1", "t2", "t3"]


def test_the_bootstrap_alone_false_detects_at_small_n_eff_where_the_combined_rule_does_not():
    base = [1] * 40
    few = [2] * 4 + [1] * 36  # 4 queries differ: n_eff 4, smallest sign-flip p 1/8 >= alpha
    rows = calibration_rows(make_scores({"rg": base, "few": few}), design(baseline="rg", **FAST))
    row = next(r for r in rows if r["tool"] == "few")
    assert row["n_eff"] == 4 and row["note"].startswith("cannot reach alpha (Tarone)")
    assert row["rate_combined"] == 0.0 and row["rate_randomization"] == 0.0
    # all 4 differences of one sign (1 in 8) puts the whole percentile interval off 0
    assert row["rate_bootstrap_low"] > 0.05 and row["rate_bootstrap"] > row["rate_combined"]


def test_the_declared_families_are_calibrated_each_with_its_own_holm():
    drawn = same_distribution(tools=3)
    ranks = {"rg": drawn["rg"], "hay": drawn["t0"], "grep": drawn["t1"], "git-grep": drawn["rg"],
             "hay-no-kw": drawn["t2"]}  # fmt: skip
    rows = calibration_rows(
        make_scores(ranks),
        design(
            track="code",
            baseline="rg",
            primary=["hay"],
            ablations={"hay-no-kw": "hay"},
            **{**FAST, "simulations": 20},
        ),
        corpus="c",
    )
    assert [(r["family"], r["scope"], r["tool"]) for r in rows] == [
        ("primary", "family", ""),
        ("primary", "comparison", "hay"),
        ("secondary", "family", ""),
        ("secondary", "comparison", "grep"),  # git-grep is identical to rg: nothing to simulate
        ("ablation", "family", ""),
        ("ablation", "comparison", "hay-no-kw"),
    ]
    assert family(rows, "ablation")["reference"] == "hay"
    assert family(rows, "secondary")["comparisons"] == 1 and rows[0]["corpus"] == "c"


def test_a_broken_tool_s_pairs_leave_their_family_as_in_the_inference():
    drawn = same_distribution(tools=3)
    ranks = {"rg": drawn["rg"], "hay": drawn["t0"], "grep": drawn["t1"], "ag": drawn["t2"]}
    options = dict(baseline="rg", primary=["hay"], track="code", **{**FAST, "simulations": 20})
    whole = calibration_rows(make_scores(ranks), design(**options), corpus="c")
    assert family(whole, "secondary")["comparisons"] == 2
    rows = calibration_rows(make_scores(ranks), design(**options), corpus="c", broken=["grep"])
    assert family(rows, "secondary")["comparisons"] == 1
    assert [r["tool"] for r in rows if r["scope"] == "comparison"] == ["hay", "ag"]
    # a broken baseline leaves every family empty: no row to read as calibrated
    assert calibration_rows(make_scores(ranks), design(**options), corpus="c", broken=["rg"]) == []


def test_same_inputs_and_seed_give_the_same_bytes(tmp_path):
    scores = make_scores(same_distribution(n=30, tools=2))
    options = {**FAST, "simulations": 30}
    write_calibration(
        calibration_rows(scores, design(baseline="rg", **options)), tmp_path / "a.tsv"
    )
    write_calibration(
        calibration_rows(scores, design(baseline="rg", **options)), tmp_path / "b.tsv"
    )
    text = (tmp_path / "a.tsv").read_bytes()
    assert text == (tmp_path / "b.tsv").read_bytes()
    assert text.decode().splitlines()[0].split("\t") == list(COLUMNS)
    other = calibration_rows(scores, design(baseline="rg", **{**options, "seed": SEED + 1}))
    assert calibration_tsv(other).encode() != text


def test_bad_input_is_one_clear_error():
    scores = make_scores(same_distribution(n=12, tools=1))
    with pytest.raises(BenchError, match="baseline tool 'ag' has no scores"):
        calibration_rows(scores, design(baseline="ag", **FAST))
    with pytest.raises(BenchError, match="simulations = 0"):
        calibration_rows(scores, design(baseline="rg", **{**FAST, "simulations": 0}))
    with pytest.raises(BenchError, match=r"\(qid, tool\) pair twice"):
        calibration_rows(scores.iloc[[0, *range(len(scores))]], design(baseline="rg", **FAST))
    with pytest.raises(BenchError, match="no score"):
        calibration_rows(scores.iloc[1:], design(baseline="rg", **FAST))

    # a track read on nDCG@10 names that metric, not MRR, when its difference is infinite
    broken = scores.copy()
    broken.loc[broken["tool"] == "t0", "ndcg10"] = np.inf
    with pytest.raises(BenchError, match="ndcg10.*NaN or infinite"):
        calibration_rows(broken, design(track="usage", baseline="rg", **FAST))


def test_the_report_shows_the_calibration_table(tmp_path):
    from report_paths import fixture_model

    from searchbench.report.charts import Page
    from searchbench.report.sections import calibration as section

    base = [1] * 40
    few = [2] * 4 + [1] * 36
    rows = calibration_rows(
        make_scores({"rg": base, "few": few, **same_distribution(tools=1)}),
        design(track="code", baseline="rg", **{**FAST, "simulations": 50}),
        corpus="alpha",
    )
    path = tmp_path / "results" / "alpha" / "code" / "calibration.tsv"
    write_calibration(rows, path)
    model = fixture_model(seed=SEED, calibration=[str(path)])
    html = "\n".join(section.html(Page(model, {})))
    assert 'id="calibration"' in html and html.count("<tr>") == 2  # header + one family row
    row = family(rows, "secondary")
    assert f"{100 * row['fwer_combined']:.1f}% [" in html
    assert "few vs rg" in html  # the bootstrap alone's worst comparison, named
    text = "\n".join(section.markdown(model))
    assert text.startswith("## Calibration on our own data") and "| alpha | code |" in text


def test_the_vectorized_simulation_gives_the_inference_s_own_verdicts():
    """Each simulation of the twin equals calling the inference's own functions on the same
    flipped data: paired_comparison (same bootstrap counts, same sign patterns: both are the
    queries' own), then adjust_family (Tarone, Holm, verdict)."""
    # n_eff 0 (identical), 3 (Tarone), 7 and 16 (exact p), 40 and 120 (Monte Carlo p)
    wide = wide_scores(make_scores(realistic_ranks(150, [0, 3, 7, 16, 40, 120, 120])))
    pairs = declared_pairs(sorted(wide.columns), "rg")["secondary"]
    seed, sims, resamples, n = 7, 6, 999, len(wide)
    twin = simulate_family(
        wide,
        pairs,
        design(
            seed=seed, simulations=sims, calibration_resamples=resamples, alpha=0.05, min_queries=10
        ),
    )
    verdicts = set()
    for s in range(sims):
        family = []
        for pair in pairs:
            tool, ref = swapped(
                wide[pair[0]].to_numpy(),
                wide[pair[1]].to_numpy(),
                swap_matrix(seed, pair, sims, n)[s],
            )
            order = permutation_matrix(seed, pair, sims, n)[s]
            result = paired_comparison(
                tool[order],
                ref[order],
                seed=seed,
                name=(*pair, "rr", "all"),
                resamples=resamples,
                qids=list(wide.index),
            )
            result.update(tool=pair[0], baseline=pair[1], metric="rr", subset="all")
            family.append({**result, "identical": result["n_eff"] == 0})
        adjust_family(family, 0.05, 10)
        assert list(twin.verdict[s]) == [c["verdict"] for c in family]
        for j, c in enumerate(family):
            if c["n_eff"]:
                assert twin.p_randomization[s, j] == c["p_randomization"]
                # the same exact sums: equal to the last bit
                assert twin.ci_low[s, j] == c["ci_low"]
                assert twin.ci_high[s, j] == c["ci_high"]
        verdicts |= {c["verdict"] for c in family}
    # the comparison exercised every branch of the rule
    assert {"identical", "not evidence", "not detected"} <= verdicts


def test_holm_on_every_row_is_the_inference_s_holm_ties_included():
    rng = np.random.default_rng(2)
    pvalues = rng.choice([0.001, 0.01, 0.02, 0.04, 0.3, 1.0], size=(50, 6))
    expected = np.array([holm(list(row)) for row in pvalues])
    assert np.array_equal(holm_rows(pvalues), expected)


def test_the_default_simulations_tell_5_percent_from_7_5():
    """A family's 95% Clopper-Pearson interval at the default simulations: a rate of 5% has
    its upper end below 7.5% and a rate of 7.5% its lower end above 5% (200 could not)."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    schema = yaml.safe_load((ROOT / "config" / "schema" / "config.schema.yaml").read_text())
    default = schema["properties"]["calibration"]["properties"]["simulations"]["default"]
    assert config["calibration"]["simulations"] == default == SIMULATIONS

    def tells(simulations: int) -> bool:
        _, _, high_at_5 = rate(round(0.05 * simulations), simulations)
        _, low_at_7_5, _ = rate(round(0.075 * simulations), simulations)
        return high_at_5 < 0.075 and low_at_7_5 > 0.05

    assert tells(SIMULATIONS) and not tells(200)
    _, low, high = rate(round(0.05 * SIMULATIONS), SIMULATIONS)
    assert (high - low) / 2 <= 0.0125


def family_row(fwer_hits: int, simulations: int = 1500, m: int = 3, **key: str) -> dict:
    """A family row as calibration.tsv has it (text), with its rate from a count of hits."""
    share, low, high = rate(fwer_hits, simulations)
    return {
        **{c: "" for c in COLUMNS},
        "corpus": "c",
        "track": "code",
        "family": "secondary",
        **key,
        "scope": "family",
        "m": str(m),
        "simulations": str(simulations),
        "alpha": "0.05",
        "fwer_combined": repr(share),
        "fwer_combined_low": repr(low),
        "fwer_combined_high": repr(high),
    }


def test_the_pooled_check_counts_rows_against_chance():
    # 40 families: 6 read above alpha (76+ hits of 1500), one of them with its whole interval
    # above (135 hits: 9.0%); 2 rows cannot detect (m = 0) and are left out
    hits = [60] * 34 + [76, 78, 80, 82, 84, 135]
    rows = [family_row(h, corpus=f"c{i:02d}") for i, h in enumerate(hits)]
    rows += [family_row(0, m=0, corpus="z1"), family_row(0, m=0, corpus="z2")]
    check = pooled_check(rows)
    assert check.rows == 40 and check.above == 6
    assert [r["corpus"] for r in check.flagged] == ["c39"]
    q_above, q_flagged = chance_above(1500, 0.05)
    # under a true rate of exactly alpha a rate reads above it almost half the time (the
    # binomial's median is alpha), and its whole interval lies above at most 2.5% of the time
    assert 0.4 < q_above < 0.5 and 0.0 < q_flagged < 0.025
    assert check.expected_above == pytest.approx(40 * q_above)
    expected_p = binomtest(6, 40, q_above, alternative="greater").pvalue
    assert check.p_above == pytest.approx(expected_p)
    assert check.p_flagged == pytest.approx(
        binomtest(1, 40, q_flagged, alternative="greater").pvalue
    )
    # unequal chances (rows of different simulations): the exact Poisson-binomial tail
    assert at_least(2, [0.5, 0.5, 0.2]) == pytest.approx(0.25 + 2 * 0.25 * 0.2)


def test_a_flagged_family_appears_in_the_report_and_the_run_status(tmp_path):
    from report_paths import fixture_model

    from searchbench.report.charts import Page
    from searchbench.report.sections import calibration as section

    rows = calibration_rows(
        make_scores(same_distribution(n=40, tools=3)),
        design(track="code", baseline="rg", primary=["t0"], **{**FAST, "simulations": 300}),
        corpus="alpha",
    )
    # what a rule that fails its claim would write: the secondary family at 9.0%, 135 of
    # 1,500 simulations, its whole interval [7.6%, 10.6%] above alpha
    rows = [{k: str(v) for k, v in r.items()} for r in rows]
    rows = [
        {**r, **{k: family_row(135)[k] for k in ("simulations", "fwer_combined",
                                                  "fwer_combined_low", "fwer_combined_high")}}
        if (r["family"], r["scope"]) == ("secondary", "family") else r
        for r in rows
    ]  # fmt: skip
    path = tmp_path / "results" / "alpha" / "code" / "calibration.tsv"
    write_calibration(rows, path)
    status = tmp_path / "results" / "calibration_status.tsv"
    write_status([path], status)
    found = read_tsv(status, STATUS_COLUMNS)
    assert [(r["family"], r["status"]) for r in found] == [
        ("primary", WITHIN_ALPHA),
        ("secondary", ABOVE_ALPHA),
    ]
    html = "\n".join(section.html(Page(fixture_model(seed=SEED, calibration=[str(path)]), {})))
    assert "9.0% [7.6%, 10.6%] ⚑ above α" in html
    assert "Flagged, the family-wise rate stays above α at this precision: alpha/code " in html
    assert "secondary: 9.0% [7.6%, 10.6%]" in html
    check = pooled_check(read_tsv(path, COLUMNS))
    assert check.rows == 2 and len(check.flagged) == 1
    assert (
        f"Read together: {check.above} of the run&#x27;s 2 family rows that can detect read "
        f"above α = 5.0% (if every family&#x27;s true rate were exactly α, chance alone gives "
        f"{check.expected_above:.1f}; P(≥ {check.above}) = {check.p_above:.2g}); rows whose "
        "whole 95% interval lies above α: 1 (0.04 expected by chance; P(≥ 1) = 0.038)."
    ) in html
    assert "How to read one row above α" in html


def test_a_family_that_cannot_detect_is_said_so_in_the_run_status(tmp_path):
    base = [1] * 40
    few = [2] * 4 + [1] * 36  # n_eff 4: Tarone leaves it out, m = 0
    rows = calibration_rows(make_scores({"rg": base, "few": few}), design(baseline="rg", **FAST))
    path = tmp_path / "calibration.tsv"
    write_calibration(rows, path)
    write_status([path], tmp_path / "status.tsv")
    assert [r["status"] for r in read_tsv(tmp_path / "status.tsv", STATUS_COLUMNS)] == [
        CANNOT_DETECT
    ]
    assert pooled_check(read_tsv(path, COLUMNS)).rows == 0


@pytest.mark.slow
def test_the_a_a_rate_holds_alpha_on_a_run_shaped_input():
    """300 queries, the n_eff of a default-run corpus's 22 tools, the default simulations."""
    n_effs = [0, 0, 0, 0, 0, 2, 3, 4, 5, 5, 6, 7, 13, 38, 54, 87, 95, 100, 108, 108, 108, 116]
    rows = calibration_rows(
        make_scores(realistic_ranks(300, n_effs)),
        design(baseline="rg", seed=SEED, simulations=SIMULATIONS, calibration_resamples=2000),
    )
    row = family(rows, "secondary")
    assert row["simulations"] == 1500 and row["m"] == 12
    assert row["fwer_combined_low"] <= 0.05  # not flagged: its interval reaches alpha
    assert row["fwer_combined"] <= 0.06
