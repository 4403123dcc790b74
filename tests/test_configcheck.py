"""Issue 8 item 8: configuration values that passed the schema and failed late."""

import shutil
from pathlib import Path

import pytest
import yaml

from searchbench.configcheck import (
    first_config_error,
    index_of_problem,
    load_side_file,
    load_yaml_unique,
    query_kinds_problem,
    rule_kinds,
    rules_problem,
    tool_languages_problem,
    tool_tracks_problem,
)
from searchbench.fileset import load_languages
from searchbench.measures import TRACKS

REPO = Path(__file__).resolve().parent.parent
SCHEMA = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
RULES = REPO / "config" / "astgrep"
LANGUAGES = load_languages(REPO / "config" / "languages.yaml")


def _config(**changes) -> dict:
    config = {"corpora": {"mini": {"source": {"kind": "local", "path": "."}}}}
    config.update(changes)
    return config


@pytest.mark.slow
def test_the_shipped_configurations_are_strictly_valid():
    for name in ("config.yaml", "kernel.yaml", "seed.yaml", "first-run.yaml"):
        data = load_yaml_unique(REPO / "config" / name)
        assert first_config_error(data, SCHEMA, name) is None, name
        kinds = data.get("query_kinds", [])
        assert query_kinds_problem(kinds, rule_kinds(RULES, LANGUAGES)) is None, name


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"alpha": float("nan")}, "alpha"),
        ({"timeout_seconds": float("inf")}, "timeout_seconds"),
        ({"seed": 7.0}, "seed"),
        ({"resamples": 2000.0}, "resamples"),
        ({"timing": {"budget_seconds": float("nan")}}, "timing.budget_seconds"),
    ],
)
def test_nan_and_integral_floats_are_refused(changes, key):
    line = first_config_error(_config(**changes), SCHEMA, "cfg")
    assert line is not None and f"at `{key}`" in line and "\n" not in line


def test_a_source_without_kind_is_reported_as_missing_kind():
    config = {"corpora": {"mini": {"source": {"path": "."}}}}
    line = first_config_error(config, SCHEMA, "cfg")
    assert "at `corpora.mini.source.kind`" in line and "'kind' is a required property" in line


def test_duplicate_yaml_keys_are_refused(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("seed: 1\nqueries_per_corpus: 3\nseed: 2\n")
    with pytest.raises(
        ValueError, match="config.yaml:3:1: not valid YAML: key 'seed' appears twice; keep one"
    ):
        load_yaml_unique(path)
    path.write_text("tools:\n  rg: {binary: rg, binary: grep}\n")
    with pytest.raises(ValueError, match="key 'binary' appears twice"):
        load_side_file(str(path), tmp_path)


def test_missing_rules_folder_and_missing_language_rules_are_one_line(tmp_path):
    line = rules_problem(tmp_path / "nowhere", LANGUAGES)
    assert "astgrep_rules_dir" in line and "nowhere" in line
    for rules in RULES.glob("*.yml"):
        shutil.copy(rules, tmp_path / rules.name)
    assert rules_problem(tmp_path, LANGUAGES) is None
    (tmp_path / "go.yml").unlink()
    assert rules_problem(tmp_path, LANGUAGES).startswith("no ast-grep rules for language go")


def test_unknown_query_kind_is_refused_before_any_job():
    kinds = rule_kinds(RULES, LANGUAGES)
    assert {"function", "struct", "method", "class"} <= kinds
    assert query_kinds_problem(["function", "struct"], kinds) is None
    line = query_kinds_problem(["function", "nosuchkind"], kinds)
    assert line.startswith("config error at `query_kinds`: nosuchkind is not a declaration kind")


def test_a_tool_language_must_be_a_parsed_language():
    tools = {"ctags": {"languages": ["c", "rust"]}, "rg": {}}
    assert tool_languages_problem(tools, LANGUAGES) is None
    line = tool_languages_problem({"ctags": {"languages": ["c", "kotlin"]}}, LANGUAGES)
    assert line.startswith("config error at `tools.ctags.languages`: kotlin is not a parsed")
    assert "\n" not in line


def test_the_schema_offers_exactly_the_source_kinds_that_can_be_fetched():
    """A new corpus source kind is a fetch function, its FETCHERS line and its schema branch;
    the schema's kind list must name the same kinds, each with a branch of its own."""
    from searchbench.corpora import FETCHERS

    source = SCHEMA["properties"]["corpora"]["additionalProperties"]["properties"]["source"]
    assert sorted(source["properties"]["kind"]["enum"]) == sorted(FETCHERS)
    branches = [b["if"]["properties"]["kind"]["const"] for b in source["allOf"]]
    assert sorted(branches) == sorted(FETCHERS)


def test_the_reproduce_command_names_workflow_config_files_relative_to_it(tmp_path):
    """A published README said `--configfile /work/wtkernel/config/kernel.yaml`: a path that
    exists only on the machine that ran it."""
    from searchbench.configcheck import reproduce_command

    workflow = tmp_path / "wf"
    (workflow / "config").mkdir(parents=True)
    outside = tmp_path / "mine.yaml"
    assert reproduce_command([], workflow) == "snakemake --cores 8"
    # the default configuration named explicitly (devtools/bench_scale.py does) is the same run
    assert reproduce_command([workflow / "config" / "config.yaml"], workflow) == (
        "snakemake --cores 8"
    )
    assert reproduce_command([workflow / "config" / "kernel.yaml", outside], workflow) == (
        f"snakemake --cores 8 --configfile config/kernel.yaml --configfile {outside}"
    )


def test_an_entry_may_merge_another_and_override_its_keys(tmp_path):
    """tools.yaml's reference-mode entries are `<<: *server` plus what differs."""
    path = tmp_path / "t.yaml"
    path.write_text("a: &x {k: 1, j: 2}\nb:\n  <<: *x\n  k: 3\n")
    assert load_yaml_unique(path) == {"a": {"k": 1, "j": 2}, "b": {"k": 3, "j": 2}}
    path.write_text("a: &x {k: 1}\nb:\n  <<: *x\n  k: 3\n  k: 4\n")
    with pytest.raises(ValueError, match="key 'k' appears twice"):
        load_yaml_unique(path)


def test_a_tools_tracks_must_be_tracks_and_the_baseline_runs_on_every_one():
    tools = yaml.safe_load((REPO / "config" / "tools.yaml").read_text())["tools"]
    assert tool_tracks_problem(tools, TRACKS, "rg") is None
    line = tool_tracks_problem({"x": {"tracks": ["usage", "calls"]}}, TRACKS, "rg")
    assert line == (
        "config error at `tools.x.tracks`: calls is not a track; "
        "use names from: code, docs, words, usage, behaviour"
    )
    line = tool_tracks_problem({"rg": {"tracks": ["code"]}}, TRACKS, "rg")
    assert line.startswith("config error at `tools.rg.tracks`: rg is the baseline")
    assert "\n" not in line


def test_index_of_names_a_tool_that_builds_the_same_index():
    tools = yaml.safe_load((REPO / "config" / "tools.yaml").read_text())["tools"]
    assert index_of_problem(tools) is None
    idx = {"index_binary": "gtags", "index_argv": ["{index_binary}", "{index}"]}
    assert index_of_problem({"a": idx, "b": {**idx, "index_of": "a"}}) is None
    line = index_of_problem({"a": idx, "b": {**idx, "index_of": "c"}})
    assert line.startswith("config error at `tools.b.index_of`: 'c' is not another tool")
    line = index_of_problem({"a": idx, "b": {**idx, "index_of": "b"}})
    assert "'b' is not another tool" in line
    other = {**idx, "env": {"GTAGSROOT": "/x"}, "index_of": "a"}
    assert "its env differ from a's" in index_of_problem({"a": idx, "b": other})
