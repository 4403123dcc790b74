"""timing.enabled in the workflow: a dry run plans timing jobs only when timing is on."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_cli import NO_WORKFLOW_PROFILE, local_corpus_config

REPO = Path(__file__).resolve().parent.parent


def config(corpus: Path, timing: dict) -> dict:
    return local_corpus_config(corpus, REPO / "config" / "tools.yaml", timing=timing)


def job_counts(output: str) -> dict[str, int]:
    """The dry run's "Job stats" table: rule -> number of jobs."""
    lines = output[output.index("Job stats:") :].splitlines()[3:]
    counts = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            break
        counts[parts[0]] = int(parts[1])
    return counts


def dry_run(tmp_path: Path, timing: dict) -> str:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ring.c").write_text("int ring_reset(void) { return 0; }\n")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config(corpus, timing)))
    cmd = [
        *(sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")),
        *("-d", str(tmp_path), "--configfile", str(tmp_path / "config.yaml")),
        *NO_WORKFLOW_PROFILE,
        *("-n", "--cores", "2"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not (tmp_path / "results").exists()
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.slow
def test_timing_jobs_are_planned_only_when_timing_is_enabled(tmp_path: Path, enabled: bool):
    output = dry_run(tmp_path, {"enabled": enabled, "queries": 2})
    jobs = job_counts(output)
    # One search job per available tool (a fast-path tool's is search_fast_path); as many
    # timing jobs, or none at all.
    searches = jobs.get("search", 0) + jobs.get("search_fast_path", 0)
    assert searches >= 2 and jobs["report"] == 1 and jobs["run_status"] == 1
    assert jobs.get("timing", 0) == (searches if enabled else 0)
    assert ("results/mini/timing/" in output) is enabled


@pytest.mark.slow
def test_timing_defaults_to_enabled(tmp_path: Path):
    jobs = job_counts(dry_run(tmp_path, {}))
    assert jobs["timing"] == jobs.get("search", 0) + jobs.get("search_fast_path", 0)
