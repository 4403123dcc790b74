"""Issue 35 item 1, tracks declared once: a toy track added to the declaration list
(searchbench/measures.py TRACK_DECLARATIONS) of a copy of the workflow, with its queries'
checkpoint, is picked up by every stage, target and report section; declared without its
checkpoint, the run stops before any job with one line naming it (docs/extending.md)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_workflow import _config, _write_corpus

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

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


def _workflow_copy(root: Path, checkpoint: bool) -> Path:
    """The workflow copied to root, the toy track declared (and its checkpoint, if asked)."""
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
    return root


def _run(flow: Path, workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake on the copy, importing the copy's searchbench (as tests/test_workflow.py)."""
    env = {**os.environ, "PYTHONPATH": str(flow)}
    cmd = [
        *(sys.executable, "-m", "snakemake"),
        *("-s", str(flow / "Snakefile"), "-d", str(workdir)),
        *("--configfile", str(workdir / "config.yaml"), "--workflow-profile", "none"),
        *("--resources", "timing_slot=1", *args),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1500, env=env, cwd=flow)


def _setup(tmp: Path, checkpoint: bool) -> tuple[Path, Path]:
    (tmp / "flow").mkdir()
    flow = _workflow_copy(tmp / "flow", checkpoint)
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


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    flow, workdir = _setup(tmp_path_factory.mktemp("toy"), checkpoint=True)
    proc = _run(flow, workdir, "--cores", "2")
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return workdir


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


def test_a_track_declared_without_its_checkpoint_stops_with_one_line(tmp_path):
    flow, workdir = _setup(tmp_path, checkpoint=False)
    proc = _run(flow, workdir, "-n", "--cores", "1")
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "toy_queries" in line]
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith("track toy: its queries_rule toy_queries is no checkpoint")
    assert "Traceback" not in proc.stderr
