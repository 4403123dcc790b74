"""The docs track's ground truth: headings read by each markup's parser, on fixture documents."""

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from searchbench import headings
from searchbench.errors import BenchError
from searchbench.paths import encode_path
from searchbench.sampling import select_queries

ROOT = Path(__file__).parent / "fixtures" / "docs"
CONFIG = Path(__file__).parent.parent / "config"
MARKUPS = {"markdown": [".md"], "rst": [".rst"], "asciidoc": [".adoc"]}


@pytest.fixture(scope="module")
def rules():
    return headings.token_rules(yaml.safe_load((CONFIG / "docs_tokens.yaml").read_text())["tokens"])


@pytest.fixture(scope="module")
def scanned(rules):
    paths = sorted(p.name for p in ROOT.iterdir())
    return headings.scan_headings(ROOT, paths, MARKUPS, [".txt"], rules)


def tokens_by_file(table: pd.DataFrame) -> dict[str, set[str]]:
    return {path: set(group["symbol"]) for path, group in table.groupby("path")}


def test_each_markup_yields_its_headings_and_only_them(scanned):
    table, _ = scanned
    assert tokens_by_file(table) == {
        # front matter, fenced and indented code and HTML comments are not headings
        "guide.md": {"TestScheduler", "hay_rank", "cores", "--sort=path", "Shared_Heading_Name"},
        # literal blocks, code blocks, admonitions and Sphinx directives are not headings;
        # `.. include::` is never followed
        "manual.rst": {"tmp_path", "pytest.fixture", "Shared_Heading_Name"},
        # listing and comment blocks are not headings; one- and two-line titles are
        "book.adoc": {"Book_Title", "retry_limit", "Two_Line_Title", "grep_searcher::Searcher"},
        "other.md": {"other_doc_token"},
    }
    lines = {(r.path, r.symbol): r.line for r in table.itertuples()}
    assert lines[("guide.md", "hay_rank")] == "6"
    assert lines[("guide.md", "cores")] == "17"
    assert lines[("manual.rst", "tmp_path")] == "1"
    assert lines[("manual.rst", "pytest.fixture")] == "8"
    assert lines[("book.adoc", "Two_Line_Title")] == "14"
    assert set(table["rule"]) >= {"docs-flag", "docs-dotted", "docs-snake", "docs-camel"}
    assert table.loc[table["symbol"] == "cores", "rule"].item() == "docs-code"


def test_unreadable_and_unparsed_documents_are_unseen(scanned):
    _, unseen = scanned
    assert unseen.values.tolist() == [
        ["broken.md", "not-utf8", "24"],
        ["notes.txt", "unparsed-docs-format", "38"],
    ]


def test_duplicates_across_files_and_words_in_unseen_documents_leave_the_set(scanned, rules):
    table, unseen = scanned
    funnel, sample = select_queries(
        table,
        unseen,
        ROOT,
        min_length=4,
        n="all",
        seed=1,
        corpus="fix",
        shape=headings.docs_shape(rules),
        track="docs",
        unseen_tokens=lambda: headings.tokens_in_documents(ROOT, unseen["path"]),
    )
    queries = set(sample["query"])
    assert "Shared_Heading_Name" not in queries  # a heading in two documents
    assert "other_doc_token" not in queries  # also written in notes.txt, which has no parser
    assert "cores" in queries and "--sort=path" in queries
    assert sample["qid"].iloc[0] == "fix-docs-0001"
    assert dict(funnel)["declared-in-one-file"] == len(table["symbol"].unique()) - 1
    assert dict(funnel)["not-in-unseen-files"] == dict(funnel)["declared-in-one-file"] - 1


def test_a_plain_word_counts_only_when_the_heading_marks_it_as_code(rules):
    plain = headings.Heading(1, "Installation and cores")
    marked = headings.Heading(1, "Installation and cores", ("cores",))
    assert headings.heading_tokens(plain, rules) == []
    assert headings.heading_tokens(marked, rules) == [("cores", "code")]


def test_a_bad_token_regex_is_one_line():
    with pytest.raises(BenchError, match="docs.tokens 'bad': regex does not compile"):
        headings.token_rules([{"name": "bad", "regex": "(", "why": "x"}])


def test_declared_in_code_marks_tokens_that_are_also_declarations():
    sample = pd.DataFrame({"qid": ["d-1", "d-2"], "query": ["hay_rank", "--lf"]})
    code = pd.DataFrame({"symbol": ["hay_rank", "other"]})
    table = headings.declared_in_code(sample, code)
    assert table.values.tolist() == [["d-1", "hay_rank", "yes"], ["d-2", "--lf", "no"]]


def test_odd_file_names_are_read(tmp_path, rules):
    name = "odd name -x.md"
    (tmp_path / name).write_text("# odd_file_heading\n")
    shutil.copy(ROOT / "other.md", tmp_path / "other.md")
    table, unseen = headings.scan_headings(tmp_path, [encode_path(name)], MARKUPS, [], rules)
    assert table["symbol"].tolist() == ["odd_file_heading"] and unseen.empty
    assert os.path.exists(tmp_path / name)


def test_a_token_the_file_holds_only_escaped_is_not_a_heading_token(tmp_path, rules):
    # Linux's Documentation/driver-api/ntb.rst: "NTB MSI Test Client (ntb\_msi\_test)".
    # docutils unescapes it; no literal search finds ntb_msi_test in that file (the kernel
    # run's containment pass stopped on it), so it is not the file's heading token.
    (tmp_path / "ntb.rst").write_text(
        "NTB MSI Test Client (ntb\\_msi\\_test)\n"
        "====================================\n\n"
        "Text.\n\n"
        "The ring_reset_hook call\n"
        "------------------------\n\nMore.\n"
    )
    table, unseen = headings.scan_headings(tmp_path, ["ntb.rst"], MARKUPS, [], rules)
    assert "ntb_msi_test" not in table["symbol"].tolist()
    assert "ring_reset_hook" in table["symbol"].tolist() and unseen.empty


def test_html_pages_give_their_headings_never_scripts_styles_or_navigation(rules):
    """Issue 36 item 1: h1-h6 of an HTML page (a generated API reference) by the standard
    library's parser; a permalink mark, the <title>, scripts, styles, <nav> and
    role="navigation" are not headings; a heading left open ends with its parent."""
    markups = {**MARKUPS, "html": [".html"]}
    table, unseen = headings.scan_headings(ROOT, ["api.html"], markups, [".txt"], rules)
    assert tokens_by_file(table) == {"api.html": {"parse_header", "HtmlCache", "html.parser"}}
    assert unseen.empty
    lines = {r.symbol: r.line for r in table.itertuples()}
    assert (lines["parse_header"], lines["HtmlCache"], lines["html.parser"]) == ("9", "11", "12")
    assert set(table["language"]) == {"html"}
    # the schema's defaults read .html and .htm as HTML, no longer as unseen documents
    schema = yaml.safe_load((CONFIG / "schema" / "config.schema.yaml").read_text())
    docs = schema["properties"]["docs"]["properties"]
    assert docs["markups"]["default"]["html"] == [".html", ".htm"]
    assert not {".html", ".htm"} & set(docs["unseen_extensions"]["default"])


def test_markdown_reads_headings_written_as_raw_html_blocks():
    # ripgrep's FAQ writes each question as `<h3 name="...">` inside the Markdown
    text = (
        "# FAQ\n\n* [config](#config)\n\n"
        '<h3 name="config">\nDoes ripgrep support `--no-config` files?\n</h3>\n\n'
        "Yes.\n\n<div><h4>Using <code>rg_ignore</code></h4></div>\n\n## Last\n"
    )
    found = headings.markdown_headings(text)
    assert [(h.line, h.text.split()) for h in found] == [
        (1, ["FAQ"]),
        (5, ["Does", "ripgrep", "support", "`--no-config`", "files?"]),
        (11, ["Using", "rg_ignore"]),
        (13, ["Last"]),
    ]
    assert found[2].code == ("rg_ignore",)
