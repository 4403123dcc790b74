"""The behavioural track end to end: fixture transcripts in the three formats mined, the
searches made in the fixture repository turned into queries, every tool run, nDCG@10 as the
primary metric, the report section written (issue 10)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from design_fixture import FIXTURE_STATISTICS
from workflow_cli import NO_WORKFLOW_PROFILE

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
REVISION = "4f1c2b3a5d6e7f8091a2b3c4d5e6f708192a3b4c"
TOOLS = ("rg", "hay", "git-grep", "grep")
pytestmark = pytest.mark.slow


def _config(workdir: Path, corpus: Path, logs: Path) -> dict:
    tools = yaml.safe_load((REPO / "config" / "tools.yaml").read_text())["tools"]
    (workdir / "tools.yaml").write_text(yaml.safe_dump({"tools": {t: tools[t] for t in TOOLS}}))
    return {
        "seed": 7,
        "queries_per_corpus": 50,
        "tools_file": str(workdir / "tools.yaml"),
        "languages_file": str(REPO / "config" / "languages.yaml"),
        "astgrep_rules_dir": str(REPO / "config" / "astgrep"),
        "resamples": 2000,
        **FIXTURE_STATISTICS,
        "docs": {"min_queries": 3},
        "usage": {"min_queries": 3},
        "timing": {"enabled": False},
        "behaviour": {
            "logs": str(logs),
            "window": 5,
            "pins": {"/home/dev/proj": REVISION},
            "min_queries": 3,
        },
        "corpora": {
            "proj": {
                "description": "the fixture repository the transcripts searched",
                "source": {"kind": "local", "path": str(corpus)},
                "behaviour": {
                    "repositories": ["/home/dev/proj", "https://example.org/team/proj.git"],
                    "revision": REVISION,
                },
            }
        },
    }


def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        *NO_WORKFLOW_PROFILE,
        "--cores",
        "2",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1200)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("proj") / "proj"
    shutil.copytree(FIXTURES / "repo", corpus)
    workdir = tmp_path_factory.mktemp("behaviour")
    (workdir / "config.yaml").write_text(
        yaml.safe_dump(_config(workdir, corpus, FIXTURES / "logs"))
    )
    proc = _snakemake(workdir)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return workdir


def _tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()]


def test_mining_counts_every_dropped_search_by_reason(run):
    rows = _tsv(run / "results/transcripts/mining.tsv")
    assert rows[0] == ["file", "reason", "count"]
    kept = sum(int(r[2]) for r in rows[1:] if r[1] == "kept")
    assert kept == 14
    reasons = {r[1] for r in rows[1:]}
    assert {"regex", "case-insensitive", "failed", "unpinned-revision", "no-answer"} <= reasons
    # No transcript text is copied into results/: the mined table holds only these columns.
    mined = _tsv(run / "results/transcripts/mined.tsv")
    assert mined[0] == ["repository", "revision", "query", "opened", "source"]


def test_the_track_is_scored_on_ndcg_with_several_answers(run):
    track = run / "results/proj/behaviour"
    queries = _tsv(track / "queries.tsv")[1:]
    assert len(queries) == 8
    qrels = [line.split() for line in (track / "qrels.txt").read_text().splitlines()]
    answers: dict[str, int] = {}
    for qid, _, _, rel in qrels:
        answers[qid] = answers.get(qid, 0) + int(rel)
    assert set(answers) == {q[0] for q in queries}
    assert max(answers.values()) >= 2  # a question with more than one right file
    inference = json.loads((track / "inference.json").read_text())
    assert inference["metadata"]["primary_metric"] == "ndcg10"
    primary = [c for c in inference["comparisons"] if c["primary_metric"]]
    assert primary and {c["metric"] for c in primary} == {"ndcg10"}
    scores = _tsv(track / "scores.tsv")
    assert {r[1] for r in scores[1:]} == set(TOOLS)


def test_the_report_has_the_behavioural_section(run):
    html = (run / "results/report/index.html").read_text()
    assert "proj/behaviour" in html
    assert "nDCG@10 (primary)" in html


def test_a_missing_logs_folder_stops_with_one_line(tmp_path):
    corpus = tmp_path / "proj"
    shutil.copytree(FIXTURES / "repo", corpus)
    config = _config(tmp_path, corpus, tmp_path / "no-such-logs")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    proc = _snakemake(tmp_path, "-n")
    assert proc.returncode != 0
    assert "behaviour.logs:" in proc.stderr and "is not a folder" in proc.stderr
    assert not (tmp_path / "results").exists()
