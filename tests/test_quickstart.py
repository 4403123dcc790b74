"""Issue 37 item 8: the quick start says what a run costs, offers a small first run, and its
tool recipe is a valid tools entry."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from searchbench.configcheck import first_config_error, load_side_file, load_yaml_unique
from searchbench.tools import specs_from_mapping

REPO = Path(__file__).resolve().parent.parent
SCHEMA = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
TOOLS_SCHEMA = yaml.safe_load((REPO / "config" / "schema" / "tools.schema.yaml").read_text())
FIRST_RUN = REPO / "config" / "first-run.yaml"


def _tools_file(config: dict) -> dict:
    return load_side_file(config["tools_file"], REPO)["tools"]


def test_the_first_run_is_valid_and_uses_the_default_corpora_and_tools_unchanged():
    first = load_yaml_unique(FIRST_RUN)
    default = load_yaml_unique(REPO / "config" / "config.yaml")
    assert first_config_error(first, SCHEMA, "first-run.yaml") is None
    # Two small corpora of the default set, each entry as the default run has it, so the
    # first run's numbers for them are the default run's.
    assert len(first["corpora"]) == 2
    for name, entry in first["corpora"].items():
        assert entry == default["corpora"].get(name), name
    # ... and the same statistics and budgets (calibration had 200 simulations, not 1500)
    same = ("seed", "queries_per_corpus", "min_symbol_length", "baseline", "resamples", "alpha")
    for key in (*same, "calibration", "power", "timeout_seconds", "fast_path_check", "timing"):
        assert first.get(key) == default.get(key), key
    tools = _tools_file(first)
    assert first_config_error({"tools": tools}, TOOLS_SCHEMA, first["tools_file"]) is None
    every = _tools_file(default)
    for name, entry in tools.items():
        assert entry == every.get(name), f"{name} differs from config/tools.yaml"
    assert first["baseline"] in tools and set(first["primary"]) <= set(tools)
    assert not any("build" in entry for entry in tools.values())  # nothing to build first


def _readme_section(title: str) -> str:
    text = (REPO / "README.md").read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_the_readme_tool_recipe_is_a_valid_entry_with_every_required_key(tmp_path):
    section = _readme_section("Adding your tool")
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "one tools entry in the recipe"
    recipe = yaml.safe_load("\n".join(line[3:] for line in blocks[0].splitlines()))
    (name, entry), *rest = recipe["tools"].items()
    assert not rest
    required = TOOLS_SCHEMA["properties"]["tools"]["additionalProperties"]["required"]
    assert set(required) <= set(entry), set(required) - set(entry)
    assert first_config_error(recipe, TOOLS_SCHEMA, "README") is None
    assert specs_from_mapping(recipe["tools"])[name].output == entry["output"]
    # "Only your tools": that entry and rg's in a file, a copy of the first run naming it.
    mine = tmp_path / "my-tools.yaml"
    rg = _tools_file(load_yaml_unique(REPO / "config" / "config.yaml"))["rg"]
    mine.write_text(yaml.safe_dump({"tools": {"rg": rg, name: entry}}))
    run = {**load_yaml_unique(FIRST_RUN), "tools_file": str(mine), "primary": [name]}
    assert f"`primary: [{name}]`" in section
    assert first_config_error(run, SCHEMA, "my-run.yaml") is None
    assert {run["baseline"], *run["primary"]} <= set(_tools_file(run))


def test_bench_alone_starts_nothing_and_names_the_commands_with_their_cost():
    proc = subprocess.run(["bash", str(REPO / "bench")], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "installing" not in proc.stdout + proc.stderr
    for line in (
        "run [snakemake arguments]",
        "about 2 h on 2 cores",
        "config/first-run.yaml",
        "test",
    ):
        assert line in proc.stdout, line


def test_the_quick_start_commands_are_the_ones_bench_runs():
    quick = _readme_section("Quick start (fresh Debian, Python ≥ 3.11, root or sudo)")
    bench = (REPO / "bench").read_text()
    assert "./bench run " in quick and "./bench test " in quick
    assert "./bench run --configfile config/first-run.yaml" in quick
    # the config names are checked (one line each) before Snakemake reads them
    assert re.search(
        r"^\s+run\) setup; python -m searchbench.preflight \"\$@\"; "
        r"run_twice_past_failed_builds \"\$@\" ;;$",
        bench,
        re.M,
    )
    # the tests run on every core, whole files to a worker, in conftest's order
    assert re.search(
        r"^\s+test\) setup; exec python -m pytest -n \"\$\{BENCH_TEST_WORKERS:-auto\}\" "
        r"--dist loadfile --no-loadscope-reorder \"\$@\" ;;$",
        bench,
        re.M,
    )


def test_the_files_run_first_are_test_files_that_exist():
    # a renamed file would silently leave the order, and run last again
    from conftest import HEAVIEST_FIRST

    assert len(set(HEAVIEST_FIRST)) == len(HEAVIEST_FIRST)
    assert [name for name in HEAVIEST_FIRST if not (REPO / "tests" / name).is_file()] == []


def _bench_function(name: str) -> str:
    """One shell function of ./bench, as written there."""
    text = (REPO / "bench").read_text()
    found = re.search(rf"^{name}\(\) {{\n.*?^}}\n", text, re.M | re.S)
    assert found, name
    return found.group(0)


@pytest.mark.parametrize("build_fails", [True, False])
def test_bench_run_goes_on_past_a_failed_build_and_only_then(tmp_path, build_fails):
    """The first snakemake stops on a peer's build (it writes a failed manifest and exits 1):
    `./bench run` says so in one line and runs once more; any other failure is the run's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    manifest = '{\\"status\\": \\"failed\\"}' if build_fails else ""
    fake = bin_dir / "snakemake"
    fake.write_text(
        "#!/bin/sh\n"
        'echo "call $*" >> calls.txt\n'
        "if [ ! -e second ]; then touch second\n"
        f'  if [ -n "{manifest}" ]; then mkdir -p resources/tools/zk; '
        f'printf "{manifest}" > resources/tools/zk/manifest.json; fi\n'
        "  exit 1\nfi\nexit 0\n"
    )
    fake.chmod(0o755)
    script = _bench_function("run_twice_past_failed_builds") + 'run_twice_past_failed_builds "$@"\n'
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script, "bench", "--cores", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
             "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    if build_fails:
        assert proc.returncode == 0 and calls == ["call --cores 2", "call --cores 2"]
        assert proc.stderr.strip() == (
            "bench: a peer's build failed (the line above); running again without it"
        )
    else:
        assert proc.returncode == 1 and calls == ["call --cores 2"] and proc.stderr == ""
