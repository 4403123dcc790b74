"""The report with timing switched off, and the runs behind each timing figure when on."""

import json
import shutil
from pathlib import Path

from design_fixture import schema_config
from report_paths import build_model, build_report

from searchbench.report.charts import section_charts
from searchbench.report.page import render_html, render_markdown
from searchbench.report.sections.intro import TIMING_OFF
from searchbench.report.summaries import timing_summary

FIX = Path(__file__).resolve().parent / "fixtures" / "report" / "results"
CORPORA = ("alpha", "tiny")
TIMING_ON = {"enabled": True, "warmups": 1, "repeats": 3, "budget_seconds": 60}
BASE = schema_config(seed=20261202, baseline="rg", queries_per_corpus=30)


def inputs(timing: list[str]) -> dict:
    return {
        "scores": [str(FIX / c / "code" / "scores.tsv") for c in CORPORA],
        "inference": [str(FIX / c / "code" / "inference.json") for c in CORPORA],
        "corpus": [str(FIX / c / "corpus.json") for c in CORPORA],
        "tools": str(FIX / "tools.json"),
        "timing": timing,
        "funnel": [str(FIX / c / "code" / "funnel.tsv") for c in CORPORA],
        "gt_audit": [str(FIX / c / "code" / "gt_audit_summary.tsv") for c in CORPORA],
        "fileset_audit": [str(FIX / c / "fileset_audit.tsv") for c in CORPORA],
    }


def test_report_without_timing_says_so_and_shows_no_time_figures(tmp_path: Path) -> None:
    config = {**BASE, "timing": {"enabled": False}}
    out = tmp_path / "report"
    build_report(
        **inputs([]),
        config=config,
        config_hash="x",
        command="snakemake",
        html_out=str(out / "index.html"),
        md_out=str(out / "summary.md"),
        csv_out=str(out / "summary.csv"),
        charts_out=str(out / "charts"),
    )
    page = (out / "index.html").read_text(encoding="utf-8")
    # Once at the top, once where each corpus's timing table would be.
    assert page.count(TIMING_OFF) == 1 + len(CORPORA)
    for absent in ("median wall", "peak RSS", "No timing measurements", "runs per query"):
        assert absent not in page
    assert TIMING_OFF in (out / "summary.md").read_text(encoding="utf-8")
    charts = sorted(p.relative_to(out / "charts").as_posix() for p in (out / "charts").rglob("*"))
    assert not [c for c in charts if "quality_time" in c]
    assert any(c.endswith("forest.svg") for c in charts)  # the quality charts are all there


def test_timing_files_are_ignored_when_timing_is_off() -> None:
    timing = sorted(str(p) for p in FIX.glob("*/timing/*.tsv"))
    model = build_model(
        **inputs(timing),
        config={**BASE, "timing": {"enabled": False}},
        config_hash="x",
        command="x",
    )
    assert model.timing == {} and not model.timing_enabled
    assert all("quality_time" not in section_charts(model, sec) for sec in model.sections)


def one_run_tree(tmp_path: Path) -> list[str]:
    """The fixture's timing tables, with rg's cut to one run per query (a spent budget)."""
    paths = []
    for src in sorted(FIX.glob("*/timing/*.tsv")):
        dst = tmp_path / src.relative_to(FIX)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        paths.append(str(dst))
    rg = tmp_path / "alpha" / "timing" / "rg.tsv"
    lines = rg.read_text().splitlines()
    firsts = [line for line in lines[1:] if line.split("\t")[1] == "1"]
    rg.write_text("\n".join([lines[0], *firsts]) + "\n")
    return paths


def test_timing_table_and_chart_show_runs_and_flag_single_runs(tmp_path: Path) -> None:
    model = build_model(
        **inputs(one_run_tree(tmp_path)),
        config={**BASE, "timing": TIMING_ON},
        config_hash="x",
        command="x",
    )
    alpha = next(sec for sec in model.sections if sec.corpus == "alpha")
    queries = len(alpha.qids)
    rg, hay = model.timing["alpha"]["rg"], model.timing["alpha"]["hay"]
    assert (rg["queries"], rg["runs"], rg["single_run_queries"]) == (queries, queries, queries)
    assert (hay["runs"], hay["min_runs"], hay["max_runs"]) == (3 * queries, 3, 3)
    page = render_html(model, {}, js_bundle="")
    table = page[page.index("<h3>Quality vs time", page.index('id="alpha-code"')) :]
    assert "runs per query" in table and "budget of 60 s per tool and corpus" in table
    assert f'<td class="name">rg</td><td>{queries}</td><td>{queries}</td><td>1</td>' in table, (
        "rg: queries, runs, runs per query"
    )
    assert "one run per query" in table
    assert "failed runs (not in the median)" in table
    assert f'<td class="name">hay</td><td>{queries}</td><td>{3 * queries}</td><td>3</td>' in table
    chart = section_charts(model, alpha)["quality_time"]
    labels = {row["tool"]: row["label"] for row in chart["data"]["values"]}
    assert labels["rg"] == "rg (one run per query)" and labels["hay"] == "hay"
    assert TIMING_OFF not in page and TIMING_OFF not in render_markdown(model)


def _row(qid: str, wall: str, exit_code: str = "0", timed_out: str = "0") -> dict[str, str]:
    return {
        "qid": qid,
        "wall": wall,
        "exit_code": exit_code,
        "timed_out": timed_out,
        "peak_rss_kib": "100",
        "rss_source": "wait4",
    }


def test_failed_runs_are_not_timings_and_are_counted() -> None:
    """Issue 8 item 9: a crash after 0.001 s or a 120 s timeout is no search time."""
    rows = [
        _row("q1", "0.010"),
        _row("q1", "0.001", exit_code="-11"),  # crashed (SIGSEGV)
        _row("q2", "0.030"),
        _row("q2", "120.0", exit_code="-9", timed_out="1"),
        _row("q3", "0.002", exit_code="2"),  # an error exit: the only run of q3
        _row("q4", "0.020", exit_code="1"),  # 1: nothing found, a real search
    ]
    summary = timing_summary(rows)
    assert summary["failed"] == 3 and summary["timeouts"] == 1
    assert summary["median_wall_s"] == 0.020  # median of q1 0.010, q2 0.030, q4 0.020
    assert summary["runs"] == 6 and summary["queries"] == 4
    assert timing_summary(rows, ok_exits=(0,))["failed"] == 4  # a tool whose 1 means error


def test_timing_is_shown_as_ratios_to_the_baseline_with_the_host(tmp_path: Path) -> None:
    """Issue 15: each tool's median over the baseline's, timed in the same run, and the
    machine it was measured on (host.json beside each timing table)."""
    from searchbench.report.page import render_html
    from searchbench.report.sections.timing import host_line, ratio_to

    timing = sorted(str(p) for p in FIX.glob("*/timing/*.tsv"))
    hosts = []
    for path in timing:
        host = tmp_path / Path(path).relative_to(FIX).with_suffix(".host.json")
        host.parent.mkdir(parents=True, exist_ok=True)
        load = 0.5 if "rg" in host.name else 1.25
        host.write_text(
            json.dumps(
                {"cpu_model": "Test CPU 9000", "cores": 2, "mem_total_kib": 24 * 1024 * 1024,
                 "kernel": "Linux 6.1.0", "corpus_filesystem": "ext4",
                 "load_before": [load, 0.4, 0.3], "load_after": [load + 0.1, 0.4, 0.3]}
            )
        )  # fmt: skip
        hosts.append(str(host))
    model = build_model(
        **inputs(timing), timing_host=hosts, config={**BASE, "timing": TIMING_ON},
        config_hash="x", command="x",
    )  # fmt: skip
    alpha = model.timing["alpha"]
    assert ratio_to(alpha["rg"], alpha["rg"]) == "1.00"
    expected = alpha["hay"]["median_wall_s"] / alpha["rg"]["median_wall_s"]
    assert ratio_to(alpha["hay"], alpha["rg"]) == f"{expected:.2f}"
    assert ratio_to(alpha["hay"], None) == "–"
    line = host_line(model.sources, "alpha")
    assert line == (
        "Measured on Test CPU 9000 (2 cores, 24.0 GiB), Linux 6.1.0, corpus on ext4; 1-minute "
        "load average 0.50–1.35 around the timed runs."
    )
    page = render_html(model, {}, "")
    section = page.split('id="alpha-code"')[1].split('id="tiny-code"')[0]
    assert "<th>× rg</th>" in section and f"<td>{expected:.2f}</td>" in section
    assert "Measured on Test CPU 9000" in section


def test_index_cost_is_shown_beside_query_time_as_ready_after(tmp_path: Path) -> None:
    """Issue 16 item 3: an indexed tool's build time, size and memory, and "ready after" =
    build + median query × the track's queries; a build over budget is listed as not ready."""
    timing = sorted(str(p) for p in FIX.glob("*/timing/*.tsv"))
    costs = []
    for tool, status, wall in (("hay", "ready", 12.5), ("ugrep", "over budget", 1800.2)):
        path = tmp_path / "alpha" / "index" / f"{tool}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        ready = status == "ready"
        path.write_text(
            json.dumps(
                {"tool": tool, "corpus": "alpha", "status": status, "wall_seconds": wall,
                 "peak_rss_kib": 51200, "bytes": 3 * 1024 * 1024 if ready else 0,
                 "files": 2 if ready else 0, "budget_seconds": 1800, "argv": ["x"]}
            )
        )  # fmt: skip
        costs.append(str(path))
    model = build_model(
        **inputs(timing), index_cost=costs, config={**BASE, "timing": TIMING_ON},
        config_hash="x", command="x",
    )  # fmt: skip
    alpha = next(sec for sec in model.sections if sec.corpus == "alpha")
    queries = len(alpha.qids)
    hay, rg = model.timing["alpha"]["hay"], model.timing["alpha"]["rg"]
    page = render_html(model, {}, js_bundle="")
    section = page.split('id="alpha-code"')[1].split('id="tiny-code"')[0]
    assert "Index cost: ready after" in section
    assert f"<th>ready after {queries} queries (s)</th>" in section
    hay_query = hay["median_wall_s"] * queries
    assert (
        f'<td class="name">hay</td><td>ready</td><td>12.50</td><td>3.00</td><td>2</td>'
        f"<td>50.0</td><td>{hay_query:.2f}</td><td>{12.5 + hay_query:.2f}</td>"
    ) in section
    rg_query = f"{rg['median_wall_s'] * queries:.2f}"
    assert (
        f'<td class="name">rg</td><td>no index</td><td>–</td><td>–</td><td>–</td><td>–</td>'
        f"<td>{rg_query}</td><td>{rg_query}</td>"
    ) in section
    assert "<td>over budget</td>" in section and "not ready within 1800 s" in section
    # a corpus without index records shows no index table
    tiny = page.split('id="tiny-code"')[1]
    assert "Index cost: ready after" not in tiny.split('id="')[0]


def test_a_tool_searching_anothers_index_is_shown_that_index_cost(tmp_path: Path) -> None:
    """tools.yaml `index_of` (cscope-refs searches cscope's index): one build, shown for both."""
    from types import SimpleNamespace

    from searchbench.report.inputs import ReportInputs
    from searchbench.report.sections.timing import index_costs

    path = tmp_path / "alpha" / "index" / "cscope.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"status": "ready", "wall_seconds": 1.5}))
    sources = ReportInputs.from_paths({}, "", "", index_cost=[str(path)])
    tools = [{"name": "cscope"}, {"name": "cscope-refs", "index_of": "cscope"}, {"name": "rg"}]
    costs = index_costs(SimpleNamespace(sources=sources, tools=tools), "alpha")
    built = {"status": "ready", "wall_seconds": 1.5}
    assert costs == {"cscope": built, "cscope-refs": built}
    assert index_costs(SimpleNamespace(sources=sources, tools=tools), "beta") == {}
