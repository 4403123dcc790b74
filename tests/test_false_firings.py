"""The false-firing audit (issue 11 item 3): every raw firing of hay's c-shape and keyword
rules, by word and language, pooled over corpora, with the exclusion list it calls for."""

from pathlib import Path

import pytest

from searchbench.artifacts import read_tsv, write_text
from searchbench.errors import BenchError
from searchbench.false_firings import (
    COLUMNS,
    audit_files,
    corpus_tsv,
    derive_words,
    effect,
    pool,
    read_word_list,
    table_rows,
    words_text,
)
from searchbench.fileset import FileEntry

C_FILE = (
    "static int helper(int x)\n{\n\treturn helper(x - 1);\n}\n"  # true c-shape, false `return`
    "struct node {\n\tint v;\n};\n"  # a true keyword firing
    "void use(struct node *p);\n"  # `struct node *p` is a use: the keyword rule skips it
    "/* see the helper(3) call */\n"  # a comment line
)
PY_FILE = "def run():\n    return run()\n# def run(): in a comment\n"


def corpus(tmp_path: Path) -> tuple[Path, list[FileEntry], list[dict[str, str]]]:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.c").write_text(C_FILE)
    (root / "m.py").write_text(PY_FILE)
    (root / "README.md").write_text("Call helper(3) to start.\n")
    (root / "blob.bin").write_bytes(b"\0helper(")
    files = [
        FileEntry("README.md", 24, "text", "-"),
        FileEntry("blob.bin", 8, "binary", "-"),
        FileEntry("m.c", len(C_FILE), "text", "c"),
        FileEntry("m.py", len(PY_FILE), "text", "python"),
    ]
    symbols = [
        {"symbol": "helper", "kind": "function", "language": "c", "path": "m.c", "line": "1"},
        {"symbol": "node", "kind": "struct", "language": "c", "path": "m.c", "line": "5"},
        {"symbol": "run", "kind": "function", "language": "python", "path": "m.py", "line": "1"},
    ]
    return root, files, symbols


def test_every_firing_is_tallied_by_rule_language_word_and_outcome(tmp_path: Path) -> None:
    root, files, symbols = corpus(tmp_path)
    tally, examples = audit_files(root, files, symbols)
    assert dict(tally) == {
        ("c-shape", "c", "int", "true"): 1,
        ("c-shape", "c", "return", "false"): 1,
        ("c-shape", "-", "Call", "comment_or_prose"): 1,  # README.md is prose
        ("c-shape", "python", "def", "true"): 1,  # `def run(` has the shape too
        ("c-shape", "python", "return", "false"): 1,
        ("keyword", "c", "struct", "true"): 1,
        ("keyword", "python", "def", "true"): 1,
    }  # neither rule fires inside `/* ... */` or after `#`: no type word starts those lines
    assert examples == {
        ("c-shape", "c", "return"): "m.c:3",
        ("c-shape", "python", "return"): "m.py:2",
    }
    rows = table_rows(tally, examples, frozenset({"return"}))
    assert [(r["rule"], r["language"], r["word"], r["false"], r["listed"]) for r in rows[:3]] == [
        ("c-shape", "c", "return", 1, "yes"),
        ("c-shape", "python", "return", 1, "yes"),
        ("c-shape", "-", "Call", 0, "no"),
    ]
    assert {r["listed"] for r in rows if r["rule"] == "keyword"} == {"-"}


def test_pooled_counts_derive_the_list_and_show_what_it_cuts(tmp_path: Path) -> None:
    row = {"rule": "c-shape", "language": "c", "comment_or_prose": "0", "listed": "no"}
    tables = {
        "a": [
            {**row, "word": "return", "true": "0", "false": "3", "example": "x.c:1"},
            {**row, "word": "int", "true": "9", "false": "1", "example": "x.c:2"},
        ],
        "b": [
            {**row, "word": "return", "true": "0", "false": "2", "example": "y.c:7"},
            {**row, "word": "foo", "true": "1", "false": "1", "example": "y.c:9"},
        ],
    }
    pooled = pool(tables, frozenset({"foo"}))
    first = pooled[0]
    assert (first["word"], first["false"], first["corpora"], first["example"]) == (
        "return",
        5,
        2,
        "a:x.c:1",
    )
    # return: 5 false, never true; int: 1 false (< 2); foo: half its firings are true
    assert derive_words(pooled) == ["return"]
    assert effect(pooled, "hay's list", {"foo"}) == {
        "list": "hay's list",
        "words": 1,
        "false_before": 7,
        "false_after": 6,
        "cut": 1,
        "true_before": 10,
        "true_lost": 1,
        "comment_or_prose": 0,
    }
    cut = effect(pooled, "derived", derive_words(pooled))
    assert (cut["cut"], cut["true_lost"]) == (5, 0)
    text = words_text(pooled, ["a", "b"])
    assert "return  # false=5 true=0 c:5" in text
    write_text(tmp_path / "w.txt", text)
    assert read_word_list(tmp_path / "w.txt") == {"return"}


def test_the_table_reads_back_and_is_byte_identical(tmp_path: Path) -> None:
    root, files, symbols = corpus(tmp_path)
    texts = []
    for _ in range(2):
        tally, examples = audit_files(root, list(reversed(files)), symbols)
        texts.append(corpus_tsv(table_rows(tally, examples, frozenset())))
    assert texts[0] == texts[1]
    write_text(tmp_path / "t.tsv", texts[0])
    assert read_tsv(tmp_path / "t.tsv", COLUMNS)[0]["word"] == "return"


def test_a_listed_file_that_is_gone_is_named(tmp_path: Path) -> None:
    root, files, symbols = corpus(tmp_path)
    (root / "m.py").unlink()
    with pytest.raises(BenchError, match=r"m.py: cannot read a file files.tsv lists"):
        audit_files(root, files, symbols)
