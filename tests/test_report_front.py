"""Issue 33: the report's first screen. The pooled leaderboard per track (results/pooled/
{track}.json) first on the page and in summary.md, the quality-against-cost chart beside it,
findings generated from the pooled data, pooled verdicts with their forest, the method in its
own section, "Where this benchmark is wrong" written from what ran; and the first screen as a
reader sees it in headless Chromium at 1400x900."""

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest
from pooled_fixture import pooled_doc, write_pooled
from report_paths import build_model, build_report
from test_report import (
    CHROMIUM,
    COMMAND,
    CONFIG,
    CONFIG_HASH,
    CORPORA,
    FIX,
    chromium,
    decode_png,
    inputs,
    outputs,
    usage_track,
)

from searchbench.errors import BenchError
from searchbench.report.charts import FRONT_COLOUR, pooled_charts, quality_cost_rows
from searchbench.report.findings import MAX_SENTENCES, findings
from searchbench.report.pooled import load_pooled, pareto_front
from searchbench.report.sections import leaderboard, weaknesses
from searchbench.report.sections.intro import MAX_CONTEXT_WORDS, context_text

VIEWPORT = (1400, 900)


@pytest.fixture(scope="module")
def doc() -> dict:
    return pooled_doc(FIX, CORPORA)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, doc: dict) -> Path:
    out = tmp_path_factory.mktemp("front")
    path = write_pooled(doc, out / "results")
    build_report(
        **inputs(),
        pooled=[str(path)],
        config=CONFIG,
        config_hash=CONFIG_HASH,
        command=COMMAND,
        **outputs(out / "report"),
    )
    return out / "report"


def verdict(tool: str, reference: str, family: str, diff: float, v: str) -> dict:
    return {
        "tool": tool,
        "reference": reference,
        "family": family,
        "corpora": 2,  # counts, as searchbench.pooled writes them
        "queries": 60,
        "diff": diff,
        "ci_low": diff - 0.05,
        "ci_high": diff + 0.05,
        "p": 0.01,
        "p_holm": 0.02,
        "verdict": v,
    }


def board(track: str, label: str, rows: list[tuple], verdicts: list[dict]) -> dict:
    """A small pooled document: rows are (tool, pooled, wins, ties, losses)."""
    return {
        "track": track,
        "metric": "rr",
        "metric_label": label,
        "baseline": "rg",
        "alpha": 0.05,
        "resamples": 1000,
        "seed": 1,
        "weighting": "Corpora weigh the same.",
        "corpora": ["a", "b"],
        "leaderboard": [
            {
                "rank": i,
                "tool": tool,
                "family": "grep",
                "corpora": 2,
                "queries": 60,
                "subset": "all",
                "pooled": pooled,
                "ci_low": pooled - 0.04,
                "ci_high": pooled + 0.04,
                "query_weighted": pooled - 0.01,
                "wins": w,
                "ties": t,
                "losses": lo,
                "broken": [],
                "median_seconds": None,
                "bytes_before_answer": None,
                "index_seconds": None,
                "repeatable": None,
            }
            for i, (tool, pooled, w, t, lo) in enumerate(rows, start=1)
        ],
        "not_applicable": [],
        "verdicts": verdicts,
        "forest": [],
    }


def two_tracks() -> list[dict]:
    code = board(
        "code",
        "MRR",
        [("hay", 0.8, 2, 0, 0), ("ugrep", 0.6, 0, 2, 0), ("rg", 0.55, 0, 0, 0)],
        [
            verdict("hay", "rg", "primary", 0.25, "detected better"),
            verdict("hay", "ugrep", "leader", 0.2, "detected better"),
        ],
    )
    docs = board(
        "docs",
        "MRR",
        [("rg", 0.7, 0, 0, 0), ("hay", 0.68, 0, 1, 1)],
        [
            verdict("hay", "rg", "primary", -0.02, "not detected"),
            verdict("rg", "hay", "leader", 0.02, "not detected"),
        ],
    )
    return [docs, code]  # out of track order on purpose


# ----------------------------------------------------------------------------- pure functions


def test_pareto_front_keeps_the_undominated_points() -> None:
    points = [
        ("fast", 0.5, 1.0),
        ("good", 0.9, 10.0),
        ("both-worse", 0.4, 5.0),  # dominated by fast
        ("same-cost-worse", 0.8, 10.0),  # dominated by good (equal cost, lower quality)
        ("middle", 0.7, 3.0),
        ("unmeasured", 0.99, None),  # no cost: on no front
    ]
    assert pareto_front(points) == {"fast", "good", "middle"}
    assert pareto_front([("a", 0.5, 1.0), ("b", 0.5, 1.0)]) == {"a", "b"}  # ties both stay


def test_findings_are_built_from_the_pooled_numbers() -> None:
    sentences = findings(two_tracks())
    assert sentences == [
        "On the code track, hay leads on MRR with 0.800 [0.760, 0.840] pooled over 2 corpora, "
        "+0.200 [0.150, 0.250] against the runner-up ugrep (detected better).",
        "On the docs track, rg leads on MRR with 0.700 [0.660, 0.740] pooled over 2 corpora, "
        "+0.020 [-0.030, 0.070] against the runner-up hay (not detected: the two cannot be "
        "told apart).",
        "Where hay wins and loses against rg: on the code track +0.250 [0.200, 0.300] MRR "
        "(detected better; per corpus 2 won, 0 not told apart, 0 lost); on the docs track "
        "-0.020 [-0.070, 0.030] MRR (not detected; per corpus 0 won, 1 not told apart, 1 lost).",
        "Cannot be told apart: hay and rg on docs (-0.020 [-0.070, 0.030], not detected); "
        "rg and hay on docs (+0.020 [-0.030, 0.070], not detected).",
    ]
    # no number is written by hand: change the data, the sentence follows
    changed = two_tracks()
    changed[1]["leaderboard"][0]["pooled"] = 0.8125
    assert "hay leads on MRR with 0.812 " in findings(changed)[0]


def test_a_variant_leading_a_track_is_named_so_and_the_leader_comparison_follows() -> None:
    """The pooled rule pairs the first tool that is not an ablation variant (the kernel's
    words track: hay-no-path first, id-utils against ag); the sentence said that no other
    tool was asked the variant's queries."""
    docs = two_tracks()
    code = docs[1]
    top = {**code["leaderboard"][0], "tool": "hay-no-path", "ablation_of": "hay"}
    top.update(pooled=0.9, ci_low=0.86, ci_high=0.94)
    code["leaderboard"].insert(0, top)
    assert findings(docs)[0] == (
        "On the code track, hay-no-path leads on MRR with 0.900 [0.860, 0.940] pooled over 2 "
        "corpora (a variant of hay); of the other tools hay leads, +0.200 [0.150, 0.250] "
        "against the runner-up ugrep (detected better)."
    )


def test_findings_are_three_to_six_sentences() -> None:
    one = [two_tracks()[1]]
    assert len(findings(one)) == 3
    many = []
    for track in ("code", "docs", "usage", "behaviour", "extra"):
        d = copy.deepcopy(two_tracks()[1])
        d["track"] = track
        many.append(d)
    got = findings(many)
    assert len(got) == MAX_SENTENCES
    assert got[0].startswith("On the code track") and got[3].startswith("On the behaviour")
    assert got[4].startswith("Where hay wins") and got[5].startswith("All 10 pooled")
    assert findings([]) == []


def test_a_pooled_file_missing_a_field_is_one_clear_error(tmp_path: Path) -> None:
    d = two_tracks()[1]
    del d["leaderboard"][1]["ci_low"]
    path = write_pooled(d, tmp_path)
    with pytest.raises(BenchError, match=r"code.json: leaderboard\[1\] lacks ci_low; rerun"):
        load_pooled(path)
    d = two_tracks()[1]
    del d["weighting"]
    with pytest.raises(BenchError, match=r"missing weighting; rerun the pooled rule"):
        load_pooled(write_pooled(d, tmp_path))


def test_a_tool_broken_on_every_corpus_is_listed_last_unranked(tmp_path: Path) -> None:
    # The pooled rule writes rank None for it (CI stop 39: the report crashed on int(None)).
    d = two_tracks()[1]
    broken = {**d["leaderboard"][2], "tool": "dead", "rank": None, "pooled": None,
              "ci_low": None, "ci_high": None, "broken": ["mini"]}  # fmt: skip
    d["leaderboard"] = [broken, *d["leaderboard"]]
    board = load_pooled(write_pooled(d, tmp_path))["leaderboard"]
    assert [r["tool"] for r in board] == ["hay", "ugrep", "rg", "dead"]
    cells = leaderboard.board_row(board[-1])
    assert cells[:2] == ["–", "dead"] and cells[-1] == "mini"
    for r in board:
        r["median_seconds"] = 0.01
    board_doc = {**d, "leaderboard": board}
    assert findings([board_doc])[0].startswith("On the code track, hay")
    assert pooled_charts(board_doc)["quality_cost"]["vconcat"]
    points = quality_cost_rows(board_doc, "median_seconds", 1000.0)
    assert [p["tool"] for p in points] == ["hay", "rg", "ugrep"]


def test_leaderboard_rows_show_every_contract_column() -> None:
    d = two_tracks()[1]
    row = d["leaderboard"][1]
    row.update(
        subset="the 40 Python queries",
        broken=["b"],
        median_seconds=0.0123,
        bytes_before_answer=3072,
        index_seconds=4.5,
        repeatable=False,
    )
    d["not_applicable"] = [{"tool": "clangd", "reason": "no C corpus"}]
    cells = leaderboard.board_row(row)
    assert cells == [
        "2", "ugrep*", "grep", "0.600 [0.560, 0.640]", "0.590", "2", "60", "0/2/0",
        "12.3 ms", "3 KiB", "4.5 s", "no", "b",
    ]  # fmt: skip
    assert leaderboard.board_row(d["leaderboard"][0])[8:] == ["–", "–", "–", "–", "–"]
    assert leaderboard.under_table(d) == (
        "Not applicable here: clangd (no C corpus). * pooled and compared on a subset: "
        "ugrep on the 40 Python queries."
    )
    assert "Corpora weigh the same. Query-weighted" in leaderboard.weighting(d)


def test_quality_cost_chart_marks_the_pareto_front(doc: dict) -> None:
    spec = pooled_charts(doc)["quality_cost"]
    time_panel, bytes_panel = spec["vconcat"]
    on = {r["tool"]: r["front"] for r in time_panel["data"]["values"]}
    # fixture: rg fastest, ugrep a little slower and a little better, hay slower and best
    assert on == {
        "rg": "Pareto front",
        "ugrep": "Pareto front",
        "hay": "Pareto front",
        "ast-grep": "dominated",
    }
    hay = next(r for r in time_panel["data"]["values"] if r["tool"] == "hay")
    row = next(r for r in doc["leaderboard"] if r["tool"] == "hay")
    assert hay["cost"] == row["median_seconds"] * 1000 and hay["ci_high"] == row["ci_high"]
    assert {r["tool"] for r in bytes_panel["data"]["values"] if r["front"] == "Pareto front"} == {
        "hay"
    }
    assert time_panel["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"


def test_context_is_at_most_80_words_with_every_track(tmp_path: Path) -> None:
    model = build_model(config=CONFIG, config_hash="x", command="x", **inputs())
    model.pooled = {t: {"track": t} for t in ("code", "docs", "usage", "behaviour")}
    text = context_text(model)
    assert len(text.split()) <= MAX_CONTEXT_WORDS, len(text.split())
    assert "usage: where is this used?" in text and "2 corpora" in text


def test_where_this_benchmark_is_wrong_names_the_tracks_that_ran(tmp_path: Path) -> None:
    """The usage track measures "where is this used?": the weakness must not say otherwise;
    the tools that could not run or did not repeat are named from the run."""
    paths, _ = usage_track(tmp_path)
    pooled = pooled_doc(FIX, CORPORA)
    model = build_model(
        config=CONFIG,
        config_hash="x",
        command="x",
        **{**inputs(), **paths},
        pooled=[str(write_pooled(pooled, tmp_path / "results"))],
    )
    text = "\n".join(weaknesses.paragraphs(model))
    measured = text.split("Measured here: ")[1].split(";")[0:2]
    assert measured == ["code (where is this name declared?)", " usage (where is this used?)"]
    assert (
        "Not measured in this run: docs (which document is about this word?); words (which "
        "document is about this plain heading word?); behaviour"
    ) in text
    assert '"Where is this used?"' not in text
    assert "Could not run: bsd-grep (why: Tools skipped); none broke; " in text
    assert "not repeatable: ugrep (code)" in text
    assert "No record of unparsed files was read." in text
    # a null flag is "not audited", never "repeated"
    for doc in model.pooled.values():
        for row in doc["leaderboard"]:
            row["repeatable"] = None
    assert "; repeatability was not audited." in weaknesses.tool_gaps(model)
    model.pooled["code"]["leaderboard"][0]["repeatable"] = True
    assert "every audited tool repeated (3 of 4 not audited)." in weaknesses.tool_gaps(model)


# ----------------------------------------------------------------------------- the page


@pytest.mark.slow
def test_the_page_opens_with_context_findings_then_the_leaderboard(built: Path) -> None:
    page = (built / "index.html").read_text(encoding="utf-8")
    order = [
        page.index(marker)
        for marker in (
            'id="context"',
            'id="findings"',
            'id="leaderboard-code"',
            'id="quality-cost-code"',
            'id="pooled-verdicts"',
            'id="overview"',
            'id="method"',
            'id="weaknesses"',
        )
    ]
    assert order == sorted(order)
    assert "is the primary metric" in page.split('id="method"')[1]  # the paragraph moved
    for name in ("quality_cost", "verdict_forest"):
        stem = built / "charts" / "pooled" / "code" / name
        assert stem.with_suffix(".svg").read_text().startswith("<svg")
        assert stem.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


def test_summary_md_holds_the_leaderboard_in_its_first_40_lines(built: Path, doc: dict) -> None:
    lines = (built / "summary.md").read_text(encoding="utf-8").splitlines()
    head = lines[:40]
    assert "## Leaderboard, code track: where is this name declared?" in head
    table = [line for line in head if line.startswith("| ")]
    assert table[0].startswith("| # | tool | family | MRR pooled [95% CI] | query-weighted |")
    for row in doc["leaderboard"]:
        assert any(
            line.startswith(f"| {row['rank']} | {row['tool']} | ")
            and f"{row['pooled']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]" in line
            for line in table
        ), row["tool"]
    assert any(line.startswith("Not applicable here: bsd-grep") for line in head)
    assert "![code track: quality against cost](charts/pooled/code/quality_cost.svg)" in lines
    findings_lines = [line for line in head if line.startswith("- ")]
    assert 3 <= len(findings_lines) <= MAX_SENTENCES


# ----------------------------------------------------------------------------- as a reader

PROBE = """<script>window.addEventListener("load", function () { setTimeout(function () {
  function box(sel) { var e = document.querySelector(sel); if (!e) return null;
    var b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }
  var pre = document.createElement("pre"); pre.id = "layout";
  pre.textContent = JSON.stringify({leaderboard: box("table.leaderboard"),
    chart: box("#quality-cost-code svg"), findings: box("#findings")});
  document.body.appendChild(pre); }, 3000); });</script>"""


def layout(page: Path, tmp: Path) -> dict[str, list[float] | None]:
    """Bounding boxes (left, top, right, bottom; px from the top of the page) of the first
    leaderboard, the quality-cost chart and the findings, measured in Chromium at 1400x900
    after the charts rendered. The probe is appended to a copy of the page (last </body>: the
    inline Vega bundle holds that string too)."""
    html = page.read_text(encoding="utf-8")
    head, _, tail = html.rpartition("</body>")
    probe = tmp / "probe.html"  # the page is self-contained: it renders from anywhere
    probe.write_text(head + PROBE + "</body>" + tail, encoding="utf-8")
    size = f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}"
    dom = chromium(size, "--dump-dom", probe.as_uri(), tmp=tmp).stdout.decode("utf-8")
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom)
    assert found, "the layout probe did not run"
    return json.loads(found.group(1))


def inside(box: list[float] | None) -> bool:
    return box is not None and box[0] >= 0 and box[1] >= 0 and box[2] <= VIEWPORT[0] and (
        box[3] <= VIEWPORT[1]
    )  # fmt: skip


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not at /usr/bin/chromium")
@pytest.mark.slow
def test_leaderboard_and_quality_cost_chart_are_in_the_first_screen(
    built: Path, tmp_path: Path
) -> None:
    boxes = layout(built / "index.html", tmp_path)
    print("first screen at 1400x900:", boxes)
    assert inside(boxes["leaderboard"]), boxes
    assert inside(boxes["chart"]), boxes
    assert boxes["findings"][3] <= boxes["leaderboard"][1]
    # what a reader sees: the screenshot's first 1400x900 holds the drawn Pareto front
    shot = tmp_path / "first.png"
    chromium(f"--screenshot={shot}", f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
             (built / "index.html").as_uri(), tmp=tmp_path)  # fmt: skip
    px = decode_png(shot.read_bytes())[:, :, :3].astype(np.int32)
    assert px.shape[:2] == (VIEWPORT[1], VIEWPORT[0])
    rgb = np.array([int(FRONT_COLOUR[i : i + 2], 16) for i in (1, 3, 5)])
    assert np.all(np.abs(px - rgb) <= 8, axis=2).sum() > 50, "no Pareto front on screen"

    # the measure is sensitive: the same page with something tall above the answer fails it
    pushed = built.parent / "pushed" / "index.html"
    pushed.parent.mkdir(exist_ok=True)
    html = (built / "index.html").read_text(encoding="utf-8")
    pushed.write_text(
        html.replace('<p id="context">', '<div style="height:700px"></div><p id="context">', 1)
    )
    moved = layout(pushed, tmp_path)
    assert not inside(moved["leaderboard"]) and not inside(moved["chart"]), moved


def test_pooled_verdicts_show_each_comparison_with_its_corpora(built: Path, doc: dict) -> None:
    md = (built / "summary.md").read_text(encoding="utf-8")
    section = md.split("## Pooled verdicts\n")[1].split("\n## ")[0]
    for v in doc["verdicts"]:
        line = next(
            x for x in section.splitlines() if x.startswith(f"| {v['tool']} − {v['reference']} |")
        )
        assert f"{v['diff']:+.3f} [{v['ci_low']:.3f}, {v['ci_high']:.3f}]" in line
        assert f"**{v['verdict']}**" in line  # bold: detected
        for f in doc["forest"]:
            if (f["tool"], f["reference"]) == (v["tool"], v["reference"]):
                assert f"{f['corpus']} {f['diff']:+.3f} ({f['verdict']})" in line
    spec = json.loads((built / "charts/pooled/code/verdict_forest.vl.json").read_text())
    values = spec["data"]["values"]
    assert len(values) == len(doc["forest"]) + len(doc["verdicts"])
    assert {r["corpus"] for r in values} == {*CORPORA, "pooled"}


def test_no_pooled_file_no_front_sections() -> None:
    """A run without the pooled files (before the rule existed) still renders: no findings,
    no leaderboard, the rest as before."""
    from searchbench.report.page import render_markdown

    model = build_model(config=CONFIG, config_hash="x", command="x", **inputs())
    assert model.pooled == {}
    md = render_markdown(model)
    assert md.startswith("# Search-ranking benchmark: summary\n")
    assert "## Leaderboard" not in md and "## Pooled verdicts" not in md and "\n- On " not in md
    assert "## Overview" in md and "## Method: how the tables are read" in md


def test_without_times_the_chart_keeps_only_the_bytes_panel(doc: dict) -> None:
    """Timing off (no median time): no empty log-scale panel, the bytes panel alone."""
    untimed = copy.deepcopy(doc)
    for row in untimed["leaderboard"]:
        row["median_seconds"] = None
    [panel] = pooled_charts(untimed)["quality_cost"]["vconcat"]
    assert panel["layer"][0]["encoding"]["x"]["scale"]["type"] == "symlog"
    for row in untimed["leaderboard"]:
        row["bytes_before_answer"] = None
    assert "quality_cost" not in pooled_charts(untimed)


def test_only_the_pareto_front_is_named_on_the_chart() -> None:
    rows = [(f"t{i}", 0.9 - i * 0.05, 0, 0, 0) for i in range(7)]
    d = board("code", "MRR", rows, [])
    for i, row in enumerate(d["leaderboard"]):
        row["median_seconds"] = 0.01 * (i + 1)  # each slower and worse: t0 alone on the front
        row["bytes_before_answer"] = 100
    [panel, _] = pooled_charts(d)["quality_cost"]["vconcat"]
    labels = {r["tool"]: r["label"] for r in panel["data"]["values"]}
    assert labels == {f"t{i}": (f"t{i}" if i == 0 else "") for i in range(7)}
    assert {r["tool"] for r in panel["data"]["values"] if r["front"] == "Pareto front"} == {"t0"}


@pytest.mark.slow
def test_the_front_page_is_byte_identical_when_rebuilt(built: Path, tmp_path: Path) -> None:
    """Same inputs (the same pooled file), same bytes: page, summary and the pooled charts."""
    out = tmp_path / "again"
    build_report(
        **inputs(),
        pooled=[str(built.parent / "results" / "pooled" / "code.json")],
        config=CONFIG,
        config_hash=CONFIG_HASH,
        command=COMMAND,
        **outputs(out),
    )
    pooled = sorted(p.relative_to(built) for p in (built / "charts" / "pooled").rglob("*.*"))
    assert len(pooled) == 2 * 3  # quality_cost and verdict_forest, as vl.json, svg and png
    for rel in [Path("index.html"), Path("summary.md"), *pooled]:
        assert (built / rel).read_bytes() == (out / rel).read_bytes(), rel


def test_findings_name_at_most_four_ties_and_count_the_rest() -> None:
    d = two_tracks()[1]
    d["verdicts"] = [verdict(f"t{i}", "rg", "primary", 0.001 * i, "not detected") for i in range(6)]
    apart = findings([d])[-1]
    assert apart.count(" and rg on code (") == 4 and apart.endswith(
        "; and 2 more (pooled verdicts below)."
    )
    d["baseline"] = "hay"  # the tool under test as the baseline: no sentence about itself
    assert not any(s.startswith("Where hay wins") for s in findings([d]))


def test_the_baseline_has_no_wins_and_shared_reasons_share_a_clause() -> None:
    d = two_tracks()[1]
    rg = d["leaderboard"][2]
    rg.update(wins=None, ties=None, losses=None)
    d["weighting"] = "corpora weighted equally; queries resampled within each corpus"
    d["not_applicable"] = [
        {"tool": "clangd-refs", "reason": "runs on the usage track only"},
        {"tool": "cscope", "reason": "no C query"},
        {"tool": "global-refs", "reason": "runs on the usage track only"},
    ]
    assert leaderboard.board_row(rg)[7] == "–"
    assert "over a, b. Corpora weighted equally; queries resampled" in leaderboard.weighting(d)
    assert leaderboard.under_table(d) == (
        "Not applicable here: clangd-refs, global-refs (runs on the usage track only); "
        "cscope (no C query)."
    )


def test_a_subset_leader_is_named_with_its_own_scope_and_its_pooled_runner_up() -> None:
    """The default run's usage findings said a leader measured on one corpus was pooled over 9
    and that it 'cannot be told apart' from a runner-up it shared no query with."""
    d = board(
        "usage",
        "nDCG@10",
        [("lsp-refs", 0.91, 1, 0, 0), ("tags-refs", 0.90, 1, 2, 0), ("hay", 0.8, 2, 0, 0)],
        [
            verdict("hay", "rg", "primary", 0.03, "detected better"),
            verdict("lsp-refs", "hay", "leader", 0.1, "detected better"),
            verdict("tags-refs", "rg", "primary", 0.0, "not applicable"),
        ],
    )
    d["leaderboard"][0].update(corpora=1, subset="typescript queries only (105 of 300)")
    leader, _, apart = findings([d])
    assert leader == (
        "On the usage track, lsp-refs leads on nDCG@10 with 0.910 [0.870, 0.950] pooled over "
        "1 corpus, typescript queries only (105 of 300), +0.100 [0.050, 0.150] against hay, the "
        "next tool that is not one of its variants and shares its queries (detected better)."
    )
    assert apart == "All 2 pooled comparisons found a difference (detected better or worse)."


def test_families_rank_like_with_like() -> None:
    """Issue 32 item 7: a family's overall figure is its best tool's pooled figure with its
    interval and subset (not a plain mean over corpora), and a tool asked some queries is
    shown with its reference on those same queries."""
    from types import SimpleNamespace

    from searchbench.report.sections import families

    d = two_tracks()[1]
    d["leaderboard"][1]["subset"] = "the 40 Python queries"
    assert families.pooled_best(d, ["ugrep", "rg"], 2) == (
        "ugrep 0.600 [0.560, 0.640] over 2 of 2 corpora (* on the 40 Python queries)"
    )
    assert families.pooled_best(d, ["nothing"], 2) is None
    comp = {"verdict": "detected worse", "baseline": "rg", "not_applicable": 260, "n": 40,
            "mean_base": 0.71}  # fmt: skip
    sec = SimpleNamespace(
        means={"all": {"jedi": {"rr": 0.5}}},
        primary="rr",
        baseline="rg",
        comparisons={("jedi", "rr", "all"): comp},
    )
    assert families.cell(sec, ["jedi"]) == "jedi 0.500 (detected worse); rg 0.710 on the same 40"


def test_every_tool_on_every_track_reads_the_pooled_figures() -> None:
    """Issue 32 item 7: the cross-track table pools as the leaderboard does (a subset tool
    marked *, with intervals), not a mean weighted by queries the tool was never asked."""
    from types import SimpleNamespace

    from searchbench.report.sections.tracks import cross_track_rows

    code, docs = two_tracks()[1], two_tracks()[0]
    code["leaderboard"][1]["subset"] = "the 40 Python queries"

    def sec(track: str, means: dict) -> SimpleNamespace:
        comps = {("hay", "rr", "all"): {"verdict": "detected better"}}
        return SimpleNamespace(track=track, tools=list(means), qids=["q"] * 100, primary="rr",
                               means={"all": {t: {"rr": m} for t, m in means.items()}},
                               comparisons=comps)  # fmt: skip

    model = SimpleNamespace(
        sections=[sec("code", {"hay": 0.1, "ugrep": 0.2, "rg": 0.3}), sec("docs", {"rg": 0.4})],
        pooled={"code": code, "docs": docs},
    )
    header, rows = cross_track_rows(model)
    assert header == ["tool", "code (MRR)", "docs (MRR)"]
    by_tool = {r[0]: r[1:] for r in rows}
    assert by_tool["hay"] == ["0.800 [0.760, 0.840] (↑1 ↓0 of 1)", "–"]
    assert by_tool["ugrep"][0] == "0.600* [0.560, 0.640] (↑0 ↓0 of 1)"
    assert by_tool["rg"][1].startswith("0.700 [")
