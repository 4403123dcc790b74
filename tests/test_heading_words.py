"""The docs track's second token class, heading words (track `words`, issue 36 item 2): the
word rule and stop list on real headings, the funnel, and the identifier tokens unchanged."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from searchbench import headings
from searchbench.sampling import QUERY_COLUMNS, frame_tsv_text, read_symbols, select_queries
from searchbench.word_queries import select_words, word_candidates

ROOT = Path(__file__).parent / "fixtures" / "docs"
CONFIG = Path(__file__).parent.parent / "config"
MARKUPS = {"markdown": [".md"], "rst": [".rst"], "asciidoc": [".adoc"]}

# Section titles of click 8.1's docs/options.rst and docs/why.rst, as written there.
CLICK_OPTIONS = """\
Options
=======

Name Your Options
-----------------

Counting
--------

Boolean Flags
-------------

Dynamic Defaults for Prompts
----------------------------

Callbacks and Eager Options
---------------------------

Values from Environment Variables
---------------------------------

Other Prefix Characters
-----------------------

The ``--count`` Option
----------------------
"""
CLICK_WHY = """\
Why Click?
==========

Why not Argparse?
-----------------

Why not Docopt etc.?
--------------------

Why No Auto Correction?
-----------------------

Counting Examples
-----------------
"""


@pytest.fixture(scope="module")
def config() -> dict:
    return yaml.safe_load((CONFIG / "docs_tokens.yaml").read_text())


@pytest.fixture(scope="module")
def rules(config):
    return headings.token_rules(config["tokens"])


@pytest.fixture(scope="module")
def word(config):
    return headings.word_rule(config["words"])


@pytest.fixture
def click(tmp_path: Path, rules, word):
    (tmp_path / "options.rst").write_text(CLICK_OPTIONS)
    (tmp_path / "why.rst").write_text(CLICK_WHY)
    (tmp_path / "notes.txt").write_text("Prompts are asked before the Callbacks run.\n")
    paths = ["notes.txt", "options.rst", "why.rst"]
    return tmp_path, headings.scan_documents(tmp_path, paths, MARKUPS, [".txt"], rules, word)


def test_word_rule_on_real_headings_leaves_identifiers_and_punctuation_out(rules, word):
    def plain(text: str, code: tuple[str, ...] = ()) -> list[str]:
        return headings.heading_words(headings.Heading(1, text, code), rules, word)

    assert plain("Dynamic Defaults for Prompts") == ["Dynamic", "Defaults", "for", "Prompts"]
    assert plain("Why not Docopt etc.?") == ["Why", "not", "Docopt", "etc"]
    # `--count` is an identifier token (flag), so never a heading word; `Option` is
    assert plain("The --count Option", ("--count",)) == ["The", "Option"]
    # an inline-code word is the identifier class's; a plain `fixture` is a word
    assert plain("fixture and fixture", ("fixture",)) == ["and"]
    assert plain("HTTP APIs, don't re-use v2") == ["HTTP", "APIs"]


def test_stop_words_and_keys(config, word):
    assert headings.word_key("Fixtures") == headings.word_key("fixture") == "fixture"
    assert headings.word_key("Caching") == "caching"
    assert {"introduction", "example", "with", "from"} <= word.stop
    listed = [w for group in config["words"]["stop"] for w in group["words"]]
    keys = [headings.word_key(w) for w in listed]
    assert len(keys) == len(set(keys)), "a stop word is listed twice"
    assert all(group["why"].strip() for group in config["words"]["stop"])


def test_identifier_tokens_do_not_change_when_words_are_read(rules, word):
    """The docs track's identifier tokens and its sample are byte-identical with or without
    the heading-word class."""
    paths = sorted(p.name for p in ROOT.iterdir())
    before, unseen_before = headings.scan_headings(ROOT, paths, MARKUPS, [".txt"], rules)
    after, unseen_after, words = headings.scan_documents(
        ROOT, paths, MARKUPS, [".txt"], rules, word
    )
    assert before.equals(after) and unseen_before.equals(unseen_after)
    assert set(words["kind"]) == {headings.WORD_KIND} and not words.empty

    def sample(table: pd.DataFrame) -> str:
        _, drawn = select_queries(
            table,
            unseen_after,
            ROOT,
            min_length=4,
            n=3,
            seed=7,
            corpus="fx",
            unseen_tokens=lambda: headings.tokens_in_documents(ROOT, unseen_after["path"]),
            shape=headings.docs_shape(rules),
            track="docs",
        )
        return frame_tsv_text(drawn, QUERY_COLUMNS)

    assert sample(before) == sample(after)


def test_funnel_on_click_headings(click, word):
    root, (tokens, unseen, words) = click
    unseen_words = {w.decode() for w in headings.tokens_in_documents(root, unseen["path"])}
    funnel, sample = select_words(
        words, word, tokens["symbol"], unseen_words, n=300, seed=20261202, corpus="click"
    )
    assert list(tokens["symbol"]) == ["--count"]
    assert dict(funnel) == {
        "heading-words": 39,  # one row per word and heading line
        "distinct-words": 31,  # by key: `Options` (three headings) and `Option` are one
        "min-length": 24,  # Why, No, not, etc, The, and, for go
        "not-a-stop-word": 20,  # Your, Other, from, Examples go
        "not-an-identifier-token": 20,  # `--count` is the only token; no word shares its key
        "in-one-document": 19,  # `Counting` heads a section in both documents
        "not-in-unseen-files": 17,  # notes.txt holds Prompts and Callbacks
        "sampled": 17,
    }
    drawn = dict(zip(sample["query"], sample["path"], strict=True))
    assert drawn["Argparse"] == "why.rst" and drawn["Boolean"] == "options.rst"
    assert "Counting" not in drawn  # in two documents' headings: no single answer
    assert drawn["Options"] == "options.rst"  # its first heading's form; `Option` is the same
    assert not {"Examples", "from", "Your", "Other"} & set(drawn)  # stop words never are
    assert not {"Prompts", "Callbacks"} & set(drawn)  # an unseen document holds them
    assert sample["qid"].tolist()[:2] == ["click-words-0001", "click-words-0002"]
    assert set(sample["kind"]) == {headings.WORD_KIND}


def test_a_word_an_identifier_token_holds_elsewhere_is_no_word_query(word):
    words = pd.DataFrame(
        [
            ("Fixtures", "heading-word", "rst", "a.rst", "3", "docs-word"),
            ("Caching", "heading-word", "rst", "a.rst", "5", "docs-word"),
            ("caching", "heading-word", "md", "b.md", "9", "docs-word"),
            ("Plugins", "heading-word", "md", "b.md", "2", "docs-word"),
            ("plugins", "heading-word", "md", "b.md", "1", "docs-word"),
        ],
        columns=["symbol", "kind", "language", "path", "line", "rule"],
    )
    funnel, candidates = word_candidates(words, word, ["fixture"], [])
    # `fixture` (an identifier token elsewhere) takes Fixtures; Caching is in two documents;
    # Plugins' first heading writes it in lower case, which is the query
    assert candidates[["query", "path", "line"]].values.tolist() == [["plugins", "b.md", "1"]]
    assert candidates["eligibility"].tolist() == ["exactly-once:1-doc:2-headings"]
    assert dict(funnel)["not-an-identifier-token"] == 2


def test_the_heading_words_file_reads_as_a_symbol_table(tmp_path: Path, click):
    _, (_, _, words) = click
    path = tmp_path / "heading_words.tsv"
    path.write_text(frame_tsv_text(words, list(words.columns)))
    assert read_symbols(path).equals(words)
