"""A/A calibration (searchbench/calibration.py): the published verdict rule applied to
exchangeable pairs built from real-looking scores, and the report's table of it."""

from pathlib import Path

import numpy as np
import pytest
from test_inference import make_scores

from searchbench.calibration import (
    COLUMNS,
    calibration_rows,
    calibration_tsv,
    swapped,
    write_calibration,
)
from searchbench.errors import BenchError

ROOT = Path(__file__).parent.parent
SEED = 11
FAST = {"seed": SEED, "simulations": 200, "resamples": 400, "alpha": 0.05}


def same_distribution(n: int = 40, tools: int = 4) -> dict[str, list[int]]:
    """Every tool's first ranks drawn from the baseline's distribution: no tool differs."""
    rng = np.random.default_rng(3)
    draw = lambda: [int(x) for x in rng.choice([0, 1, 1, 2, 3, 5], size=n)]  # noqa: E731
    return {"rg": draw(), **{f"t{i}": draw() for i in range(tools)}}


def family(rows: list[dict], name: str) -> dict:
    return next(r for r in rows if r["family"] == name and r["scope"] == "family")


def test_a_swap_flips_the_sign_of_each_swapped_difference_exactly():
    tool, ref = np.array([1.0, 0.5, 1 / 3, 0.0]), np.array([0.2, 0.5, 1.0, 1 / 7])
    swaps = np.array([True, True, False, True])
    t, r = swapped(tool, ref, swaps)
    assert np.array_equal(t - r, np.where(swaps, -(tool - ref), tool - ref))


def test_the_combined_rule_keeps_the_family_wise_rate_near_alpha():
    rows = calibration_rows(make_scores(same_distribution()), baseline="rg", **FAST)
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
    rows = calibration_rows(make_scores({"rg": base, "few": few}), baseline="rg", **FAST)
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
        baseline="rg",
        primary=["hay"],
        ablations={"hay-no-kw": "hay"},
        corpus="c",
        track="code",
        **{**FAST, "simulations": 20},
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


def test_same_inputs_and_seed_give_the_same_bytes(tmp_path):
    scores = make_scores(same_distribution(n=30, tools=2))
    options = {**FAST, "simulations": 30}
    write_calibration(calibration_rows(scores, baseline="rg", **options), tmp_path / "a.tsv")
    write_calibration(calibration_rows(scores, baseline="rg", **options), tmp_path / "b.tsv")
    text = (tmp_path / "a.tsv").read_bytes()
    assert text == (tmp_path / "b.tsv").read_bytes()
    assert text.decode().splitlines()[0].split("\t") == list(COLUMNS)
    other = calibration_rows(scores, baseline="rg", **{**options, "seed": SEED + 1})
    assert calibration_tsv(other).encode() != text


def test_bad_input_is_one_clear_error():
    scores = make_scores(same_distribution(n=12, tools=1))
    with pytest.raises(BenchError, match="baseline tool 'ag' has no scores"):
        calibration_rows(scores, baseline="ag", **FAST)
    with pytest.raises(BenchError, match="simulations = 0"):
        calibration_rows(scores, baseline="rg", **{**FAST, "simulations": 0})
    with pytest.raises(BenchError, match=r"\(qid, tool\) pair twice"):
        calibration_rows(scores.iloc[[0, *range(len(scores))]], baseline="rg", **FAST)
    with pytest.raises(BenchError, match="no score"):
        calibration_rows(scores.iloc[1:], baseline="rg", **FAST)


def test_the_report_shows_the_calibration_table(tmp_path):
    from report_paths import fixture_model

    from searchbench.report.charts import Page
    from searchbench.report.sections import calibration as section

    base = [1] * 40
    few = [2] * 4 + [1] * 36
    rows = calibration_rows(
        make_scores({"rg": base, "few": few, **same_distribution(tools=1)}),
        baseline="rg",
        corpus="alpha",
        track="code",
        **{**FAST, "simulations": 50},
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
