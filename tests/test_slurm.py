"""The workflow on a real Slurm, through profiles/slurm, and the resources that profile asks for.

The slow test starts a one-node Slurm on this machine (Debian's slurm-wlm and munge, installed
by the test when it runs as root and they are missing), runs test_reruns' fixture workflow
(one corpus, four tools) once locally and once with `--profile profiles/slurm`, and checks that
every job the local run executed, but the Snakefile's local rules, was submitted to Slurm and
completed there, and that the queries, runs, scores and inference are byte-identical. The fast
tests check the profile against the rules and devtools/resources_from_benchmarks.py on a
fixture benchmarks folder.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from test_reruns import Fixture, planned_jobs

REPO = Path(__file__).resolve().parent.parent
PROFILE = REPO / "profiles" / "slurm" / "config.yaml"
BENCHMARKS = REPO / "tests" / "fixtures" / "benchmarks"
PARTITION = "searchbench"
SUBMITTED = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+)")
RUN_ID = re.compile(r"SLURM run ID: (\S+)")


# ---------------------------------------------------------------- the profile and the script


def _rules() -> set[str]:
    names = set()
    for smk in (REPO / "rules").glob("*.smk"):
        text = smk.read_text()
        names |= set(re.findall(r"^\s*(?:rule|checkpoint)\s+(\w+)\s*:", text, re.M))
        # `use rule A as B with:` declares B
        names |= set(re.findall(r"^use rule \w+ as (\w+)", text, re.M))
    return names


def test_the_profile_names_only_rules_and_gives_every_rule_a_runtime_and_memory():
    profile = yaml.safe_load(PROFILE.read_text())
    rules = _rules()
    per_rule = profile["set-resources"]
    assert set(per_rule) <= rules, set(per_rule) - rules
    assert set(profile["set-threads"]) <= rules
    defaults = profile["default-resources"]
    assert {"runtime", "mem_mb"} <= set(defaults)
    for rule, resources in per_rule.items():
        for key in ("runtime", "mem_mb"):
            assert isinstance(resources.get(key, defaults[key]), int), (rule, key)
    assert "--exclusive" in per_rule["timing"]["slurm_extra"]


def test_the_workflow_profile_removes_snakemake_s_rate_limiter():
    # Snakemake's limiter re-ran the scheduler on timers (1s: 40% of a core on the default
    # run) and held the process up to a timespan after its last job (60s: 74 s for a one-job
    # rerun). The workflow profile (applied to Slurm runs as well) gives a limit the workflow
    # removes (tests/test_scheduling.py); the Slurm profile sets none of its own.
    from snakemake.settings.types import MaxJobsPerTimespan

    from searchbench.scheduling import rate_limit_never_binds

    default = yaml.safe_load((REPO / "profiles" / "default" / "config.yaml").read_text())
    rate = MaxJobsPerTimespan.parse_choice(default["max-jobs-per-timespan"])
    assert rate_limit_never_binds(rate.max_jobs)
    assert "max-jobs-per-timespan" not in yaml.safe_load(PROFILE.read_text())


def _resources_table(*args: str) -> list[list[str]]:
    proc = subprocess.run(
        [sys.executable, str(REPO / "devtools" / "resources_from_benchmarks.py"), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return [line.split("\t") for line in proc.stdout.splitlines()]


def test_resources_from_benchmarks_takes_per_rule_maxima_by_the_rules_own_paths():
    header, *rows = _resources_table(str(BENCHMARKS))
    assert header == [
        "rule",
        "jobs",
        "max_s",
        "sum_s",
        "sum_cpu_s",
        "max_rss_mb",
        "slowest_job",
        "largest_job",
    ]
    table = {row[0]: row[1:] for row in rows}
    # two corpora's ast-grep and rg searches: the max of s and of max_rss, not of one job
    assert table["search"] == [
        "3",
        "125.39",
        "127.66",
        "120.80",
        "106.4",
        "big/code/search.ast-grep.tsv",
        "small/code/search.rg.tsv",
    ]
    # `pooled/{track}/by_language.tsv` is its own rule, not a corpus named `pooled`
    assert table["by_language_pooled"][:5] == ["1", "0.50", "0.50", "0.45", "90.0"]
    assert table["by_language"][:5] == ["1", "2.00", "2.00", "1.80", "95.0"]
    assert table["resolve_tool"][:1] == ["2"]
    # a file no rule writes, and a benchmark with no row yet ("-" counts as 0)
    assert table["?"][:5] == ["1", "1.00", "1.00", "0.10", "5.0"]
    assert table["symbols"][:5] == ["2", "7.71", "8.01", "13.00", "237.4"]
    # sorted by the largest wall time
    assert [row[0] for row in rows][0] == "search"


def test_resources_from_benchmarks_says_when_the_folder_is_missing(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "devtools" / "resources_from_benchmarks.py"),
            str(tmp_path / "x"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"resources_from_benchmarks: no folder {tmp_path / 'x'}"


# ---------------------------------------------------------------- a one-node Slurm


@dataclass
class Cluster:
    root: Path
    conf: Path
    jobcomp: Path

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def run(self, *argv: str) -> str:
        proc = subprocess.run(argv, capture_output=True, text=True, env=self.env, timeout=60)
        return proc.stdout


def _ensure_slurm() -> None:
    needed = ("slurmctld", "slurmd", "munged", "sbatch")
    if all(shutil.which(b) for b in needed):
        return
    if os.geteuid() != 0:
        pytest.skip(
            "Slurm is not installed and installing it needs root: apt-get install slurm-wlm munge"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "slurm-wlm", "munge"],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _real_memory_mb() -> int:
    """The node's memory as slurmd sees it, less 1 GB (a node claiming more is drained)."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"RealMemory=(\d+)", out).group(1)) - 1024


def _slurm_conf(root: Path, cpus: int, memory_mb: int) -> str:
    return f"""\
ClusterName=searchbench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge/socket
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# finished jobs stay visible to squeue (the profile's status command) for an hour
MinJobAge=3600
# no slurmdbd: no accounting, but every finished job is logged here
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc={root}/jobcomp.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
# the profile must name its partition: the default one is another
PartitionName=other Nodes=localhost Default=YES MaxTime=INFINITE State=UP
PartitionName={PARTITION} Nodes=localhost Default=NO MaxTime=INFINITE State=UP
"""


def _stop(pid_file: Path) -> None:
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text().split()[0])
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    _ensure_slurm()
    root = tmp_path_factory.mktemp("slurm")
    for sub in ("munge", "state", "spool"):
        (root / sub).mkdir(mode=0o700)
    key = root / "munge" / "key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    conf = root / "slurm.conf"
    conf.write_text(_slurm_conf(root, os.cpu_count() or 1, _real_memory_mb()))
    # A job's inner `srun` (the jobstep plugin's) runs without the SLURM_* variables it was
    # submitted with, SLURM_CONF included, so it looks for the configuration where a cluster
    # node keeps it (/etc/slurm); this node's is here instead, and a wrapper says so.
    (root / "bin").mkdir()
    srun = root / "bin" / "srun"
    srun.write_text(f'#!/bin/sh\nSLURM_CONF={conf} exec {shutil.which("srun")} "$@"\n')
    srun.chmod(0o755)
    cluster = Cluster(root, conf, root / "jobcomp.log")
    try:
        subprocess.run(
            [
                "munged",
                "--force",
                f"--socket={root}/munge/socket",
                f"--key-file={key}",
                f"--log-file={root}/munge/log",
                f"--pid-file={root}/munge/pid",
                f"--seed-file={root}/munge/seed",
            ],
            check=True,
        )
        subprocess.run(["slurmctld", "-f", str(conf)], check=True, env=cluster.env)
        subprocess.run(["slurmd", "-f", str(conf), "-N", "localhost"], check=True, env=cluster.env)
        for _ in range(120):
            if cluster.run("sinfo", "-h", "-p", PARTITION, "-o", "%T").strip() == "idle":
                break
            time.sleep(0.5)
        else:
            logs = "".join(p.read_text()[-2000:] for p in root.glob("slurm*.log"))
            raise AssertionError(f"the Slurm node never became idle:\n{logs}")
        yield cluster
    finally:
        # no job of this cluster may outlive it
        if (root / "slurmctld.pid").exists():
            cluster.run("scancel", "--full", "--user", "root")
        _stop(root / "slurmd.pid")
        _stop(root / "slurmctld.pid")
        _stop(root / "munge" / "pid")


# ---------------------------------------------------------------- the workflow through it

JOB_HEADER = re.compile(r"^(local)?(?:checkpoint|rule) (\S+):$")
JOB_ID = re.compile(r"^jobid: (\d+)$")


def _rule_jobs(output: str) -> dict[str, tuple[str, bool]]:
    """Snakemake job id -> (rule, run locally?), for every job a run printed."""
    jobs: dict[str, tuple[str, bool]] = {}
    current: tuple[str, bool] | None = None
    for line in output.splitlines():
        if header := JOB_HEADER.match(line.strip()):
            current = (header.group(2), bool(header.group(1)))
        elif current and (jobid := JOB_ID.match(line.strip())):
            jobs[jobid.group(1)] = current
            current = None
    return jobs


def _completed(jobcomp: Path, run_id: str) -> dict[str, dict[str, str]]:
    """Slurm job id -> its record in the job completion log, for this run's jobs."""
    records = {}
    for line in jobcomp.read_text().splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if fields.get("Name") == run_id:
            records[fields["JobId"]] = fields
    return records


def _reproducible(workdir: Path) -> dict[str, bytes]:
    files = {}
    for corpus in ("loc",):
        code = workdir / "results" / corpus / "code"
        for pattern in ("queries.tsv", "qrels.txt", "runs/*.run", "scores.tsv", "inference.*"):
            for path in code.glob(pattern):
                files[str(path.relative_to(workdir))] = path.read_bytes()
    return files


def _copy_profiles(fx: Fixture) -> Path:
    """The workflow's profiles beside its copied Snakefile (profiles/default is then applied as
    the workflow profile, as for a user); the Slurm one names the test's partition."""
    shutil.copytree(REPO / "profiles", fx.workflow / "profiles")
    slurm = fx.workflow / "profiles" / "slurm" / "config.yaml"
    profile = yaml.safe_load(slurm.read_text())
    profile["default-resources"]["slurm_partition"] = PARTITION
    slurm.write_text(yaml.safe_dump(profile))
    return slurm.parent


@pytest.mark.slow
def test_the_workflow_runs_on_slurm_job_by_job_with_identical_results(cluster, tmp_path):
    fx = Fixture(tmp_path)
    # one corpus of the two (every Slurm job starts Snakemake twice: minutes on 2 cores)
    del fx.config["corpora"]["gitc"]
    fx.write()
    profile = _copy_profiles(fx)
    # the fixture's `wrap` notes each time a Snakemake start asks its version
    asked = fx.base / "version-asked"
    (fx.bin / "wrap").write_text(f'#!/bin/sh\n[ "$1" = -V ] && echo >> {asked}\nexec grep "$@"\n')

    started = time.monotonic()
    local = fx.snakemake()
    local_seconds = time.monotonic() - started
    assert local.returncode == 0, local.stdout[-4000:] + local.stderr[-4000:]

    workdir = tmp_path / "slurm-work"
    workdir.mkdir()
    shutil.copy2(fx.workdir / "config.yaml", workdir / "config.yaml")
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(fx.workflow / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--profile",
        str(profile),
        # a one-node test cluster answers at once; the default first wait is 40 s
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--slurm-keep-successful-logs",
    ]
    asked_before = len(asked.read_text().splitlines())
    started = time.monotonic()
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=3600,
        env={**cluster.env, "PATH": f"{cluster.root / 'bin'}{os.pathsep}{fx.path}"},
        cwd=workdir,
    )
    slurm_seconds = time.monotonic() - started
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]

    # Every job the local run executed, the Slurm run executed too, and every one of them
    # that is not a local rule went to Slurm: one submission each, each completed there, in
    # the partition the profile names.
    assert planned_jobs(output) == planned_jobs(local.stdout + local.stderr)
    jobs = _rule_jobs(output)
    submitted = dict(SUBMITTED.findall(output))
    assert submitted and set(submitted) == {j for j, (_, here) in jobs.items() if not here}
    # the local rules: the default target and the bookkeeping the Snakefile keeps off Slurm
    assert {rule for rule, here in jobs.values() if here} == {
        "all",
        "resolve_tool",
        "tools_json",
        "run_status",
        "calibration_status",
    }
    rule_of = {slurm_id: jobs[job][0] for job, slurm_id in submitted.items()}
    assert len(rule_of) == len(submitted)
    records = _completed(cluster.jobcomp, RUN_ID.search(output).group(1))
    assert {i: (r["JobState"], r["Partition"]) for i, r in records.items()} == {
        i: ("COMPLETED", PARTITION) for i in rule_of
    }
    # each job's log is where the plugin says (kept with --slurm-keep-successful-logs)
    logs = list((workdir / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert {p.stem for p in logs} == set(rule_of)

    # A timing job had the node to itself: all its CPUs, and no job of the run beside it.
    timing = [i for i, rule in rule_of.items() if rule == "timing"]
    assert timing
    for i in timing:
        assert records[i]["ProcCnt"] == str(os.cpu_count())
        start, end = records[i]["StartTime"], records[i]["EndTime"]
        beside = [
            j
            for j, r in records.items()
            if j != i and r["StartTime"] < end and r["EndTime"] > start
        ]
        assert beside == [], (i, beside)

    # Tools are resolved once, by the run's own Snakemake (its resolve_tool job checks the
    # binary again): the two Snakemake starts of each Slurm job take that resolution.
    assert len(asked.read_text().splitlines()) - asked_before == 2

    ours, theirs = _reproducible(workdir), _reproducible(fx.workdir)
    assert ours.keys() == theirs.keys() and len(ours) >= 9
    assert [k for k in ours if ours[k] != theirs[k]] == []

    print(
        f"\nslurm: {len(rule_of)} jobs submitted and completed ({len(timing)} timing jobs "
        f"alone on the node), {len(jobs) - len(rule_of)} local; "
        f"{len(ours)} files byte-identical; Slurm run {slurm_seconds:.0f} s, "
        f"local run {local_seconds:.0f} s"
    )
