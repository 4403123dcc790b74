"""Bad configuration stops before any job with one line naming the thing and the fix."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_cli import NO_WORKFLOW_PROFILE

from searchbench.configcheck import config_error_line, did_you_mean, local_path_problem

REPO = Path(__file__).resolve().parent.parent
SCHEMA = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())


def _config(corpus: Path) -> dict:
    return {
        "seed": 7,
        "queries_per_corpus": 3,
        "baseline": "rg",
        "corpora": {"mini": {"source": {"kind": "local", "path": str(corpus)}}},
    }


def test_did_you_mean_names_the_closest_valid_name_only_when_close():
    assert did_you_mean("sed", ["seed", "alpha"]) == " (did you mean `seed`?)"
    assert did_you_mean("zzzz", ["seed", "alpha"]) == ""


def test_a_misspelled_key_is_named_with_its_right_spelling(tmp_path):
    config = _config(tmp_path)
    config["corpora"]["mini"]["sorce"] = config["corpora"]["mini"].pop("source")
    line = config_error_line(config, SCHEMA, "the configuration")
    assert "`corpora.mini.sorce`" in line and "did you mean `source`?" in line


def test_a_misspelled_value_is_named_with_the_closest_allowed_one(tmp_path):
    config = _config(tmp_path)
    config["corpora"]["mini"]["source"]["kind"] = "locl"
    line = config_error_line(config, SCHEMA, "the configuration")
    assert "'locl'" in line and "did you mean `local`?" in line


def test_a_missing_local_path_names_the_closest_sibling(tmp_path):
    (tmp_path / "corpus").mkdir()
    line = local_path_problem("mini", tmp_path / "corpuss")
    assert line and "does not exist" in line and "did you mean `corpus`?" in line
    (tmp_path / "file").write_text("x")
    assert "is not a directory" in (local_path_problem("mini", tmp_path / "file") or "")
    assert local_path_problem("mini", tmp_path / "corpus") is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_local_path_says_so(tmp_path):
    (tmp_path / "corpus").mkdir(mode=0)
    assert "cannot be read" in (local_path_problem("mini", tmp_path / "corpus") or "")


def _tools_with(**changes: dict) -> dict:
    """The shipped tools, with some entries' keys replaced."""
    tools = yaml.safe_load((REPO / "config" / "tools.yaml").read_text())["tools"]
    return {name: {**entry, **changes.get(name, {})} for name, entry in tools.items()}


def _dry_run(tmp_path: Path, config: dict) -> subprocess.CompletedProcess:
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    cmd = [
        *(sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")),
        *("-d", str(tmp_path), "--configfile", str(tmp_path / "config.yaml")),
        *NO_WORKFLOW_PROFILE,
        *("-n", "--cores", "1"),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda c, p: c.update(baseline="rgg"),
            "tool 'rgg' is not configured (did you mean `rg`?)",
        ),
        (lambda c, p: c.update(sed=1), "unknown key `sed` (did you mean `seed`?)"),
        (
            lambda c, p: c.update(primary=["hya"]),
            "tool 'hya' is not configured (did you mean `hay`?)",
        ),
        (
            lambda c, p: c.update(primary=["rg"]),
            "primary names the baseline 'rg', which is not compared with itself",
        ),
        (
            lambda c, p: c.update(tools=_tools_with(**{"hay-no-path": {"ablation_of": "hya"}})),
            "tool 'hay-no-path' has ablation_of 'hya', which is not another tool in that file",
        ),
        (
            lambda c, p: c.update(tools=_tools_with(ctags={"languages": ["c", "swfit"]})),
            "config error at `tools.ctags.languages`: swfit is not a parsed language",
        ),
        (
            lambda c, p: c.update(tools=_tools_with(**{"cscope-refs": {"tracks": ["usgae"]}})),
            "config error at `tools.cscope-refs.tracks`: usgae is not a track; use names from: "
            "code, docs, words, usage, behaviour",
        ),
        (
            lambda c, p: c.update(tools=_tools_with(**{"global-refs": {"index_argv": ["x"]}})),
            "config error at `tools.global-refs.index_of`: its index_argv differ from global's",
        ),
        (
            lambda c, p: c.update(
                variants={"hay-docs": {"rule": "r", "designed_on": ["mini"], "held_out": ["mini"]}}
            ),
            "config error at `variants.hay-docs`: mini is both designed_on and held_out",
        ),
        (
            lambda c, p: c.update(
                variants={"hay-docs": {"rule": "r", "designed_on": ["mini"], "held_out": ["mnii"]}}
            ),
            "config error at `variants.hay-docs.held_out`: mnii is not a corpus of this "
            "configuration; use names from: mini",
        ),
        (
            lambda c, p: c.update(
                variants={"hay": {"rule": "r", "designed_on": ["mini"], "held_out": ["x"]}}
            ),
            "config error at `variants.hay`: 'hay' is not a tool of the tools file with an "
            "ablation_of",
        ),
        (
            lambda c, p: c.update(skip_tools={"clang": "slow"}),
            "config error at `skip_tools`: tool 'clang' is not configured (did you mean",
        ),
        (
            lambda c, p: c.update(behaviour={"logs": str(p / "no-logs")}),
            "behaviour.logs: ",
        ),
        (
            lambda c, p: c["corpora"]["mini"]["source"].update(path=str(p / "corpuss")),
            "does not exist (did you mean `corpus`?)",
        ),
    ],
)
@pytest.mark.slow
def test_the_workflow_stops_with_that_one_line_and_no_traceback(tmp_path, mutate, expected):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.c").write_text("int ring_reset(void) { return 0; }\n")
    config = _config(tmp_path / "corpus")
    mutate(config, tmp_path)
    proc = _dry_run(tmp_path, config)
    assert proc.returncode == 1
    output = (proc.stdout + proc.stderr).strip()
    assert output.count("\n") == 0 and expected in output, output
    assert not (tmp_path / "results").exists()


def _dry_run_targets(tmp_path: Path, *targets: str) -> subprocess.CompletedProcess:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.c").write_text("int ring_reset(void) { return 0; }\n")
    config = _config(tmp_path / "corpus")
    config["corpora"]["other"] = {"source": {"kind": "local", "path": str(tmp_path / "corpus")}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    cmd = [
        *(sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")),
        *("-d", str(tmp_path), "--configfile", str(tmp_path / "config.yaml")),
        *NO_WORKFLOW_PROFILE,
        *("-n", "--cores", "1", *targets),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (
            "results/mnii/code/inference.json",
            "corpus 'mnii' is not configured (did you mean `mini`?)",
        ),
        ("results/mini/cod/scores.tsv", "track 'cod' is not configured (did you mean `code`?)"),
    ],
)
@pytest.mark.slow
def test_an_unknown_target_lists_the_corpora_and_tracks(tmp_path, target, expected):
    proc = _dry_run_targets(tmp_path, target)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    offered = "corpora: mini, other; tracks: code, docs, usage, words"
    assert expected in last and offered in last, proc.stderr[-2000:]
    assert "No rule to produce" not in proc.stderr


@pytest.mark.slow
def test_one_target_brings_a_whole_corpus_up_to_date_and_nothing_else(tmp_path):
    proc = _dry_run_targets(tmp_path, "results/mini/done.txt")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    made_files = ("code/inference.json", "code/gt_audit_summary.tsv", "fileset_audit.tsv")
    for made in (*made_files, "timing/rg.tsv"):
        assert f"results/mini/{made}" in out, made
    assert "results/other/" not in out


@pytest.mark.slow
def test_a_skipped_tool_is_not_run_and_is_listed_with_its_reason(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.c").write_text("int ring_reset(void) { return 0; }\n")
    config = _config(tmp_path / "corpus")
    config["skip_tools"] = {"grep": "kept out for this test"}
    proc = _dry_run(tmp_path, config)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "code/runs/rg.run" in proc.stdout and "code/runs/grep.run" not in proc.stdout
    assert "results/tools/grep.json" in proc.stdout  # its record says why (tools skipped)


# Issue 37 item 7: errors that came late or named the wrong fix.


def _snakemake(workdir: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    cmd = [
        *(sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")),
        *("-d", str(workdir), *NO_WORKFLOW_PROFILE, "--cores", "1", *args),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir)


@pytest.mark.slow
def test_a_run_in_another_directory_reads_the_files_its_checks_read(tmp_path):
    """`--directory OTHER` with the default side-file names (config/languages.yaml, relative):
    the checks found the workflow's copies, and the first job must read the same ones."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.c").write_text("int ring_reset(void) { return 0; }\n")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(_config(tmp_path / "corpus")))
    proc = _snakemake(
        tmp_path, "results/mini/files.tsv", "--configfile", str(tmp_path / "config.yaml")
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "a.c" in (tmp_path / "results" / "mini" / "files.tsv").read_text()


@pytest.mark.slow
def test_without_a_configfile_another_directory_runs_the_workflows_default(tmp_path):
    proc = _snakemake(tmp_path, "-n", "results/tools.json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "tools_json" in proc.stdout


@pytest.mark.slow
def test_a_yaml_error_in_the_default_configuration_names_file_line_and_column(tmp_path):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(
        "seed: 7\nqueries_per_corpus: [3\nbaseline: rg\n"
    )
    proc = _snakemake(tmp_path, "-n")
    assert proc.returncode == 1
    output = (proc.stdout + proc.stderr).strip()
    assert output == (
        "config error: config/config.yaml:3:9: not valid YAML: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence begun at 2:21); fix the file"
    ), output


@pytest.mark.slow
def test_a_parsable_target_after_configfile_stops_with_the_order_to_use(tmp_path):
    """`--configfile my.yaml results/...`: argparse gives the target to --configfile; one that
    parses as YAML (a run.yaml) would be merged into the configuration."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "my.yaml").write_text(yaml.safe_dump(_config(tmp_path / "corpus")))
    (tmp_path / "results" / "mini").mkdir(parents=True)
    (tmp_path / "results" / "mini" / "x.run.yaml").write_text("tool: rg\n")
    args = ("-n", "--configfile", str(tmp_path / "my.yaml"), "results/mini/x.run.yaml")
    proc = _snakemake(tmp_path, *args)
    assert proc.returncode == 1
    assert (proc.stdout + proc.stderr).strip() == (
        "config error: --configfile took results/mini/x.run.yaml as a config file (it reads every "
        "name after it, up to the next option): put targets before --configfile, or write "
        "--configfile=my.yaml"
    )


def _preflight(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "searchbench.preflight", *args]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=60)


@pytest.mark.parametrize(
    ("files", "args", "expected"),
    [
        (  # Snakemake: a FileNotFoundError traceback
            {},
            ("--cores", "1", "--configfile", "mine.yaml"),
            "config error: config file mine.yaml does not exist; fix the path "
            "(config/ holds config.yaml, kernel.yaml and seed.yaml)",
        ),
        (  # Snakemake: "Config file is not valid JSON or YAML." (no file, no line)
            {"mine.yaml": "seed: 7\ncorpora:\n  a: {source: x\n  b: 1\n"},
            ("--configfile", "mine.yaml", "-n"),
            "config error: mine.yaml:4:4: not valid YAML: expected ',' or '}', but got ':' "
            "(while parsing a flow mapping begun at 3:6); fix the file",
        ),
        (  # Snakemake: a FileNotFoundError traceback naming the target
            {"mine.yaml": "seed: 7\n"},
            ("--configfile", "mine.yaml", "results/mini/done.txt"),
            "config error: --configfile took results/mini/done.txt as a config file (it reads "
            "every name after it, up to the next option): put targets before --configfile, "
            "or write --configfile=mine.yaml",
        ),
        (  # a list at the top level: Snakemake says "keys at top level", naming no file
            {"mine.yaml": "- seed\n"},
            ("--configfile=mine.yaml",),
            "config error: mine.yaml is not a configuration (its top level is no mapping of "
            "keys such as seed and corpora); see config/config.yaml",
        ),
    ],
)
def test_config_files_snakemake_cannot_read_are_one_line_before_it_runs(
    tmp_path, files, args, expected
):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc = _preflight(tmp_path, *args)
    assert proc.returncode == 1
    assert proc.stderr.strip() == expected and not proc.stdout


@pytest.mark.slow
def test_good_config_files_and_targets_before_them_pass_the_preflight(tmp_path):
    (tmp_path / "mine.yaml").write_text("seed: 7\n")
    for args in (
        ("results/mini/done.txt", "--configfile", "mine.yaml", "--cores", "2"),
        ("--configfile=mine.yaml", "results/mini/done.txt"),
        ("--configfile", "mine.yaml", "--", "results/mini/done.txt"),
        ("--cores", "1"),
    ):
        proc = _preflight(tmp_path, *args)
        assert proc.returncode == 0 and not proc.stderr, (args, proc.stderr)


@pytest.mark.slow
def test_a_track_the_corpus_does_not_measure_stops_with_why(tmp_path):
    """results/mini/docs/inference.json for a corpus with no documentation: its queries are
    drawn (none), then the run stops naming the track and why; it ran searches on no query
    and failed in inference with "set 'baseline'"."""
    config = _config(tmp_path / "corpus")
    config["tools"] = {k: v for k, v in _tools_with().items() if k in ("rg", "hay")}
    config["primary"] = ["hay"]
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.c").write_text("int ring_reset(void) { return 0; }\n")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    target = "results/mini/docs/inference.json"
    expected = (
        "the docs track is not measured on corpus mini: 0 docs queries drawn, fewer than "
        "docs.min_queries (30), so no tool runs on it (results/mini/docs/funnel.tsv says where "
        "candidates were lost)"
    )
    first = _snakemake(tmp_path, target, "--configfile", "config.yaml", "--cores", "2")
    assert first.returncode == 1
    assert expected in first.stderr.splitlines(), first.stderr[-3000:]
    assert not (tmp_path / "results" / "mini" / "docs" / "runs").exists()
    assert not (tmp_path / "results" / "mini" / "docs" / "scores.tsv").exists()
    # once drawn, it stops before any job with that line last
    again = _snakemake(tmp_path, target, "--configfile", "config.yaml")
    assert again.returncode == 1 and again.stderr.strip().splitlines()[-1] == expected


@pytest.mark.slow
def test_the_behaviour_track_without_transcripts_stops_with_why(tmp_path):
    proc = _dry_run_targets(tmp_path, "results/mini/behaviour/inference.json")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "the behaviour track is not measured on corpus mini: behaviour.logs is not set "
        "(docs/behaviour.md); its tracks: code, docs, words, usage"
    ), proc.stderr[-2000:]
