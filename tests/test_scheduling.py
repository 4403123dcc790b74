"""Issue 37 item 3: Snakemake's rate limiter re-ran the scheduler on timers and held the
process up to a timespan after its last job (a one-job rerun took 74 s, Ctrl-C 54 s)."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.settings.types import MaxJobsPerTimespan, SchedulingSettings

from searchbench.scheduling import (
    drop_rate_limit_at_execution,
    drop_unbinding_rate_limit,
    rate_limit_never_binds,
)

REPO = Path(__file__).resolve().parent.parent
PROFILE = REPO / "profiles" / "default" / "config.yaml"


def _profile_limit() -> MaxJobsPerTimespan:
    return MaxJobsPerTimespan.parse_choice(
        yaml.safe_load(PROFILE.read_text())["max-jobs-per-timespan"]
    )


def test_the_workflow_profile_s_limit_is_removed_and_a_real_limit_is_kept():
    settings = SchedulingSettings(max_jobs_per_timespan=_profile_limit())
    assert drop_unbinding_rate_limit(settings) is True
    assert settings.max_jobs_per_timespan is None
    # Snakemake's own default, or any limit a user means, stays as given.
    for given in ("100/1s", "50/1m"):
        settings = SchedulingSettings(max_jobs_per_timespan=MaxJobsPerTimespan.parse_choice(given))
        assert drop_unbinding_rate_limit(settings) is False
        assert settings.max_jobs_per_timespan is not None, given
    assert drop_unbinding_rate_limit(SchedulingSettings()) is False
    assert drop_unbinding_rate_limit(None) is False


def test_the_limit_is_dropped_when_the_workflow_executes_not_when_it_is_read():
    """Snakemake's API sets scheduling_settings after the Snakefile is read (None until then),
    then calls workflow.execute, which creates the JobScheduler."""

    class Workflow:
        scheduling_settings = None

        def execute(self, **kwargs):
            return self.scheduling_settings.max_jobs_per_timespan, kwargs

    workflow = Workflow()
    drop_rate_limit_at_execution(workflow)  # as rules/common.smk does, while being read
    workflow.scheduling_settings = SchedulingSettings(max_jobs_per_timespan=_profile_limit())
    assert workflow.execute(updated_files=[]) == (None, {"updated_files": []})


def test_the_limit_read_as_none_is_above_any_run_s_job_count():
    # The default run has 1,678 jobs in all; a limit it could reach would be a real one.
    assert rate_limit_never_binds(_profile_limit().max_jobs)
    assert not rate_limit_never_binds(1_678)


@pytest.mark.slow
def test_a_run_with_the_workflow_profile_schedules_only_when_a_job_ends(tmp_path):
    """Seven jobs on one core with the workflow profile: no rate limiter is created, and the
    scheduler selects jobs at most once per finished job (a limiter's timers add rounds of
    their own, and keep the process alive after the last job)."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.py").write_text("def ring_reset():\n    return 0\n")
    config = {
        "tools_file": str(REPO / "config" / "first-run-tools.yaml"),
        "corpora": {"mini": {"source": {"kind": "local", "path": str(tmp_path / "corpus")}}},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    cmd = [
        *(sys.executable, "-m", "snakemake"),
        "results/tools.json",
        *("-s", str(REPO / "Snakefile"), "-d", str(tmp_path)),
        *("--configfile", str(tmp_path / "config.yaml")),
        *("--workflow-profile", str(PROFILE.parent), "--cores", "1", "--verbose"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    finished = out.count("Finished jobid")
    assert finished == 7, out[-3000:]
    assert "Submitting maximum" not in out  # JobRateLimiter's debug line when it is created
    assert 1 <= out.count("Ready jobs") <= finished
