"""Change one thing, rerun one thing: the exact jobs Snakemake's dry run plans per user action.

One real run of a copy of the workflow on a tiny fixture (two corpora, four cheap tools), then
for each action a dry run whose planned (rule, wildcards) set must be exactly the expected one.
The workflow is copied so that the code-change actions can edit it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from design_fixture import FIXTURE_STATISTICS
from workflow_cli import NO_WORKFLOW_PROFILE

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
WORKFLOW_PARTS = ("Snakefile", "rules", "scripts", "searchbench", "config", "bin", "report", "envs")
pytestmark = pytest.mark.slow

Job = tuple[str, tuple[tuple[str, str], ...]]

TOOLS = {
    "rg": {
        "binary": "rg",
        "argv": [
            "{binary}",
            "--no-config",
            "--sort",
            "path",
            "--no-heading",
            "--with-filename",
            "--line-number",
            "--null",
            "--no-ignore",
            "--hidden",
            "{word}",
            "--fixed-strings",
            "--regexp",
            "{query}",
            "./",
        ],
        "word_argv": ["--word-regexp"],
        "output": "grep-null",
        "family": "grep",
        "list_files_argv": [
            "{binary}",
            "--no-config",
            "--sort",
            "path",
            "--files-with-matches",
            "--null",
            "--no-ignore",
            "--hidden",
            "--regexp",
            "",
            "./",
        ],
    },
    "grep": {
        "binary": "grep",
        "argv": [
            "{binary}",
            "-r",
            "-H",
            "-I",
            "-n",
            "-Z",
            "{word}",
            "--fixed-strings",
            "-e",
            "{query}",
            "./",
        ],
        "word_argv": ["--word-regexp"],
        "output": "grep-null",
        "family": "grep",
        "env": {"LC_ALL": "C"},
    },
    # A user's own tool: a wrapper script found on PATH.
    "wrap": {
        "binary": "wrap",
        "argv": ["{binary}", "-r", "-H", "-n", "-Z", "{word}", "-F", "-e", "{query}", "./"],
        "word_argv": ["-w"],
        "output": "grep-null",
        "family": "grep",
        "version_argv": ["{binary}", "-V"],
    },
    "hay": {
        "binary": "hay",
        "argv": ["{binary}", "--null", "{word}", "--", "{query}", "./"],
        "word_argv": ["--word"],
        "output": "grep-null",
        "family": "grep",
    },
}
WRAPPER = '#!/bin/sh\nexec grep "$@"\n'


def _c_file(prefix: str) -> str:
    return "".join(
        f"struct {prefix}_state_{i} {{ int head; }};\n"
        f"int {prefix}_reset_{i}(struct {prefix}_state_{i} *s) {{ return s->head; }}\n"
        for i in range(3)
    )


def _write_corpus(root: Path, prefix: str) -> None:
    (root / "src").mkdir(parents=True)
    (root / "src" / "ring.c").write_text(_c_file(prefix))
    (root / "README.md").write_text(f"{prefix}_reset_0 resets.\n")


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": "/dev/null",
    }
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout.strip()


class Fixture:
    """The copied workflow, its working directory and the knobs the actions turn."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.workflow = base / "workflow"
        self.workdir = base / "work"
        self.bin = base / "bin"
        for part in WORKFLOW_PARTS:
            src = REPO / part
            if src.is_dir():
                shutil.copytree(
                    src, self.workflow / part, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                self.workflow.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, self.workflow / part)
        self.workdir.mkdir()
        self.bin.mkdir()
        (self.bin / "wrap").write_text(WRAPPER)
        (self.bin / "wrap").chmod(0o755)
        self.local = base / "local"
        _write_corpus(self.local, "loc")
        self.repo = base / "repo"
        _write_corpus(self.repo, "git")
        _git(self.repo, "init", "-q")
        _git(self.repo, "add", ".")
        _git(self.repo, "commit", "-qm", "one")
        self.first = _git(self.repo, "rev-parse", "HEAD")
        (self.repo / "src" / "more.c").write_text("int git_later_function(void) { return 1; }\n")
        _git(self.repo, "add", ".")
        _git(self.repo, "commit", "-qm", "two")
        self.second = _git(self.repo, "rev-parse", "HEAD")
        self.extra = base / "extra"
        _write_corpus(self.extra, "ext")
        self.path = os.pathsep.join([str(self.bin), str(VENV_BIN), "/usr/bin", "/bin"])
        self.tools = dict(TOOLS)
        self.config = self.default_config()
        self.write()

    def default_config(self) -> dict:
        wf = self.workflow
        return {
            "seed": 7,
            "queries_per_corpus": 4,
            "min_symbol_length": 4,
            "tools_file": str(self.base / "tools.yaml"),
            "languages_file": str(wf / "config" / "languages.yaml"),
            "astgrep_rules_dir": str(wf / "config" / "astgrep"),
            "baseline": "rg",
            "timeout_seconds": 30,
            "resamples": 1000,
            **FIXTURE_STATISTICS,
            "timing": {"queries": 1, "warmups": 0, "repeats": 1, "budget_seconds": 1},
            "corpora": {
                "loc": {"source": {"kind": "local", "path": str(self.local)}},
                "gitc": {"source": {"kind": "git", "url": str(self.repo), "revision": self.first}},
            },
        }

    def write(self) -> None:
        (self.base / "tools.yaml").write_text(yaml.safe_dump({"tools": self.tools}))
        (self.workdir / "config.yaml").write_text(yaml.safe_dump(self.config))

    def snakemake(self, *args: str, path: str | None = None) -> subprocess.CompletedProcess:
        cmd = [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(self.workflow / "Snakefile"),
            "-d",
            str(self.workdir),
            "--configfile",
            str(self.workdir / "config.yaml"),
            *NO_WORKFLOW_PROFILE,
            "--cores",
            "2",
            *args,
            # Last: it takes any number of values, so a target after it would be one.
            "--resources",
            "timing_slot=1",
        ]
        env = {**os.environ, "PATH": path or self.path}
        env.pop("PYTHONPATH", None)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)

    def planned(self, path: str | None = None) -> set[Job]:
        proc = self.snakemake("-n", "--printshellcmds", path=path)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return planned_jobs(proc.stdout + proc.stderr)

    @contextmanager
    def edited(self, path: Path, text: str) -> Iterator[None]:
        """Replace a file's content for the duration of one dry run."""
        old = path.read_bytes()
        path.write_text(text)
        try:
            yield
        finally:
            path.write_bytes(old)

    def reset(self) -> None:
        self.tools = dict(TOOLS)
        self.config = self.default_config()
        self.write()


JOB_HEADER = re.compile(r"^(?:local)?(?:checkpoint|rule) (\S+):$")


def planned_jobs(output: str) -> set[Job]:
    """(rule, sorted wildcards) of every job a `snakemake -n` run lists."""
    jobs: set[Job] = set()
    rule: str | None = None
    wildcards: tuple[tuple[str, str], ...] = ()
    for line in [*output.splitlines(), ""]:
        header = JOB_HEADER.match(line.strip())
        if header or not line.strip():
            if rule is not None:
                jobs.add((rule, wildcards))
            rule, wildcards = (header.group(1), ()) if header else (None, ())
        elif rule is not None and line.strip().startswith("wildcards:"):
            pairs = line.strip().removeprefix("wildcards:").split(", ")
            wildcards = tuple(sorted(tuple(p.strip().split("=", 1)) for p in pairs))
    return jobs


def job(rule: str, **wildcards: str) -> Job:
    return (rule, tuple(sorted(wildcards.items())))


CORPORA = ("gitc", "loc")
DOWNSTREAM = {
    *(job("score", corpus=c, track="code") for c in CORPORA),
    *(job("inference", corpus=c, track="code") for c in CORPORA),
    *(job("power", corpus=c, track="code") for c in CORPORA),
    *(job("by_language", corpus=c, track="code") for c in CORPORA),
    *(job("filter_rank", corpus=c, track="code") for c in CORPORA),
    *(job("ties", corpus=c, track="code") for c in CORPORA),
    *(job("calibration", corpus=c, track="code") for c in CORPORA),
    *(job("agent_cost", corpus=c, track="code") for c in CORPORA),
    job("by_language_pooled", track="code"),
    job("pooled", track="code"),
    job("ablations"),
    job("calibration_status"),
    job("run_status"),
    job("report"),
    job("all"),
}


def tool_jobs(tool: str, corpora: tuple[str, ...] = CORPORA) -> set[Job]:
    """A tool's own work on each corpus: its record, its quality runs, its timing."""
    return {
        job("resolve_tool", tool=tool),
        *(job("search", corpus=c, track="code", tool=tool) for c in corpora),
        *(job("run_metadata", corpus=c, track="code", tool=tool) for c in corpora),
        *(job("timing", corpus=c, tool=tool) for c in corpora),
    }


@pytest.fixture(scope="module")
def fixture(tmp_path_factory) -> Fixture:
    fx = Fixture(tmp_path_factory.mktemp("reruns"))
    proc = fx.snakemake()
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert fx.planned() == set()
    return fx


@pytest.fixture
def fx(fixture: Fixture) -> Iterator[Fixture]:
    yield fixture
    fixture.reset()


def test_parser_reads_rules_and_wildcards():
    text = (
        "rule search:\n    input: a\n    wildcards: corpus=x, track=code, tool=rg\n\n"
        "localrule all:\n    input: b\n\n"
    )
    assert planned_jobs(text) == {job("search", corpus="x", track="code", tool="rg"), job("all")}


# The file-set audit has a row for every tool (`not audited` for one without a listing, as
# wrap and grep are here), so adding or removing a tool redoes each corpus's audit: a table.
AUDITS = {job("fileset_audit", corpus=c) for c in CORPORA}


def test_adding_a_tool_reruns_only_that_tools_jobs(fx):
    fx.tools["wrap2"] = {**TOOLS["wrap"]}
    fx.write()
    assert fx.planned() == tool_jobs("wrap2") | DOWNSTREAM | AUDITS | {job("tools_json")}


def test_removing_a_tool_reruns_only_the_comparisons(fx):
    del fx.tools["grep"]
    fx.write()
    assert fx.planned() == DOWNSTREAM | AUDITS | {job("tools_json")}


def test_a_tool_on_another_track_adds_no_job_to_this_one(fx):
    """tools.yaml `tracks`: a usage-track tool (that track is not measured on these corpora)
    gets its record and nothing of the code track: no search, timing or comparison."""
    fx.tools["wrap2"] = {**TOOLS["wrap"], "tracks": ["usage"]}
    fx.write()
    planned = fx.planned()
    # the pooled leaderboard names it among the tools that do not apply to the code track
    assert (
        planned
        == {job("resolve_tool", tool="wrap2"), job("tools_json"), job("report")}
        | {job("all"), job("pooled", track="code")}
        | AUDITS
    )


def test_taking_a_tool_off_the_code_track_reruns_the_comparisons_only(fx):
    """Its code-track searches and timing leave the workflow; nothing of it reruns."""
    fx.tools["wrap"] = {**TOOLS["wrap"], "tracks": ["docs", "usage"]}
    fx.write()
    assert fx.planned() == DOWNSTREAM


def test_upgrading_one_binary_reruns_only_that_tool(fx):
    with fx.edited(fx.bin / "wrap", WRAPPER + "# 2.0\n"):
        assert fx.planned() == tool_jobs("wrap") | DOWNSTREAM | {job("tools_json")}


def test_same_binaries_in_another_path_order_rerun_nothing(fx):
    reordered = os.pathsep.join(reversed(fx.path.split(os.pathsep)))
    assert fx.planned(path=reordered) == set()


def corpus_jobs(corpus: str, tools: tuple[str, ...] = ("grep", "hay", "rg", "wrap")) -> set[Job]:
    """Everything of one corpus, from its fetch to its inference."""
    return {
        job("fetch_corpus", corpus=corpus),
        job("symbols_shard", corpus=corpus, shard="0", shards="1"),
        job("symbols", corpus=corpus),
        job("queries", corpus=corpus),
        job("gt_audit", corpus=corpus),
        # the docs track's queries; its runs follow only with enough of them (a checkpoint)
        job("doc_headings", corpus=corpus),
        job("doc_queries", corpus=corpus),
        # the heading words, the docs track's second token class (track words), likewise
        job("word_queries", corpus=corpus),
        # the usage track's, likewise (too few uses here: it is not measured)
        job("uses", corpus=corpus),
        job("usage_queries", corpus=corpus),
        job("list_files", corpus=corpus, tool="rg"),
        job("fileset_audit", corpus=corpus),
        job("score", corpus=corpus, track="code"),
        job("inference", corpus=corpus, track="code"),
        job("power", corpus=corpus, track="code"),
        job("by_language", corpus=corpus, track="code"),
        job("filter_rank", corpus=corpus, track="code"),
        job("ties", corpus=corpus, track="code"),
        job("calibration", corpus=corpus, track="code"),
        job("agent_cost", corpus=corpus, track="code"),
        job("false_firings", corpus=corpus),
        *(job("search", corpus=corpus, track="code", tool=t) for t in tools),
        *(job("run_metadata", corpus=corpus, track="code", tool=t) for t in tools),
        *(job("timing", corpus=corpus, tool=t) for t in tools),
    }


# a corpus's new scores also change the per-language results pooled over corpora
REPORT = {
    job("calibration_status"),
    job("run_status"),
    job("report"),
    job("all"),
    job("by_language_pooled", track="code"),
    job("pooled", track="code"),
    job("ablations"),
    job("false_firing_words"),
}


def test_adding_a_corpus_reruns_only_that_corpus(fx):
    fx.config["corpora"]["extra"] = {"source": {"kind": "local", "path": str(fx.extra)}}
    fx.write()
    assert fx.planned() == corpus_jobs("extra") | REPORT


def test_changing_one_corpus_revision_reruns_only_that_corpus(fx):
    fx.config["corpora"]["gitc"]["source"]["revision"] = fx.second
    fx.write()
    assert fx.planned() == corpus_jobs("gitc") | REPORT


def test_editing_one_file_of_a_local_directory_reruns_only_that_corpus(fx):
    ring = fx.local / "src" / "ring.c"
    with fx.edited(ring, ring.read_text() + "int loc_added(void) { return 2; }\n"):
        assert fx.planned() == corpus_jobs("loc") | REPORT


def _query_jobs() -> set[Job]:
    """What follows from a new query sample on every corpus."""
    return (
        # every track's samples depend on the seed and the sample size
        {
            job(rule, corpus=c)
            for c in CORPORA
            for rule in ("queries", "gt_audit", "doc_queries", "word_queries", "usage_queries")
        }
        | {job("search", corpus=c, track="code", tool=t) for c in CORPORA for t in TOOLS}
        | {job("run_metadata", corpus=c, track="code", tool=t) for c in CORPORA for t in TOOLS}
        | {job("timing", corpus=c, tool=t) for c in CORPORA for t in TOOLS}
        | DOWNSTREAM
    )


def test_changing_the_seed_redraws_the_queries_and_reruns_what_follows(fx):
    fx.config["seed"] = 8
    fx.write()
    assert fx.planned() == _query_jobs()


def test_changing_queries_per_corpus_redraws_the_queries_and_reruns_what_follows(fx):
    fx.config["queries_per_corpus"] = 3
    fx.write()
    # The seed is not an input of score, so the new sample is what reruns everything after it.
    assert fx.planned() == _query_jobs()


def test_changing_the_shard_count_reruns_the_symbol_pass_and_what_follows(fx):
    fx.config["symbols"] = {"shards": 3}
    fx.write()
    # symbols.tsv comes out byte-identical, but Snakemake reruns what reads a rewritten file.
    kept = {"fetch_corpus", "list_files", "fileset_audit", "doc_headings", "symbols_shard", "uses"}
    assert fx.planned() == REPORT | {
        *(j for c in CORPORA for j in corpus_jobs(c) if j[0] not in kept),
        *(
            job("symbols_shard", corpus=c, shard=str(i), shards="3")
            for c in CORPORA
            for i in range(3)
        ),
    }


def test_changing_hays_code_reruns_only_hay(fx):
    rank = fx.workflow / "searchbench" / "hay" / "rank.py"
    with fx.edited(rank, rank.read_text() + "\n# a change\n"):
        assert fx.planned() == tool_jobs("hay") | DOWNSTREAM | {job("tools_json")}


def test_changing_the_report_code_reruns_only_the_report(fx):
    report = fx.workflow / "searchbench" / "report" / "sections" / "skipped.py"
    with fx.edited(report, report.read_text() + "\n# a change\n"):
        assert fx.planned() == {job("report"), job("all")}


def test_changing_the_inference_code_reruns_inference_and_the_report(fx):
    inference = fx.workflow / "searchbench" / "inference.py"
    with fx.edited(inference, inference.read_text() + "\n# a change\n"):
        assert fx.planned() == {
            *(job("inference", corpus=c, track="code") for c in CORPORA),
            # the power simulation uses the inference's own tests
            *(job("power", corpus=c, track="code") for c in CORPORA),
            # so do the per-language results and the A/A calibration
            *(job("by_language", corpus=c, track="code") for c in CORPORA),
            *(job("calibration", corpus=c, track="code") for c in CORPORA),
            # the calibration status reads the calibration (searchbench/calibration.py)
            job("calibration_status"),
            job("by_language_pooled", track="code"),
            # the pooled leaderboard's verdicts use the inference's rule
            job("pooled", track="code"),
            job("ablations"),
            job("report"),
            job("all"),
        }


def test_the_pooled_leaderboard_holds_every_tool_with_its_cost(fx):
    """results/pooled/code.json of the fixture run: the contract's keys, every tool a row
    measured on both corpora, the timing figures the run measured, no index, and the primary
    verdict (hay vs rg) with a forest row per corpus read from that corpus's inference."""
    path = fx.workdir / "results" / "pooled" / "code.json"
    pooled = json.loads(path.read_text())
    assert {"track", "metric", "metric_label", "baseline", "alpha", "resamples", "seed",
            "weighting", "corpora", "leaderboard", "not_applicable", "verdicts",
            "forest"} <= set(pooled)  # fmt: skip
    assert (pooled["track"], pooled["metric"], pooled["baseline"]) == ("code", "rr", "rg")
    assert pooled["corpora"] == ["gitc", "loc"] and pooled["not_applicable"] == []
    board = pooled["leaderboard"]
    assert sorted(r["tool"] for r in board) == sorted(TOOLS)
    # every tool finds every answer first here: one shared rank
    assert [r["rank"] for r in board] == [1, 1, 1, 1]
    assert [r["pooled"] for r in board] == sorted((r["pooled"] for r in board), reverse=True)
    for r in board:
        assert r["corpora"] == 2 and r["queries"] == 8 and r["subset"] == "all"
        assert r["ci_low"] <= r["pooled"] <= r["ci_high"] and 0.0 <= r["pooled"] <= 1.0
        assert r["median_seconds"] > 0 and r["index_seconds"] is None and r["broken"] == []
        if r["tool"] != "rg":
            assert r["wins"] + r["ties"] + r["losses"] == 2
    primary = [v for v in pooled["verdicts"] if v["family"] == "primary"]
    assert [(v["tool"], v["reference"], v["queries"]) for v in primary] == [("hay", "rg", 8)]
    # 8 queries: fewer than min_queries, so no verdict is a claim
    assert primary[0]["verdict"] in ("not evidence", "identical")
    forest = [f for f in pooled["forest"] if (f["tool"], f["reference"]) == ("hay", "rg")]
    inference = json.loads((fx.workdir / "results" / "loc" / "code" / "inference.json").read_text())
    mine = next(c for c in inference["comparisons"] if c["tool"] == "hay" and c["metric"] == "rr"
                and c["subset"] == "all")  # fmt: skip
    assert [f["corpus"] for f in forest] == ["gitc", "loc"]
    assert forest[1]["verdict"] == mine["verdict"] and forest[1]["n"] == mine["n"] == 4
    # rerun: the same bytes (the timing inputs are unchanged), and nothing left to do
    before = path.read_bytes()
    proc = fx.snakemake(str(path.relative_to(fx.workdir)), "--forcerun", "pooled")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert path.read_bytes() == before
    assert fx.planned() == set()
    # the docs track is measured on neither corpus (too few queries): one line says so
    proc = fx.snakemake("-n", "results/pooled/docs.json")
    assert proc.returncode == 1
    assert (
        "results/pooled/docs.json: the docs track is measured on no corpus of this "
        "configuration, so there is nothing to pool"
    ) in proc.stderr


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".snakemake" not in p.parts
    }


def test_a_failed_fetch_keeps_the_last_good_checkout_and_its_results(fx):
    records = {"corpora/gitc/checkout.json", "corpus.json", "files.tsv"}
    before = _snapshot(fx.workdir / "resources") | _snapshot(fx.workdir / "results" / "gitc")
    fx.config["corpora"]["gitc"]["source"]["revision"] = "0" * 40  # no such commit
    fx.write()
    # Twice: Snakemake recorded a failed job's params, so an update() record restored after
    # the first failure made the second run say "Nothing to be done" on the old checkout.
    for _ in range(2):
        proc = fx.snakemake("results/gitc/files.tsv")
        assert proc.returncode != 0
        assert "0000000000" in proc.stdout + proc.stderr
        after = _snapshot(fx.workdir / "resources") | _snapshot(fx.workdir / "results" / "gitc")
        # the last good tree and every result made from it are kept as they were; the
        # fetch's own three records are gone, so no run takes that tree for the new pin
        assert after == {k: v for k, v in before.items() if k not in records}
    # back at the good pin, that corpus is fetched again (and, its checkout being a new
    # directory, redone); no other corpus is.
    fx.reset()
    assert fx.planned() == corpus_jobs("gitc") | REPORT
    assert fx.snakemake().returncode == 0


def _record(fx: Fixture, name: str) -> dict:
    below = name.removeprefix("results/")
    return yaml.safe_load((fx.workdir / "results" / ".written" / f"{below}.json").read_text())


def test_an_edited_intermediate_stops_the_run_and_the_named_command_regenerates_it(fx):
    """Issue 37: one value edited in a scores.tsv flowed into inference.json, and a target
    asking for inference.json alone could say nothing was to be done. Now the run stops before
    any job, in one line naming the file and the command that rewrites it."""
    name = "results/loc/code/scores.tsv"
    scores = fx.workdir / name
    inference = fx.workdir / "results" / "loc" / "code" / "inference.json"
    original, inferred = scores.read_bytes(), inference.read_bytes()
    header, first, *rest = original.decode().split("\n")
    fields = first.split("\t")
    fields[4] = "0" if fields[4] != "0" else "1"  # one rr
    scores.write_text("\n".join([header, "\t".join(fields), *rest]))
    try:
        for targets in (["results/loc/code/inference.json"], []):
            proc = fx.snakemake(*targets)
            output = (proc.stdout + proc.stderr).strip()
            assert proc.returncode == 1, output[-3000:]
            assert output.count("\n") == 0, output[-3000:]
            assert output.startswith(f"{name} was changed after rule score wrote it (sha256 ")
            assert inference.read_bytes() == inferred
        command = output.split("; regenerate it: ")[1].split(" --configfile ")[0]
        assert command == f"snakemake --force {name}"
        proc = fx.snakemake(*command.split()[1:])
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert scores.read_bytes() == original
        assert fx.planned() == set()
    finally:
        scores.write_bytes(original)


def test_a_forced_rerun_rewrites_the_record_and_leaves_nothing_to_do(fx):
    name = "results/loc/code/scores.tsv"
    before = _record(fx, name)
    proc = fx.snakemake("results/loc/code/inference.json", "--forcerun", "score")
    assert proc.returncode == 0, proc.stderr[-3000:]
    after = _record(fx, name)
    assert after["rule"] == "score" and after["sha256"] == before["sha256"]
    assert after["mtime_ns"] != before["mtime_ns"]
    assert fx.planned() == set()
