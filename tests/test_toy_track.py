"""Issue 35 item 1, tracks declared once: a toy track added to the declaration list
(searchbench/measures.py TRACK_DECLARATIONS) of a copy of the workflow, with its queries'
checkpoint, is picked up by every stage, target and report section; declared without its
checkpoint, the run stops before any job with one line naming it. Likewise a toy analysis per
corpus and track (a rule and its TRACK_ANALYSES line in rules/common.smk) is computed on every
measured track, and a rule whose line is forgotten is caught: every rule writing a per-track
file is planned by a dry run of the code track (docs/extending.md)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_workflow import _config, _write_corpus
from workflow_cli import NO_WORKFLOW_PROFILE

REPO = Path(__file__).resolve().parent.parent

WORKFLOW = ("Snakefile", "rules", "scripts", "searchbench", "config", "envs", "report", "bin")
TOOLS = ("rg", "hay")
QUESTION = "which file holds this toy word?"
DECLARATION = f'Track("toy", "{QUESTION}", "toy_queries", min_queries_from="docs")'
# The toy track's queries are the docs track's, copied: every toy output must equal docs'.
CHECKPOINT = """

checkpoint toy_queries:
    input:
        queries="results/{corpus}/docs/queries.tsv",
        qrels="results/{corpus}/docs/qrels.txt",
        funnel="results/{corpus}/docs/funnel.tsv",
    output:
        queries="results/{corpus}/toy/queries.tsv",
        qrels="results/{corpus}/toy/qrels.txt",
        funnel="results/{corpus}/toy/funnel.tsv",
    run:
        import shutil

        for name in ("queries", "qrels", "funnel"):
            shutil.copyfile(input[name], output[name])
"""
# A toy analysis per corpus and track (docs/extending.md "An analysis per corpus and track"):
# its rule and its line in TRACK_ANALYSES. It counts the rows of the track's scores.
ANALYSIS_RULE = """

rule toy_count:
    input:
        scores="results/{corpus}/{track}/scores.tsv",
    output:
        "results/{corpus}/{track}/toy_count.tsv",
    run:
        with open(input.scores, encoding="utf-8") as scores:
            rows = sum(1 for _ in scores) - 1
        with open(output[0], "w", encoding="utf-8") as out:
            out.write(f"rows\\t{rows}\\n")
"""
ANALYSES_ANCHOR = '    "scores.tsv",\n)'
# The rules writing results/{corpus}/{track}/... as the copy's Snakemake parses them, each with
# whether the code track can take its {track} wildcard (docs_strata's cannot: docs classes).
TRACK_RULES = """
import json, re, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

flow, workdir = map(Path, sys.argv[1:3])
with SnakemakeApi(OutputSettings(quiet=True)) as api:
    workflow = api.workflow(
        resource_settings=ResourceSettings(cores=1),
        config_settings=ConfigSettings(configfiles=[workdir / "config.yaml"]),
        snakefile=flow / "Snakefile",
        workdir=workdir,
    )
    rules = {}
    tools = list(workflow._workflow.config["tools"])
    for rule in workflow._workflow.rules:
        for out in map(str, rule.output):
            # a rule for tools this configuration has none of (search: the fast-path ones)
            only = re.search(r"\\{tool,([^{}]*)\\}", out)
            if only and not any(re.fullmatch(only.group(1), tool) for tool in tools):
                continue
            # outputs carry their wildcard constraints: {track,code|docs|...}
            found = re.match(r"results/\\{corpus[^{}]*\\}/\\{track(?:,([^{}]*))?\\}/", out)
            if found:
                code = found.group(1) is None or re.fullmatch(found.group(1), "code")
                rules[rule.name] = rules.get(rule.name, False) or bool(code)
    print(json.dumps(rules))
"""
JOB_STATS_ROW = re.compile(r"^(\w+)\s+\d+$", re.M)
# Every per-corpus target of a measured track (rules/common.smk track_targets) and its pooled
# files (pooled_targets), for the toy track.
TOY_TARGETS = [
    *(
        f"results/mini/toy/{name}"
        for name in (
            "queries.tsv",
            "inference.json",
            "by_language.json",
            "filter_rank.tsv",
            "ties.tsv",
            "calibration.tsv",
            "agent_cost.tsv",
            "scores.tsv",
            "health.tsv",
            "power.json",
            *(f"runs/{tool}.run.yaml" for tool in TOOLS),
            *(f"runs/{tool}.run" for tool in TOOLS),
        )
    ),
    "results/pooled/toy.json",
    "results/pooled/toy/by_language.json",
]


def _workflow_copy(root: Path, checkpoint: bool, analysis: str = "") -> Path:
    """The workflow copied to root, the toy track declared (and its checkpoint, if asked);
    analysis "listed" adds the toy analysis's rule and its TRACK_ANALYSES line, "forgotten"
    the rule alone."""
    for name in WORKFLOW:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, root / name)
    if (REPO / ".venv").exists():  # the tools installed in the repository's venv (hay)
        (root / ".venv").symlink_to((REPO / ".venv").resolve())
    measures = root / "searchbench" / "measures.py"
    text = measures.read_text()
    anchor = "TRACK_BY_NAME: dict[str, Track]"
    assert anchor in text
    measures.write_text(
        text.replace(
            anchor, f"TRACK_DECLARATIONS = (*TRACK_DECLARATIONS, {DECLARATION})\n{anchor}", 1
        )
    )
    if checkpoint:
        with open(root / "rules" / "queries.smk", "a", encoding="utf-8") as handle:
            handle.write(CHECKPOINT)
    if analysis:
        with open(root / "rules" / "analysis.smk", "a", encoding="utf-8") as handle:
            handle.write(ANALYSIS_RULE)
    if analysis == "listed":
        common = root / "rules" / "common.smk"
        text = common.read_text()
        assert ANALYSES_ANCHOR in text
        common.write_text(
            text.replace(ANALYSES_ANCHOR, '    "scores.tsv",\n    "toy_count.tsv",\n)')
        )
    return root


def _run(flow: Path, workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake on the copy, importing the copy's searchbench (as tests/test_workflow.py)."""
    env = {**os.environ, "PYTHONPATH": str(flow)}
    cmd = [
        *(sys.executable, "-m", "snakemake"),
        *("-s", str(flow / "Snakefile"), "-d", str(workdir)),
        *("--configfile", str(workdir / "config.yaml"), *NO_WORKFLOW_PROFILE),
        *("--resources", "timing_slot=1", *args),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1500, env=env, cwd=flow)


def _setup(tmp: Path, checkpoint: bool, analysis: str = "") -> tuple[Path, Path]:
    (tmp / "flow").mkdir()
    flow = _workflow_copy(tmp / "flow", checkpoint, analysis)
    corpus = tmp / "corpus"
    corpus.mkdir()
    _write_corpus(corpus)
    workdir = tmp / "work"
    workdir.mkdir()
    config = _config(workdir, corpus)
    for key in ("languages_file", "astgrep_rules_dir", "tools_file"):
        config[key] = str(flow / Path(config[key]).relative_to(REPO))
    tools = yaml.safe_load((flow / "config" / "tools.yaml").read_text())["tools"]
    config["tools"] = {t: tools[t] for t in TOOLS}
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return flow, workdir


def _unplanned_track_rules(flow: Path, workdir: Path) -> list[str]:
    """The rules writing a per-track file that the code track could take but a dry run of
    the whole workflow never plans: an analysis whose TRACK_ANALYSES line was forgotten."""
    env = {**os.environ, "PYTHONPATH": str(flow)}
    parsed = subprocess.run(
        [sys.executable, "-c", TRACK_RULES, str(flow), str(workdir)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=workdir,
        check=True,
    )
    track_rules = json.loads(parsed.stdout.strip().splitlines()[-1])
    assert {"score", "inference", "ties", "agent_cost"} <= set(track_rules)
    dry = _run(flow, workdir, "-n", "--cores", "1")
    assert dry.returncode == 0, dry.stderr[-3000:]
    planned = set(JOB_STATS_ROW.findall(dry.stdout.split("Job stats:")[1]))
    assert "score" in planned
    return sorted(r for r, code in track_rules.items() if code and r not in planned)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    flow, workdir = _setup(tmp_path_factory.mktemp("toy"), checkpoint=True, analysis="listed")
    proc = _run(flow, workdir, "--cores", "2")
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return workdir


@pytest.mark.slow
def test_every_stage_target_and_report_section_picks_up_a_declared_track(toy_run):
    results = toy_run
    missing = [t for t in TOY_TARGETS if not (results / t).is_file()]
    assert not missing
    # its queries are the docs track's: so are its runs and scores, byte for byte
    for name in ("scores.tsv", "runs/rg.run", "runs/hay.run"):
        docs = (results / "results/mini/docs" / name).read_bytes()
        assert (results / "results/mini/toy" / name).read_bytes() == docs, name
    pooled = json.loads((results / "results/pooled/toy.json").read_text())
    assert pooled["track"] == "toy"
    assert {row["tool"] for row in pooled["leaderboard"]} == set(TOOLS)
    status = (results / "results/run_status.tsv").read_text().splitlines()
    assert {line.split("\t")[2] for line in status if line.startswith("mini\ttoy\t")} == set(TOOLS)
    calibration = (results / "results/calibration_status.tsv").read_text()
    assert "\nmini\ttoy\t" in calibration
    summary = (results / "results/report/summary.md").read_text()
    assert f"## Leaderboard, toy track: {QUESTION}" in summary
    html = (results / "results/report/index.html").read_text()
    assert QUESTION in html


@pytest.mark.slow
def test_a_tools_timing_waits_for_its_searches_on_every_track_the_toy_one_too(toy_run):
    flow = toy_run.parent / "flow"
    proc = _run(flow, toy_run, "--detailed-summary", "--cores", "1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    header, *rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    at = header.index("input-file(s)")
    inputs = {r[0]: r[at] for r in rows if len(r) > at}
    timing = inputs["results/mini/timing/rg.tsv"].split(",")
    assert {f"results/mini/{t}/raw/rg.jsonl" for t in ("code", "docs", "toy")} <= set(timing)


@pytest.mark.slow
def test_an_analysis_is_computed_on_every_measured_track(toy_run):
    status = (toy_run / "results/run_status.tsv").read_text().splitlines()
    measured = {line.split("\t")[1] for line in status if line.startswith("mini\t")}
    assert {"code", "docs", "toy"} <= measured
    for track in measured:
        scores = (toy_run / f"results/mini/{track}/scores.tsv").read_text().splitlines()
        count = toy_run / f"results/mini/{track}/toy_count.tsv"
        assert count.read_text() == f"rows\t{len(scores) - 1}\n", track


@pytest.mark.slow
def test_every_rule_writing_a_per_track_file_is_planned(tmp_path):
    """The workflow as it is: no analysis rule is left out of TRACK_ANALYSES."""
    flow, workdir = _setup(tmp_path, checkpoint=True)
    assert _unplanned_track_rules(flow, workdir) == []


@pytest.mark.slow
def test_an_analysis_left_out_of_track_analyses_is_caught(tmp_path):
    flow, workdir = _setup(tmp_path, checkpoint=True, analysis="forgotten")
    assert _unplanned_track_rules(flow, workdir) == ["toy_count"]
    listed = tmp_path / "listed"
    listed.mkdir()
    flow, workdir = _setup(listed, checkpoint=True, analysis="listed")
    assert _unplanned_track_rules(flow, workdir) == []


@pytest.mark.slow
def test_a_track_declared_without_its_checkpoint_stops_with_one_line(tmp_path):
    flow, workdir = _setup(tmp_path, checkpoint=False)
    proc = _run(flow, workdir, "-n", "--cores", "1")
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "toy_queries" in line]
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith("track toy: its queries_rule toy_queries is no checkpoint")
    assert "Traceback" not in proc.stderr
