"""Results by language (issue 15 item 2): the declared comparisons per language of the
queries, for one corpus and pooled over corpora, and the report's tables of them."""

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from design_fixture import design
from test_inference import make_scores

from searchbench.by_language import (
    LANGUAGE_COLUMNS,
    language_inference,
    pooled_scores,
)
from searchbench.errors import BenchError
from searchbench.health import HealthRule, health_text, tool_health
from searchbench.metrics import read_scores, write_scores

ROOT = Path(__file__).parent.parent
SEED = 11


def two_languages(prefix: str = "c") -> pd.DataFrame:
    """30 queries: 12 in c where hay finds at rank 1 what rg finds at 12; 12 in python where
    the two tie; 6 in rust (too few for a claim) where hay wins too."""
    base = [12] * 30
    hay = [1] * 12 + [12] * 12 + [1] * 6
    scores = make_scores({"rg": base, "hay": hay, "ug": base})
    language = {f"c-code-{i:04d}": "c" if i < 12 else "python" if i < 24 else "rust"
                for i in range(30)}  # fmt: skip
    scores["language"] = scores["qid"].map(language)
    scores["qid"] = prefix + scores["qid"].str.removeprefix("c")
    return scores


def by_key(result: dict, tool: str, language: str) -> dict:
    (found,) = [
        c
        for c in result["comparisons"]
        if (c["tool"], c["language"], c["metric"], c["subset"]) == (tool, language, "rr", "all")
    ]
    return found


def test_each_language_gets_the_paired_inference_and_its_own_verdict():
    result = language_inference(two_languages(), design(baseline="rg", seed=SEED, primary=["hay"]))
    c, python, rust = (by_key(result, "hay", lang) for lang in ("c", "python", "rust"))
    assert (c["n"], c["n_eff"], c["family"]) == (12, 12, "primary")
    assert c["diff"] == pytest.approx(1 - 1 / 12) and c["verdict"] == "detected better"
    assert python["n"] == 12 and python["verdict"] == "identical"
    # six rust queries all better: p could reach alpha, but 6 < 10 queries is no claim
    assert rust["verdict"] == "not evidence" and rust["holm_excluded"].startswith("fewer than")
    # Holm over the languages of the primary family: python (identical) and rust leave it
    assert c["holm_m"] == 1
    meta = result["metadata"]
    assert meta["languages"] == {"c": 12, "python": 12, "rust": 6}
    assert meta["families"]["primary"]["pairs"] == [["hay", "rg"]]
    assert by_key(result, "ug", "c")["family"] == "secondary"


def test_languages_of_one_family_share_one_holm_adjustment():
    # hay wins on 8 of 12 queries in each of three languages: exact p = 2/256 each; as three
    # slices of one question, Holm multiplies the smallest by 3
    base = [12] * 36
    hay = ([1] * 8 + [12] * 4) * 3
    scores = make_scores({"rg": base, "hay": hay})
    scores["language"] = scores["qid"].map(
        {f"c-code-{i:04d}": ("c", "go", "java")[i // 12] for i in range(36)}
    )
    result = language_inference(scores, design(baseline="rg", seed=SEED, primary=["hay"]))
    for lang in ("c", "go", "java"):
        comp = by_key(result, "hay", lang)
        assert comp["p_randomization"] == 2 / 256 and comp["holm_m"] == 3
        assert comp["p_holm"] == pytest.approx(3 * 2 / 256)


def test_pooling_concatenates_corpora_and_refuses_a_qid_in_two():
    pooled = pooled_scores({"a": two_languages("a"), "b": two_languages("b")})
    assert pooled["qid"].nunique() == 60 and set(pooled["corpus"]) == {"a", "b"}
    result = language_inference(pooled, design(baseline="rg", seed=SEED, primary=["hay"]))
    assert result["metadata"]["languages"] == {"c": 24, "python": 24, "rust": 12}
    # rust pooled over two corpora has 12 queries: now it can be a claim
    assert by_key(result, "hay", "rust")["verdict"] == "detected better"
    with pytest.raises(BenchError, match="is in two corpora"):
        pooled_scores({"a": two_languages("a"), "b": two_languages("a")})
    # a corpus scored without one of the tools is refused, not pooled over fewer tools
    short = two_languages("b")
    with pytest.raises(BenchError, match="pooled results need the same tools everywhere"):
        pooled_scores({"a": two_languages("a"), "b": short[short["tool"] != "ug"]})


def test_scores_without_a_language_column_are_refused():
    with pytest.raises(BenchError, match="no language column; rerun the score rule"):
        language_inference(
            two_languages().drop(columns="language"), design(baseline="rg", seed=SEED)
        )


def test_script_writes_identical_files_twice_for_a_corpus_and_for_a_pool(tmp_path):
    write_scores(two_languages("a"), tmp_path / "a.tsv")
    write_scores(two_languages("b"), tmp_path / "b.tsv")
    # ug is broken on b only (every query timed out): pooled, it is broken, and says where
    for corpus, ug in (("a", "ok"), ("b", "timeout")):
        healths = [
            tool_health(t, [{"status": ug if t == "ug" else "ok"}] * 30, HealthRule())
            for t in ("rg", "hay", "ug")
        ]
        (tmp_path / f"{corpus}.health.tsv").write_text(health_text(healths))
    outputs = []
    for run, inputs in (("one", ["a"]), ("one-again", ["a"]), ("pool", ["a", "b"])):
        smk = SimpleNamespace(
            input=SimpleNamespace(
                scores=[str(tmp_path / f"{c}.tsv") for c in inputs],
                health=[str(tmp_path / f"{c}.health.tsv") for c in inputs],
            ),
            params=SimpleNamespace(
                corpora=inputs,
                design=design(
                    baseline="rg", seed=SEED, resamples=2000, primary=["hay"]
                ).as_params(),
            ),
            output=SimpleNamespace(
                json=str(tmp_path / run / "by_language.json"),
                tsv=str(tmp_path / run / "by_language.tsv"),
            ),
            wildcards=SimpleNamespace(track="code"),
        )
        runpy.run_path(str(ROOT / "scripts" / "by_language.py"), init_globals={"snakemake": smk})
        outputs.append((tmp_path / run / "by_language.json").read_bytes())
    assert outputs[0] == outputs[1] != outputs[2]
    pooled = json.loads(outputs[2])
    assert pooled["metadata"]["corpora"] == ["a", "b"]
    assert pooled["metadata"]["broken_tools"] == {
        "ug": "on b: 30 of 30 queries failed (30 timeout), above the 20% allowed"
    }
    assert {c["verdict"] for c in pooled["comparisons"] if c["tool"] == "ug"} == {"broken"}
    assert json.loads(outputs[0])["metadata"]["broken_tools"] == {}
    header = (tmp_path / "pool" / "by_language.tsv").read_text().splitlines()[0]
    assert header.split("\t") == list(LANGUAGE_COLUMNS)


def test_the_report_shows_languages_per_corpus_and_pooled(tmp_path):
    from report_paths import FIXTURE, fixture_model

    from searchbench.report.page import render_html, render_markdown

    scores = read_scores(FIXTURE / "alpha" / "code" / "scores.tsv")
    per_corpus = language_inference(scores, design(baseline="rg", seed=SEED, primary=["hay"]))
    pooled = language_inference(
        pooled_scores({"alpha": scores}), design(baseline="rg", seed=SEED, primary=["hay"])
    )
    pooled["metadata"]["corpora"] = ["alpha"]
    paths = {}
    for name, doc, where in (
        ("by_language", per_corpus, tmp_path / "alpha" / "code"),
        ("pooled_by_language", pooled, tmp_path / "pooled" / "code"),
    ):
        where.mkdir(parents=True)
        (where / "by_language.json").write_text(json.dumps(doc))
        paths[name] = [str(where / "by_language.json")]
    model = fixture_model(seed=SEED, **paths)
    html = render_html(model, {}, "")
    hay_rust = by_key(per_corpus, "hay", "rust")
    block = html.split("By language (alpha/code)")[1].split("</table>")[0]
    assert "rust (n = 24," in block and "toml (n = 6," in block
    assert "hay vs rg (primary)" in block and f"{hay_rust['diff']:+.3f}" in block
    assert hay_rust["verdict"] in block
    pooled_block = html.split('id="languages"')[1].split("</table>")[0]
    assert "Corpora: alpha." in pooled_block and "hay vs rg (primary)" in pooled_block
    md = render_markdown(model)
    assert "## Results by language, pooled over corpora" in md
    assert "### By language (alpha/code)" in md


def test_the_docs_track_is_sliced_by_declared_in_code():
    """Issue 36 item 3: the same inference by stratum, a docs token declared in the code or
    not (declared_in_code.tsv); a scored query missing there is one clear error."""
    from searchbench.by_language import language_tsv, with_docs_strata

    scores = two_languages()
    qids = sorted(set(scores["qid"]))
    declared = pd.DataFrame(
        {"qid": qids, "query": qids, "declared_in_code": ["yes"] * 12 + ["no"] * 18}
    )
    strata = with_docs_strata(scores, declared)
    result = language_inference(
        strata, design(baseline="rg", seed=SEED, primary=["hay"]), by="stratum"
    )
    assert result["metadata"]["strata"] == {"declared in code": 12, "not declared in code": 18}
    rr = {
        c["stratum"]: c
        for c in result["comparisons"]
        if (c["tool"], c["metric"], c["subset"]) == ("hay", "rr", "all")
    }
    assert rr["declared in code"]["verdict"] == "detected better"  # its c queries
    assert rr["declared in code"]["diff"] > rr["not declared in code"]["diff"] > 0
    assert language_tsv(result, "stratum").startswith("stratum\tfamily\ttool")
    with pytest.raises(BenchError, match="not in declared_in_code.tsv; rerun the doc_queries"):
        with_docs_strata(scores, declared.iloc[1:])
