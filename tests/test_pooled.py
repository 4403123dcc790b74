"""The pooled leaderboard and verdicts of a track (searchbench/pooled.py): corpora weighted
equally, a bootstrap stratified by corpus, a sign-flip test across every corpus's queries, the
inference's own verdict rule, and its A/A false-detection rate."""

import json

import numpy as np
import pandas as pd
import pytest
from design_fixture import design

from searchbench.artifacts import json_text
from searchbench.errors import BenchError
from searchbench.inference import adjust_family, holm, run_inference
from searchbench.metrics import NOT_APPLICABLE, SCORE_COLUMNS
from searchbench.pooled import (
    SUBSET,
    CorpusInputs,
    aa_diffs,
    aa_family,
    aa_run,
    median_wall_seconds,
    paired_strata,
    pooled_comparison,
    pooled_track,
    session_ready_seconds,
)
from searchbench.session import SessionRecord

SEED = 5
OPTIONS = {"baseline": "rg", "seed": SEED, "alpha": 0.05, "resamples": 400}


def corpus_scores(
    corpus: str, ranks: dict[str, list[int]], language: str = "c", asked: dict | None = None
) -> pd.DataFrame:
    """scores.tsv rows of one corpus from per-tool first ranks (0 = absent); ``asked`` maps a
    tool to the query indexes it was asked (the others are not-applicable)."""
    rows = []
    for tool, tool_ranks in ranks.items():
        for i, rank in enumerate(tool_ranks):
            applies = asked is None or tool not in asked or i in asked[tool]
            rank = rank if applies else 0
            rows.append(
                {
                    "qid": f"{corpus}-code-{i:04d}",
                    "tool": tool,
                    "status": ("ok" if rank else "no-match") if applies else NOT_APPLICABLE,
                    "rank": rank,
                    "rr": 1.0 / rank if rank else 0.0,
                    "success10": 1.0 if 0 < rank <= 10 else 0.0,
                    "ndcg10": 1.0 / np.log2(rank + 1) if 0 < rank <= 10 else 0.0,
                    "recall10": 1.0 if 0 < rank <= 10 else 0.0,
                    "returned": max(rank, 1),
                    "lines_before": None,
                    "bytes_before": None,
                    "line_rank": 0,
                    "files_containing": 5,
                    "trivial": False,
                    "language": language if i % 2 == 0 else "py",
                }
            )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def corpus(
    name: str, ranks: dict[str, list[int]], broken: dict | None = None, **kw
) -> CorpusInputs:
    """One corpus's inputs with its real inference.json (all pairs, as the rule writes it)."""
    scores = corpus_scores(name, ranks, asked=kw.pop("asked", None))
    inference = run_inference(
        scores,
        design(baseline="rg", seed=SEED, resamples=400, primary=kw.pop("primary", ["hay"])),
        all_pairs=True,
        broken=broken,
    )
    return CorpusInputs(name, scores, inference, broken=dict(broken or {}), **kw)


def realistic(n: int, n_effs: dict[str, int], seed: int) -> dict[str, list[int]]:
    """A baseline whose first ranks are mostly 1, and tools differing from it on n_eff
    queries each (with no direction: a swap of values drawn from the same pool)."""
    rng = np.random.default_rng(seed)
    pool = [1, 1, 1, 1, 1, 2, 2, 3, 4, 5, 7, 12, 0, 0]
    base = rng.choice(pool, size=n)
    out = {"rg": [int(x) for x in base]}
    for tool, k in n_effs.items():
        ranks = base.copy()
        for q in rng.choice(n, size=k, replace=False):
            ranks[q] = rng.choice([r for r in pool if r != ranks[q]])
        out[tool] = [int(x) for x in ranks]
    return out


def row(result: dict, tool: str) -> dict:
    return next(r for r in result["leaderboard"] if r["tool"] == tool)


def test_corpora_weigh_equally_and_the_bootstrap_resamples_within_each():
    """A small corpus where hay finds everything and a large one where it finds nothing:
    pooled 0.5 (query-weighted 0.2), and a stratified bootstrap keeps every corpus's size, so
    every resample is exactly 0.5 (resampling all queries together would spread it)."""
    small = corpus("a", {"rg": [1] * 10, "hay": [1] * 10})
    large = corpus("b", {"rg": [1] * 40, "hay": [0] * 40})
    result = pooled_track([small, large], design(track="code", primary=["hay"], **OPTIONS))
    hay = row(result, "hay")
    assert (hay["pooled"], hay["query_weighted"]) == (0.5, 0.2)
    assert (hay["ci_low"], hay["ci_high"]) == (0.5, 0.5)
    assert hay["corpora"] == 2 and hay["queries"] == 50 and hay["subset"] == "all"
    assert hay["corpus_means"] == {"a": 1.0, "b": 0.0}
    # per-corpus verdicts vs rg: identical on a (a tie), detected worse on b
    assert (hay["wins"], hay["ties"], hay["losses"]) == (0, 1, 1)
    assert [r["tool"] for r in result["leaderboard"]] == ["rg", "hay"]
    assert [r["rank"] for r in result["leaderboard"]] == [1, 2]
    tied = pooled_track([small, corpus("c", {"rg": [1] * 5, "hay": [1] * 5, "ag": [2] * 5})],
                        design(track="code", **OPTIONS))  # fmt: skip
    assert [(r["tool"], r["rank"]) for r in tied["leaderboard"]] == [
        ("hay", 1),
        ("rg", 1),
        ("ag", 3),
    ]
    assert row(result, "rg")["wins"] is None
    assert result["weighting"] == "corpora weighted equally; queries resampled within each corpus"
    assert result["metric"] == "rr" and result["metric_label"] == "MRR"


def test_the_pooled_difference_is_the_corpus_weighted_one_and_the_test_flips_query_signs():
    """d = +0.5 on a corpus of 1 query, -1/2 on one query of a corpus of 4: weighted by
    corpus, D = (0.5 + (-0.5 / 4)) / 2 = 0.1875 (query-weighted it would be 0). Two non-zero
    differences: the exact sign-flip test has 4 patterns, |sums| 0.3125, 0.1875 (twice) and
    0.3125 -> p = 1."""
    a = {"a": (np.array([1.0]), np.array([0.5]))}
    b = {"b": (np.array([0.5, 1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0]))}
    result = pooled_comparison({**a, **b}, seed=SEED, name=("t", "r", "rr", "all"), resamples=99)
    assert result["diff"] == pytest.approx(0.1875)
    assert result["n"] == 5 and result["n_eff"] == 2 and result["corpora"] == 2
    assert result["p_randomization"] == 1.0 and result["p_exact"] is True
    assert result["p_min"] == 0.5


def test_verdicts_follow_the_inference_rule_with_holm_within_each_family():
    ranks = realistic(60, {"hay": 30, "ctags": 25, "ugrep": 0}, seed=1)
    # hay finds every answer first (better than rg), ctags nearly every one (the runner-up)
    better = {**ranks, "hay": [1] * 60, "ctags": [1] * 50 + [2] * 10}
    corpora = [corpus("a", better, primary=["hay", "ugrep"]), corpus("b", better)]
    result = pooled_track(corpora, design(track="code", primary=["hay", "ugrep"], **OPTIONS))
    by_tool = {(v["family"], v["tool"]): v for v in result["verdicts"]}
    hay, ugrep = by_tool[("primary", "hay")], by_tool[("primary", "ugrep")]
    assert hay["verdict"] == "detected better" and hay["ci_low"] > 0 and hay["queries"] == 120
    assert ugrep["verdict"] == "identical" and ugrep["holm_excluded"].startswith("identical")
    # Holm among the primaries that can reach alpha: here hay alone
    assert hay["holm_m"] == 1 and hay["p_holm"] == hay["p"]
    # the leader (hay) against the runner-up, one comparison in its own family
    leader = by_tool[("leader", "hay")]
    assert leader["reference"] == result["leaderboard"][1]["tool"] == "ctags"
    assert leader["same_as"] is None and leader["holm_m"] == 1
    assert leader["diff"] == pytest.approx(10 * 0.5 / 60)
    # the forest: each pooled verdict's per-corpus rows, read from inference.json
    forest = [f for f in result["forest"] if (f["tool"], f["reference"]) == ("hay", "rg")]
    assert [f["corpus"] for f in forest] == ["a", "b"]
    per_corpus = next(
        c
        for c in corpora[0].inference["comparisons"]
        if (c["tool"], c["baseline"], c["metric"], c["subset"]) == ("hay", "rg", "rr", "all")
    )
    assert forest[0]["diff"] == pytest.approx(per_corpus["diff"], abs=1e-12)
    assert forest[0]["verdict"] == per_corpus["verdict"]


def test_holm_adjusts_the_primary_family_as_the_inference_does():
    ranks = realistic(80, {"hay": 40, "ctags": 40, "ugrep": 40}, seed=2)
    corpora = [
        corpus("a", ranks),
        corpus("b", realistic(50, {"hay": 30, "ctags": 30, "ugrep": 30}, 3)),
    ]
    result = pooled_track(
        corpora, design(track="code", primary=["hay", "ctags", "ugrep"], **OPTIONS)
    )
    primary = [v for v in result["verdicts"] if v["family"] == "primary"]
    assert [v["tool"] for v in primary] == ["ctags", "hay", "ugrep"]
    assert [v["p_holm"] for v in primary] == pytest.approx(holm([v["p"] for v in primary]))
    assert {v["holm_m"] for v in primary} == {3}


def test_a_leader_pair_already_tested_as_primary_repeats_that_test():
    """hay leads and rg is the runner-up: the leader row is the primary comparison again
    (one pair, one verdict), marked same_as primary."""
    ranks = {"rg": [2] * 30, "hay": [1] * 30, "grep": [3] * 30}
    result = pooled_track(
        [corpus("a", ranks), corpus("b", ranks)], design(track="code", primary=["hay"], **OPTIONS)
    )
    primary, leader = result["verdicts"]
    assert (leader["family"], leader["same_as"], leader["tool"], leader["reference"]) == (
        "leader",
        "primary",
        "hay",
        "rg",
    )
    for key in ("diff", "ci_low", "ci_high", "p", "p_holm", "verdict"):
        assert leader[key] == primary[key]


def test_a_language_server_is_pooled_and_compared_on_the_queries_it_was_asked():
    ranks = {"rg": [2] * 20, "hay": [1] * 20, "pyls": [1] * 20, "gopls": [1] * 20}
    asked = {"pyls": set(range(1, 20, 2)), "gopls": set()}  # odd queries are Python
    corpora = [
        corpus("a", ranks, asked=asked),
        corpus("b", {**ranks, "pyls": [3] * 20}, asked=asked),
    ]
    result = pooled_track(
        corpora,
        design(track="code", primary=["hay"], **OPTIONS),
        languages={"pyls": ["py"], "gopls": ["go"]},
        off_track={"cscope-refs": ["usage"]},
    )
    pyls = row(result, "pyls")
    assert pyls["queries"] == 20 and pyls["subset"] == "py queries only (20 of 40 on its corpora)"
    assert pyls["pooled"] == pytest.approx((1.0 + 1 / 3) / 2)
    assert result["not_applicable"] == [
        {
            "tool": "gopls",
            "reason": (
                "asked no query of this track: its languages (go) are not those of the queries"
            ),
        },
        {"tool": "cscope-refs", "reason": "runs on the usage track only (tools.yaml tracks)"},
    ]
    assert "gopls" not in {r["tool"] for r in result["leaderboard"]}
    # compared on the queries both were asked: 10 per corpus
    paired, _, _ = paired_strata(corpora, "pyls", "rg", "rr")
    assert {c: len(t) for c, (t, _) in paired.items()} == {"a": 10, "b": 10}


def test_a_broken_corpus_leaves_the_tool_s_figure_and_its_comparison():
    ranks = {"rg": [2] * 20, "hay": [1] * 20}
    broken = {"hay": "12 of 20 queries failed (12 timeout), above the 20% allowed"}
    corpora = [corpus("a", ranks), corpus("b", {"rg": [2] * 20, "hay": [0] * 20}, broken=broken)]
    result = pooled_track(corpora, design(track="code", primary=["hay"], **OPTIONS))
    hay = row(result, "hay")
    assert hay["broken"] == ["b"] and hay["corpora"] == 1 and hay["pooled"] == 1.0
    assert (hay["wins"], hay["ties"], hay["losses"]) == (1, 0, 0)
    verdict = result["verdicts"][0]
    assert verdict["corpus_names"] == ["a"] and verdict["queries"] == 20
    assert verdict["excluded"] == [{"corpus": "b", "reason": f"broken: hay {broken['hay']}"}]
    # broken on every corpus: a row without a figure or rank, and a broken verdict
    both = [corpus("a", ranks, broken=broken), corpus("b", ranks, broken=broken)]
    result = pooled_track(both, design(track="code", primary=["hay"], **OPTIONS))
    assert (row(result, "hay")["pooled"], row(result, "hay")["rank"]) == (None, None)
    assert result["verdicts"][0]["verdict"] == "broken"


def test_cost_figures_are_medians_over_the_tool_s_corpora():
    ranks = {"rg": [1] * 12, "hay": [1] * 12}
    cost = lambda b: {"median_bytes_before": str(b), "median_bytes_read": str(2 * b)}  # noqa: E731
    corpora = [
        corpus("a", ranks, seconds={"rg": 0.01, "hay": 0.03}, agent_cost={"hay": cost(10)}),
        corpus(
            "b",
            ranks,
            seconds={"rg": 0.02},
            agent_cost={"hay": cost(30)},
            index_seconds={"hay": 4.0},
        ),
    ]
    result = pooled_track(corpora, design(track="code", **OPTIONS))
    hay, rg = row(result, "hay"), row(result, "rg")
    assert (hay["median_seconds"], rg["median_seconds"]) == (0.03, 0.015)
    assert (hay["bytes_before_answer"], hay["bytes_read"]) == (20.0, 40.0)
    assert (rg["bytes_before_answer"], rg["index_seconds"], hay["index_seconds"]) == (
        None,
        None,
        4.0,
    )
    assert hay["repeatable"] is None


def test_median_wall_seconds_is_the_report_s_timing_figure():
    from searchbench.report.summaries import timing_summary

    rows = [
        {"qid": "q1", "wall": "0.5", "timed_out": "false", "exit_code": "0"},
        {"qid": "q1", "wall": "0.7", "timed_out": "false", "exit_code": "1"},
        {"qid": "q2", "wall": "0.1", "timed_out": "false", "exit_code": "0"},
        {"qid": "q2", "wall": "9.0", "timed_out": "true", "exit_code": ""},
        {"qid": "q3", "wall": "0.2", "timed_out": "false", "exit_code": "2"},
        {"qid": "q4", "wall": "0.3", "timed_out": "false", "exit_code": "0"},
    ]
    rows = [{**r, "peak_rss_kib": "0", "rss_source": "wait4"} for r in rows]
    assert median_wall_seconds(rows, (0, 1)) == timing_summary(rows, (0, 1))["median_wall_s"] == 0.3
    assert median_wall_seconds(rows[4:5], (0, 1)) is None


def test_a_session_tool_s_index_time_is_its_session_s_ready_time():
    ready = SessionRecord(True, 7.271, 858064, 0, "ready 7.237", 3.5).as_record()
    asked = [{"qid": f"q{i}", "status": "ok", **ready} for i in range(3)]
    unasked = {"qid": "q9", "status": NOT_APPLICABLE}  # outside its languages: no session fields
    assert session_ready_seconds([*asked, unasked]) == 7.271
    never = SessionRecord(False, 60.0, 0, None, "no ready line", 0.0).as_record()
    assert session_ready_seconds([{"qid": "q1", "status": "error", **never}, unasked]) is None
    other = {
        "qid": "q5",
        "status": "ok",
        **SessionRecord(True, 9.0, 1, 0, "ready 9", 0.5).as_record(),
    }
    with pytest.raises(BenchError, match="2 session ready times"):
        session_ready_seconds([*asked, other])


def test_same_inputs_give_the_same_bytes_and_the_seed_is_the_only_randomness():
    ranks = realistic(50, {"hay": 20, "ctags": 10}, seed=4)
    corpora = [corpus("a", ranks), corpus("b", realistic(30, {"hay": 9, "ctags": 4}, 6))]
    text = json_text(pooled_track(corpora, design(track="code", primary=["hay"], **OPTIONS)))
    assert text == json_text(
        pooled_track(corpora, design(track="code", primary=["hay"], **OPTIONS))
    )
    other = json_text(
        pooled_track(corpora, design(track="code", primary=["hay"], **{**OPTIONS, "seed": 6}))
    )
    assert other != text
    keys = {
        "track",
        "metric",
        "metric_label",
        "baseline",
        "alpha",
        "resamples",
        "seed",
        "weighting",
        "corpora",
        "leaderboard",
        "not_applicable",
        "verdicts",
        "forest",
    }
    assert keys <= set(json.loads(text))


def test_bad_input_is_one_clear_line():
    ranks = {"rg": [1] * 12, "hay": [2] * 12}
    with pytest.raises(BenchError, match="the docs track was measured on no corpus"):
        pooled_track([], design(track="docs", **OPTIONS))
    with pytest.raises(BenchError, match="baseline tool 'ag' has no scores on the code track"):
        pooled_track([corpus("a", ranks)], design(track="code", **{**OPTIONS, "baseline": "ag"}))
    stale = corpus("a", ranks)
    stale = CorpusInputs("a", stale.scores, {"comparisons": [], "pairs": []})
    with pytest.raises(
        BenchError, match="no comparison of hay with rg on rr over all queries; rerun the inference"
    ):
        pooled_track([stale], design(track="code", **OPTIONS))


# ------------------------------------------------------------------------------------ A/A


def test_the_vectorised_a_a_twin_gives_the_pooled_rule_s_own_verdicts():
    """Each A/A simulation equals pooled_comparison on the same swapped differences (same
    per-corpus bootstrap indices, same sign patterns), then adjust_family (Tarone, Holm,
    verdict)."""
    # n_eff per corpus: 0 (identical), 2+1 (Tarone), 6+5 (exact p), 40+30 (Monte Carlo)
    a = realistic(120, {"t0": 0, "t1": 2, "t2": 6, "t3": 40}, seed=7)
    b = realistic(70, {"t0": 0, "t1": 1, "t2": 5, "t3": 30}, seed=8)
    corpora = [corpus("a", a, primary=[]), corpus("b", b, primary=[])]
    pairs = [(t, "rg") for t in ("t0", "t1", "t2", "t3")]
    family_pairs = [paired_strata(corpora, t, r, "rr")[0] for t, r in pairs]
    sims, resamples = 5, 499
    twin = aa_family(
        family_pairs,
        pairs,
        metric="rr",
        seed=SEED,
        simulations=sims,
        resamples=resamples,
        alpha=0.05,
    )
    seen = set()
    for s in range(sims):
        family = []
        for (tool, ref), paired in zip(pairs, family_pairs, strict=True):
            name = (tool, ref, "rr", SUBSET)
            diffs = aa_diffs(paired, SEED, name, sims)
            one = {c: (d[s], np.zeros_like(d[s])) for c, d in diffs.items()}
            result = pooled_comparison(one, seed=SEED, name=name, resamples=resamples)
            result.update(tool=tool, baseline=ref, metric="rr", subset="all")
            family.append({**result, "identical": result["n_eff"] == 0})
        adjust_family(family, 0.05, 10)
        assert list(twin.verdict[s]) == [c["verdict"] for c in family]
        for j, c in enumerate(family):
            if c["n_eff"]:
                assert twin.p_randomization[s, j] == c["p_randomization"]
                assert twin.ci_low[s, j] == pytest.approx(c["ci_low"], abs=1e-12)
                assert twin.ci_high[s, j] == pytest.approx(c["ci_high"], abs=1e-12)
        seen |= {c["verdict"] for c in family}
    assert {"identical", "not evidence", "not detected"} <= seen


def test_the_pooled_rule_false_detects_at_most_alpha_on_a_a_data():
    """Three corpora of run-like shape (many ties, a few tools differing on 10-60% of the
    queries), each pair made A/A by swapping tool and reference within each query: the
    family-wise false-detection rate of four comparisons under Holm stays within alpha at
    its Monte Carlo precision (its 95% Clopper-Pearson interval reaches down to alpha)."""
    shapes = {"a": (150, 9), "b": (90, 10), "c": (40, 11)}
    corpora = [
        corpus(
            name,
            realistic(n, {"t0": n // 2, "t1": n // 3, "t2": n // 5, "t3": n // 10}, s),
            primary=[],
        )
        for name, (n, s) in shapes.items()
    ]
    pairs = [(t, "rg") for t in ("t0", "t1", "t2", "t3")]
    sims = 1000
    _, (share, low, high) = aa_run(
        corpora, pairs, metric="rr", seed=SEED, simulations=sims, resamples=500, alpha=0.05
    )
    print(f"pooled A/A family-wise false detections: {share:.3f} [{low:.3f}, {high:.3f}] of {sims}")
    assert low <= 0.05 and share <= 0.05 + 0.02


def test_the_runner_up_is_the_next_tool_asked_some_query_with_the_leader():
    """The default run's usage track: its leader (a language server's reference mode, asked on
    rxjs only) was paired with the second-ranked tool, asked on C and Java corpora only: no
    shared query, a 'not applicable' leader verdict. The runner-up now shares queries."""
    everyone = {"lsp": [1] * 30, "tagger": [1] * 25 + [2] * 5, "rg": [2] * 30, "grep": [3] * 30}
    nobody: set[int] = set()
    a = corpus("a", everyone, asked={"tagger": nobody}, primary=[])
    b = corpus("b", everyone, asked={"lsp": nobody}, primary=[])
    result = pooled_track([a, b], design(track="code", primary=[], **OPTIONS))
    order = [r["tool"] for r in result["leaderboard"]]
    assert order[:3] == ["lsp", "tagger", "rg"]
    (leader,) = [v for v in result["verdicts"] if v["family"] == "leader"]
    assert (leader["tool"], leader["reference"]) == ("lsp", "rg")
    assert leader["corpus_names"] == ["a"] and leader["verdict"] == "detected better"
