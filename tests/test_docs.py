"""docs/artifacts.md documents exactly the files the rules write (read from the workflow)."""

import re
from pathlib import Path

import pytest
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

REPO = Path(__file__).resolve().parent.parent
DOCUMENTED = re.compile(r"`((?:results|resources|evidence)/[^`]*)`")
# `{corpus,a|b}` -> `{corpus}`: outputs carry the wildcard constraints
CONSTRAINT = re.compile(r"\{(\w+),[^{}]*\}")
# A catch-all that writes nothing (it stops the run with a sentence for an unknown target).
NOT_ARTIFACTS = {"unknown_target"}


@pytest.fixture(scope="module")
def rule_outputs(tmp_path_factory) -> dict[str, str]:
    """Every output pattern of every rule, as Snakemake parsed it, with the rule's name (the
    names, comma-separated and sorted, of the rules that write it for different wildcards:
    search and search_fast_path)."""
    with SnakemakeApi(OutputSettings(quiet=True)) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[REPO / "config" / "config.yaml"]),
            snakefile=REPO / "Snakefile",
            workdir=tmp_path_factory.mktemp("wd"),
        )
        writers: dict[str, set[str]] = {}
        for rule in workflow._workflow.rules:
            if rule.name in NOT_ARTIFACTS:
                continue
            for out in rule.output:
                path = CONSTRAINT.sub(r"{\1}", str(out)).rstrip("/")
                writers.setdefault(path, set()).add(rule.name)
        return {path: ", ".join(sorted(names)) for path, names in writers.items()}


def documented_rows() -> dict[str, str]:
    """path -> rule (or rules, `a, b`), from the table's rows: the rule cell up to any
    parenthesis."""
    rows = {}
    for line in (REPO / "docs" / "artifacts.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and (match := DOCUMENTED.fullmatch(cells[0])):
            rows[match.group(1).rstrip("/")] = cells[1].split("(")[0].strip()
    return rows


@pytest.mark.slow
def test_every_rule_output_is_documented_with_its_rule(rule_outputs):
    rows = documented_rows()
    missing = sorted(set(rule_outputs) - set(rows))
    assert not missing, f"rule outputs not in docs/artifacts.md: {missing}"
    wrong = {p: (rows[p], r) for p, r in rule_outputs.items() if rows[p] != r}
    assert not wrong, f"documented rule differs (documented, actual): {wrong}"


@pytest.mark.slow
def test_every_documented_path_is_a_rule_output(rule_outputs):
    stale = sorted(set(documented_rows()) - set(rule_outputs))
    assert not stale, f"docs/artifacts.md documents paths no rule writes: {stale}"


@pytest.mark.slow
def test_the_check_sees_the_workflow(rule_outputs):
    """The check cannot pass vacuously: it reads the real rules and the real table."""
    assert rule_outputs["results/{corpus}/{track}/scores.tsv"] == "score"
    assert len(rule_outputs) >= 30 and len(documented_rows()) >= 30


@pytest.mark.slow
def test_no_rule_output_is_caught_by_the_unknown_target_rule(rule_outputs):
    """A new per-corpus or run-level file must be known to configcheck (CORPUS_NAMES,
    RUN_NAMES), else the catch-all stops the run with "not configured" (false_firings.tsv
    and index/ both were)."""
    from searchbench.configcheck import unknown_target_pattern
    from searchbench.measures import TRACKS

    caught = re.compile(unknown_target_pattern(["acorpus"], TRACKS))
    examples = {"corpus": "acorpus", "track": "code", "tool": "rg", "run_name": "default"}
    filled = [
        re.sub(r"\{(\w+)\}", lambda m: examples.get(m.group(1), "x"), p).removeprefix("results/")
        for p in rule_outputs
        if p.startswith("results/")
    ]
    assert len(filled) > 30
    assert not [p for p in filled if caught.fullmatch(p)]
    assert caught.fullmatch("acorpus/nonsense.tsv")  # the check itself can fail


# Rules that share another rule's script: the same step over other inputs.
SHARED_SCRIPTS = {
    "doc_queries": "queries",
    "by_language_pooled": "by_language",
    "docs_strata": "by_language",
}
RULE_SCRIPT = re.compile(
    r"^( *)(?:rule|checkpoint) (\w+):\n(?:(?:\1    .*)?\n)*?"
    r'\1    script:\n\1        "\.\./scripts/(\w+)\.py"',
    re.M,
)


def test_every_rule_runs_the_script_of_its_name():
    """`symbols_shard` ran scripts/symbols.py and `symbols` scripts/symbols_gather.py: a rule,
    its script and its log share one name, so each finds the other (issue 35 item 4)."""
    found = {}
    for smk in sorted((REPO / "rules").glob("*.smk")):
        found.update((r, s) for _, r, s in RULE_SCRIPT.findall(smk.read_text(encoding="utf-8")))
    assert len(found) > 30, found
    wrong = {r: s for r, s in found.items() if s != SHARED_SCRIPTS.get(r, r)}
    assert not wrong, wrong
    assert sorted(p.stem for p in (REPO / "scripts").glob("*.py")) == sorted(set(found.values()))


def test_readme_describes_exactly_the_declared_tracks_in_their_order():
    """The docs contract of searchbench/measures.py TRACK_DECLARATIONS: README "Tracks" has one
    bullet per declared track, in its order, naming its results folder; a track declared and
    not described (or described and no longer declared) fails here."""
    from searchbench.measures import TRACK_DECLARATIONS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Tracks\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"^- \*\*(\w+)\*\* \(`results/CORPUS/(\w+)/`", section, re.M)
    assert bullets == [(t.name, t.name) for t in TRACK_DECLARATIONS]


def test_every_optional_track_has_its_checkpoint_and_the_extending_recipe_names_it():
    from searchbench.measures import TRACK_DECLARATIONS

    rules = "".join(p.read_text(encoding="utf-8") for p in (REPO / "rules").glob("*.smk"))
    declared = set(re.findall(r"^checkpoint (\w+):", rules, re.M))
    assert {t.queries_rule for t in TRACK_DECLARATIONS if t.optional} <= declared
    assert "TRACK_DECLARATIONS" in (REPO / "docs" / "extending.md").read_text(encoding="utf-8")
