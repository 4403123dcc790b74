"""Issue 37 items 2 and 5: a tool that fails is never scored as a tool that lost.

Fixture tools (tests/fixtures/runner/misbehaves.py) that exit 3, print unparsable lines, print
paths outside the corpus, or hang: each is counted, judged broken (no verdict, out of Holm),
named in the run's status and the report, and a hanging one stops after `stop_after` runs
(counted from the runs the fixture logs, never from wall seconds).
"""

import json
import os
import re
import sys
from pathlib import Path

import pandas as pd
import pytest
from design_fixture import FIXTURE_STATISTICS, design, schema_config
from workflow_cli import NO_WORKFLOW_PROFILE, local_corpus_config

from searchbench.command import Command
from searchbench.errors import BenchError
from searchbench.health import (
    EarlyStop,
    HealthRule,
    broken_tools,
    health_text,
    read_health,
    tool_health,
    until_stopped,
)
from searchbench.inference import run_inference
from searchbench.metrics import SCORE_COLUMNS, write_scores
from searchbench.parsers import parse_output
from searchbench.run_status import STATUS_HEADER, format_status
from searchbench.runner import foreign_files, run_search

ROOT = Path(__file__).resolve().parents[1]
MISBEHAVES = ROOT / "tests" / "fixtures" / "runner" / "misbehaves.py"


def run_fixture(corpus: Path, mode: str, counter: Path, timeout: float = 30.0):
    known = {os.fsencode(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file()}
    argv = [sys.executable, str(MISBEHAVES), mode, str(counter), "--", "q", "./"]
    return run_search(Command(argv, str(corpus), timeout, None, "grep-null"), None, known)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "a.c").write_text("int a;\n")
    (root / "sub" / "b.c").write_text("int b;\n")
    (root / "linked").symlink_to("sub")  # a directory link inside the corpus
    (tmp_path / "outside.c").write_text("int outside;\n")  # exists, but not in the corpus
    return root


@pytest.mark.parametrize("printed", ["no/such/file.c", "../outside.c", "/etc/passwd"])
def test_a_printed_path_outside_the_corpus_makes_the_query_an_error(corpus, tmp_path, printed):
    result = run_fixture(corpus, f"a.c,{printed}", tmp_path / "runs")
    assert (result.status, result.foreign_paths) == ("error", 1)
    assert result.files == [b"a.c"]  # the foreign path is no result file
    assert result.foreign_path == os.fsencode(printed)


def test_paths_inside_the_corpus_are_results(corpus, tmp_path):
    # in files.tsv, absolute under the root (csearch), through a directory link inside it
    printed = f"a.c,{corpus.resolve()}/sub/b.c,linked/b.c"
    result = run_fixture(corpus, printed, tmp_path / "runs")
    assert (result.status, result.foreign_paths) == ("ok", 0)
    assert result.files == [b"a.c", b"sub/b.c", b"linked/b.c"]


def test_the_pieces_of_a_file_name_with_a_newline_are_not_foreign(tmp_path):
    # rg prints `two\nlines.c\0 1:...`: the parser reads `lines.c` from the second line;
    # cscope -0 prints the name as two lines, `two` and `lines.c`
    known = {b"two\nlines.c", b"a.c"}
    printed = [b"a.c", b"lines.c", b"two", b"other.c", b"tw"]
    assert foreign_files(printed, known, b"/nonexistent") == [b"other.c", b"tw"]


def _recorded(fixtures: Path) -> list[tuple[str, Path, bytes, bytes, str]]:
    """(tool, tree, root prefix, output, format) of every tool output recorded under fixtures
    (each manifest names its tool, or the folder does: `<tool>-<version>`)."""
    sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "peers"))
    import record  # noqa: PLC0415 - the peers' recorder knows which tree each tool ran on

    out = []
    for manifest_path in sorted(fixtures.glob("outputs/*/manifest.json")):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        name = manifest.get("tool") or manifest_path.parent.name.rsplit("-", 1)[0]
        tree = fixtures / "tree" if fixtures.name == "lsp" else record.source(name)[0]
        prefix = os.fsencode(manifest["root"]) + b"/"
        for rec in manifest["records"]:
            data = (manifest_path.parent / rec["file"]).read_bytes()
            out.append((name, tree, prefix, data, manifest["output"]))
    return out


RECORDED = [
    *_recorded(ROOT / "tests" / "fixtures" / "peers"),
    *_recorded(ROOT / "tests" / "fixtures" / "lsp"),
]


def test_every_recorded_tool_output_names_only_files_of_its_corpus():
    """The peers (ack, GNU Global, cscope, codesearch's absolute paths, probe, ast-grep's
    calls) and the language servers, as they printed on their fixture trees: no printed
    path would turn into an error, so the rule only catches what no tool here prints."""
    assert len(RECORDED) > 100
    for name, tree, prefix, data, fmt in RECORDED:
        known = {os.fsencode(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file()}
        paths = list(dict.fromkeys(m.path for m in parse_output(fmt, data, known, prefix)))
        assert foreign_files(paths, known, os.fsencode(tree.resolve())) == [], name


def test_a_hanging_tool_stops_after_stop_after_timeouts(corpus, tmp_path):
    counter = tmp_path / "runs"
    queries = [f"q{i}" for i in range(12)]

    def ask(query: str):
        return run_fixture(corpus, "hang", counter, timeout=0.2), False

    outcomes = list(until_stopped(queries, ask, stop_after=3))
    # three runs, each a timeout; the nine others never ran
    assert counter.read_text().splitlines() == ["hang"] * 3
    assert [o[0].status for _, o in outcomes if o is not None] == ["timeout"] * 3
    assert [q for q, o in outcomes if o is None] == queries[3:]


def test_a_streak_is_broken_by_an_answer_and_kept_across_unasked_queries():
    stop = EarlyStop(3)
    for status in ("error", "timeout", "ok", "error", "not-applicable", "timeout"):
        stop.record(status)
    assert not stop.stopped and stop.streak == 2
    stop.record("no-match")
    assert stop.streak == 0
    for status in ("error", "error", "error", "ok"):
        stop.record(status)
    assert stop.stopped  # for good: an answer after the stop cannot happen, nor undo it


def records(*statuses: str, unparsed: int = 0) -> list[dict]:
    return [{"qid": f"q{i}", "status": s, "unparsed": unparsed} for i, s in enumerate(statuses)]


def test_health_counts_failures_and_judges_the_share():
    rule = HealthRule(max_failure_share=0.2, stop_after=5)
    exit3 = tool_health("exit3", records(*["error"] * 20), rule)
    assert (exit3.error, exit3.failures, exit3.broken) == (20, 20, True)
    assert exit3.reason == "20 of 20 queries failed (20 error), above the 20% allowed"
    garbage = tool_health("garbage", records(*["no-match"] * 20, unparsed=16), rule)
    assert (garbage.unparsed_lines, garbage.unparsed_no_match, garbage.broken) == (320, 20, True)
    # two failures in ten is the share allowed, three is above it; not-applicable is not asked
    two = tool_health("t", records(*["ok"] * 8, "timeout", "error", "not-applicable"), rule)
    three = tool_health("t", records(*["ok"] * 7, "timeout", "error", "error"), rule)
    assert (two.asked, two.broken, three.broken) == (10, False, True)
    ghost = tool_health("ghost", [{"status": "error", "foreign_paths": 3}] * 4, rule)
    assert ghost.reason == (
        "4 of 4 queries failed (4 error (12 printed paths outside the corpus)), "
        "above the 20% allowed"
    )
    stopped = tool_health("hang", records(*["timeout"] * 5, "stopped"), rule)
    assert stopped.reason.startswith("stopped after 5 consecutive errors or timeouts; 6 of 6")


def test_a_tool_health_setting_out_of_range_is_one_line():
    with pytest.raises(BenchError, match=r"^tool_health.stop_after = 0 must be at least 1"):
        HealthRule.of_config({"stop_after": 0})
    with pytest.raises(BenchError, match=r"^tool_health.max_failure_share = 1.0 must be in"):
        HealthRule.of_config({"max_failure_share": 1.0})


def scores_frame(n: int = 12) -> pd.DataFrame:
    """rg finds every answer first, ug half of them second; exit3 errs on every query."""
    rows = []
    for tool, status, rank in (("rg", "ok", 1), ("ug", "ok", 1), ("exit3", "error", 0)):
        for i in range(n):
            r = rank if (tool != "ug" or i % 2) else 2
            score = 1.0 / r if r else 0.0
            rows.append(
                {
                    "qid": f"q{i:02d}", "tool": tool, "status": status, "rank": r, "rr": score,
                    "success10": float(bool(r)), "ndcg10": score and 1.0 / [1, 1, 1.585][r],
                    "recall10": float(bool(r)), "returned": int(bool(r)), "lines_before": None,
                    "bytes_before": None, "line_rank": 0, "files_containing": 2,
                    "trivial": False, "language": "c",
                }
            )  # fmt: skip
    frame = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    for column in ("lines_before", "bytes_before"):
        frame[column] = frame[column].astype("Int64")
    return frame


def test_a_broken_tool_takes_no_verdict_and_leaves_holm():
    broken = {"exit3": "12 of 12 queries failed (12 error), above the 20% allowed"}
    healthy = run_inference(scores_frame(), design(baseline="rg", seed=1), all_pairs=True)
    result = run_inference(
        scores_frame(), design(baseline="rg", seed=1), all_pairs=True, broken=broken
    )
    before = {(c["tool"], c["metric"]): c for c in healthy["comparisons"] if c["subset"] == "all"}
    after = {(c["tool"], c["metric"]): c for c in result["comparisons"] if c["subset"] == "all"}
    assert before[("exit3", "rr")]["verdict"] == "detected worse"  # what it read before
    assert {c["verdict"] for (t, _), c in after.items() if t == "exit3"} == {"broken"}
    assert after[("exit3", "rr")]["holm_excluded"] == f"broken: exit3 {broken['exit3']}"
    # the others no longer pay for it: ug's family is one comparison smaller
    assert before[("ug", "rr")]["holm_m"] == 2 and after[("ug", "rr")]["holm_m"] == 1
    assert result["metadata"]["broken_tools"] == broken
    pairs = [c for c in result["pairs"] if "exit3" in (c["tool"], c["baseline"])]
    assert pairs and {c["verdict"] for c in pairs} == {"broken"}
    # the numbers stay as measured
    assert after[("exit3", "rr")]["diff"] == before[("exit3", "rr")]["diff"]


def test_run_status_names_each_broken_tool_and_why(tmp_path):
    raw = tmp_path / "mini" / "code" / "raw"
    raw.mkdir(parents=True)
    for tool, recs in {
        "rg": records(*["ok"] * 12),
        "exit3": records(*["error"] * 5, *["stopped"] * 7),
        "garbage": records(*["no-match"] * 12, unparsed=16),
    }.items():
        (raw / f"{tool}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = format_status(sorted(raw.glob("*.jsonl")), HealthRule())
    rows = {r[2]: dict(zip(STATUS_HEADER, r, strict=True)) for r in _tsv(text)}
    assert rows["rg"]["health"] == "ok"
    assert rows["exit3"]["stopped"] == "7" and rows["exit3"]["health"].startswith(
        "broken: stopped after 5 consecutive errors or timeouts; 12 of 12 queries failed"
    )
    assert rows["garbage"]["unparsed_lines"] == "192"
    assert rows["garbage"]["health"] == (
        "broken: 12 of 12 queries failed (12 no-match with unparsed lines), above the 20% allowed"
    )


def _tsv(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()[1:]]


def test_the_report_says_which_tools_broke_and_counts_their_failures(tmp_path):
    from searchbench.report.inputs import ReportInputs
    from searchbench.report.model import build_model
    from searchbench.report.page import render_markdown
    from searchbench.report.summary_csv import render_csv

    track = tmp_path / "results" / "mini" / "code"
    track.mkdir(parents=True)
    write_scores(scores_frame(), track / "scores.tsv")
    health = [
        tool_health("rg", records(*["ok"] * 12), HealthRule()),
        tool_health("ug", records(*["ok"] * 12), HealthRule()),
        tool_health("exit3", records(*["error"] * 12), HealthRule()),
    ]
    (track / "health.tsv").write_text(health_text(health))
    broken = broken_tools(read_health(track / "health.tsv"))
    result = run_inference(scores_frame(), design(baseline="rg", seed=1), broken=broken)
    (track / "inference.json").write_text(json.dumps(result))
    inputs = ReportInputs.from_paths(
        schema_config(baseline="rg", timing={"enabled": False}),
        "hash",
        "cmd",
        scores=[str(track / "scores.tsv")],
        inference=[str(track / "inference.json")],
        health=[str(track / "health.tsv")],
        tools=str(ROOT / "tests" / "fixtures" / "report" / "results" / "tools.json"),
    )
    model = build_model(inputs)
    summary = render_markdown(model)
    overview = summary[summary.index("## Overview") :]
    assert "| exit3 | 0.000 ✗ broken |" in overview
    assert "| mini/code | exit3 | 12 | 12 | 0 | 0 | 0 | 0 | 0 | 100% | broken: 12 of 12" in overview
    exit3_lines = [line for line in summary.splitlines() if "exit3" in line]
    assert len(exit3_lines) > 3
    assert not [line for line in exit3_lines if "▼" in line or "detected worse" in line]
    # nothing bold: a detected figure is bold (a bold label of the caveats names it, unbolded)
    bold = [span for line in exit3_lines for span in re.findall(r"\*\*([^*]+)\*\*", line)]
    assert not [span for span in bold if "exit3" in span or re.search(r"\d", span)]
    assert "broken: exit3 on mini/code (why: tool health)" in summary
    assert "exit3: broken here: 12 of 12 queries failed (12 error)" in summary
    rows = [r.split(",") for r in render_csv(model).splitlines()]
    header = rows[0]
    exit3 = [dict(zip(header, r, strict=False)) for r in rows[1:] if r[3] == "exit3"]
    assert exit3 and {(r["verdict"], r["error"], r["failure_share"]) for r in exit3} == {
        ("broken", "12", "1.0000")
    }


@pytest.mark.slow
def test_a_run_with_four_broken_tools_goes_on_and_says_which_broke(tmp_path):
    """The workflow end to end: rg (the baseline) beside four fixture tools that exit 3,
    print unparsable lines, print paths outside the corpus and hang. The run ends 0; each
    broken tool reads `broken` (never `detected worse`) in summary.md, summary.csv and
    run_status.tsv with its counts; the hanging one ran stop_after times, not once a query."""
    import subprocess

    import yaml
    from test_workflow import _write_corpus

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _write_corpus(corpus)
    runs = tmp_path / "runs"
    tools = {"rg": yaml.safe_load((ROOT / "config" / "tools.yaml").read_text())["tools"]["rg"]}
    for mode in ("exit3", "garbage", "ghost", "hang", "shuffle"):
        tools[mode] = {
            "description": f"fixture: {mode}",
            "binary": sys.executable,
            "family": "grep",
            "argv": ["{binary}", str(MISBEHAVES), mode, f"{runs}.{mode}", "--", "{query}", "./"],
            "output": "grep-null",
            "order": "as printed",
        }
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump({"tools": tools}))
    config = local_corpus_config(
        corpus,
        tmp_path / "tools.yaml",
        min_symbol_length=4,
        primary=[],
        timeout_seconds=1,
        tool_health={"stop_after": 3},
        resamples=2000,
        **FIXTURE_STATISTICS,
        docs={"min_queries": 1000},  # the code track only
        timing={"enabled": False},
    )
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    cmd = [
        *(sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir)),
        *("--configfile", str(workdir / "config.yaml"), *NO_WORKFLOW_PROFILE),
        *("--cores", "2"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = workdir / "results"

    # the hanging tool ran 3 times (then stopped), the others as their failures allowed
    raw = [json.loads(line) for line in (results / "mini/code/raw/hang.jsonl").open()]
    assert [r["status"] for r in raw] == ["timeout"] * 3 + ["stopped"] * (len(raw) - 3)
    assert Path(f"{runs}.hang").read_text().splitlines() == ["hang"] * 3
    # never stopped; its answered (no-match) queries were asked again by the repeat audit
    repeat = json.loads((results / "mini/code/repeat/garbage.json").read_text())
    assert repeat["queries"] == 10 and repeat["differ_output"] == 0
    assert len(Path(f"{runs}.garbage").read_text().splitlines()) == len(raw) + 10

    # issue 32 item 6: a tool printing a new order each run is flagged, beside its scores
    shuffled = json.loads((results / "mini/code/repeat/shuffle.json").read_text())
    assert shuffled["queries"] == 10 and shuffled["differ_output"] >= 1
    assert shuffled["differ_files"] == shuffled["differ_output"]
    board = {r["tool"]: r for r in json.loads((results / "pooled/code.json").read_text())[
        "leaderboard"]}  # fmt: skip
    assert board["shuffle"]["repeatable"] is False and board["rg"]["repeatable"] is True
    assert board["rg"]["repeat_queries"] == 10 and board["rg"]["repeat_differ"] == 0
    differ = board["shuffle"]["repeat_differ"]
    summary_text = (results / "report/summary.md").read_text()
    assert f"| no ({differ} of 10 differ) |" in summary_text
    assert "not repeatable: shuffle (code)" in (results / "report/index.html").read_text()

    status = {r[2]: dict(zip(STATUS_HEADER, r, strict=True)) for r in _tsv(
        (results / "run_status.tsv").read_text())}  # fmt: skip
    assert status["rg"]["health"] == status["shuffle"]["health"] == "ok"
    assert {t for t, r in status.items() if r["health"].startswith("broken: ")} == {
        "exit3", "garbage", "ghost", "hang"
    }  # fmt: skip
    assert status["ghost"]["foreign_paths"] == "9" and status["ghost"]["stopped"] == "9"
    assert int(status["garbage"]["unparsed_lines"]) == 16 * len(raw)

    summary = (results / "report/summary.md").read_text()
    for tool in ("exit3", "garbage", "ghost", "hang"):
        assert f"| {tool} | 0.000 ✗ broken |" in summary
        lines = [line for line in summary.splitlines() if f" {tool} " in line]
        assert not [line for line in lines if "▼" in line or "detected worse" in line]
    assert "| mini/code | hang | 12 | 0 | 3 | 9 | 0 | 0 | 0 | 100% | broken: stopped" in summary
    csv_rows = (results / "report/summary.csv").read_text().splitlines()
    header = csv_rows[0].split(",")
    verdicts = {
        row[header.index("tool")]: row[header.index("verdict")]
        for row in (r.split(",") for r in csv_rows[1:])
    }
    assert {verdicts[t] for t in ("exit3", "garbage", "ghost", "hang")} == {"broken"}
