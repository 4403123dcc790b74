"""Bad configuration stops before any job with one line naming the thing and the fix."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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
        *("--workflow-profile", "none", "-n", "--cores", "1"),
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
            "code, docs, usage, behaviour",
        ),
        (
            lambda c, p: c.update(tools=_tools_with(**{"global-refs": {"index_argv": ["x"]}})),
            "config error at `tools.global-refs.index_of`: its index_argv differ from global's",
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
        *("--workflow-profile", "none", "-n", "--cores", "1", *targets),
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
def test_an_unknown_target_lists_the_corpora_and_tracks(tmp_path, target, expected):
    proc = _dry_run_targets(tmp_path, target)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    offered = "corpora: mini, other; tracks: code, docs, usage"
    assert expected in last and offered in last, proc.stderr[-2000:]
    assert "No rule to produce" not in proc.stderr


def test_one_target_brings_a_whole_corpus_up_to_date_and_nothing_else(tmp_path):
    proc = _dry_run_targets(tmp_path, "results/mini/done.txt")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    made_files = ("code/inference.json", "code/gt_audit_summary.tsv", "fileset_audit.tsv")
    for made in (*made_files, "timing/rg.tsv"):
        assert f"results/mini/{made}" in out, made
    assert "results/other/" not in out


def test_a_skipped_tool_is_not_run_and_is_listed_with_its_reason(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.c").write_text("int ring_reset(void) { return 0; }\n")
    config = _config(tmp_path / "corpus")
    config["skip_tools"] = {"grep": "kept out for this test"}
    proc = _dry_run(tmp_path, config)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "code/runs/rg.run" in proc.stdout and "code/runs/grep.run" not in proc.stdout
    assert "results/tools/grep.json" in proc.stdout  # its record says why (tools skipped)
