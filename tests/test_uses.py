"""The uses pass, the usage queries and the GNU Global audit on a fixture corpus
(tests/fixtures/uses: a few files per language, names called in code, in comments and in
strings, member calls, a name used in one file and one used in three)."""

import shutil
from pathlib import Path

import pandas as pd
import pytest

from searchbench import sampling, usage_queries, uses
from searchbench.errors import BenchError
from searchbench.fileset import load_languages, scan_files
from searchbench.symbols import scan_symbols, write_symbols_tsv, write_unseen_tsv
from searchbench.trec import read_qrels

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "tests" / "fixtures" / "uses"
RULES = REPO / "config" / "astgrep_uses"
LANGUAGES = load_languages(REPO / "config" / "languages.yaml")
MAX = 4_000_000

EXPECTED = {
    "c/a.c": [
        ("lib_box", 2, "c-type"),
        ("lib_used_once", 5, "c-call"),
        ("lib_used_thrice", 5, "c-call"),
    ],
    "c/b.c": [
        ("MACRO_CALL", 6, "c-call"),
        ("cb", 5, "c-member-call"),
        ("lib_box_t", 3, "c-type"),
        ("lib_self", 7, "c-call"),
        ("lib_used_thrice", 7, "c-call"),
        ("ops", 3, "c-type"),
    ],
    "c/c.c": [
        ("lib_box_t", 5, "c-type"),
        ("lib_self", 6, "c-call"),
        ("lib_used_thrice", 6, "c-call"),
    ],
    "c/lib.c": [("helper", 4, "c-call"), ("lib_self", 6, "c-call")],
    "c/lib.h": [("lib_box", 4, "c-type")],
    "cpp/w.cpp": [
        ("Widget", 4, "cpp-type"),
        ("Widget", 5, "cpp-type"),
        ("reset", 5, "cpp-call"),
        ("resize", 5, "cpp-member-call"),
        ("tpl", 5, "cpp-call"),
        ("vector", 5, "cpp-type"),
    ],
    "go/a.go": [
        ("Frob", 10, "go-call"),
        ("Println", 10, "go-selector-call"),
        ("Thing", 6, "go-type"),
        ("Thing", 10, "go-type"),
        ("helper", 6, "go-call"),
        ("int", 4, "go-type"),
        ("int", 6, "go-type"),
        ("int", 8, "go-type"),
    ],
    "java/App.java": [
        ("Base", 4, "java-type"),
        ("Override", 5, "java-annotation"),
        ("Runnable", 4, "java-type"),
        ("Service", 7, "java-type"),
        ("helper", 9, "java-call"),
        ("start", 8, "java-call"),
    ],
    "js/view.js": [
        ("Dialog", 5, "javascript-new"),
        ("Panel", 4, "javascript-jsx"),
        ("render", 4, "javascript-call"),
    ],
    "py/mod.py": [
        ("Widget", 6, "python-type"),
        ("Widget", 8, "python-call"),
        ("str", 2, "python-type"),
        ("str", 6, "python-type"),
    ],
    "py/use.py": [
        ("Widget", 5, "python-base"),
        ("make", 10, "python-method-call"),
        ("print", 11, "python-call"),
        ("register", 4, "python-decorator"),
        ("render", 10, "python-method-call"),
    ],
    "rust/lib.rs": [
        ("Clone", 4, "rust-type"),
        ("Option", 6, "rust-type"),
        ("Parser", 4, "rust-type"),
        ("Parser", 5, "rust-type"),
        ("Self", 5, "rust-type"),
        ("Some", 6, "rust-call"),
        ("T", 2, "rust-type"),
        ("T", 4, "rust-type"),
        ("T", 5, "rust-type"),
        ("T", 6, "rust-type"),
        ("assert_eq", 11, "rust-macro"),
        ("clone", 6, "rust-method-call"),
        ("helper", 11, "rust-call-in-macro"),
        ("new", 10, "rust-call"),
        ("parse", 11, "rust-call-in-macro"),
        ("println", 12, "rust-macro"),
    ],
    "swift/s.swift": [
        ("Base", 2, "swift-type"),
        ("Greeter", 5, "swift-call"),
        ("Reply", 3, "swift-call"),
        ("Reply", 3, "swift-type"),
        ("String", 3, "swift-type"),
        ("greet", 6, "swift-method-call"),
    ],
    "ts/app.ts": [
        ("BaseClient", 3, "typescript-extends"),
        ("Client", 6, "typescript-new"),
        ("Closeable", 3, "typescript-type"),
        ("Options", 4, "typescript-type"),
        ("Promise", 4, "typescript-type"),
        ("T", 4, "typescript-type"),
        ("fetchIt", 7, "typescript-method-call"),
        ("run", 8, "typescript-call"),
        ("send", 4, "typescript-method-call"),
    ],
    "ts/view.tsx": [("Chart", 4, "tsx-jsx"), ("Props", 2, "tsx-type"), ("draw", 3, "tsx-call")],
}

# Names written in a comment or a string of the fixture, and the only lines they are used on.
IN_COMMENTS_OR_STRINGS = {
    ("lib_used_thrice", "c/lib.c"): [],
    ("lib_used_once", "c/a.c"): [5],  # the string on line 4 is not a use
    ("lib_used_once", "c/c.c"): [],
    ("make", "py/mod.py"): [],
    ("make", "py/use.py"): [10],
    ("Widget", "py/use.py"): [5],  # `w: "Widget"` is a string annotation
    ("Frob", "go/a.go"): [10],
    ("parse", "rust/lib.rs"): [11],  # not the doc comment, not the format string
    ("start", "java/App.java"): [8],
    ("fetchIt", "ts/app.ts"): [7],
    ("render", "js/view.js"): [4],
    ("make_widget", "cpp/w.cpp"): [],
    ("greet", "swift/s.swift"): [6],
    ("draw", "ts/view.tsx"): [3],
    ("Chart", "ts/view.tsx"): [4],
}


def files():
    return scan_files(ROOT, LANGUAGES)


@pytest.fixture(scope="module")
def rows() -> list[uses.UseRow]:
    found, errored = uses.scan_uses(ROOT, files(), RULES, LANGUAGES, MAX, 1)
    assert errored == []
    return found


def test_exact_uses_rows(rows):
    got: dict[str, list[tuple[str, int, str]]] = {}
    for row in rows:
        got.setdefault(row.path, []).append((row.symbol, row.line, row.rule))
    assert {p: sorted(v) for p, v in got.items()} == {p: sorted(v) for p, v in EXPECTED.items()}
    languages = {row.path.split("/")[0]: row.language for row in rows}
    assert languages["ts"] in {"typescript", "tsx"} and languages["c"] == "c"


def test_a_name_in_a_comment_or_a_string_is_not_a_use(rows):
    for (name, path), lines in IN_COMMENTS_OR_STRINGS.items():
        assert sorted(r.line for r in rows if r.symbol == name and r.path == path) == lines


def test_uses_table_is_sorted_deduplicated_and_round_trips(rows, tmp_path):
    out = tmp_path / "uses.tsv"
    uses.write_uses_tsv(rows + rows[:5], out)
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "symbol\tlanguage\tpath\tline\trule"
    assert len(lines) == 1 + sum(len(v) for v in EXPECTED.values())
    assert uses.read_uses_tsv(out) == rows
    keys = [(r.symbol, r.language, r.path, r.line, r.rule) for r in rows]
    assert keys == sorted(keys)


def test_scan_does_not_depend_on_threads_batches_or_file_order(rows):
    again, _ = uses.scan_uses(
        ROOT, list(reversed(files())), RULES, LANGUAGES, MAX, 2, argv_budget=1
    )
    assert again == rows


def test_files_the_symbol_pass_does_not_parse_are_not_scanned(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "c", corpus / "c")
    (corpus / "c" / "min.c").write_text("int f(void) { return g(1); }" + " " * 200 + "\n")
    found, _ = uses.scan_uses(
        corpus, scan_files(corpus, LANGUAGES), RULES, LANGUAGES, MAX, 1, max_line_bytes=100
    )
    assert "c/min.c" not in {r.path for r in found}  # minified: unseen.tsv lists it
    found, _ = uses.scan_uses(corpus, scan_files(corpus, LANGUAGES), RULES, LANGUAGES, 200, 1)
    assert "c/min.c" not in {r.path for r in found}  # too large
    assert "c/a.c" in {r.path for r in found}


def test_a_rule_of_another_language_than_the_file_is_refused():
    with pytest.raises(BenchError, match="files.tsv says c"):
        uses.use_row(("a.c", "f", 0, "cpp-call"), {"a.c": ("a.c", "c", 10)})


# ---------------------------------------------------------------- usage queries


@pytest.fixture(scope="module")
def tables(tmp_path_factory, rows) -> Path:
    out = tmp_path_factory.mktemp("tables")
    symbols, unseen = scan_symbols(ROOT, files(), REPO / "config" / "astgrep", LANGUAGES, MAX, 1)
    write_symbols_tsv(symbols, out / "symbols.tsv")
    write_unseen_tsv(unseen, out / "unseen.tsv")
    uses.write_uses_tsv(rows, out / "uses.tsv")
    return out


def select(tables: Path, **overrides) -> usage_queries.UsageSample:
    settings = {"min_length": 4, "n": "all", "seed": 7, "corpus": "fx", **overrides}
    return usage_queries.select_usage_queries(
        sampling.read_symbols(tables / "symbols.tsv"),
        sampling.read_unseen(tables / "unseen.tsv"),
        usage_queries.read_uses(tables / "uses.tsv"),
        ROOT,
        **settings,
    )


def test_usage_queries_answers_and_funnel(tables, tmp_path):
    result = select(tables)
    assert result.sample.to_dict("records") == [
        {
            "qid": "fx-usage-0001",
            "query": "lib_box_t",
            "language": "c",
            "kind": "typedef",
            "path": "c/lib.h",
            "line": "4",
            "eligibility": "exactly-once:1-file:1-decls:used-in-2-files",
        },
        {
            "qid": "fx-usage-0002",
            "query": "lib_self",
            "language": "c",
            "kind": "function",
            "path": "c/lib.c",
            "line": "6",
            "eligibility": "exactly-once:1-file:1-decls:used-in-3-files",
        },
        {
            "qid": "fx-usage-0003",
            "query": "lib_used_thrice",
            "language": "c",
            "kind": "function",
            "path": "c/lib.c",
            "line": "4",
            "eligibility": "exactly-once:1-file:1-decls:used-in-3-files",
        },
    ]
    # lib_self: the declaring file calls it (recursion), so it is an answer; lib_used_thrice's
    # declaring file mentions it in a comment only, so it is not; lib_used_once is used in
    # one file (its other mentions are a comment and a string), lib_box in one besides lib.h.
    assert result.qrels == {
        "fx-usage-0001": {"c/b.c": 1, "c/c.c": 1},
        "fx-usage-0002": {"c/b.c": 1, "c/c.c": 1, "c/lib.c": 1},
        "fx-usage-0003": {"c/a.c": 1, "c/b.c": 1, "c/c.c": 1},
    }
    steps = dict(result.funnel)
    assert list(steps)[-3:] == ["used-in-2-other-files", "used-in-at-most-30-files", "sampled"]
    assert steps["used-in-2-other-files"] == 3 and steps["sampled"] == 3
    paths = [tmp_path / name for name in ("queries.tsv", "qrels.txt", "funnel.tsv")]
    usage_queries.write_usage_outputs(result, *paths)
    assert read_qrels(paths[1]) == result.qrels
    assert paths[2].read_text().splitlines()[-3:] == [
        "used-in-2-other-files\t3",
        "used-in-at-most-30-files\t3",
        "sampled\t3",
    ]


def test_usage_limits(tables):
    assert list(select(tables, max_files=2).sample["query"]) == ["lib_box_t"]
    steps = dict(select(tables, min_other_files=3, max_files=3).funnel)
    assert steps["used-in-3-other-files"] == 1  # lib_used_thrice: a.c, b.c, c.c
    with pytest.raises(BenchError, match="min_other_files"):
        select(tables, min_other_files=3, max_files=2)


def test_usage_sample_is_deterministic_and_seeded(tables):
    first = select(tables, n=2, seed=3)
    assert first.sample.equals(select(tables, n=2, seed=3).sample)
    assert first.qrels == select(tables, n=2, seed=3).qrels
    drawn = {tuple(select(tables, n=2, seed=s).sample["query"]) for s in range(12)}
    assert len(drawn) > 1 and all(list(d) == sorted(d) for d in drawn)


def test_uses_resolve_within_a_language_family():
    table = pd.DataFrame(
        [
            ("open", "c", "a.c", "1", "c-call"),
            ("open", "cpp", "b.cc", "1", "cpp-call"),
            ("open", "python", "c.py", "1", "python-call"),
        ],
        columns=uses.USES_COLUMNS,
    )
    found = usage_queries.use_files(table, ["open"])
    assert found == {("open", "c"): ["a.c", "b.cc"], ("open", "python"): ["c.py"]}


# ---------------------------------------------------------------- the GNU Global audit


def test_set_agreement_and_global_output():
    assert usage_queries.set_agreement({"a", "b"}, {"b", "c"}) == (1 / 3, 0.5, 0.5)
    assert usage_queries.set_agreement(set(), set()) == (1.0, 1.0, 1.0)
    out = b"c/b.c:7:\treturn f(2);\n./d e.c:3:f(1);\nc/b.c:9:f();\n"
    assert usage_queries.parse_global_grep(out) == {"c/b.c", "d%20e.c"}
    assert usage_queries.audit_sample([f"q{i}" for i in range(9)], 3, 5) == sorted(
        usage_queries.audit_sample([f"q{i}" for i in reversed(range(9))], 3, 5)
    )


@pytest.mark.skipif(not shutil.which("gtags") or not shutil.which("global"), reason="no Global")
def test_audit_against_gnu_global_on_the_c_fixture(tables):
    result = select(tables)
    rows = usage_queries.reference_agreement(ROOT, result.sample, result.qrels, 10, 1)
    c, pooled = rows
    assert (c["language"], c["reference"], c["queries"], c["audited"], c["exact"]) == (
        "c",
        "builtin",
        3,
        3,
        1,
    )
    # Global lists the prototypes in lib.h as references of lib_self and lib_used_thrice;
    # a prototype is not a use here. Everything we list, Global lists too.
    assert c["mean_precision"] == 1.0
    assert c["mean_jaccard"] == pytest.approx((1 + 3 / 4 + 3 / 4) / 3)
    assert (c["ours_files"], c["global_files"]) == (8, 10)
    assert pooled["language"] == "all" and pooled["audited"] == 3
    text = usage_queries.audit_text(rows)
    assert text.splitlines()[0].split("\t") == usage_queries.AUDIT_COLUMNS


def test_audit_reports_languages_without_a_reference_finder():
    queries = pd.DataFrame(
        [("fx-usage-0001", "thing", "swift", "function", "swift/s.swift", "3", "x")],
        columns=sampling.QUERY_COLUMNS,
    )
    rows = usage_queries.reference_agreement(ROOT, queries, {}, 5, 1, pygments=False)
    assert rows[0]["language"] == "swift" and rows[0]["reference"] == "none"
    assert rows[0]["note"] == usage_queries.NO_REFERENCE and rows[0]["audited"] == 0
    assert rows[-1]["language"] == "all" and rows[-1]["queries"] == 0
