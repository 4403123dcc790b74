"""Issue 8 item 7: one hostile file must not sink or skew a corpus.

Each case is a small corpus built in tmp_path; the result is correct, or the file is excluded
and listed in unseen.tsv, or the run stops with one line naming what happened."""

import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

from searchbench import gt_audit
from searchbench import symbols as sym
from searchbench.errors import BenchError
from searchbench.fileset import load_languages, scan_files
from searchbench.parsers import MAX_LINE, Match, parse_line, parse_output
from searchbench.runner import SearchSetup, build_index, run_tool
from searchbench.tools import ResolvedTool, load_tools, resolve_tools, tool_search_path

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "config" / "astgrep"
LANGUAGES = load_languages(REPO / "config" / "languages.yaml")


def _scan(root: Path, **kw):
    return sym.scan_symbols(root, scan_files(root, LANGUAGES), RULES, LANGUAGES, 4_000_000, 1, **kw)


def test_non_utf8_file_name_is_unseen_not_a_failed_corpus(tmp_path):
    (tmp_path / "ok.c").write_text("int good_function(void) { return 0; }\n")
    bad = os.path.join(os.fsencode(tmp_path), b"caf\xe9.c")
    with open(bad, "wb") as handle:
        handle.write(b"int latin1_named_function(void) { return 0; }\n")
    rows, unseen = _scan(tmp_path)  # ast-grep panicked (exit 101) on this batch before
    assert [r.symbol for r in rows] == ["good_function"]
    assert [(os.fsencode(u.path), u.reason) for u in unseen] == [(b"caf\xe9.c", "name-not-utf8")]


def test_newline_in_a_file_name_is_unseen(tmp_path):
    (tmp_path / "ok.c").write_text("int good_function(void) { return 0; }\n")
    (tmp_path / "two\nlines.c").write_text("int newline_named_function(void) { return 0; }\n")
    rows, unseen = _scan(tmp_path)
    # grep-style output cannot be split back into this path: it must never be an answer
    assert [r.symbol for r in rows] == ["good_function"]
    assert [(u.path, u.reason) for u in unseen] == [("two\nlines.c", "newline-in-name")]


def test_minified_file_is_unseen_and_the_limit_is_configurable(tmp_path):
    line = "function minified_fn(){return 1};" + "x+=1;" * 3000 + "\n"
    (tmp_path / "app.min.js").write_text(line)
    (tmp_path / "ok.js").write_text("function readable_fn() { return 1; }\n")
    rows, unseen = _scan(tmp_path, max_line_bytes=10_000)
    assert [r.symbol for r in rows] == ["readable_fn"]
    assert [(u.path, u.reason, u.bytes) for u in unseen] == [("app.min.js", "minified", len(line))]
    rows, unseen = _scan(tmp_path, max_line_bytes=len(line))
    assert sorted(r.symbol for r in rows) == ["minified_fn", "readable_fn"] and unseen == []


def test_killed_symbol_pass_names_the_signal(tmp_path):
    (tmp_path / "ok.c").write_text("int good_function(void) { return 0; }\n")
    fake = tmp_path / "fake-ast-grep"
    kill = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    fake.write_text(f"#!{sys.executable}\n{kill}")
    fake.chmod(0o755)
    with pytest.raises(BenchError, match="killed by SIGKILL, likely the out-of-memory killer"):
        _scan(tmp_path, astgrep=str(fake))
    assert sym.exit_description(-signal.SIGSEGV) == "killed by SIGSEGV"
    assert sym.exit_description(2) == "exit 2"


def test_ctags_audit_list_cannot_smuggle_options(tmp_path):
    """A file named `--kinds-C=-f`, read from `-L -` as an option, turned C functions off."""
    ctags = shutil.which("ctags")
    if ctags is None:
        pytest.skip("needs universal-ctags")
    (tmp_path / "--kinds-C=-f").write_text("nothing here\n")
    (tmp_path / "a.c").write_text("int audited_function(void) { return 0; }\n")
    tags = gt_audit.run_ctags(tmp_path, [b"--kinds-C=-f", b"a.c"], {"audited_function"}, ctags)
    assert [(t.name, t.path, t.kind) for t in tags] == [("audited_function", "a.c", "function")]


def test_readtags_escapes_in_paths_are_undone():
    line = b'tab_fn\tdir\\\\x\\tb\\nc\\x01.c\t/^int tab_fn(void)$/;"\tkind:f'
    assert parse_line("ctags", line) == Match(b"dir\\x\tb\nc\x01.c", 0, b"int tab_fn(void)")
    assert parse_line("ctags", b"f\tplain/p.c\t1")[0] == b"plain/p.c"


def test_astgrep_record_over_the_line_cap_keeps_its_file_and_line():
    obj = {
        "text": "needle",
        "range": {"byteOffset": {"start": 9, "end": 15}, "start": {"line": 4, "column": 9}},
        "file": "dir/huge.js",
        "lines": "x" * (2 * MAX_LINE),
        "language": "JavaScript",
    }
    small = {**obj, "file": "small.js", "lines": "needle"}
    data = (json.dumps(obj, separators=(",", ":")) + "\n" + json.dumps(small) + "\n").encode()
    matches = parse_output("astgrep-json", data)
    assert [(m.path, m.line) for m in matches] == [(b"dir/huge.js", 5), (b"small.js", 5)]


def test_new_unseen_reasons_round_trip(tmp_path):
    rows = [
        sym.UnseenRow("a.min.js", "minified", 3),
        sym.UnseenRow("b\udce9.c", "name-not-utf8", 2),
        sym.UnseenRow("two\nlines.c", "newline-in-name", 1),
    ]
    sym.write_unseen_tsv(rows, tmp_path / "unseen.tsv")
    assert sym.read_unseen_tsv(tmp_path / "unseen.tsv") == sym.sort_unseen(rows)


# ---------------------------------------------------------------- the usage track's Global audit

USES_FIXTURE = REPO / "tests" / "fixtures" / "uses"
needs_global = pytest.mark.skipif(
    not shutil.which("gtags") or not shutil.which("global"), reason="needs GNU Global"
)


def _usage_tables(root: Path, out: Path):
    from searchbench import sampling, usage_queries, uses

    files = scan_files(root, LANGUAGES)
    symbols, unseen = sym.scan_symbols(root, files, RULES, LANGUAGES, 4_000_000, 1)
    sym.write_symbols_tsv(symbols, out / "symbols.tsv")
    sym.write_unseen_tsv(unseen, out / "unseen.tsv")
    found, _ = uses.scan_uses(
        root, files, REPO / "config" / "astgrep_uses", LANGUAGES, 4_000_000, 1
    )
    uses.write_uses_tsv(found, out / "uses.tsv")
    return usage_queries.select_usage_queries(
        sampling.read_symbols(out / "symbols.tsv"),
        sampling.read_unseen(out / "unseen.tsv"),
        usage_queries.read_uses(out / "uses.tsv"),
        root,
        min_length=4,
        n="all",
        seed=7,
        corpus="fx",
    )


@needs_global
def test_global_audit_takes_a_non_utf8_and_a_colon_file_name(tmp_path):
    """Issue 37 item 4: b"caf\\xe9.py" stopped the usage_queries rule (Global's Pygments
    plug-in raised UnicodeEncodeError, and the one line was its truncated traceback)."""
    from searchbench import usage_queries

    root = tmp_path / "corpus"
    shutil.copytree(USES_FIXTURE, root)
    with open(os.path.join(os.fsencode(root), b"c", b"caf\xe9.py"), "wb") as handle:
        handle.write(b"def latin1_named():\n    return 1\n")
    (root / "c" / "two\nlines.c").write_text("int nl(void) { return 2; }\n")
    (root / "c" / "a:1:b.c").write_text("int colon(void) { return lib_used_thrice(3); }\n")
    result = _usage_tables(root, tmp_path)
    rows = usage_queries.reference_agreement(root, result.sample, result.qrels, 10, 1)
    c, pooled = rows
    assert (c["language"], c["queries"], c["audited"]) == ("c", 3, 3)
    assert pooled["note"] == (
        "files not given to Global (unseen.tsv lists them): 1 name-not-utf8, 1 newline-in-name"
    )
    # Ours lists a:1:b.c (uses.tsv sees it) and so does Global, read whole (it was "a"):
    # the agreement is the clean fixture's (tests/test_uses.py), one more file each side.
    assert (c["exact"], c["mean_precision"], c["ours_files"], c["global_files"]) == (1, 1.0, 9, 11)
    assert c["mean_jaccard"] == pytest.approx((1 + 3 / 4 + 4 / 5) / 3)
    files = usage_queries.gtags_files(root)
    assert [(os.fsencode(p), r) for p, r in files.left_out] == [
        (b"c/caf\xe9.py", "name-not-utf8"),
        (b"c/two\nlines.c", "newline-in-name"),
    ]
    with tempfile.TemporaryDirectory() as db:
        usage_queries.build_gtags(root, db, conf=usage_queries.pygments_conf(Path(db)))
        found = usage_queries.global_files(
            root, db, "lib_used_thrice", known=frozenset(files.given)
        )
    assert found == {"c/a.c", "c/a:1:b.c", "c/b.c", "c/c.c", "c/lib.h"}


def test_global_grep_lines_split_at_a_known_path():
    from searchbench.usage_queries import parse_global_grep

    out = b"a:1:b.c:3:x = f(1);\n./d e.c:12:f();\nc/\xe9.c:1:f\n"
    known = frozenset({b"a:1:b.c", b"d e.c", b"c/\xe9.c"})
    assert parse_global_grep(out, known) == {"a:1:b.c", "d%20e.c", "c/%E9.c"}
    assert parse_global_grep(out) == {"a", "d%20e.c", "c/%E9.c"}  # without the file set


# ---------------------------------------------------------------- names printed raw or lossy


@pytest.mark.parametrize(
    ("fmt", "printed"),
    [
        ("grep-null", b"two\nlines.c\x001:int x;\nb.c\x002:y\n"),
        ("git-null", b"two\nlines.c\x001\x00int x;\nb.c\x002\x00y\n"),
        ("grep", b"./two\nlines.c:1:int x;\nb.c:2:y\n"),
        ("cscope", b"two\nlines.c f 1 int x;\nb.c g 2 y\n"),
    ],
)
def test_a_name_with_a_newline_printed_raw_is_read_back_whole(fmt, printed):
    """Every grep-style tool prints `two\\nlines.c` raw: its first piece did not parse and the
    second was taken for a file `lines.c`, outside the corpus."""
    from searchbench.parsers import StreamParser

    known = {b"two\nlines.c", b"b.c"}
    parser = StreamParser(fmt, known)
    got = [(m.path, m.line) for m in [*parser.feed(printed), *parser.close()]]
    assert got == [(b"two\nlines.c", 1), (b"b.c", 2)]
    assert (parser.unparsed, parser.stdout_lines) == (0, 3)
    # without the file set, as before: the piece is unparsed and the rest kept as printed
    alone = parse_output(fmt, printed)
    assert [m.path for m in alone] == [b"lines.c", b"b.c"]


def test_a_lossy_printed_name_is_the_one_known_name_printed_alike():
    """ast-grep (Rust's to_string_lossy) prints b"caf\\xe9.c" as "caf\\ufffd.c"."""
    from searchbench.parsers import StreamParser, lossy_names

    record = {"file": "./caf\ufffd.c", "range": {"start": {"line": 0}}, "lines": "f()"}
    data = (json.dumps(record) + "\n").encode()
    parser = StreamParser("astgrep-json", {b"caf\xe9.c", b"ok.c"})
    assert [m.path for m in parser.feed(data)] == [b"caf\xe9.c"]
    # two names that print alike cannot be told apart: kept as printed
    twins = StreamParser("astgrep-json", {b"caf\xe9.c", b"caf\xe8.c"})
    assert [m.path for m in twins.feed(data)] == ["caf\ufffd.c".encode()]
    assert lossy_names([b"a\xff", b"ok"]) == {"a\ufffd".encode(): b"a\xff"}


def test_language_server_uris_carry_a_non_utf8_name(tmp_path):
    """lsp-symbol --open-all .ts stopped with UnicodeEncodeError on b"caf\\xe9.ts" (its
    session died, every query of typescript-language-server was an error)."""
    from searchbench.lsp import path_to_uri, uri_to_path

    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9 x.ts")
    open(raw, "wb").close()
    uri = path_to_uri(os.fsdecode(raw))
    assert uri.endswith("/caf%E9%20x.ts")
    assert os.fsencode(uri_to_path(uri)) == os.path.realpath(raw)
    # tsserver's answer encodes the name it read literally once more
    assert os.fsencode(uri_to_path(uri.replace("%", "%25"))) == os.path.realpath(raw)
    utf8 = tmp_path / "é.ts"
    assert path_to_uri(utf8).endswith("/%C3%A9.ts") and uri_to_path(path_to_uri(utf8)) == str(
        utf8.resolve()
    )


# ---------------------------------------------------------------- every tool on hostile files
# Issue 37: the fixtures run for every entry of config/tools.yaml, so a new peer meets them the
# day it is added. An entry that cannot run here (missing binary, `unavailable`, a build not
# cached in resources/tools) is skipped with its reason.

TOOLS_YAML = REPO / "config" / "tools.yaml"
TOOL_SPECS = load_tools(TOOLS_YAML)
NEEDLE = "hostile_needle"
USE_C = b"int user_%s(void) { return hostile_needle(1); }\n"
USE_PY = b"from needle import hostile_needle\nhostile_needle()\n"
USE_GO = b"package main\n\nfunc user_%s() int { return hostile_needle(1) }\n"
USE_TS = b'import { hostile_needle } from "./needle";\nhostile_needle();\n'
# Plain files: where each language declares and uses the name (the answers).
DECLARED = {
    "c": b"needle.c",
    "python": b"needle.py",
    "typescript": b"needle.ts",
    "go": b"needle.go",
}
USED = {"c": b"user.c", "python": b"user.py", "typescript": b"user.ts", "go": b"user.go"}
HOSTILE_TREE = {
    b"needle.c": b"int hostile_needle(int x) { return x; }\n",
    b"needle.h": b"int hostile_needle(int x);\n",
    b"user.c": b'#include "needle.h"\nint user(void) { return hostile_needle(1); }\n',
    b"needle.py": b"def hostile_needle():\n    return 1\n",
    b"user.py": b"from needle import hostile_needle\n\n\n"
    b"def user():\n    return hostile_needle()\n",
    b"needle.ts": b"export function hostile_needle(): number {\n  return 1;\n}\n",
    b"user.ts": b'import { hostile_needle } from "./needle";\nexport const u = hostile_needle();\n',
    b"go.mod": b"module hostile\n\ngo 1.21\n",  # gopls loads a module's packages only
    b"needle.go": b"package main\n\nfunc hostile_needle(x int) int { return x }\n",
    b"user.go": b"package main\n\nfunc main() { _ = hostile_needle(1) }\n",
    b"caf\xe9.go": USE_GO % b"latin1_name",
    b"two\nlines.go": USE_GO % b"newline",
    b"caf\xe9.c": USE_C % b"latin1_name",
    b"caf\xe9.py": USE_PY,
    b"caf\xe9.ts": USE_TS,
    b"two\nlines.c": USE_C % b"newline",
    b"two\nlines.py": USE_PY,
    b"two\nlines.ts": USE_TS,
    b"tab\tname.c": USE_C % b"tab",
    b"-dash.c": USE_C % b"dash",
    b"--help.py": USE_PY,
    b"with space.c": USE_C % b"space",
    b"quo\"te's.c": USE_C % b"quote",
    b"a:1:b.c": USE_C % b"colon",
    b"L" * 200 + b".c": USE_C % b"long",
    b"crlf.c": b"int user_crlf(void)\r\n{\r\n  return hostile_needle(1);\r\n}\r\n",
    b"latin1.c": b"/* caf\xe9 */ int user_latin1(void) { return hostile_needle(1); }\n",
    b"bin.dat": b"hostile_needle\0\x01\x02binary\n",
    b"empty.c": b"",
    b"huge.js": b"var a=hostile_needle;" + b"x+=1;" * 60_000 + b"\n",
}
# What a tool does on these files that the project cannot undo, measured; each pins an exact
# outcome, so a tool that changes shows up here.
SERVER_FAILS = {
    # jedi-language-server 0.47 answers workspace/symbol with error -32603 (its own
    # UnicodeEncodeError) when a symbol of the answer is in a .py file whose name is not
    # UTF-8: every query naming such a symbol is an error (never a silent miss).
    "jedi-language-server": b"UnicodeEncodeError",
    "jedi-language-server-refs": b"UnicodeEncodeError",
    # gopls v0.23.0 stats a .go file whose name is not UTF-8 under the name with U+FFFD in its
    # place: every workspace/symbol query errors (`stat .../caf\ufffd.go: no such file or
    # directory`) on a module holding one; without it the newline name is answered.
    "gopls": "caf\ufffd.go: no such file or directory".encode(),
    "gopls-refs": "caf\ufffd.go: no such file or directory".encode(),
}
# cscope 15.9 keeps file names newline-separated in its cross-reference: `two\nlines.c`
# becomes the names `two` and `lines.c`, and another file's lines are printed under them
# (`lines.c user 2` is user.c's line); only -0 (cscope-refs) meets them here.
NEWLINE_SPLIT = {"cscope-refs": {b"two", b"lines.c"}}


def _hostile_case(name: str):
    spec = TOOL_SPECS[name]
    return pytest.param(name, marks=pytest.mark.slow) if spec.session_argv else name


@pytest.fixture(scope="module")
def hostile_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile-tree")
    for name, data in HOSTILE_TREE.items():
        with open(os.path.join(os.fsencode(root), name), "wb") as handle:
            handle.write(data)
    return root


@pytest.fixture(scope="module")
def resolved_tools():
    return resolve_tools(
        TOOL_SPECS, tool_search_path(REPO / "bin"), REPO / "resources" / "tools", build_peers=True
    )


def skip_reason(tool: ResolvedTool) -> str | None:
    """Why this entry cannot run here, or None."""
    if not tool.available:
        return tool.skipped_reason or "not available"
    if tool.spec.build is not None and not tool.version:  # pending: not built yet
        return f"needs its {tool.spec.build['toolchain']} build, not cached in resources/tools"
    return None


def expected_answers(spec) -> set[bytes]:
    """The files a plain query for NEEDLE must reach: declarations, or uses for a reference
    mode (tracks: [usage]), in the languages the tool covers."""
    table = USED if spec.tracks == ["usage"] else DECLARED
    return {
        path for lang, path in table.items() if spec.languages is None or lang in spec.languages
    }


@pytest.mark.slow
def test_every_tools_file_entry_is_a_hostile_case(resolved_tools):
    """A new entry gets a case without editing this file, and runs or says why not."""
    cases = {getattr(p, "values", (p,))[0] for p in map(_hostile_case, TOOL_SPECS)}
    assert cases == set(load_tools(TOOLS_YAML)) == set(resolved_tools)
    for name, tool in resolved_tools.items():
        reason = skip_reason(tool)
        assert reason is None or reason.strip(), name
    runnable = {n for n, t in resolved_tools.items() if skip_reason(t) is None}
    assert {"rg", "grep", "ctags", "ast-grep", "hay"} <= runnable  # the required tools


@pytest.fixture(scope="module")
def hostile_indexes(tmp_path_factory):
    return {"base": tmp_path_factory.mktemp("hostile-indexes"), "built": {}}


def _index_of(tool: ResolvedTool, root: Path, indexes: dict) -> str | None:
    if not tool.spec.index_argv:
        return None
    owner = tool.spec.index_of or tool.spec.name
    if owner not in indexes["built"]:
        where = str(indexes["base"] / owner)
        build = build_index(tool, str(root), where, timeout=120, check=False)
        assert build.status == "ready", (owner, build.message)
        indexes["built"][owner] = where
    return indexes["built"][owner]


@pytest.mark.parametrize("name", [_hostile_case(n) for n in TOOL_SPECS])
def test_every_tool_on_hostile_files(name, resolved_tools, hostile_tree, hostile_indexes):
    from searchbench.metrics import STATUSES
    from searchbench.session import tool_session

    tool = resolved_tools[name]
    reason = skip_reason(tool)
    if reason:
        pytest.skip(f"{name}: {reason}")
    right = expected_answers(tool.spec)
    assert right, f"{name}: no language of the fixture; add one to HOSTILE_TREE"
    known = frozenset(HOSTILE_TREE)
    index = _index_of(tool, hostile_tree, hostile_indexes)
    setup = SearchSetup(tool, str(hostile_tree), 60, index=index)
    if tool.spec.session_argv:
        with tool_session(setup) as (session_setup, _):
            result = run_tool(session_setup, NEEDLE, right, known)
    else:
        result = run_tool(setup, NEEDLE, right, known)
    assert result.status in STATUSES and result.status != "timeout", (name, result.status)
    assert result.leftover_processes == 0, name
    outside = set(result.files) - known
    if name in SERVER_FAILS:
        assert result.status == "error" and SERVER_FAILS[name] in result.stderr_head, name
        return
    assert result.status == "ok", (name, result.stderr_head)
    assert result.first_right_line is not None, (name, result.files)
    assert outside == NEWLINE_SPLIT.get(name, set()), (name, outside)


@pytest.mark.parametrize("name", [n for n, s in TOOL_SPECS.items() if s.list_files_argv])
def test_every_listing_names_only_corpus_files(name, resolved_tools, hostile_tree):
    """The file-set audit's and the fast path's listings: ast-grep printed b"caf\xe9.c" as
    "caf\ufffd.c", ast-grep and busybox split `two\nlines.c` into `two` and `lines.c`."""
    from searchbench.fastpath import tool_listing

    tool = resolved_tools[name]
    reason = skip_reason(tool)
    if reason:
        pytest.skip(f"{name}: {reason}")
    known = frozenset(HOSTILE_TREE)
    listed = tool_listing(tool, str(hostile_tree), 60, known=known)
    assert set(listed) <= known, (name, set(listed) - known)
    assert len(listed) == len(set(listed)), name
    hostile_names = {b"caf\xe9.c", b"two\nlines.c", b"tab\tname.c", b"a:1:b.c", b"-dash.c"}
    assert hostile_names <= set(listed), (name, hostile_names - set(listed))


def test_a_listing_split_at_newlines_is_read_back():
    from searchbench.parsers import read_back_names

    known = {b"two\nlines.c", b"a\n\nb.c", b"caf\xe9.c", b"ok.c"}
    listed = [b"ok.c", b"two", b"lines.c", b"a", b"", b"b.c", "caf\ufffd.c".encode(), b"gone.c"]
    assert read_back_names(listed, known) == [
        b"ok.c",
        b"two\nlines.c",
        b"a\n\nb.c",
        b"caf\xe9.c",
        b"gone.c",  # not in the corpus: kept as listed
    ]


def test_docs_with_a_non_utf8_or_newline_name_are_unseen_not_answers(tmp_path):
    """As in the code track: such a heading was ground truth (`caf%E9.md`, `two%0Alines.md`)."""
    import yaml

    from searchbench import headings
    from searchbench.paths import encode_path

    rules = headings.token_rules(
        yaml.safe_load((REPO / "config" / "docs_tokens.yaml").read_text())["tokens"]
    )
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.md"), "wb") as handle:
        handle.write(b"# latin1_named_heading\n")
    (tmp_path / "two\nlines.md").write_text("# newline_named_heading\n")
    (tmp_path / "ok.md").write_text("# plain_heading\n")
    paths = [encode_path(b"caf\xe9.md"), encode_path(b"two\nlines.md"), "ok.md"]
    table, unseen = headings.scan_headings(tmp_path, paths, {"markdown": [".md"]}, [], rules)
    assert table[["symbol", "path"]].values.tolist() == [["plain_heading", "ok.md"]]
    assert unseen.values.tolist() == [
        ["caf%E9.md", "name-not-utf8", "23"],
        ["two%0Alines.md", "newline-in-name", "24"],
    ]
