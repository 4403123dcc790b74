"""Issue 16 item 2: ack, GNU Global, cscope and codesearch, each read from its own output; and
issue 17 item 4, their reference modes (cscope-refs, global-refs) and ast-grep's call patterns
(ast-grep-calls, ast-grep-calls-c), read from what they print on tests/fixtures/uses.

The parser tests read outputs the tools printed (tests/fixtures/peers/outputs/<tool>-<version>,
recorded by tests/fixtures/peers/record.py on tests/fixtures/peers/tree); they need no binary.
The live tests need the Debian packages, which ./bench setup installs, and skip naming the
package when one is missing.
"""

import hashlib
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from searchbench.errors import BenchError
from searchbench.parsers import parse_output
from searchbench.runner import SearchSetup, build_index, list_files, run_tool
from searchbench.tools import escape_regex, load_tools, validate_query_template

ROOT = Path(__file__).resolve().parents[1]
PEERS_DIR = ROOT / "tests" / "fixtures" / "peers"
TREE = PEERS_DIR / "tree"
SPECS = load_tools(ROOT / "config" / "tools.yaml")
sys.path.insert(0, str(PEERS_DIR))
import record  # noqa: E402

PATH_ENV = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
PEERS = record.PEERS
REFERENCE_PEERS = record.REFERENCE_PEERS


def recorded(tool: str) -> Path:
    # `cscope-[0-9]*`: cscope-refs-15.9 is another tool's
    dirs = sorted((PEERS_DIR / "outputs").glob(f"{tool}-[0-9]*"))
    assert len(dirs) == 1, f"one recorded version of {tool}: {dirs}"
    return dirs[0]


def tree_paths(tree: Path = TREE) -> set[bytes]:
    return {os.fsencode(p.relative_to(tree)) for p in tree.rglob("*") if not p.is_dir()}


def parsed(tool: str) -> dict[str, list[tuple[bytes, int]]]:
    """query -> the (path, line) pairs the tool's own output parses into."""
    out_dir = recorded(tool)
    manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["output"] == SPECS[tool].output
    # the recorded program is the one the entry means
    assert re.search(SPECS[tool].version_match, manifest["version"]), manifest["version"]
    prefix = os.fsencode(manifest["root"]) + b"/"
    result = {}
    for rec in manifest["records"]:
        data = (out_dir / rec["file"]).read_bytes()
        known = tree_paths(record.source(tool)[0])
        matches = parse_output(SPECS[tool].output, data, known, prefix)
        result[rec["query"]] = [(m.path, m.line) for m in matches]
        assert rec["exit_code"] == 0 or rec["exit_code"] in SPECS[tool].no_match_exit, rec
    return result


HOSTILE = ("-rf", "a.b", "$x")
README_LINE = [(b"docs/README.md", 3)]
DEFINITIONS = [(b"src/c/ring.c", 3), (b"src/cpp/shelf.cpp", 7)]


def test_ack_output_parses_to_sorted_literal_matches():
    got = parsed("ack")
    assert got["ring_push"][0] == (b".hidden/hidden.c", 1)  # hidden files are searched
    assert (b"src/c/ring.c", 3) in got["ring_push"] and len(got["ring_push"]) == 10
    paths = [p for p, _ in got["ring_push"]]
    assert paths == sorted(paths, key=lambda p: p.split(b"/"))  # --sort-files
    assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    assert not any(p == b"link.c" for p, _ in got["ring_push"])  # symlinks not followed
    for query in HOSTILE:
        assert got[query] == README_LINE, query  # literal, never an option or a regex
    assert got["ring_.ush"] == [] and got["no_such_name"] == []


def test_codesearch_absolute_paths_are_read_relative_to_the_root():
    got = parsed("codesearch")
    assert got["ring_push"][:2] == [(b"docs/README.md", 1), (b"docs/README.md", 3)]
    assert DEFINITIONS[0] in got["ring_push"]
    assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    assert got["hidden_fn"] == []  # cindex skips dot-directories
    for query in HOSTILE:
        assert got[query] == README_LINE, query  # the escaped regex is the literal
    assert got["ring_.ush"] == []  # `.` escaped: not a wildcard


def test_global_definitions_only_in_the_languages_it_parses():
    got = parsed("global")
    assert got["ring_push"] == DEFINITIONS  # the definitions, not the calls or the prototype
    assert got["RING_MAX"] == [(b"src/c/ring.h", 1)]
    assert got["RingBuffer"] == [(b"src/java/RingBuffer.java", 1)]
    assert got["ringPush"] == [(b"src/java/RingBuffer.java", 2)]  # not .ts/.js
    assert got["hidden_fn"] == [(b".hidden/hidden.c", 1)]  # --accept-dotfiles
    assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    for query in (*HOSTILE, "ring_.ush", "no_such_name"):
        assert got[query] == [], query


def test_cscope_lines_and_its_spaced_path_failure():
    got = parsed("cscope")
    assert got["ring_push"] == DEFINITIONS
    assert got["Shelf"] == [(b"src/cpp/shelf.cpp", 2), (b"src/cpp/shelf.cpp", 7)]
    assert got["RingBuffer"] == [] and got["ringPush"] == []  # no .java, no .ts
    assert got["hidden_fn"] == [(b".hidden/hidden.c", 1)]
    # cscope 15.9 cannot read back a file name with a space: it prints a notice instead
    assert got["spaced_fn"] == []
    notice = (recorded("cscope") / "08.out").read_bytes()
    assert notice.startswith(b"File does not have expected format")
    for query in (*HOSTILE, "ring_.ush", "no_such_name"):
        assert got[query] == [], query  # unescaped, `ring_.ush` would find ring_push


# --- reference modes (usage track), on tests/fixtures/uses ----------------------------------

REFERENCE_HOSTILE = ("no_such_name", "-rf", "a.b", "$x", "lib_.elf")


def test_reference_modes_run_only_on_the_usage_track_over_the_definition_entrys_index():
    for name, owner in (("cscope-refs", "cscope"), ("global-refs", "global")):
        spec, full = SPECS[name], SPECS[owner]
        assert spec.tracks == ["usage"] and spec.index_of == owner, name
        assert (spec.index_argv, spec.index_binary, spec.env) == (
            full.index_argv, full.index_binary, full.env,
        )  # fmt: skip
    assert SPECS["ast-grep-calls"].tracks == SPECS["ast-grep-calls-c"].tracks == ["usage"]
    # the two call patterns cover every parsed language between them, each once
    covered = SPECS["ast-grep-calls"].languages + SPECS["ast-grep-calls-c"].languages
    assert sorted(covered) == sorted(set(covered)) and "c" not in SPECS["ast-grep-calls"].languages


def test_cscope_refs_lists_every_reference_with_the_definition_and_prototype():
    got = parsed("cscope-refs")
    # -0: the prototype in lib.h first (the walk's file order), then each call, the definition
    assert got["lib_used_thrice"] == [
        (b"c/lib.h", 5), (b"c/a.c", 5), (b"c/b.c", 7), (b"c/c.c", 6), (b"c/lib.c", 4),
    ]  # fmt: skip
    assert got["lib_box_t"] == [(b"c/lib.h", 4), (b"c/b.c", 3), (b"c/c.c", 5)]  # type uses too
    assert got["helper"] == [(b"c/lib.c", 3), (b"c/lib.c", 4)]  # not java/ nor go/: C only
    assert got["Frob"] == [] and got["render"] == []
    for query in REFERENCE_HOSTILE:
        assert got[query] == [], query  # `-0 -rf` is a pattern; `lib_.elf` escaped


def test_global_refs_lists_references_but_not_the_definition():
    got = parsed("global-refs")
    assert got["lib_used_thrice"] == [(b"c/a.c", 5), (b"c/b.c", 7), (b"c/c.c", 6), (b"c/lib.h", 5)]
    assert got["lib_self"] == [(b"c/b.c", 7), (b"c/c.c", 6), (b"c/lib.c", 6), (b"c/lib.h", 7)]
    assert got["lib_box_t"] == [(b"c/b.c", 3), (b"c/c.c", 5)]  # the typedef line is not listed
    # its built-in parser reads Java too, not Go (go/a.go calls a helper as well)
    assert got["helper"] == [(b"c/lib.c", 4), (b"java/App.java", 9)]
    for query in (*REFERENCE_HOSTILE, "Frob", "make"):
        assert got[query] == [], query


def test_ast_grep_calls_finds_bare_calls_in_every_language_but_c():
    got = parsed("ast-grep-calls")
    assert got["helper"] == [(b"java/App.java", 9), (b"go/a.go", 6)]  # not C's helper(x)
    assert got["Frob"] == [(b"go/a.go", 10)]
    assert got["render"] == [(b"js/view.js", 4)] and got["draw"] == [(b"ts/view.tsx", 3)]
    # `NAME($$$)` is a macro type in C: no C call is found
    assert got["lib_used_thrice"] == got["lib_self"] == []
    # member calls (mod.make("x"), s.start(), g.greet(..)) are another pattern
    assert got["make"] == got["start"] == got["greet"] == []
    for query in REFERENCE_HOSTILE:
        assert got[query] == [], query


def test_ast_grep_calls_c_finds_c_calls_only():
    got = parsed("ast-grep-calls-c")
    assert sorted(got["lib_used_thrice"]) == [(b"c/a.c", 5), (b"c/b.c", 7), (b"c/c.c", 6)]
    assert sorted(got["lib_self"]) == [(b"c/b.c", 7), (b"c/c.c", 6), (b"c/lib.c", 6)]
    assert got["helper"] == [(b"c/lib.c", 4)]  # --lang=c: not Java's nor Go's
    assert got["lib_box_t"] == [] and got["Frob"] == []  # a type use is no call
    for query in REFERENCE_HOSTILE:
        assert got[query] == [], query


def test_escape_regex_and_guards():
    assert escape_regex("a.b") == r"a\.b" and escape_regex("$x") == r"\$x"
    assert escape_regex(r"\(*)") == r"\\\(\*\)" and escape_regex("-rf") == "-rf"
    validate_query_template("cscope", ["{binary}", "-1", "{query}"], guard="-1")
    with pytest.raises(BenchError, match="bare element"):
        validate_query_template("cscope", ["{binary}", "-1", "{query}"])


def test_env_placeholders_are_checked(tmp_path):
    path = tmp_path / "tools.yaml"
    entry = {"binary": "x", "argv": ["{binary}", "--", "{query}"], "output": "grep"}
    entry["family"] = "grep"
    path.write_text(json.dumps({"tools": {"t": {**entry, "env": {"A": "{query}"}}}}))
    with pytest.raises(BenchError, match="env A holds {query}"):
        load_tools(path)
    path.write_text(json.dumps({"tools": {"t": {**entry, "env": {"A": "{index}"}}}}))
    with pytest.raises(BenchError, match="no index_argv builds it"):
        load_tools(path)


# --- live: the installed tools ---------------------------------------------------------------


@pytest.fixture(scope="module")
def tools():
    return record.peer_tools(PATH_ENV, (*PEERS, *REFERENCE_PEERS))


def need(tools, name):
    if not tools[name].available:
        pytest.skip(f"{name}: {tools[name].skipped_reason} (./bench setup installs it)")
    return tools[name]


def test_a_missing_peer_is_skipped_in_one_line():
    absent = record.peer_tools(path_env="/nonexistent")
    for name, tool in absent.items():
        assert not tool.available and "\n" not in tool.skipped_reason, name
        assert "not found" in tool.skipped_reason


@pytest.mark.parametrize("name", [*PEERS, *REFERENCE_PEERS])
def test_recorded_outputs_are_what_the_installed_version_prints(tools, name, tmp_path):
    """The fixtures are the tools' real output: regenerating them changes nothing."""
    tool = need(tools, name)
    committed = recorded(name)
    if committed.name != f"{name}-{record.version_slug(tool)}":
        pytest.skip(f"installed {name} is not the recorded version ({committed.name})")
    record.record(tool, tmp_path / "out")
    for path in sorted(committed.iterdir()):
        fresh = tmp_path / "out" / path.name
        if path.name == "manifest.json":
            old, new = (json.loads(p.read_text()) for p in (path, fresh))
            assert old["records"] == new["records"]
        else:
            assert fresh.read_bytes() == path.read_bytes(), path.name


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(os.fsencode(p.relative_to(root)) + b"\0")
        if p.is_symlink():
            h.update(os.readlink(p).encode())
        elif p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


INDEX_FILES = {
    "global": {"GTAGS", "GRTAGS", "GPATH"},
    "cscope": {"cscope.out", "cscope.out.in", "cscope.out.po"},
    "codesearch": {"csearchindex"},
}


@pytest.mark.parametrize("name", sorted(INDEX_FILES))
def test_index_is_a_directory_outside_the_corpus(tools, name, tmp_path):
    tool = need(tools, name)
    corpus = tmp_path / "corpus"
    shutil.copytree(TREE, corpus, symlinks=True)
    before = digest(corpus)
    index = tmp_path / "idx"
    index.mkdir()
    (index / "stale").write_text("from an earlier build\n")
    build_index(tool, str(corpus), str(index))
    assert {p.name for p in index.iterdir()} == INDEX_FILES[name]
    result = run_tool(SearchSetup(tool, str(corpus), 30, index=str(index)), "ring_push")
    assert result.status == "ok" and b"src/c/ring.c" in result.files
    assert digest(corpus) == before  # nothing written into the corpus, by build or search


@pytest.mark.parametrize("name", ["global", "cscope"])
def test_declared_languages_are_the_ones_the_tool_finds(tools, name, tmp_path):
    """One declaration per parsed language, in a file with its main extension."""
    from searchbench.fileset import load_languages

    tool = need(tools, name)
    probes = {
        "c": "int probe_c(void) { return 0; }\n",
        "cpp": "int probe_cpp(int v) { return v; }\n",
        "rust": "fn probe_rust() {}\n",
        "typescript": "function probe_typescript() {}\n",
        "tsx": "function probe_tsx() {}\n",
        "javascript": "function probe_javascript() {}\n",
        "python": "def probe_python():\n    pass\n",
        "go": "package p\n\nfunc probe_go() {}\n",
        "java": "class Probe {\n  void probe_java() {}\n}\n",
        "swift": "func probe_swift() {}\n",
    }
    parsed_languages = load_languages(ROOT / "config" / "languages.yaml")["parsed"]
    assert set(probes) == set(parsed_languages)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for lang, text in probes.items():
        ext = parsed_languages[lang]["extensions"][0]
        (corpus / f"probe_{lang}.{ext}").write_text(text)
    index = tmp_path / "idx"
    build_index(tool, str(corpus), str(index))
    setup = SearchSetup(tool, str(corpus), 30, index=str(index))
    found = sorted(lang for lang in probes if run_tool(setup, f"probe_{lang}").lines)
    assert found == tool.spec.languages


def test_ack_lists_the_files_it_searches(tools, tmp_path):
    tool = need(tools, "ack")
    listed = list_files(tool, str(TREE))
    assert listed == sorted(listed, key=lambda p: p.split(b"/"))  # dma/ before dma-buf/
    assert listed.index(b"dma/x.c") < listed.index(b"dma-buf/x.c")
    assert b".hidden/hidden.c" in listed and b"link.c" not in listed
    assert set(listed) == tree_paths() - {b"link.c"}
