"""Issue 16's language servers: bin/lsp-symbol and its JSON-RPC client (searchbench/lsp.py).

The client is tested against tests/fixtures/lsp/fake_server.py (framing written separately);
each server's adapter against what that server printed through lsp-symbol on
tests/fixtures/lsp/tree (tests/fixtures/lsp/outputs/<tool>-<version>, recorded by
tests/fixtures/lsp/record.py; nothing there is written by hand).
"""

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from searchbench import lsp
from searchbench.parsers import parse_output
from searchbench.tools import load_tools, validate_query_template

ROOT = Path(__file__).resolve().parents[1]
LSP_DIR = ROOT / "tests" / "fixtures" / "lsp"
FAKE = [sys.executable, str(LSP_DIR / "fake_server.py")]
LSP_SYMBOL = str(ROOT / "bin" / "lsp-symbol")
SPECS = load_tools(ROOT / "config" / "tools.yaml")
SERVERS = ("clangd", "jedi-language-server", "typescript-language-server", "gopls")


def run_cli(args: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([LSP_SYMBOL, *args], cwd=cwd, capture_output=True, timeout=timeout)


def test_frames_split_anywhere_and_non_ascii():
    messages = [{"id": 1, "result": "é €"}, {"method": "x", "params": {"a": [1, 2]}}]
    data = b"".join(lsp.encode(m) for m in messages)
    for size in (1, 3, 7, len(data)):
        reader = lsp.FrameReader()
        got = []
        for i in range(0, len(data), size):
            got += reader.feed(data[i : i + size])
        assert got == messages, size
    assert lsp.encode({"a": "é"}).startswith(b'Content-Length: 10\r\n\r\n{"a":"\xc3\xa9"}')
    with pytest.raises(lsp.LspError):
        lsp.FrameReader().feed(b"Content-Type: x\r\n\r\n{}")


def test_query_is_never_an_option():
    for query in ("-rf", "--", "--index", "--version"):
        opts = lsp.parse_args(["--query", query, "--", "server", "--stdio"])
        assert opts["query"] == query and opts["server"] == ["server", "--stdio"]
    with pytest.raises(lsp.UsageError):
        lsp.parse_args(["--query", "x"])  # no server
    with pytest.raises(lsp.UsageError):
        lsp.parse_args(["--query", "x", "--index", "d", "--", "s"])
    for name in SERVERS:
        spec = SPECS[name]
        validate_query_template(name, spec.argv, spec.query_guard)
        assert spec.family == "language-server" and spec.optional and spec.languages
        assert spec.output == "grep-null"


@pytest.mark.slow
def test_exact_names_in_the_servers_order_inside_the_root(tmp_path):
    out = run_cli(["--query", "-rf", "--", *FAKE], tmp_path)
    assert out.returncode == 0, out.stderr
    # the fuzzy neighbour and the system header are dropped; order kept; URI %20 decoded
    assert out.stdout == b"dir with space/b.py\x005:-rf\na.py\x002:-rf\n"
    parsed = parse_output("grep-null", out.stdout, {b"a.py", b"dir with space/b.py"})
    assert [(m.path, m.line) for m in parsed] == [(b"dir with space/b.py", 5), (b"a.py", 2)]
    qualified = run_cli(["--qualified", "--query", "Name", "--", *FAKE], tmp_path)
    assert qualified.stdout.splitlines()[-1] == b"t.go\x003:Type.Name"


@pytest.mark.slow
def test_waits_for_progress_to_end(tmp_path):
    # the fake server answers [] until its 0.4 s progress ended: asking at once finds nothing
    out = run_cli(["--query", "f", "--", *FAKE], tmp_path)
    assert out.returncode == 0 and out.stdout
    silent = run_cli(["--first", "0", "--query", "f", "--", *FAKE, "--no-progress"], tmp_path)
    assert silent.returncode == 0 and silent.stdout


def test_an_empty_compilation_database_is_not_waited_for(tmp_path):
    # No C or C++ file: nothing to index, so `--first` (300 s in clangd's index build) is not
    # waited out for progress that never begins (the fake server reports none).
    (tmp_path / "only.py").write_text("def f():\n    pass\n")
    cdb = tmp_path / "cdb"
    started = time.monotonic()
    out = run_cli(
        [
            "--compile-commands",
            str(cdb),
            "--open-cdb-first",
            str(cdb),
            "--first",
            "60",
            "--query",
            "f",
            "--",
            *FAKE,
            "--no-progress",
        ],
        tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads((cdb / "compile_commands.json").read_text()) == []
    assert time.monotonic() - started < 30


def test_nothing_found_is_exit_1_with_empty_stderr(tmp_path):
    out = run_cli(["--query", "f", "--", sys.executable, "-c", NOTHING], tmp_path)
    assert (out.returncode, out.stdout, out.stderr) == (1, b"", b"")


NOTHING = (
    "import sys, json\n"
    f"sys.path.insert(0, {str(LSP_DIR)!r})\n"
    "from fake_server import read, send\n"
    "while True:\n"
    "    m = read()\n"
    "    if m is None or m.get('method') == 'exit': break\n"
    "    if 'id' in m: send({'id': m['id'], 'result': [] if m['method'] != 'initialize' "
    "else {'capabilities': {}}})\n"
)


@pytest.mark.parametrize("mode", ["--crash", "--hang"])
@pytest.mark.slow
def test_crash_and_timeout_are_failures_and_leave_nothing(tmp_path, mode):
    start = time.monotonic()
    out = run_cli(["--timeout", "3", "--query", "f", "--", *FAKE, mode], tmp_path)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.startswith(b"lsp-symbol: ")
    assert time.monotonic() - start < 20
    assert not _fake_servers_alive(mode)


@pytest.mark.slow
def test_a_server_that_ignores_exit_is_killed(tmp_path):
    out = run_cli(["--query", "f", "--", *FAKE, "--ignore-exit"], tmp_path)
    assert out.returncode == 0
    assert not _fake_servers_alive("--ignore-exit")


def _command_lines() -> dict[int, bytes]:
    """Every live process's NUL-separated command line; one that ends while this reads
    (the other test worker starts and ends processes all the time) is left out."""
    lines = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            lines[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes()
    return lines


def _fake_servers_alive(mode: str) -> bool:
    return any(
        str(LSP_DIR / "fake_server.py").encode() in cmd and mode.encode() in cmd
        for cmd in (line.split(b"\0") for line in _command_lines().values())
    )


def test_compile_commands_cover_every_c_and_cpp_file():
    tree = LSP_DIR / "tree"
    entries = lsp.compile_commands(str(tree))
    real = os.path.realpath(tree)
    files = {os.path.relpath(e["file"], real): e["arguments"][1] for e in entries}
    assert files == {
        "c/main.c": "-xc",
        "c/ring.c": "-xc",
        "c/ring.h": "-xc-header",  # the tree has C sources: a .h is C
        "cpp/shelf.cpp": "-xc++",
        "with space/spaced.c": "-xc",
    }
    assert all(e["directory"] == real and f"-I{real}" in e["arguments"] for e in entries)


def test_a_missing_compilation_database_is_an_error_not_an_empty_answer(tmp_path, capsys):
    # clangd's index build over its budget leaves its directory empty: the session must fail
    # (its queries are errors), not start a server that answers nothing.
    code = lsp.main(
        ["--open-cdb-first", str(tmp_path), "--query", "ring_push", "--", sys.executable]
    )
    assert code == 2
    message = capsys.readouterr().err
    assert "compile_commands.json: no compilation database; build the index first" in message


def test_version_line_names_the_server_and_the_client():
    line = lsp.version_line([sys.executable, "-c", "print('1.2.3')"])
    assert line.startswith(os.path.basename(sys.executable) + " 1.2.3 (lsp-symbol ")


# -- real outputs -------------------------------------------------------------------------
TREE_PATHS = {os.fsencode(p.relative_to(LSP_DIR / "tree")) for p in (LSP_DIR / "tree").rglob("*")}


def recorded(tool: str) -> dict[str, list[tuple[bytes, int]]]:
    dirs = sorted((LSP_DIR / "outputs").glob(f"{tool}-*"))
    if not dirs:
        pytest.skip(f"no recorded output of {tool} (tests/fixtures/lsp/record.py)")
    assert len(dirs) == 1, dirs
    manifest = json.loads((dirs[0] / "manifest.json").read_text(encoding="utf-8"))
    spec = SPECS[tool]
    assert manifest["output"] == spec.output
    import re

    assert re.search(spec.version_match, manifest["version"]), manifest["version"]
    got = {}
    for rec in manifest["records"]:
        data = (dirs[0] / rec["file"]).read_bytes()
        assert rec["exit_code"] in (0, 1), rec  # never a crash or a timeout on the tree
        assert (rec["exit_code"] == 0) == bool(data), rec
        matches = parse_output(spec.output, data, TREE_PATHS)
        assert len(matches) == data.count(b"\n"), rec  # every line parses
        got[rec["query"]] = [(m.path, m.line) for m in matches]
    return got


HOSTILE = ("-rf", "a.b", "$x", "ring_.ush", "no_such_name")


def test_clangd_recorded_output():
    got = recorded("clangd")
    assert got["ring_push"] == [(b"c/ring.c", 3), (b"cpp/shelf.cpp", 9)]
    assert got["Shelf"] == [(b"cpp/shelf.cpp", 3)]
    assert got["ring_t"] == [(b"c/ring.h", 2)]
    assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    assert got["ring_size_of"] == [(b"c/ring.c", 11)]  # static functions are indexed
    assert got["RING_MAX"] == [(b"c/ring.h", 1)]  # the header is in the database: indexed
    for query in HOSTILE:
        assert got[query] == [], query


def test_ccls_recorded_output():
    """ccls names symbols by their whole declarations: the declared name is what matches."""
    got = recorded("ccls")
    assert got["ring_push"] == [(b"c/ring.c", 3), (b"cpp/shelf.cpp", 9)]
    assert got["Shelf"] == [(b"cpp/shelf.cpp", 3)]  # `class store::Shelf {}`
    assert got["ring_t"] == [(b"c/ring.h", 2)]  # a typedef: no linkage, indexed all the same
    assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    assert got["ring_size_of"] == [(b"c/ring.c", 11)]
    assert got["RING_MAX"] == [(b"c/ring.h", 1)]
    for query in HOSTILE:
        assert got[query] == [], query


@pytest.mark.parametrize(
    ("declaration", "name"),
    [
        ("static int ring_size_of(const ring_t *ring)", "ring_size_of"),
        ("extern char *crypt_gensalt_rn(const char *prefix, unsigned long count)",
         "crypt_gensalt_rn"),
        ("typedef struct ring ring_t", "ring_t"),
        ("class store::Shelf {}", "Shelf"),
        ("int store::ring_push(store::Shelf &shelf, int value)", "ring_push"),
        ("int ring::head", "head"),
        ("char buf[10]", "buf"),
        ("int counter = 3", "counter"),
        ("int (*handler)(int)", "handler"),
        ("RING_MAX", "RING_MAX"),
        ("enum color {}", "color"),
    ],
)  # fmt: skip
def test_a_declaration_s_name_is_the_name_it_declares(declaration, name):
    from searchbench.lsp import DECLARATIONS, declared_name, name_matches

    assert declared_name(declaration) == name
    assert name_matches(declaration, name, DECLARATIONS)
    assert not name_matches(declaration, name + "x", DECLARATIONS)
    if declaration != name:  # an exact reader never matches a whole declaration
        assert not name_matches(declaration, name)


def test_ccls_is_ready_when_every_file_it_enqueued_is_indexed():
    from searchbench.lsp import ccls_indexed

    def info(completed, enqueued, entries=2):
        return {"pipeline": {"completed": completed, "enqueued": enqueued},
                "project": {"entries": entries}}  # fmt: skip

    assert not ccls_indexed(info(0, 0))  # its project has entries, none enqueued yet
    assert not ccls_indexed(info(1, 3))
    assert ccls_indexed(info(3, 3))
    assert ccls_indexed(info(0, 0, entries=0))  # nothing to index: ready at once
    assert not ccls_indexed(None) and not ccls_indexed({"pipeline": {}})


def test_jedi_language_server_recorded_output():
    got = recorded("jedi-language-server")
    assert got["ring_push"] == [(b"py/ring.py", 1)]
    assert got["PyRing"] == [(b"py/ring.py", 5)]
    assert got["push"] == []  # Jedi's project search lists no methods (measured, 0.47.0)
    for query in HOSTILE:
        assert got[query] == [], query


def test_typescript_language_server_recorded_output():
    got = recorded("typescript-language-server")
    assert got["ringPush"] == [(b"ts/ring.ts", 1)]
    assert got["TsRing"] == [(b"ts/ring.ts", 5)]
    for query in HOSTILE:
        assert got[query] == [], query


def test_gopls_recorded_output():
    got = recorded("gopls")
    assert got["RingPush"] == [(b"go/ring.go", 9)]
    assert got["GoRing"] == [(b"go/ring.go", 4)]
    assert got["Push"] == [(b"go/ring.go", 12)]  # the method, named GoRing.Push by gopls
    assert got["Size"] == [(b"go/ring.go", 5)]  # the field, GoRing.Size
    for query in HOSTILE:
        assert got[query] == [], query


# -- session mode: one server answers a whole search job -------------------------------------
def _serve(tmp_path: Path, *server_args: str, opts: tuple[str, ...] = ()) -> tuple:
    sock = str(tmp_path / "s")
    proc = subprocess.Popen(
        [LSP_SYMBOL, *opts, "--serve", sock, "--", *FAKE, *server_args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, sock, line


def _stop_session(proc: subprocess.Popen, sock: str, cwd: Path) -> None:
    stop = run_cli(["--connect", sock, "--stop"], cwd)
    assert stop.returncode == 0, stop.stderr
    assert proc.wait(timeout=20) == 0
    assert not os.path.exists(sock)


@pytest.mark.slow
def test_a_session_answers_as_one_process_per_query_does(tmp_path):
    proc, sock, line = _serve(tmp_path, opts=("--qualified",))
    assert line.startswith(b"ready "), line
    for query in ("-rf", "Name", "f", "$(touch x)"):
        alone = run_cli(["--qualified", "--query", query, "--", *FAKE], tmp_path)
        asked = run_cli(["--connect", sock, "--query", query], tmp_path)
        assert (asked.returncode, asked.stdout) == (alone.returncode, alone.stdout), query
        assert asked.stdout, query  # the fake server names every query
    _stop_session(proc, sock, tmp_path)
    assert not (tmp_path / "x").exists()
    assert not _fake_servers_alive("--qualified")


@pytest.mark.parametrize("mode", ["--crash", "--hang"])
@pytest.mark.slow
def test_a_failed_question_is_a_failure_and_the_server_is_restarted(tmp_path, mode):
    proc, sock, line = _serve(tmp_path, mode)
    assert line.startswith(b"ready "), line
    for _ in range(2):  # the second question reaches a restarted server
        start = time.monotonic()
        out = run_cli(["--connect", sock, "--timeout", "2", "--query", "f"], tmp_path)
        assert out.returncode == 2 and out.stdout == b""
        assert out.stderr.startswith(b"lsp-symbol: "), out.stderr
        assert time.monotonic() - start < 15
    _stop_session(proc, sock, tmp_path)
    assert not _fake_servers_alive(mode)


def test_no_session_is_a_one_line_failure(tmp_path):
    out = run_cli(["--connect", str(tmp_path / "none"), "--query", "f"], tmp_path)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.count(b"\n") == 1 and b"no answer from the session" in out.stderr
    with pytest.raises(lsp.UsageError):
        lsp.parse_args(["--connect", "s", "--query", "x", "--", "server"])
    with pytest.raises(lsp.UsageError):
        lsp.parse_args(["--connect", "s"])


def _fake_tool(*server_args: str):
    from searchbench.tools import ResolvedTool, ToolSpec

    spec = ToolSpec(
        name="fake-lsp",
        description="fake",
        binary=sys.executable,
        family="language-server",
        index_binary="lsp-symbol",
        session_argv=[
            "{index_binary}",
            "--serve",
            "{session}",
            "--",
            "{binary}",
            str(LSP_DIR / "fake_server.py"),
            *server_args,
        ],  # fmt: skip
        argv=[
            "{index_binary}",
            "--connect",
            "{session}",
            "--timeout",
            "{timeout}",
            "--query",
            "{query}",
        ],  # fmt: skip
        session_stop_argv=["{index_binary}", "--connect", "{session}", "--stop"],
        query_guard="--query",
        output="grep-null",
    )
    return ResolvedTool(spec, sys.executable, "fake 1", "", LSP_SYMBOL, "", True, "")


def test_a_search_job_runs_its_queries_through_one_session(tmp_path):
    from searchbench.runner import SearchSetup, run_tool
    from searchbench.session import tool_session

    (tmp_path / "a.py").write_text("x\n")
    setup = SearchSetup(tool=_fake_tool(), root=str(tmp_path), timeout=10)
    with tool_session(setup) as (session_setup, records):
        assert session_setup.session and os.path.exists(session_setup.session)
        results = [run_tool(session_setup, q) for q in ("-rf", "f")]
        sessions = [
            pid
            for pid, cmd in _command_lines().items()
            if b"--serve" in cmd and session_setup.session.encode() in cmd
        ]
        assert len(sessions) == 1
    assert [r.status for r in results] == ["ok", "ok"]
    assert results[0].files == [b"dir with space/b.py", b"a.py"]
    assert results[0].argv[-2:] == ["--query", "-rf"]
    (record,) = records
    assert record.ready and record.exit_code == 0 and record.peak_rss_kib > 0
    assert record.note.startswith("ready ")
    assert not os.path.exists(session_setup.session)
    assert not _fake_servers_alive(str(LSP_DIR / "fake_server.py"))


def test_a_session_s_cpu_is_the_server_s_work_its_queries_records_leave_out(tmp_path):
    from searchbench.runner import SearchSetup, run_tool
    from searchbench.session import tool_session

    (tmp_path / "a.py").write_text("x\n")
    setup = SearchSetup(tool=_fake_tool("--busy"), root=str(tmp_path), timeout=10)
    with tool_session(setup) as (session_setup, records):
        result = run_tool(session_setup, "f")
    assert result.status == "ok"
    (record,) = records
    # the server spent 1 s of CPU indexing; the query's own process (the client) did not
    assert record.cpu_seconds >= 1.0 > result.user + result.sys
    assert record.as_record()["session_cpu_seconds"] == record.cpu_seconds


def test_a_session_that_dies_turns_the_rest_into_failures(tmp_path):
    import signal

    from searchbench.runner import SearchSetup, run_tool
    from searchbench.session import tool_session

    setup = SearchSetup(tool=_fake_tool(), root=str(tmp_path), timeout=10)
    with tool_session(setup) as (session_setup, records):
        assert run_tool(session_setup, "f").status == "ok"
        for pid, cmd in _command_lines().items():
            if session_setup.session.encode() in cmd and b"--serve" in cmd:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        after = run_tool(session_setup, "f")
        assert after.status == "error" and after.files == []
    assert records[0].exit_code == -signal.SIGKILL


def test_session_placeholders_come_in_pairs():
    from searchbench.errors import BenchError
    from searchbench.tools import _spec_from_entry

    entry = {
        "binary": "x", "family": "language-server", "output": "grep-null",
        "argv": ["{binary}", "--connect", "{session}", "--query", "{query}"],
        "query_guard": "--query",
    }  # fmt: skip
    with pytest.raises(BenchError, match="session_argv"):
        _spec_from_entry("t", entry)
    assert _spec_from_entry("t", {**entry, "session_argv": ["{binary}"]}).session_argv


def test_open_all_opens_every_file_of_the_suffix_in_path_order(tmp_path):
    for rel in ("b/z.ts", "a.ts", "node_modules/x/i.ts", "c.tsx", "b/a.ts"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    opts = lsp.parse_args(["--open-all", ".ts", "--query", "q", "--", "s"])
    got = [os.path.relpath(p, tmp_path) for p in lsp.files_to_open(opts, str(tmp_path))]
    assert got == ["a.ts", "b/a.ts", "b/z.ts"]
    first = lsp.parse_args(["--open-first", ".ts", "--query", "q", "--", "s"])
    assert [os.path.relpath(p, tmp_path) for p in lsp.files_to_open(first, str(tmp_path))] == [
        "a.ts"
    ]


@pytest.mark.slow
def test_references_are_asked_at_the_first_declaration_inside_the_root(tmp_path):
    # the fake server declares the query at `dir with space/b.py` line 5 (1-based); the name
    # follows a non-ASCII character there, so its column is counted in UTF-16 units
    (tmp_path / "dir with space").mkdir()
    decl = "\n".join(["", "", "", "", "def ring_push(): é𝔘 = ring_push", ""])
    (tmp_path / "dir with space" / "b.py").write_text(decl, encoding="utf-8")
    out = run_cli(["--references", "--query", "ring_push", "--", *FAKE], tmp_path)
    assert out.returncode == 0, out.stderr
    # declaration excluded; the file outside the root dropped; the server's order kept
    assert out.stdout == b"c.py\x008:ring_push\na.py\x003:ring_push\nc.py\x002:ring_push\n"
    parsed = parse_output("grep-null", out.stdout, {b"a.py", b"c.py"})
    assert [m.path for m in parsed] == [b"c.py", b"a.py", b"c.py"]
    # the name must be found on or below the symbol's line: `def` comes first here
    assert lsp.name_position(str(tmp_path / "dir with space" / "b.py"), 4, "ring_push") == (4, 4)
    # no declaration file to read: nothing, exit 1
    missing = run_cli(["--references", "--query", "other", "--", *FAKE], tmp_path / "..")
    assert missing.returncode == 1 and missing.stdout == b""


def test_name_position_counts_utf16_units(tmp_path):
    path = tmp_path / "x.ts"
    path.write_text("const é𝔘 = 1; let foo_bar = foo\n", encoding="utf-8")
    # "const é𝔘 = 1; let " is 18 code points, 19 UTF-16 units (𝔘 is a surrogate pair)
    assert lsp.name_position(str(path), 0, "foo_bar") == (0, 19)
    assert lsp.name_position(str(path), 0, "foo") == (0, 29)  # whole word: not foo_bar
    assert lsp.name_position(str(path), 0, "absent") is None
