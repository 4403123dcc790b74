"""Filter or rank (issue 11 item 1): the answer's place in each tool's own output, its path
rank, and what sorted above it, classified by a lexer."""

from pathlib import Path

from searchbench.artifacts import read_tsv
from searchbench.filter_rank import (
    COLUMNS,
    SUMMARY_COLUMNS,
    classify_lines,
    filter_rank_rows,
    path_rank,
    quoted_spans,
    summary_rows,
    write_filter_rank,
)

PY = (
    "import parse_all\n"  # 1: a longer identifier only
    "# parse is documented here\n"  # 2: a comment
    'x = "parse"\n'  # 3: a string
    "def parse(text):\n"  # 4: the declaration, a use
    "    return parse(text) + parse_all(text)\n"  # 5: a use and a longer one: use wins
)


def classify(path: str, text: str, symbol: str) -> dict[int, str]:
    return classify_lines(text, quoted_spans(path, text), symbol)


def test_a_lexer_tells_uses_from_comments_strings_and_longer_names() -> None:
    assert classify("m.py", PY, "parse") == {
        1: "longer",
        2: "comment_or_string",
        3: "comment_or_string",
        4: "use",
        5: "use",
    }
    # a preprocessor line is code, a C comment is not
    c = "#define LIMIT 4\n/* LIMIT applies */\nint f(void) { return LIMIT; }\n"
    assert classify("m.c", c, "LIMIT") == {1: "use", 2: "comment_or_string", 3: "use"}
    # a file no lexer knows: every mention is code
    assert classify("notes.unknownext", "parse it\n", "parse") == {1: "use"}


def test_path_rank_is_the_rank_in_path_byte_order() -> None:
    assert path_rank(["b/x.py", "a/y.py", "c.py"], "c.py") == 3
    assert path_rank(["b/x.py", "a/y.py", "c.py"], "a/y.py") == 1


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / "a_docs.md").write_text("Use parse to read.\n")
    (root / "b_tests.py").write_text("# parse is tested\nfrom src.m import parse_all\n")
    (root / "c_use.py").write_text("y = parse(1)\n")
    (root / "src" / "m.py").write_text(PY)
    return root


def test_rows_and_summary_separate_a_path_order_from_a_ranking(tmp_path: Path) -> None:
    root = tree(tmp_path)
    path_order = ["a_docs.md", "b_tests.py", "c_use.py", "src/m.py"]
    runs = {
        "filter": {"q1": path_order},
        "ranker": {"q1": ["src/m.py", "c_use.py", "a_docs.md", "b_tests.py"]},
    }
    raw = {
        "filter": {"q1": {"status": "ok", "lines": 6, "files": 4, "decl_line_rank": 6}},
        "ranker": {"q1": {"status": "ok", "lines": 6, "files": 4, "decl_line_rank": 1}},
    }
    queries = [{"qid": "q1", "query": "parse"}]
    rows = filter_rank_rows(queries, {"q1": {"src/m.py": 1}}, runs, raw, root)
    by_tool = {r["tool"]: r for r in rows}
    f, r = by_tool["filter"], by_tool["ranker"]
    assert (f["rank"], f["path_rank"], f["line_rank"]) == (4, 4, 6)
    assert (r["rank"], r["path_rank"], r["line_rank"]) == (1, 4, 1)
    # above the answer in path order: a prose file, a comment-and-longer file, a use
    assert (f["before_prose"], f["before_longer"], f["before_use"]) == (1, 1, 1)
    assert sum(r[f"before_{c}"] for c in ("use", "longer", "prose", "comment_or_string")) == 0
    assert (f["lines_use"], f["lines_longer"], f["lines_comment_or_string"]) == (4, 2, 3)
    assert (f["first_file_class"], r["first_file_class"]) == ("prose", "use")
    summary = {s["tool"]: s for s in summary_rows(rows)}
    assert (summary["filter"]["first"], summary["filter"]["rank_is_path_rank"]) == (0, 1)
    assert (summary["ranker"]["first_promoted"], summary["ranker"]["promoted"]) == (1, 1)
    assert summary["filter"]["median_rank_not_first"] == 4


def test_not_found_counts_every_classified_file_as_above(tmp_path: Path) -> None:
    root = tree(tmp_path)
    rows = filter_rank_rows(
        [{"qid": "q1", "query": "parse"}],
        {"q1": {"src/m.py": 1}},
        {"t": {"q1": ["c_use.py", "gone.py"]}},
        {"t": {"q1": {"status": "ok", "lines": 2, "files": 2}}},
        root,
    )
    (row,) = rows
    assert (row["rank"], row["path_rank"], row["before_use"], row["before_none"]) == (0, 0, 1, 1)


def test_outputs_read_back_and_are_byte_identical(tmp_path: Path) -> None:
    root = tree(tmp_path)
    args = (
        [{"qid": "q1", "query": "parse"}],
        {"q1": {"src/m.py": 1}},
        {"t": {"q1": ["src/m.py"]}},
        {"t": {"q1": {"status": "ok", "lines": 2, "files": 1, "decl_line_rank": 1}}},
        root,
    )
    texts = []
    for name in ("one", "two"):
        write_filter_rank(filter_rank_rows(*args), tmp_path / name, tmp_path / f"{name}.s")
        texts.append(((tmp_path / name).read_bytes(), (tmp_path / f"{name}.s").read_bytes()))
    assert texts[0] == texts[1]
    assert read_tsv(tmp_path / "one", COLUMNS)[0]["rank"] == "1"
    assert read_tsv(tmp_path / "one.s", SUMMARY_COLUMNS)[0]["first"] == "1"
