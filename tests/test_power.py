"""Minimum detectable difference by simulation: its shortcuts against the real inference,
power against n and delta, a known effect, determinism, speed, and the report's rendering."""

import json
import math
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from design_fixture import design, schema_config
from test_inference import make_scores

from searchbench.errors import BenchError
from searchbench.inference import (
    bootstrap_means,
    paired_comparison,
    randomization_p,
    run_inference,
    write_inference,
)
from searchbench.metrics import write_scores
from searchbench.power import (
    QUANTUM,
    Pool,
    Settings,
    bootstrap_counts,
    critical_sums,
    detected_with,
    difference_pool,
    draw_samples,
    family_m,
    fewest_plus_signs,
    low_end_above_zero,
    minimum_detectable,
    power_at,
    power_json,
    run_power,
    simulate_thresholds,
    to_delta,
    write_power,
)

ROOT = Path(__file__).parent.parent
SEED = 20261202
FAST = Settings(simulations=400)


def pool_of(tie_share: float, magnitudes: list[float], n: int = 100) -> Pool:
    units = np.sort(np.rint(np.asarray(magnitudes) / QUANTUM))
    return Pool(n, tie_share, units, {"t": n}, [], ["t"])


def shifted_scores(n: int, seed: int = 0) -> pd.DataFrame:
    """A baseline, a tool much better on a third of the queries, and noisy tools."""
    rng = np.random.default_rng(seed)
    base = rng.integers(2, 12, n)
    ranks = {"rg": list(base), "good": [1 if rng.random() < 0.35 else r for r in base]}
    for i in range(4):
        moved = rng.random(n) < 0.3
        ranks[f"noise{i}"] = list(np.where(moved, rng.integers(1, 15, n), base))
    ranks["twin"] = list(base)
    return make_scores(ranks)


# --- the shortcuts equal the real tests -----------------------------------------------------


def test_critical_sum_equals_the_exact_randomization_test():
    rng = np.random.default_rng(1)
    threshold = 0.05 / 3
    outcomes = set()
    for _ in range(60):
        k = int(rng.integers(1, 15))
        units = np.rint(rng.choice([1.0, 0.5, 1 / 3, 0.25, 0.9], k) / QUANTUM)
        row = np.concatenate([units, np.zeros(5)])[None, :]
        critical = critical_sums(row, threshold, np.ones((10, row.shape[1])), exact_max=16)[0]
        signed = units * np.where(rng.random(k) < 0.8, 1.0, -1.0)
        p, exact = randomization_p(np.append(signed, np.zeros(5)), rng, 100)
        assert exact
        assert (abs(signed.sum()) > critical) == (p < threshold), (signed, p, critical)
        outcomes.add(p < threshold)
    assert outcomes == {True, False}


def test_critical_sum_equals_the_monte_carlo_p_definition():
    # (b + 1) / (B + 1) < threshold, b = sums at least as extreme, ties included
    rng = np.random.default_rng(2)
    for n, threshold in ((20, 0.05), (30, 0.05 / 11), (40, 0.01), (25, 0.0004)):
        units = np.rint(rng.choice([1.0, 0.5, 1 / 3, 0.2], n) / QUANTUM)
        signs = (rng.integers(0, 2, (2000, n)) * 2 - 1).astype(float)
        critical = critical_sums(units[None, :], threshold, signs, exact_max=16)[0]
        null = np.abs(signs @ units)
        for observed in [*np.unique(null)[-40:], *(np.unique(null)[-40:] + 1)]:
            p = (np.count_nonzero(null >= observed) + 1) / 2001
            assert (observed > critical) == (p < threshold)
        if threshold < 1 / 2001:
            assert critical == np.inf


def test_bootstrap_counts_give_the_inference_bootstrap_means():
    diffs = np.rint(np.random.default_rng(3).normal(0, 0.4, 25) / QUANTUM)
    counts = bootstrap_counts(25, np.random.default_rng(4), 500)
    means = bootstrap_means(diffs, np.random.default_rng(4), 500)
    assert np.array_equal(counts @ diffs / 25, means)
    assert (counts.sum(axis=1) == 25).all()


@pytest.mark.parametrize("rows", [1000, 999, 41, 2])
def test_the_low_end_test_without_sorting_is_np_quantile_s(rows):
    # integer sums around 0, so that every count of sums <= 0 occurs, the edge one included
    rng = np.random.default_rng(rows)
    centre = np.linspace(0.0, 40.0, 3000)  # the 2.5% point crosses 0 near 20
    sums = np.rint(rng.normal(centre, 10.0, (rows, 3000)))
    expected = np.quantile(sums, (1 - 0.95) / 2, axis=0) > 0.0
    assert np.array_equal(low_end_above_zero(sums), expected)
    assert 0 < expected.sum() < expected.size


def test_bisection_finds_the_fewest_plus_signs_and_detection_is_monotone():
    pool = pool_of(0.75, [1.0, 0.5, 0.5, 1 / 3, 0.25, 0.1, 0.9], n=40)
    samples = draw_samples(pool, 40, 60, np.random.default_rng(5))
    signs = np.random.default_rng(6).integers(0, 2, (1000, 40), dtype=np.int8) * 2 - 1
    critical = critical_sums(samples.magnitudes, 0.01, signs.astype(float), 16)
    counts = bootstrap_counts(40, np.random.default_rng(7), 500)
    plus, detected = fewest_plus_signs(samples, critical, counts)
    n_eff = np.count_nonzero(samples.magnitudes, axis=1)
    scan = np.array(
        [detected_with(samples, np.full(60, k), critical, counts) for k in range(41)]
    )  # (k, sample)
    for s in range(60):
        hits = scan[: n_eff[s] + 1, s]
        assert (np.diff(hits.astype(int)) >= 0).all()  # monotone in the + signs
        assert detected[s] == hits[-1]
        if detected[s]:
            assert plus[s] == int(np.argmax(hits))
    assert 5 < detected.sum() < 60 and ((plus < n_eff) & detected).sum() > 5


@pytest.mark.slow
def test_simulated_power_matches_the_real_inference_on_simulated_samples():
    # The simulation's rule (1000 bootstrap resamples, 2000 sign flips, exact sums) against
    # the inference itself (10000 of each) on 200 samples drawn from the same model.
    pool = pool_of(0.5, [1.0, 0.5, 0.5, 2 / 3, 1 / 3, 0.25, 0.1], n=80)
    m, alpha = 4, 0.05
    thresholds = to_delta(simulate_thresholds(pool, alpha / m, seed=SEED), pool)
    delta = minimum_detectable(thresholds, 0.6)
    simulated = float(power_at(thresholds, np.array([delta]))[0])
    rng = np.random.default_rng(8)
    q = 0.5 + delta / (2 * pool.max_delta)
    hits = 0
    for i in range(200):
        tie = rng.random(80) < pool.tie_share
        mags = pool.magnitudes[rng.integers(0, pool.magnitudes.size, 80)] * QUANTUM
        d = np.where(tie, 0.0, mags * np.where(rng.random(80) < q, 1.0, -1.0))
        c = paired_comparison(d, np.zeros(80), seed=i, name=("v",), resamples=10_000)
        hits += c["ci_low"] > 0 and c["p_randomization"] < alpha / m
    real = hits / 200
    assert abs(real - simulated) < 0.12, (real, simulated)


# --- power and the MDE ----------------------------------------------------------------------


def test_power_rises_with_delta_and_with_n():
    pool = pool_of(0.6, [1.0, 0.5, 0.5, 1 / 3, 0.25, 0.2, 0.1, 0.9])
    deltas = np.linspace(0, pool.max_delta, 11)
    curves = {
        n: power_at(
            to_delta(simulate_thresholds(pool, 0.01, seed=SEED, settings=FAST, n=n), pool), deltas
        )
        for n in (50, 200, 800)
    }
    for curve in curves.values():
        assert (np.diff(curve) >= 0).all() and curve[0] < 0.02
    middle = 3  # delta = 0.3 of the largest feasible one
    assert curves[50][middle] + 0.2 < curves[200][middle] < curves[800][middle]
    assert curves[800][-1] == 1.0
    mdes = [
        minimum_detectable(
            to_delta(simulate_thresholds(pool, 0.01, seed=SEED, settings=FAST, n=n), pool)
        )
        for n in (200, 800)
    ]
    assert mdes[1] < mdes[0] < pool.max_delta


@pytest.mark.slow
def test_a_known_large_effect_has_an_mde_below_it_and_is_detected():
    scores = shifted_scores(200)
    result = run_power(scores, design(baseline="rg", seed=SEED), settings=FAST)
    inference = run_inference(scores, design(baseline="rg", seed=SEED))
    (good,) = [
        c
        for c in inference["comparisons"]
        if (c["tool"], c["metric"], c["subset"]) == ("good", "rr", "all")
    ]
    assert good["verdict"] == "detected better"
    assert result["mde"] is not None and result["mde"] < good["diff"]
    assert result["holm_m"] == 5  # four noisy tools and "good"; the twin is left out
    secondary = inference["metadata"]["families"]["secondary"]
    assert result["holm_m"] == secondary["holm_m"]["rr"]["all"]
    # declared as the one primary question, "good" is tested alone: m = 1 in both
    primary = run_power(scores, design(baseline="rg", seed=SEED, primary=["good"]), settings=FAST)
    declared = run_inference(scores, design(baseline="rg", seed=SEED, primary=["good"]))
    assert (
        primary["holm_m"] == 1 == declared["metadata"]["families"]["primary"]["holm_m"]["rr"]["all"]
    )
    assert primary["mde"] < result["mde"] and primary["metadata"]["family"] == "primary"
    assert result["identical_tools"] == ["twin"]
    assert result["pooled_tools"] == ["good", "noise0", "noise1", "noise2", "noise3"]
    assert result["n"] == 200 and 0 < result["tie_share"] < 1
    assert result["n_eff"]["twin"] == 0 and result["n_eff"]["good"] > 30
    assert result["test_alpha"] == 0.05 / 5
    assert "worst case for a single true effect" in result["metadata"]["holm"]


@pytest.mark.slow
def test_too_few_queries_or_nothing_differing_has_no_mde_and_says_why():
    few = run_power(shifted_scores(8), design(baseline="rg", seed=SEED), settings=FAST)
    assert few["mde"] is None and "fewer than 10 queries" in few["mde_note"]
    same = make_scores({"rg": [1, 2, 3] * 10, "twin": [1, 2, 3] * 10})
    none = run_power(same, design(baseline="rg", seed=SEED), settings=FAST)
    assert none["mde"] is None and none["tie_share"] == 1.0
    assert "differs from the baseline's" in none["mde_note"]
    assert {p["power"] for p in none["power_curve"]} == {0.0}


def test_a_high_tie_share_makes_every_feasible_difference_undetectable():
    # two tools differing on 1 and 2 of 30 queries: at most 3/60 differ, and the largest
    # feasible mean difference cannot reach 80% power
    base = [2] * 30
    scores = make_scores({"rg": base, "a": [1] + base[1:], "b": [1, 1] + base[2:]})
    result = run_power(scores, design(baseline="rg", seed=SEED), settings=FAST)
    assert result["mde"] is None and "no mean difference up to the largest" in result["mde_note"]
    assert result["tie_share"] == pytest.approx(57 / 60)
    assert result["holm_m"] == 1


@pytest.mark.slow
def test_the_plan_gives_the_mde_at_other_sizes_and_the_queries_a_target_needs():
    # Issue 11 item 5: a table a reader can plan with, from this corpus's own differences
    from searchbench.power import PLAN_QUERIES, difference_pool, mde_at, queries_needed

    scores = shifted_scores(300)
    result = run_power(scores, design(baseline="rg", seed=SEED), settings=FAST)
    plan = {p["queries"]: p["mde"] for p in result["plan"]}
    assert tuple(plan) == PLAN_QUERIES
    assert plan[300] == result["mde"]  # the corpus's own size: the same simulation
    # falls with n; too small a sample may detect nothing feasible (None), never a large one
    values = [plan[n] for n in PLAN_QUERIES]
    known = [v for v in values if v is not None]
    assert values[-len(known) :] == known and len(known) >= 3
    assert all(a > b for a, b in zip(known, known[1:], strict=False))
    pool = difference_pool(scores, "rg")
    threshold = result["test_alpha"]
    options = {"seed": SEED, "settings": FAST, "min_queries": 10}
    assert pool.max_delta > 0.05  # so the first target is feasible here
    for need in result["queries_needed"]:
        n = need["queries"]
        if need["mde"] > pool.max_delta:
            assert n is None  # no number of queries reaches a mean the tie share forbids
            continue
        assert n is not None and 10 <= n <= 3000
        assert mde_at(pool, threshold, n, **options) <= need["mde"]
        # the MDE falls with n up to simulation noise: half as many queries do not reach it
        half = mde_at(pool, threshold, n // 2, **options)
        assert n // 2 < 10 or half is None or half > need["mde"]
    assert [q["mde"] for q in result["queries_needed"]] == [0.05, 0.10]
    # a target beyond what the tie share allows needs no number of queries
    assert queries_needed(pool, threshold, pool.max_delta + 0.01, **options) is None


def test_family_m_follows_tarone():
    pool = Pool(30, 0.5, np.ones(3), {"a": 0, "b": 5, "c": 6, "d": 25}, ["a"], ["b", "c", "d"])
    assert family_m(pool, 0.05, 10_000) == 2  # b cannot reach 0.05 (2/32), a is identical
    assert family_m(pool, 0.01, 10_000) == 1  # c: 2/64 > 0.01


def test_nan_or_duplicate_scores_are_a_clear_error():
    scores = shifted_scores(20)
    scores.loc[scores.index[3], "rr"] = np.nan
    with pytest.raises(BenchError, match="rerun the score rule"):
        difference_pool(scores, "rg")
    twice = pd.concat([shifted_scores(20), shifted_scores(20).iloc[:1]], ignore_index=True)
    with pytest.raises(BenchError, match=r"\(qid, tool\) pair twice"):
        difference_pool(twice, "rg")


# --- output ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_same_seed_same_bytes_other_seed_other_draws():
    scores = shifted_scores(60)
    first = power_json(run_power(scores, design(baseline="rg", seed=SEED), settings=FAST))
    second = power_json(run_power(scores, design(baseline="rg", seed=SEED), settings=FAST))
    other = power_json(run_power(scores, design(baseline="rg", seed=SEED + 1), settings=FAST))
    assert first == second and first != other
    doc = json.loads(first)
    meta = doc["metadata"]
    assert (meta["simulations"], meta["bootstrap_resamples"], meta["flip_resamples"]) == (
        400,
        1000,
        2000,
    )
    assert meta["seed"] == SEED and meta["power_target"] == 0.8 and meta["metric"] == "rr"
    assert len(doc["power_curve"]) == 21 and doc["power_curve"][0]["delta"] == 0.0


@pytest.mark.slow
def test_one_corpus_of_a_thousand_queries_gets_an_mde_and_a_plan():
    # Speed is the benchmark scripts' business, not a timed unit test's (the plan's extra
    # simulations take about 8 s here alone, 25 s on a shared machine).
    result = run_power(shifted_scores(1000), design(baseline="rg", seed=SEED))
    assert result["metadata"]["simulations"] == 1000
    assert result["mde"] is not None and result["plan"][-1]["mde"] < result["mde"]


def test_the_schema_s_power_settings_are_the_simulation_s_defaults():
    # config/config.yaml writes them out; a fixture may lower them (tests/test_workflow.py)
    defaults = Settings()
    configured = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["power"]
    assert (
        schema_config()["power"]
        == configured
        == {
            "simulations": defaults.simulations,
            "bootstrap_resamples": defaults.bootstrap_resamples,
            "flip_resamples": defaults.flip_resamples,
        }
    )


def test_power_script_writes_identical_files_twice_with_the_configured_settings(tmp_path):
    write_scores(shifted_scores(40), tmp_path / "scores.tsv")
    # few simulations: the defaults' cost is the plan's 3,000-query samples, not this file's
    settings = {"simulations": 40, "bootstrap_resamples": 30, "flip_resamples": 50}
    outputs = []
    for run in ("a", "b"):
        snakemake = SimpleNamespace(
            input=SimpleNamespace(scores=str(tmp_path / "scores.tsv")),
            params=SimpleNamespace(
                design=design(baseline="rg", seed=SEED, primary=["hay"]).as_params(),
                settings=settings,
            ),
            output=SimpleNamespace(json=str(tmp_path / run / "power.json")),
            wildcards={"corpus": "c", "track": "code"},
        )
        runpy.run_path(str(ROOT / "scripts" / "power.py"), init_globals={"snakemake": snakemake})
        outputs.append((tmp_path / run / "power.json").read_bytes())
    assert outputs[0] == outputs[1]
    meta = json.loads(outputs[0])["metadata"]
    assert (meta["corpus"], meta["track"], meta["inference_resamples"]) == ("c", "code", 10_000)
    assert {key: meta[key] for key in settings} == settings


def test_mde_is_the_smallest_delta_with_enough_power():
    thresholds = np.array([0.1, 0.2, 0.3, 0.4, np.inf])
    assert minimum_detectable(thresholds, 0.8) == 0.4
    assert minimum_detectable(thresholds, 0.6) == 0.3
    assert minimum_detectable(np.array([0.1, np.inf, np.inf]), 0.8) is None
    assert list(power_at(thresholds, np.array([0.0, 0.35, 1.0]))) == [0.0, 0.6, 0.8]
    assert math.isclose(minimum_detectable(np.array([-0.01] * 5)), 0.0)


@pytest.mark.slow
def test_written_power_json_round_trips(tmp_path):
    result = run_power(shifted_scores(30), design(baseline="rg", seed=SEED), settings=FAST)
    write_power(result, tmp_path / "power.json")
    assert json.loads((tmp_path / "power.json").read_text()) == json.loads(power_json(result))


# --- the report -----------------------------------------------------------------------------


def report_model(tmp_path: Path, variant: bool = False):
    """The report fixture's alpha corpus plus a tool identical to the baseline (and, with
    variant, an ablation of hay that misses hay's first eight answers), through the real
    inference and power steps, read by the report."""
    from report_paths import build_model

    from searchbench.metrics import read_scores

    fix = ROOT / "tests" / "fixtures" / "report" / "results"
    scores = read_scores(fix / "alpha" / "code" / "scores.tsv")
    twin = scores[scores["tool"] == "rg"].assign(tool="twin")
    extra = [twin]
    if variant:
        hay = scores[scores["tool"] == "hay"].sort_values("qid").reset_index(drop=True)
        worse = hay.assign(tool="hay-x")
        for column in ("rr", "success10", "ndcg10", "recall10"):
            worse.loc[:7, column] = 0.0
        worse.loc[:7, "rank"] = 0
        extra.append(worse)
    scores = pd.concat([scores, *extra], ignore_index=True)
    out = tmp_path / "alpha" / "code"
    out.mkdir(parents=True)
    write_scores(scores, out / "scores.tsv")
    inference = run_inference(
        scores,
        design(
            baseline="rg",
            seed=SEED,
            resamples=2000,
            primary=["hay"],
            ablations={"hay-x": "hay"} if variant else {},
        ),
        all_pairs=True,
    )
    write_inference(inference, out / "inference.json", out / "inference.tsv")
    power = run_power(scores, design(baseline="rg", seed=SEED), settings=FAST)
    write_power(power, out / "power.json")
    model = build_model(
        scores=[str(out / "scores.tsv")],
        inference=[str(out / "inference.json")],
        corpus=[str(fix / "alpha" / "corpus.json")],
        tools=str(fix / "tools.json"),
        timing=[],
        funnel=[str(fix / "alpha" / "code" / "funnel.tsv")],
        gt_audit=[str(fix / "alpha" / "code" / "gt_audit_summary.tsv")],
        fileset_audit=[str(fix / "alpha" / "fileset_audit.tsv")],
        config=schema_config(seed=SEED, baseline="rg"),
        config_hash="x",
        command="snakemake",
        power=[str(out / "power.json")],
    )
    return model, inference, power


@pytest.mark.slow
def test_report_shows_the_mde_identical_and_what_left_holm(tmp_path):
    from searchbench.report.page import render_html, render_markdown

    model, inference, power = report_model(tmp_path)
    html = render_html(model, {}, "")
    section = html.split('id="alpha-code"')[1]
    # identical: a verdict of its own, badge and colour, in every table of the twin (4 metrics,
    # 2 subsets)
    assert section.count('<span class="badge identical">identical</span>') == 4 * 2
    assert '<td class="identical" data-tool="twin"' in section
    # which comparisons left the Holm family and why, and the sizes left
    families = inference["metadata"]["families"]
    m = families["secondary"]["holm_m"]["rr"]
    assert "primary (hay vs rg): the declared questions" in section
    assert (
        f"Tarone&#x27;s rule (all/discriminating queries): MRR {m['all']}/{m['discriminating']}"
        in section
    )
    assert "ablation: none" in section
    assert "Left out as identical to rg (nothing to test): twin." in section
    # the MDE, what it rests on, and each tool's reading beside its observed difference
    block = section.split("What these queries could detect")[1].split("</table>")[0]
    mde = power["mde"]
    expected = f"{mde:.3f}" if mde is not None else "none"
    assert f"power (all queries): {expected}" in block or expected == "none"
    assert f"n = {power['n']} queries" in block and "tie share of" in block
    assert f"m = {power['holm_m']}" in block and "expected n_eff" in block
    assert "Planning (same tie share and differences): MDE at n = 30: " in block
    assert "Queries needed to detect a mean difference of 0.05: " in block
    hay = next(c for c in inference["comparisons"] if c["tool"] == "hay" and c["metric"] == "rr"
               and c["subset"] == "all")  # fmt: skip
    assert f"<td>{hay['diff']:+.3f}</td>" in block
    assert "<td>identical</td>" in block  # the twin's reading
    readings = [r for r in ("could not reliably have been detected", "at or above the MDE",
                            "no feasible difference", "detected better", "detected worse")
                if r in block]  # fmt: skip
    assert readings
    # pairs a declared family tests repeat that comparison, marked, with its verdict
    pairs = section.split("All pairs (MRR, all queries)")[1].split("</table>")[0]
    assert "‡" in pairs and "one test per pair" in pairs and "≡" in pairs
    assert f"{hay['diff']:+.3f}" in pairs
    md = render_markdown(model)
    assert "(identical to the baseline)" in md and "Minimum detectable MRR difference" in md
    assert "Left out as identical to rg" in md and "Tarone's rule" in md


@pytest.mark.slow
def test_report_names_each_comparison_family_and_an_ablation_s_reference(tmp_path):
    from searchbench.report.page import render_html, render_markdown

    model, inference, _ = report_model(tmp_path, variant=True)
    html = render_html(model, {}, "")
    section = html.split('id="alpha-code"')[1]
    variant = next(c for c in inference["comparisons"] if c["tool"] == "hay-x"
                   and c["metric"] == "rr" and c["subset"] == "all")  # fmt: skip
    assert variant["family"] == "ablation" and variant["baseline"] == "hay"
    assert variant["diff"] < 0
    row = section.split('data-tool="hay-x"><td class="name">')[1].split("</tr>")[0]
    assert '<td class="name family">ablation vs hay</td>' in row
    assert f"{variant['diff']:+.3f}" in row
    assert "ablation (hay-x vs hay): each ablation variant" in section
    assert '<td class="name family">primary vs rg</td>' in section
    md = render_markdown(model)
    assert "| hay-x | ablation vs hay |" in md and "| hay | primary vs rg |" in md
    # the overview opens with every tool on every corpus, marked by its family's verdict
    matrix = html.split('<table class="matrix">')[1].split("</table>")[0]
    rows = [r for r in matrix.split("<tr>") if r.startswith('<td class="name">')]
    assert [r.split("</td>")[0].removeprefix('<td class="name">') for r in rows][:2] == [
        "rg",
        "hay",
    ]
    assert rows[-1].startswith('<td class="name">hay-x (vs hay)</td>')
    mark = {"detected worse": "▼", "detected better": "▲"}.get(variant["verdict"], "")
    assert f"{model.sections[0].means['all']['hay-x']['rr']:.3f} {mark}".rstrip() in rows[-1]


def test_report_says_when_nothing_could_have_been_detected():
    from searchbench.report.model import Section
    from searchbench.report.sections.power import power_html, power_reading

    assert power_reading({"verdict": "not detected", "diff": 0.02}, 0.05).endswith(
        "could not reliably have been detected"
    )
    assert power_reading({"verdict": "not detected", "diff": 0.08}, 0.05).endswith(
        "at or above the MDE"
    )
    assert "no feasible difference" in power_reading({"verdict": "not evidence", "diff": 0.3}, None)
    base = [2] * 30
    scores = make_scores({"rg": base, "a": [1] + base[1:]})
    power = run_power(scores, design(baseline="rg", seed=SEED), settings=FAST)
    sec = Section("c", "code", "rg", ["rg", "a"], [], set(), {}, {}, {}, {}, {})
    html = "".join(power_html(power, sec))
    assert "Minimum detectable MRR difference: none (no mean difference up to" in html


@pytest.mark.slow
def test_each_sample_size_is_simulated_once_per_job(monkeypatch):
    """The plan and both targets' bisections ask for some sizes again (n = 3000 each time):
    a size is simulated once and its MDE reused, the corpus's own size included."""
    import searchbench.power as power

    sizes: list[int] = []
    simulate = power.simulate_thresholds

    def counting(pool, threshold, *, n=None, **options):
        sizes.append(pool.n if n is None else n)
        return simulate(pool, threshold, n=n, **options)

    monkeypatch.setattr(power, "simulate_thresholds", counting)
    result = run_power(shifted_scores(300), design(baseline="rg", seed=SEED), settings=FAST)
    assert 300 in sizes and 3000 in sizes
    assert len(sizes) == len(set(sizes)), sorted(sizes)
    assert {p["queries"] for p in result["plan"]} <= set(sizes)
