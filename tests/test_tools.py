"""Tools as data, run for real: every configured tool on a small hostile corpus."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from searchbench.errors import BenchError
from searchbench.runner import SearchSetup, build_index, list_files, run_tool
from searchbench.tools import (
    expand_argv,
    load_tools,
    read_tools_json,
    resolution_from_text,
    resolution_key,
    resolution_text,
    resolve_tools,
    tool_identity,
    validate_query_template,
    version_lines,
    write_tools_json,
)

ROOT = Path(__file__).resolve().parents[1]
TOOLS_YAML = ROOT / "config" / "tools.yaml"
PATH_ENV = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
# hay's CLI belongs to another module and has its own tests; bsd-grep is absent on Debian.
SKIP = {"hay", "hay-no-keyword", "hay-no-cshape", "hay-no-path", "hay-no-definition", "bsd-grep"}
GREP_FAMILY = ["rg", "git-grep", "ugrep", "grep", "ag", "busybox-grep"]


def _specs():
    return {k: v for k, v in load_tools(TOOLS_YAML).items() if k not in SKIP}


@pytest.fixture(scope="module")
def tools():
    return resolve_tools(_specs(), PATH_ENV)


def make_corpus(outer: Path) -> Path:
    """A corpus inside a git repository whose .gitignore is `*`, with every awkward file kind."""
    subprocess.run(["git", "init", "-q", str(outer)], check=True)
    (outer / ".gitignore").write_text("*\n")
    root = outer / "corpus"
    files = {
        "a.c": b"int foo_bar(void) { return 1; }\n",
        "b.c": b"void foo_bar_x(int a) {\n  foo_bar(a);\n}\n",
        "dma/x.c": b"x foo_bar y\n",
        "dma-buf/x.c": b"foo_bar\n",
        ".hidden/h.c": b"int hidden_fn(void) { return foo_bar; }\n",
        ".dotfile": b"foo_bar dot\n",
        "bin.dat": b"foo_bar\0\x01\x02binary\n",
        ".gitignore": b"*\n",
        ".ignore": b"a.c\n",
        "with space.c": b"call foo_bar();\n",
        "-dash.c": b"foo_bar dash\n",
        "sub/z.c": b"zfoo_barz\n",
        "sub.c": b"foo_bar top\n",
        "upper.c": b"FOO_BAR no\n",
        "latin.c": b"caf\xe9 foo_bar latin1\n",
        "empty.c": b"",
    }
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "link.c").symlink_to("a.c")
    return root


TEXT_HITS = {
    b"-dash.c",
    b".dotfile",
    b".hidden/h.c",
    b"a.c",
    b"b.c",
    b"dma/x.c",
    b"dma-buf/x.c",
    b"latin.c",
    b"sub/z.c",
    b"sub.c",
    b"with space.c",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_corpus(tmp_path_factory.mktemp("outer"))


def known(root: Path) -> set[bytes]:
    return {
        os.fsencode(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()
    }


# --- templates -------------------------------------------------------------------------------


def test_every_configured_template_guards_the_query():
    for spec in load_tools(TOOLS_YAML).values():
        if spec.unavailable is None:  # an unavailable entry never runs (srgn has no guard)
            validate_query_template(spec.name, spec.argv, spec.query_guard)


@pytest.mark.parametrize(
    "argv",
    [
        ["{binary}", "-F", "{query}", "."],
        ["{binary}", "-F", "-e{query}", "."],
        ["{binary}", "-e", "{query}", "--", "{query}"],
        ["{binary}", "--pattern", "{query}"],
        ["{binary}", "--pattern=x{query}"],
        ["{binary}", "--pattern={query}({query})"],
    ],
)
def test_unguarded_query_is_rejected(argv):
    with pytest.raises(BenchError, match="tool t"):
        validate_query_template("t", argv)


def test_a_query_may_start_an_option_value_with_a_suffix():
    """ast-grep-calls' `--pattern={query}($$$)`: the query is inside the option's value."""
    validate_query_template("t", ["{binary}", "run", "--pattern={query}($$$)", "./"])
    argv = expand_argv(["{binary}", "--pattern={query}($$$);"], "/b", "-rf")
    assert argv == ["/b", "--pattern=-rf($$$);"]


def test_expand_argv_word_and_literal_placeholders():
    template = ["{binary}", "{word}", "-e", "{query}", "--tags={index}"]
    assert expand_argv(template, "/b", "{index}", index="/i") == [
        "/b",
        "-e",
        "{index}",
        "--tags=/i",
    ]
    assert expand_argv(template, "/b", "q", index="/i", word=True, word_argv=["-w", "-x"]) == [
        "/b",
        "-w",
        "-x",
        "-e",
        "q",
        "--tags=/i",
    ]


def test_expand_argv_fills_in_one_pass_and_names_a_missing_value():
    template = ["{binary}{query}{index}", "-e{", "{session}}", "{unknown}", "x{timeout}y"]
    argv = expand_argv(template, "/b", "{binary}", index="$1\\1", session="s", timeout=10)
    # adjacent placeholders, a value holding a placeholder or a backreference kept literal
    assert argv == ["/b{binary}$1\\1", "-e{", "s}", "{unknown}", "x9.000y"]
    with pytest.raises(BenchError) as err:
        expand_argv(["--tags={index}"], "/b", "q")
    assert str(err.value) == "argv element '--tags={index}' needs {index} but none was given"


def _write_tools(tmp_path: Path, entry: dict) -> Path:
    path = tmp_path / "tools.yaml"
    path.write_text(json.dumps({"tools": {"t": entry}}))
    return path


def test_missing_required_tool_names_install_hint(tmp_path):
    path = _write_tools(
        tmp_path,
        {
            "binary": "no-such-searcher-xyz",
            "argv": ["{binary}", "--", "{query}"],
            "output": "grep",
            "family": "grep",
            "install_hint": "apt-get install xyz-searcher",
        },
    )
    with pytest.raises(BenchError) as err:
        resolve_tools(load_tools(path), PATH_ENV)
    message = str(err.value)
    assert "\n" not in message
    assert "no-such-searcher-xyz" in message and "apt-get install xyz-searcher" in message


def test_missing_optional_tool_is_unavailable(tmp_path):
    path = _write_tools(
        tmp_path,
        {
            "binary": "/nonexistent/bin/grep",
            "argv": ["{binary}", "--", "{query}"],
            "output": "grep",
            "family": "grep",
            "optional": True,
        },
    )
    tool = resolve_tools(load_tools(path), PATH_ENV)["t"]
    assert not tool.available and "not found" in tool.skipped_reason


def test_tools_json_round_trip_and_sorted(tools, tmp_path):
    out = tmp_path / "tools.json"
    write_tools_json(tools, out)
    text = out.read_text()
    data = json.loads(text)
    assert list(data) == sorted(data)
    assert data["rg"]["binary"] == str(Path(sys.executable).parent / "rg")
    assert data["rg"]["version"].startswith("ripgrep 14")
    assert data["busybox-grep"]["version"].startswith("BusyBox v")
    assert data["ctags"]["version"].startswith("Universal Ctags")
    assert data["grep"]["version"].startswith("grep (GNU grep)")
    assert len(data["git-grep"]["sha256"]) == 64
    back = read_tools_json(out)
    write_tools_json(back, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == text
    # Every spec key survives the trip (the jobs read their tool from this file); only the
    # binaries come back resolved.
    for name, tool in tools.items():
        resolved = {"binary": back[name].spec.binary, "index_binary": back[name].spec.index_binary}
        assert back[name].spec == dataclasses.replace(tool.spec, **resolved), name
    assert back["ugrep"].spec.fast_path_bare_names and back["ag"].spec.fast_path_pad


# --- real tools on the corpus --------------------------------------------------------------


def _search(tools, name, corpus, query="foo_bar", index=None):
    setup = SearchSetup(tools[name], str(corpus), 30, index=index)
    return run_tool(setup, query, {b"a.c"}, known(corpus))


@pytest.mark.parametrize("name", ["rg", "git-grep", "ugrep", "grep", "ag"])
def test_text_tools_search_the_same_file_set(tools, corpus, name):
    result = _search(tools, name, corpus)
    assert result.status == "ok", result.stderr_head
    assert set(result.files) == TEXT_HITS  # hidden, ignored, spaced, dashed, non-UTF-8 files
    assert result.lines == len(TEXT_HITS) + 1  # b.c has two lines
    assert result.unparsed == 0


def test_busybox_follows_symlinks_and_reads_binary_files(tools, corpus):
    result = _search(tools, "busybox-grep", corpus)
    assert set(result.files) == TEXT_HITS | {b"link.c", b"bin.dat"}


def test_ag_binary_notice_is_not_a_result(tools, corpus):
    result = _search(tools, "ag", corpus)
    assert result.notices == 1 and b"bin.dat" not in result.files


def test_output_orders(tools, corpus):
    rg = _search(tools, "rg", corpus).files
    assert rg == sorted(rg, key=lambda p: p.split(b"/"))  # by path component
    assert rg.index(b"dma/x.c") < rg.index(b"dma-buf/x.c")
    git = _search(tools, "git-grep", corpus).files
    assert git == sorted(git)  # byte order of the full path
    ug = _search(tools, "ugrep", corpus).files
    top = [p for p in ug if b"/" not in p]
    assert ug[: len(top)] == sorted(top)  # files first, then subdirectories by name
    assert ug[len(top) :] == [b".hidden/h.c", b"dma/x.c", b"dma-buf/x.c", b"sub/z.c"]


def test_line_numbers_and_text(tools, corpus):
    for name in GREP_FAMILY:
        result = _search(tools, name, corpus)
        assert result.first_right_line is not None
    rg = _search(tools, "rg", corpus)
    assert rg.first_right_line == rg.files.index(b"a.c")  # one line per file before b.c
    ast = run_tool(
        SearchSetup(tools["ast-grep"], str(corpus), 30),
        "foo_bar",
        {b"a.c"},
        known(corpus),
        decl_line=(b"a.c", 1),
    )
    assert ast.status == "ok"
    assert b"a.c" in ast.files and b".dotfile" not in ast.files
    assert ast.decl_line_rank is not None


def test_ctags_index_and_lookup(tools, corpus, tmp_path):
    index = tmp_path / "tags"
    build_index(tools["ctags"], str(corpus), str(index))
    hit = _search(tools, "ctags", corpus, "foo_bar", index=str(index))
    assert hit.status == "ok" and hit.files == [b"a.c"] and hit.first_right_line == 0
    hidden = _search(tools, "ctags", corpus, "hidden_fn", index=str(index))
    assert hidden.files == [b".hidden/h.c"]
    miss = _search(tools, "ctags", corpus, "-rf", index=str(index))
    assert miss.status == "no-match" and miss.files == []


def test_list_files_matches_the_search_file_set(tools, corpus):
    # `-l -e ""` lists files with at least one line: empty files (which cannot match) are not
    # listed. rg lists by matching the empty pattern too, so it skips bin.dat as a search does.
    text_files = TEXT_HITS | {b".gitignore", b".ignore", b"upper.c"}
    for name in ["git-grep", "ugrep", "grep", "rg"]:
        assert set(list_files(tools[name], str(corpus))) == text_files, name
    assert set(list_files(tools["ag"], str(corpus))) == text_files | {b"bin.dat", b"empty.c"}
    rg = list_files(tools["rg"], str(corpus))
    assert rg == sorted(rg, key=lambda p: p.split(b"/"))
    busybox = set(list_files(tools["busybox-grep"], str(corpus)))
    assert busybox == text_files | {b"bin.dat", b"link.c"}


HOSTILE = ["-rf", "--help", "$(touch pwned)", "*", "\\", "a b", "ü", ";rm -rf x", "a.b", "$x"]
# Text search tools that must print exactly the lines holding the query (codesearch's query is
# an escaped RE2 regex); tag indexes must find no definition of such a name.
LITERAL_TOOLS = [*GREP_FAMILY, "ack", "codesearch"]
DEFINITION_TOOLS = ["ctags", "global", "cscope"]


@pytest.fixture(scope="module")
def hostile_corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    lines = [f"line {q} end" for q in HOSTILE] + ["plain words only", "ab a  b"]
    (root / "h.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "other.c").write_text("int main(void) { return 0; }\n")
    (root / "x").write_text("x must survive\n")
    return root


@pytest.fixture(scope="module")
def hostile_indexes(tools, hostile_corpus, tmp_path_factory):
    """Each available indexed tool's index of the hostile corpus, built once."""
    base = tmp_path_factory.mktemp("hostile-idx")
    built = {}
    for name, tool in sorted(tools.items()):
        if tool.available and tool.spec.index_argv:
            build_index(tool, str(hostile_corpus), str(base / name))
            built[name] = str(base / name)
    return built


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_are_literal_and_harmless(tools, hostile_corpus, hostile_indexes, query):
    data = (hostile_corpus / "h.txt").read_bytes().split(b"\n")
    expected = [i + 1 for i, line in enumerate(data) if query.encode() in line]
    assert expected
    for name in sorted(tools):
        if not tools[name].available:  # an optional peer tool not installed here
            continue
        setup = SearchSetup(tools[name], str(hostile_corpus), 30, index=hostile_indexes.get(name))
        result = run_tool(setup, query, {b"h.txt"})
        assert result.status != "timeout", name
        assert not (hostile_corpus / "pwned").exists(), name
        assert not Path("pwned").exists(), name
        assert (hostile_corpus / "x").exists(), name
        if name in LITERAL_TOOLS:
            assert result.status == "ok", (name, result.stderr_head)
            assert result.files == [b"h.txt"], name
            assert result.lines == len(expected), name
        elif name in DEFINITION_TOOLS:
            assert result.status == "no-match", (name, result.stderr_head)


@pytest.mark.parametrize("name", GREP_FAMILY)
def test_word_mode(tools, corpus, name):
    setup = SearchSetup(tools[name], str(corpus), 30, word=True)
    result = run_tool(setup, "foo_bar", {b"a.c"}, known(corpus))
    assert result.status == "ok", result.stderr_head
    assert b"sub/z.c" not in result.files and b"b.c" in result.files
    expected = TEXT_HITS - {b"sub/z.c"}
    if name == "busybox-grep":
        expected |= {b"link.c", b"bin.dat"}
    assert set(result.files) == expected
    assert result.lines == len(expected)  # b.c line 1 has only foo_bar_x


def test_file_order_is_recorded_and_filesystem_order_is_flagged(tmp_path):
    specs = load_tools(TOOLS_YAML)
    resolved = resolve_tools({k: specs[k] for k in ("rg", "grep")}, PATH_ENV)
    write_tools_json(resolved, tmp_path / "tools.json")
    record = json.loads((tmp_path / "tools.json").read_text())
    assert record["grep"]["order"].startswith("filesystem")
    assert "path" in record["rg"]["order"]


def test_ctags_declares_exactly_the_languages_it_parses(tools, tmp_path):
    """Issue 8 item 4: the declared list is data, so check it against ctags itself: a
    language is covered when ctags maps its main extension (languages.yaml) to a parser."""
    from searchbench.fileset import load_languages

    parsed = load_languages(ROOT / "config" / "languages.yaml")["parsed"]
    for spec in parsed.values():
        (tmp_path / f"probe.{spec['extensions'][0]}").write_text("x\n")
    ctags = tools["ctags"].index_binary_path
    out = subprocess.run(
        [ctags, "--print-language", *sorted(p.name for p in tmp_path.iterdir())],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [line for line in out.splitlines() if not line.endswith(": NONE")]
    mapped = {line.split(": ")[0].split(".", 1)[1] for line in lines}
    covered = sorted(lang for lang, spec in parsed.items() if spec["extensions"][0] in mapped)
    assert tools["ctags"].spec.languages == covered
    assert "swift" not in covered and "tsx" not in covered


def test_an_unknown_output_format_is_refused_naming_the_known_ones(tmp_path):
    """The formats are listed once (parsers.LINE_PARSERS); the loader checks against it."""
    from searchbench.parsers import FORMATS, LINE_PARSERS, parse_line

    path = tmp_path / "tools.yaml"
    path.write_text(
        "tools:\n  t:\n    binary: rg\n    argv: ['{binary}', '-e', '{query}']\n"
        "    output: json9\n    family: grep\n"
    )
    with pytest.raises(BenchError, match=r"tool t: output 'json9' is not one of grep-null, "):
        load_tools(path)
    assert tuple(LINE_PARSERS) == FORMATS and "ctags" in FORMATS
    assert parse_line("git-null", b"a.c\x0012\x00int x;").path == b"a.c"
    with pytest.raises(ValueError, match="unknown output format 'json9'"):
        parse_line("json9", b"x")


def test_a_grep_that_is_ugrep_stops_resolution_naming_the_binary_and_its_target(tmp_path):
    """Binary identity (issue 15): the entry says what its version line must match; a
    symlink named `grep` that is ugrep is refused in one line, naming both paths."""
    ugrep = Path("/usr/bin/ugrep")
    if not ugrep.exists():
        pytest.skip("ugrep is installed by ./bench setup")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "grep").symlink_to(ugrep)
    spec = load_tools(TOOLS_YAML)["grep"]
    with pytest.raises(BenchError) as err:
        resolve_tools({"grep": spec}, path_env=str(tmp_path / "bin"))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"tool grep: {tmp_path}/bin/grep (-> {ugrep.resolve()}) says 'ugrep ")
    assert "does not match version_match '^grep \\\\(GNU grep\\\\) '" in message
    optional = dataclasses.replace(spec, optional=True)
    skipped = resolve_tools({"grep": optional}, path_env=str(tmp_path / "bin"))["grep"]
    assert not skipped.available and "says 'ugrep " in skipped.skipped_reason
    real = resolve_tools({"grep": spec}, path_env="/usr/bin")["grep"]
    assert real.available and real.binary_target == os.path.realpath("/usr/bin/grep")
    path = tmp_path / "tools.json"
    write_tools_json({"grep": real}, path)
    assert read_tools_json(path)["grep"].binary_target == real.binary_target


def test_every_tool_names_its_family_and_an_unknown_family_is_refused(tmp_path):
    """Issue 16: the report names the best tool of each family, so every entry has one."""
    from searchbench.tools import TOOL_FAMILIES

    specs = load_tools(TOOLS_YAML)
    assert {s.family for s in specs.values()} <= set(TOOL_FAMILIES)
    assert specs["hay-no-definition"].family == "ranker-under-test"
    assert specs["ctags"].family == "tag-index" and specs["ast-grep"].family == "structural"
    entry = {"binary": "rg", "argv": ["{binary}", "-e", "{query}"], "output": "grep-null"}
    with pytest.raises(BenchError, match="tool t: missing `family` in tools file; one of grep, "):
        load_tools(_write_tools(tmp_path, entry))
    with pytest.raises(BenchError, match="tool t: family 'vector' is not one of grep, "):
        load_tools(_write_tools(tmp_path, {**entry, "family": "vector"}))


def test_ablation_of_changes_how_results_are_read_not_the_tool_s_identity():
    # a tool's identity decides whether its searches rerun: declaring a variant reruns none
    import dataclasses

    rg = resolve_tools({"rg": _specs()["rg"]}, PATH_ENV)["rg"]
    variant = dataclasses.replace(rg, spec=dataclasses.replace(rg.spec, ablation_of="grep"))
    assert tool_identity(variant) == tool_identity(rg)
    moved = dataclasses.replace(rg, spec=dataclasses.replace(rg.spec, argv=[*rg.spec.argv, "-i"]))
    assert tool_identity(moved) != tool_identity(rg)


@pytest.mark.parametrize("key", ["version_match", "fast_path_queries"])
def test_a_pattern_that_does_not_compile_is_one_line_naming_its_key(tmp_path, key):
    entry = {"binary": "rg", "argv": ["{binary}", "--", "{query}", "./"], "output": "grep"}
    path = _write_tools(tmp_path, {**entry, "family": "grep", key: "[A-Z"})
    with pytest.raises(BenchError, match=rf"^tool t: {key} is not a valid regex") as err:
        load_tools(path)
    assert "\n" not in str(err.value)


def test_version_lines_asks_each_distinct_command_once(tmp_path):
    # hay's five variants (and each language server's -refs twin) name one version command
    asked = tmp_path / "asked"
    script = tmp_path / "tool"
    script.write_text(f'#!/bin/sh\necho "$1" >> {asked}\necho "tool $1"\n')
    script.chmod(0o755)
    argvs = [(str(script), "a"), (str(script), "b"), (str(script), "a"), (str(script), "a")]
    lines = version_lines(argvs)
    assert lines == {(str(script), "a"): "tool a", (str(script), "b"): "tool b"}
    assert sorted(asked.read_text().split()) == ["a", "b"]
    assert version_lines([]) == {}


def test_a_resolution_left_for_a_job_comes_back_only_for_the_same_tools_and_path(tools):
    # What a Slurm job's Snakemake takes from its run instead of resolving every tool again.
    specs = {name: tool.spec for name, tool in tools.items()}
    mapping = yaml.safe_load(TOOLS_YAML.read_text())["tools"]
    key = resolution_key(mapping, PATH_ENV, False)
    text = resolution_text(tools, key)
    assert resolution_from_text(text, specs, key) == tools
    # another search path, peers built, another tools mapping or folder: another key
    edited = {**mapping, "rg": {**mapping["rg"], "argv": [*mapping["rg"]["argv"], "-i"]}}
    others = [
        resolution_key(mapping, PATH_ENV + os.pathsep + "/opt/bin", False),
        resolution_key(mapping, PATH_ENV, True),
        resolution_key(edited, PATH_ENV, False),
        resolution_key(mapping, PATH_ENV, False, Path("elsewhere") / "tools"),
    ]
    assert len({key, *others}) == 5
    assert all(resolution_from_text(text, specs, other) is None for other in others)
    # made for other tools, unreadable, cut short or absent: resolve anew
    fewer = {name: spec for name, spec in specs.items() if name != "rg"}
    assert resolution_from_text(text, fewer, key) is None
    for broken in ("", "{", text[: len(text) // 2], json.dumps({"key": key}), "[1]"):
        assert resolution_from_text(broken, specs, key) is None
