"""The fast path prints exactly what the plain run prints, and the check notices when not."""

import dataclasses
import os
from pathlib import Path

import pytest

from searchbench.errors import BenchError
from searchbench.fastpath import (
    check_plan,
    compare,
    equivalence_check,
    files_containing,
    locate_rg,
    merge_in_walk_order,
    run_fast,
    tool_listing,
    walk_order,
)
from searchbench.runner import SearchSetup, list_files, run_tool
from searchbench.tools import load_tools, resolve_tools

REPO = Path(__file__).resolve().parent.parent
QUERIES = ["ring_advance", "helper", "helper2", "absent_symbol_xyz", "-rf", "struct", "ring"]
FAST_TOOLS = [
    "ast-grep",
    "ast-grep-calls",
    "ast-grep-calls-c",
    "busybox-grep",
    "rg",
    "git-grep",
    "ugrep",
    "grep",
    "ag",
    "hay",
    # ack prints a named top-level `./README.md` as `./README.md`, unlike its walk
    "ack",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fast")
    (root / "src").mkdir()
    (root / "src" / "ring.c").write_text(
        "struct ring { int head; };\nstatic int ring_advance(struct ring *r) { return 1; }\n"
    )
    (root / "src" / "use.c").write_text("int helper(void) { return ring_advance(0); } /* -rf */\n")
    (root / "lib").mkdir()
    (root / "lib" / "helper.py").write_text("def helper():\n    return 'ring_advance'\n")
    (root / "README.md").write_text("helper and ring_advance and struct\n")
    (root / "blob.bin").write_bytes(b"ring_advance\0\x01\x02")
    (root / "odd name -x.c").write_text("int ring(void);\n")
    (root / "glob[1].c").write_text("int helper2(void);\n")
    return root


@pytest.fixture(scope="module")
def tools():
    specs = load_tools(REPO / "config" / "tools.yaml")
    return resolve_tools(
        {k: specs[k] for k in FAST_TOOLS},
        path_env=os.pathsep.join([str(REPO / "bin"), os.environ["PATH"]]),
    )


@pytest.mark.parametrize("name", FAST_TOOLS)
@pytest.mark.slow
def test_fast_path_is_byte_identical_to_the_plain_run(corpus, tools, name):
    tool = tools[name]
    if not tool.available:
        pytest.skip(f"{name} not installed")
    walk = walk_order(tool_listing(tool, str(corpus)))
    rg = locate_rg()
    used_fast = {}
    for query in QUERIES:
        plain = run_tool(SearchSetup(tool, str(corpus), 30), query)
        holders = files_containing(rg, str(corpus), query)
        fast, used_fast[query] = run_fast(SearchSetup(tool, str(corpus), 30), query, walk, holders)
        assert compare(plain, fast)["equivalent"], (name, query, plain.files, fast.files)
        assert fast.files == plain.files and fast.argv == plain.argv
    assert used_fast["absent_symbol_xyz"]
    # ast-grep takes `-rf` by its part `rf` (fast_path_by_part): every tool goes fast on it.
    assert used_fast["-rf"]
    # `helper2` occurs in one file only (named `glob[1].c`): the fast run names that single
    # file, and must still print its name, and not read it as a glob.
    assert used_fast["helper2"]
    # ast-grep's Markdown files are listed apart and merged in (tool_listing): a query that
    # occurs in README.md goes fast too.
    if name == "ast-grep":
        assert b"README.md" in walk and used_fast["ring_advance"]


@pytest.fixture(scope="module")
def linked_corpus(tmp_path_factory) -> Path:
    """The literal also reached through a linked folder and a linked file (the kernel's
    include/dt-bindings and scripts/dtc/include-prefixes are such links)."""
    root = tmp_path_factory.mktemp("linked")
    (root / "src").mkdir()
    (root / "src" / "ring.c").write_text("static int ring_advance(int r) { return r; }\n")
    (root / "lib.py").write_text("def helper():\n    return ring_advance(1)\n")
    os.symlink("src", root / "alias")
    os.symlink("src/ring.c", root / "alias.c")
    return root


@pytest.mark.parametrize("name", FAST_TOOLS)
@pytest.mark.slow
def test_a_walk_that_enters_no_link_spares_the_fast_path_their_probe(linked_corpus, tools, name):
    """walk_follows_links: false, checked against the tool itself: its plain run prints no
    file reached through a link, so the files only a link reaches are not probed and the
    query goes fast, byte-identical. A tool left at the default (busybox grep prints a
    linked file) probes them, as every tool did before."""
    tool = tools[name]
    if not tool.available:
        pytest.skip(f"{name} not installed")
    setup = SearchSetup(tool, str(linked_corpus), 30)
    holders = files_containing(locate_rg(), str(linked_corpus), "ring_advance")
    assert {b"alias/ring.c", b"alias.c"} <= holders
    plain = run_tool(setup, "ring_advance")
    walk = walk_order(tool_listing(tool, str(linked_corpus)))
    fast, used = run_fast(setup, "ring_advance", walk, holders)
    assert compare(plain, fast)["equivalent"], (name, plain.files, fast.files)
    linked = [f for f in plain.files if f.removeprefix(b"./").startswith(b"alias")]
    if not tool.spec.walk_follows_links:
        assert linked == [] and used, (name, plain.files)


def test_a_dotted_query_goes_fast_over_the_files_holding_its_longest_name(tmp_path, tools):
    """`py.path .local` is a match of the pattern `py.path.local` without the literal: the
    literal's holders would miss it (why fast_path_queries keeps such a query out), the
    holders of `local` (fast_path_by_part) do not. A metavariable query still runs plain."""
    (tmp_path / "a.py").write_text("r = py.path.local(1)\n")
    (tmp_path / "b.py").write_text("s = py.path .local(2)\n")
    (tmp_path / "c.py").write_text("local = 3\n")
    (tmp_path / "d.py").write_text("other = 4\n")
    tool = tools["ast-grep"]
    setup = SearchSetup(tool, str(tmp_path), 30)
    walk = walk_order(tool_listing(tool, str(tmp_path)))
    holders = files_containing(locate_rg(), str(tmp_path), "py.path.local")
    assert holders == {b"a.py"}
    plain = run_tool(setup, "py.path.local")
    assert sorted(plain.files) == [b"a.py", b"b.py"]
    fast, used = run_fast(setup, "py.path.local", walk, holders)
    assert used and compare(plain, fast)["equivalent"] and fast.argv == plain.argv
    _, used = run_fast(setup, "py.$X.local", walk, set())
    assert not used


@pytest.fixture(scope="module")
def markdown_corpus(tmp_path_factory) -> Path:
    """ast-grep 0.51.1 reads the name below, as a Markdown pattern, as inline text with
    underscores, which matches NOTES.md's paragraph: it prints a file without the name."""
    root = tmp_path_factory.mktemp("markdown")
    (root / "sub").mkdir()
    guard = "GTEST_INCLUDE_GTEST_INTERNAL_GTEST_TYPE_UTIL_H_"
    (root / "sub" / "util.h").write_text(f"#ifndef {guard}\n#define {guard}\n#endif\n")
    (root / "sub" / "a.py").write_text("def helper():\n    pass\n")
    (root / "sub" / "README.md").write_text("# Title\n\nSome text.\n")
    (root / "NOTES.md").write_text(
        "Notes\n\n* Make `__qualname__` and `__module__` available in class bodies\n"
    )
    return root


def test_markdown_printed_without_the_literal_goes_fast_and_identical(markdown_corpus, tools):
    tool = tools["ast-grep"]
    if not tool.available:
        pytest.skip("ast-grep not installed")
    root = str(markdown_corpus)
    query = "GTEST_INCLUDE_GTEST_INTERNAL_GTEST_TYPE_UTIL_H_"
    plain = run_tool(SearchSetup(tool, root, 30), query)
    holders = files_containing(locate_rg(), root, query)
    assert holders == {b"sub/util.h"}
    # The plain run prints a Markdown file that does not contain the name.
    assert b"NOTES.md" in plain.files
    walk = walk_order(tool_listing(tool, root))
    assert {b"NOTES.md", b"sub/README.md"} <= set(walk)
    fast, used = run_fast(SearchSetup(tool, root, 30), query, walk, holders)
    assert used and compare(plain, fast)["equivalent"]
    # Without the Markdown files (its `$A` listing alone) the fast run is not equivalent.
    code_only = walk_order(list_files(tool, root))
    assert b"NOTES.md" not in code_only
    bare, _ = run_fast(SearchSetup(tool, root, 30), query, code_only, holders)
    assert not compare(plain, bare)["equivalent"]


@pytest.fixture(scope="module")
def structural_corpus(tmp_path_factory) -> Path:
    """Two ways ast-grep 0.51.1 prints a file without the query's literal (found in the default
    run: mypy's _ECT and pytest's py.path.local): a CSS file reads `_ECT` as a pattern matching
    its every line; a dotted name matches code written across lines."""
    root = tmp_path_factory.mktemp("structural")
    (root / "a.py").write_text("_ECT = 1\nroot = (py.path.local)\n")
    (root / "b.py").write_text("def f():\n    return (py.path\n        .local)\n")
    (root / "style.css").write_text("/* a comment */\nbody {\n    margin: 0;\n}\n")
    return root


@pytest.mark.parametrize("query", ["_ECT", "py.path.local"])
def test_files_printed_without_the_literal_keep_the_fast_path_identical(
    structural_corpus, tools, query
):
    tool = tools["ast-grep"]
    if not tool.available:
        pytest.skip("ast-grep not installed")
    root = str(structural_corpus)
    setup = SearchSetup(tool, root, 30)
    plain = run_tool(setup, query)
    holders = files_containing(locate_rg(), root, query)
    assert holders == {b"a.py"}
    # The plain run prints a file that does not hold the literal.
    assert set(plain.files) - holders
    walk = walk_order(tool_listing(tool, root))
    fast, used = run_fast(setup, query, walk, holders)
    assert compare(plain, fast)["equivalent"], (plain.files, fast.files)
    # A single name goes fast (the CSS file is named in every fast run); a dotted one too,
    # over the files holding `local` (fast_path_by_part), which b.py does.
    assert used
    # Without those settings the fast run misses the file.
    loose = dataclasses.replace(
        tool,
        spec=dataclasses.replace(
            tool.spec,
            fast_path_queries=None,
            fast_path_by_part=None,
            fast_path_always=["*.md", "*.markdown", "*.mdx"],
        ),
    )
    missed, used = run_fast(SearchSetup(loose, root, 30), query, walk, holders)
    assert used and not compare(plain, missed)["equivalent"]


def test_an_unbound_file_no_pattern_names_is_a_clear_error(markdown_corpus, tools):
    tool = tools["ast-grep"]
    if not tool.available:
        pytest.skip("ast-grep not installed")
    narrow = dataclasses.replace(
        tool, spec=dataclasses.replace(tool.spec, fast_path_always=["*.markdown"])
    )
    with pytest.raises(BenchError, match=r"lists '(sub/README|NOTES)\.md', which no pattern"):
        tool_listing(narrow, str(markdown_corpus))


def test_listings_merge_only_in_walk_order():
    walk = [b"d/b.py", b"d/README.md", b"a.py", b"NOTES.md"]
    merged = merge_in_walk_order([b"d/b.py", b"a.py"], [b"d/README.md", b"NOTES.md"], walk)
    assert merged == walk
    # A listing out of the walk's order (or naming a file the walk lacks) merges nothing.
    assert merge_in_walk_order([b"a.py", b"d/b.py"], [b"NOTES.md"], walk) is None
    assert merge_in_walk_order([b"a.py"], [b"other.md"], walk) is None


def test_a_wrong_walk_order_is_caught(corpus, tools):
    tool = tools["busybox-grep"]
    if not tool.available:
        pytest.skip("busybox not installed")
    walk = walk_order(list_files(tool, str(corpus)))
    reordered = sorted(walk, reverse=True)
    plain = run_tool(SearchSetup(tool, str(corpus), 30), "ring_advance")
    holders = files_containing(locate_rg(), str(corpus), "ring_advance")
    fast, _ = run_fast(SearchSetup(tool, str(corpus), 30), "ring_advance", reordered, holders)
    if plain.files == fast.files:
        pytest.skip("this file system happens to list files in reverse order")
    assert not compare(plain, fast)["equivalent"]


def test_the_search_job_s_check_records_each_sampled_query_and_decides(corpus, tools):
    tool = tools["rg"]
    setup = SearchSetup(tool, str(corpus), 30)
    walk = walk_order(list_files(tool, str(corpus)))
    texts = {"q1": "ring_advance", "q2": "helper", "q3": "-rf"}
    holders = {qid: files_containing(locate_rg(), str(corpus), q) for qid, q in texts.items()}
    settings = {"queries": 2, "slow_seconds": 10, "queries_when_slow": 1}

    check, cpu = equivalence_check(setup, walk, holders, texts, ["q2", "q1", "q3"], settings)

    assert check["equivalent"] and check["decision"] == "fast path"
    # the two runs' CPU, per checked query, kept out of the reproducible record
    assert sorted(cpu) == ["q1", "q2"] and all(seconds >= 0.0 for seconds in cpu.values())
    assert "cpu" not in repr(check)
    assert list(check["checks"]) == ["q2", "q1"]  # the sample's order, as many as planned
    assert check["queries_planned"] == 3 and check["reduced_because_slow"]
    assert all(c["plain_sha256"] == c["fast_sha256"] for c in check["checks"].values())
    # a walk in the wrong order prints another order (busybox grep prints in its arguments'
    # order; rg sorts by path): plain runs, and the record says why
    busybox = tools["busybox-grep"]
    if not busybox.available:
        pytest.skip("busybox not installed")
    reordered = sorted(walk_order(list_files(busybox, str(corpus))), reverse=True)
    wrong, _ = equivalence_check(
        SearchSetup(busybox, str(corpus), 30), reordered, holders, texts, ["q1"], settings
    )
    assert wrong["checks"]["q1"]["fast_path_used"]
    assert not wrong["equivalent"]
    assert wrong["decision"] == "plain runs (fast path not equivalent)"


def test_a_file_the_tool_does_not_list_forces_the_plain_run(corpus, tools):
    """rg skips blob.bin when walking but prints it when named: the fast path must not name
    it, and since the plain run prints nothing from it, the query may still go fast."""
    tool = tools["rg"]
    walk = walk_order(list_files(tool, str(corpus)))
    assert b"blob.bin" not in walk
    holders = files_containing(locate_rg(), str(corpus), "ring_advance")
    assert b"blob.bin" in holders
    fast, used = run_fast(SearchSetup(tool, str(corpus), 30), "ring_advance", walk, holders)
    plain = run_tool(SearchSetup(tool, str(corpus), 30), "ring_advance")
    assert fast.stdout_sha256 == plain.stdout_sha256
    # rg prints a binary file it is given by name, so the probe sends this query plain.
    assert not used


def test_files_containing_is_literal_and_follows_links(corpus):
    os.symlink("src/ring.c", corpus / "alias.c")
    try:
        found = files_containing(locate_rg(), str(corpus), "ring_advance")
        assert found == {
            b"src/ring.c",
            b"src/use.c",
            b"lib/helper.py",
            b"README.md",
            b"alias.c",
            b"blob.bin",
        }
        assert files_containing(locate_rg(), str(corpus), "ring.advance") == set()
    finally:
        (corpus / "alias.c").unlink()


def test_a_slow_tool_is_checked_on_fewer_queries():
    settings = {"queries": 5, "slow_seconds": 10, "queries_when_slow": 2}
    assert check_plan([], settings) == 5
    assert check_plan([0.5, 3.0], settings) == 5
    assert check_plan([12.0], settings) == 2
    assert check_plan([0.1, 0.2, 11.0], settings) == 2
    assert check_plan([12.0], {**settings, "queries_when_slow": 9}) == 5


def _plain(sha: str, status: str = "ok", timed_out: bool = False):
    from searchbench.runner import SearchResult

    return SearchResult(
        argv=["tool"],
        exit_code=0,
        status=status,
        timed_out=timed_out,
        elapsed=0.01,
        user=0.0,
        sys=0.0,
        peak_rss_kib=1,
        rss_source="wait4",
        lines=1,
        bytes=1,
        stdout_sha256=sha,
    )


def test_the_timing_runs_audit_every_timed_query_that_took_the_fast_path():
    from searchbench.fastpath import audit_against_timing, audit_failure

    quality = {
        "q1": {"fast_path": True, "stdout_sha256": "a", "status": "ok"},
        "q2": {"fast_path": True, "stdout_sha256": "b", "status": "ok"},
        "q3": {"fast_path": False, "stdout_sha256": "c", "status": "ok"},  # plain quality run
        "q4": {"fast_path": True, "stdout_sha256": "d", "status": "ok"},
        "q9": {"fast_path": True, "stdout_sha256": "e", "status": "ok"},  # not timed
    }
    # q1: a warm-up and three measured runs, all equal; q4's only plain run timed out
    plain = {
        "q1": [_plain("a")] * 4,
        "q2": [_plain("b")],
        "q3": [_plain("c")],
        "q4": [_plain("d-cut", timed_out=True)],
    }
    audit = audit_against_timing(plain, quality)
    assert audit == {
        "timed_queries": 4,
        "fast_path_queries": 3,
        "compared": 2,
        "plain_runs_compared": 5,
        "differing": [],
        "equivalent": True,
    }
    # one measured run of q2 printed other bytes; q1's status differs with the same bytes
    plain["q2"] = [_plain("b"), _plain("b2")]
    plain["q1"] = [_plain("a", status="no-match")]
    audit = audit_against_timing(plain, quality)
    assert (audit["differing"], audit["equivalent"]) == (["q1", "q2"], False)
    line = audit_failure("rg", "click", audit)
    assert line.startswith("rg on click: its fast path printed otherwise than its plain runs")
    assert "2 of 2 timed queries (q1, q2)" in line and "fast_path: false for rg" in line
    assert "\n" not in line
