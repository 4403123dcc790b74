"""What each hay signal is worth (issue 11 item 2): the ablation comparisons of a run as one
table, per corpus, per language and pooled, and the report's section of it."""

from pathlib import Path

import pytest
from design_fixture import design
from test_inference import make_scores

from searchbench.ablations import COLUMNS, ablations_tsv, collect
from searchbench.artifacts import write_text
from searchbench.by_language import language_inference, pooled_scores
from searchbench.inference import run_inference

ROOT = Path(__file__).parent.parent
SEED = 5


def scores(prefix: str = "c"):
    # the keyword prior wins 10 queries in c; in python switching it off changes nothing
    base = [12] * 24
    hay = [1] * 10 + [12] * 14
    frame = make_scores({"rg": base, "hay": hay, "hay-no-kw": base})
    frame["language"] = frame["qid"].map({f"c-code-{i:04d}": "c" if i < 12 else "python"
                                          for i in range(24)})  # fmt: skip
    frame["qid"] = prefix + frame["qid"].str.removeprefix("c")
    return frame


def documents():
    options = {"baseline": "rg", "seed": SEED, "primary": ["hay"],
               "ablations": {"hay-no-kw": "hay"}}  # fmt: skip
    one = scores("a")
    return [
        ("code", "a", run_inference(one, design(**options))),
        ("code", "a", language_inference(one, design(**options))),
        (
            "code",
            "pooled",
            language_inference(pooled_scores({"a": one, "b": scores("b")}), design(**options)),
        ),  # fmt: skip
    ]


def test_each_ablation_is_read_as_the_worth_of_its_signal():
    rows = collect(documents())
    where = [(r["corpus"], r["language"]) for r in rows]
    assert where == [("a", "all"), ("a", "c"), ("a", "python"), ("pooled", "c")] + [
        ("pooled", "python")
    ]
    corpus_wide = rows[0]
    assert corpus_wide["variant"] == "hay-no-kw" and corpus_wide["full_tool"] == "hay"
    assert corpus_wide["worth"] == pytest.approx(10 * (1 - 1 / 12) / 24)
    assert corpus_wide["worth_ci_low"] > 0 and corpus_wide["reading"] == "signal helps"
    assert rows[2]["reading"] == "identical" and rows[2]["worth"] == 0
    text = ablations_tsv(rows)
    assert "\t-0\t" not in text
    assert text.splitlines()[0].split("\t") == list(COLUMNS) and len(text.splitlines()) == 6


def test_a_corpus_with_one_language_adds_no_language_rows():
    one = scores("a")
    one["language"] = "c"
    doc = language_inference(one, design(baseline="rg", seed=SEED, ablations={"hay-no-kw": "hay"}))
    assert collect([("code", "a", doc)]) == []
    assert len(collect([("code", "pooled", doc)])) == 1


def test_the_report_shows_the_worth_table(tmp_path):
    from report_paths import fixture_model

    from searchbench.report.page import render_html, render_markdown

    path = tmp_path / "ablations.tsv"
    write_text(path, ablations_tsv(collect(documents())))
    model = fixture_model(seed=SEED, ablations=str(path))
    html = render_html(model, {}, "")
    block = html.split('id="ablations"')[1].split("</table>")[0]
    assert "hay-no-kw (vs hay)" in block and "signal helps" in block
    worth = collect(documents())[0]
    assert f"{worth['worth']:+.3f}" in block
    assert "## What each hay signal is worth" in render_markdown(model)


def test_a_track_read_on_ndcg_gives_its_worth_on_ndcg():
    """The usage track's primary metric is nDCG@10 (searchbench.measures): its worth rows are
    the ablation comparisons on nDCG@10, not on MRR, as each document's design marks them."""
    usage = design(track="usage", baseline="rg", seed=SEED, ablations={"hay-no-kw": "hay"})
    doc = run_inference(scores("a"), usage)
    ndcg = next(
        c
        for c in doc["comparisons"]
        if c["family"] == "ablation" and c["metric"] == "ndcg10" and c["subset"] == "all"
    )
    [row] = collect([("usage", "a", doc)])
    assert (row["mean_full"], row["mean_variant"]) == (ndcg["mean_base"], ndcg["mean_tool"])
    assert row["worth"] == pytest.approx(-ndcg["diff"]) and row["worth"] != pytest.approx(
        10 * (1 - 1 / 12) / 24  # the MRR worth of the same signal
    )


def test_the_report_names_ndcg_for_the_tracks_read_on_it():
    from searchbench.report.sections.ablations import NOTE, note

    assert note([{"track": "code"}]) == NOTE.format(metric="MRR")
    assert "full − variant MRR (nDCG@10 on usage) over" in note([{"track": "usage"}])


def test_a_declared_variant_is_shown_by_group_held_out_first(tmp_path):
    """config `variants`: the variant's comparisons with its full tool, read as variant − full,
    on the corpora it was designed on and, first, on those held out; the tally counts them."""
    from report_paths import fixture_model

    from searchbench.report.page import render_html, render_markdown
    from searchbench.report.sections.variants import tables

    options = {"baseline": "rg", "seed": SEED, "ablations": {"hay-no-kw": "hay"}}
    docs = [("code", corpus, run_inference(scores(corpus), design(**options)))
            for corpus in ("a", "b", "c")]  # fmt: skip
    path = tmp_path / "ablations.tsv"
    write_text(path, ablations_tsv(collect(docs)))
    model = fixture_model(seed=SEED, ablations=str(path))
    model.config["variants"] = {
        "hay-no-kw": {"rule": "no keyword prior", "designed_on": ["a"], "held_out": ["b", "c"]}
    }
    [(variant, full, body)] = tables(model)
    assert (variant, full) == ("hay-no-kw", "hay")
    assert [(row[0], row[2]) for row in body] == [
        ("held out", "b"), ("held out", "c"), ("designed on", "a")
    ]  # fmt: skip
    worth = collect(docs)[0]
    # worth = hay − variant > 0, so the variant's difference is negative and it is worse
    assert body[0][6].startswith(f"{-worth['worth']:+.3f} [")
    assert body[0][8] == "variant detected worse"
    html = render_html(model, {}, "")
    block = html.split('id="variants"')[1].split("</table>")[0]
    assert "held out, code: detected better on 0 and worse on 2 of 2 corpora" in block
    assert "Designed on a; held out: b, c." in block
    assert '<a href="#variants">' in html
    md = render_markdown(model)
    assert "## Variants: designed on some corpora, judged on the others" in md
    del model.config["variants"]
    assert 'id="variants"' not in render_html(model, {}, "")
