"""The fast path prints exactly what the plain run prints, and the check notices when not."""

import os
import shutil
from pathlib import Path

import pytest

from searchbench.fastpath import compare, files_containing, run_fast, walk_order
from searchbench.runner import list_files, run_tool
from searchbench.tools import load_tools, resolve_tools

REPO = Path(__file__).resolve().parent.parent
QUERIES = ["ring_advance", "helper", "absent_symbol_xyz", "-rf", "struct"]


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
    return root


@pytest.fixture(scope="module")
def tools():
    specs = load_tools(REPO / "config" / "tools.yaml")
    return resolve_tools({k: specs[k] for k in ("ast-grep", "busybox-grep")})


@pytest.mark.parametrize("name", ["ast-grep", "busybox-grep"])
def test_fast_path_is_byte_identical_to_the_plain_run(corpus, tools, name):
    tool = tools[name]
    if not tool.available:
        pytest.skip(f"{name} not installed")
    walk = walk_order(list_files(tool, str(corpus)))
    rg = shutil.which("rg")
    used_fast = {}
    for query in QUERIES:
        plain = run_tool(tool, query, str(corpus), 30, None, None)
        fast, used_fast[query] = run_fast(tool, query, str(corpus), 30, None, None, walk, rg)
        assert compare(plain, fast)["equivalent"], (name, query)
        assert fast.files == plain.files and fast.argv == plain.argv
    assert used_fast["absent_symbol_xyz"] and used_fast["-rf"]
    # ast-grep matches inline Markdown text, but its listing pattern lists no Markdown file:
    # a query that occurs in README.md must fall back to the plain run.
    assert used_fast["ring_advance"] == (name != "ast-grep")


def test_a_wrong_walk_order_is_caught(corpus, tools):
    tool = tools["busybox-grep"]
    if not tool.available:
        pytest.skip("busybox not installed")
    walk = walk_order(list_files(tool, str(corpus)))
    reordered = sorted(walk, reverse=True)
    plain = run_tool(tool, "ring_advance", str(corpus), 30, None, None)
    fast, _ = run_fast(
        tool, "ring_advance", str(corpus), 30, None, None, reordered, shutil.which("rg")
    )
    if plain.files == fast.files:
        pytest.skip("this file system happens to list files in reverse order")
    assert not compare(plain, fast)["equivalent"]


def test_files_containing_is_literal_and_follows_links(corpus):
    os.symlink("src/ring.c", corpus / "alias.c")
    try:
        found = files_containing(shutil.which("rg"), str(corpus), "ring_advance")
        assert found == {b"src/ring.c", b"src/use.c", b"lib/helper.py", b"README.md", b"alias.c"}
        assert files_containing(shutil.which("rg"), str(corpus), "ring.advance") == set()
    finally:
        (corpus / "alias.c").unlink()
