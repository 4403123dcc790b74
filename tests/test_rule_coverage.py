"""The declaration-kind table (config/astgrep/coverage.yaml) against the rules it describes.

A kind with no rule makes a name look declared once when it is not, so the table must list
every category for every parsed language, name only rules that exist, list every rule, and
its examples must be recorded (or not) exactly as it says.
"""

from pathlib import Path

import pytest
import yaml

from searchbench import symbols as sym
from searchbench.fileset import load_languages, scan_files

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "config" / "astgrep"
LANGUAGES = load_languages(REPO / "config" / "languages.yaml")
COVERAGE = yaml.safe_load((RULES / "coverage.yaml").read_text(encoding="utf-8"))
PARSED = sorted(LANGUAGES["parsed"])


def entries(language: str) -> list[dict]:
    """The language's rows with `{lang}` in rule ids resolved (tsx shares typescript's)."""
    rows = []
    for entry in COVERAGE["languages"][language]:
        rule = entry.get("rule")
        rows.append({**entry, "rule": rule.replace("{lang}", language) if rule else None})
    return rows


def rule_ids(language: str) -> set[str]:
    text = sym.load_rules(RULES, LANGUAGES)[language]
    return {str(doc["id"]) for doc in yaml.safe_load_all(text) if doc}


def test_every_parsed_language_has_a_table():
    assert sorted(COVERAGE["languages"]) == PARSED


@pytest.mark.parametrize("language", PARSED)
def test_every_category_is_covered_or_explained(language):
    categories = {e["category"] for e in entries(language)}
    assert categories == set(COVERAGE["categories"])
    for entry in entries(language):
        assert entry["rule"] or entry.get("why"), entry


@pytest.mark.parametrize("language", PARSED)
def test_table_and_rule_files_name_the_same_rules(language):
    listed = {e["rule"] for e in entries(language) if e["rule"]}
    assert listed == rule_ids(language)


@pytest.mark.parametrize("language", PARSED)
def test_every_rule_has_an_example(language):
    exemplified = {e["rule"] for e in entries(language) if e["rule"] and e.get("example")}
    assert exemplified == rule_ids(language)


def examples() -> list[tuple[str, int, dict]]:
    return [
        (language, i, entry)
        for language in PARSED
        for i, entry in enumerate(entries(language))
        if entry.get("example")
    ]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, set[tuple[str, str]]]:
    """Every example in its own file, one scan: file -> {(name, rule)}."""
    root = tmp_path_factory.mktemp("coverage")
    for language, i, entry in examples():
        extension = LANGUAGES["parsed"][language]["extensions"][0]
        (root / f"{language}_{i}.{extension}").write_text(entry["example"] + "\n")
    rows, unseen = sym.scan_symbols(
        root, scan_files(root, LANGUAGES), RULES, LANGUAGES, 4_000_000, 2
    )
    assert not unseen
    found: dict[str, set[tuple[str, str]]] = {}
    for row in rows:
        found.setdefault(row.path, set()).add((row.symbol, row.rule))
    return found


@pytest.mark.parametrize(
    "language,index,entry",
    examples(),
    ids=[f"{lang}-{e['name']}" for lang, _, e in examples()],
)
def test_example_is_recorded_as_the_table_says(recorded, language, index, entry):
    extension = LANGUAGES["parsed"][language]["extensions"][0]
    found = recorded.get(f"{language}_{index}.{extension}", set())
    if entry["rule"]:
        assert (entry["name"], entry["rule"]) in found
    else:
        assert entry["name"] not in {name for name, _ in found}
