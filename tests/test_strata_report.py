"""The report's docs-track-by-stratum section (issue 36 item 3): each docs class's comparisons
on the tokens the code also declares and on the rest, per corpus and pooled, from the strata
inference the workflow writes (results/{corpus}/{track}/strata.json)."""

from pathlib import Path

import pytest
from design_fixture import design
from report_paths import fixture_model
from test_inference import make_scores

from searchbench.artifacts import json_text, write_text
from searchbench.by_language import language_inference
from searchbench.report.page import render_html, render_markdown
from searchbench.report.sections.strata import rows

SEED = 3


def strata_doc(track: str) -> dict:
    # hay loses to rg only on the 16 tokens the code declares (rank 9 vs 1); ties on the rest
    declared, other = 16, 16
    frame = make_scores({
        "rg": [1] * (declared + other),
        "hay": [9] * declared + [1] * other,
        "hay-docs": [1] * (declared + other),
    })  # fmt: skip
    frame["qid"] = frame["qid"].str.replace("code", track)
    frame["stratum"] = frame["qid"].map(
        lambda q: "declared in code" if int(q[-4:]) < declared else "not declared in code"
    )
    options = {"baseline": "rg", "seed": SEED, "primary": ["hay"], "ablations": {"hay-docs": "hay"}}
    return language_inference(frame, design(track=track, **options), by="stratum")


def write(tmp_path: Path, where: str, track: str) -> str:
    path = tmp_path / "results" / where / track / "strata.json"
    write_text(path, json_text(strata_doc(track)))
    return str(path)


def test_each_stratum_shows_the_primary_and_the_variant_comparison(tmp_path):
    model = fixture_model(
        seed=SEED,
        strata=[write(tmp_path, "a", "docs"), write(tmp_path, "a", "words")],
        pooled_strata=[write(tmp_path, "pooled", "docs")],
    )
    found = rows(model)
    where = [(r[0], r[1], r[2], r[4]) for r in found]
    assert where[:4] == [
        ("identifier tokens", "a", "declared in code", "hay vs rg"),
        ("identifier tokens", "a", "declared in code", "hay-docs vs hay"),
        ("identifier tokens", "a", "not declared in code", "hay vs rg"),
        ("identifier tokens", "a", "not declared in code", "hay-docs vs hay"),
    ]
    assert {r[1] for r in found if r[0] == "identifier tokens"} == {"a", "pooled"}
    assert {r[1] for r in found if r[0] == "heading words"} == {"a"}
    declared_row = found[0]
    assert declared_row[3] == "16"
    assert declared_row[7].startswith(f"{1 / 9 - 1:+.3f} [")
    assert declared_row[8] == "detected worse"
    assert found[2][8] == "identical"
    html = render_html(model, {}, "")
    assert "Docs track by stratum" in html.split('id="strata"')[1].split("</h2>")[0]
    assert "## Docs track by stratum" in render_markdown(model)


def test_no_strata_no_section():
    assert rows(fixture_model(seed=SEED)) == []
    assert 'id="strata"' not in render_html(fixture_model(seed=SEED), {}, "")


@pytest.mark.parametrize("track", ["docs", "words"])
def test_the_metric_is_the_track_s_primary_metric(tmp_path, track):
    model = fixture_model(seed=SEED, strata=[write(tmp_path, "a", track)])
    assert len(rows(model)) == 4
