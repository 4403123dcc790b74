"""The runner and the parsers, on fake tools that misbehave in the ways docs/method.md §8
describes."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from searchbench.command import Command
from searchbench.parsers import Match, StreamParser, parse_line, parse_output
from searchbench.runner import (
    VARYING_KEYS,
    classify,
    clean_env,
    result_to_raw_json,
    run_search,
)

FAKE = Path(__file__).resolve().parent / "fixtures" / "runner"
PY = sys.executable


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# --- parsers ---------------------------------------------------------------------------------


def test_grep_null_and_git_null():
    assert parse_line("grep-null", b"./a:b.c\x0012:x:y") == Match(b"a:b.c", 12, b"x:y")
    assert parse_line("git-null", b"a b.c\x003\x00t\x00u") == Match(b"a b.c", 3, b"t\x00u")
    assert parse_line("grep-null", b"Binary file x matches") is None


def test_grep_colons_resolved_against_known_paths():
    line = b"./dir:1:x.c:7:int f;"
    assert parse_line("grep", line, {b"dir:1:x.c"}) == Match(b"dir:1:x.c", 7, b"int f;")
    assert parse_line("grep", line, None) == Match(b"dir", 1, b"x.c:7:int f;")
    assert parse_line("grep", b"a.c:1:2:3", {b"a.c"}) == Match(b"a.c", 1, b"2:3")


def test_astgrep_lines_become_one_based_and_repeats_collapse():
    obj = {"file": "src/a.rs", "range": {"start": {"line": 0}}, "lines": "fn x() { x }"}
    line = json.dumps(obj).encode()
    matches = parse_output("astgrep-json", line + b"\n" + line + b"\n")
    assert matches == [Match(b"src/a.rs", 1, b"fn x() { x }")]


def test_ctags_line_field():
    line = b'foo\t./a.c\t/^int foo(void)$/;"\tkind:f\tline:42\ttyperef:typename:int'
    assert parse_line("ctags", line) == Match(b"a.c", 42, b"int foo(void)")


def test_binary_notices_are_counted_not_matched():
    parser = StreamParser("grep")
    out = list(parser.feed(b"Binary file bin.dat matches.\n./a.c:1:x\nBinary file b matches\n"))
    assert out == [Match(b"a.c", 1, b"x")]
    assert parser.notices == 2 and parser.unparsed == 0


def test_stream_parser_handles_chunk_boundaries_and_unterminated_last_line():
    data = b"a.c\x001:one\nb.c\x002:two\nc.c\x003:three"
    expected = parse_output("grep-null", data)
    assert [m.path for m in expected] == [b"a.c", b"b.c", b"c.c"]
    parser = StreamParser("grep-null")
    got = []
    for i in range(len(data)):
        got.extend(parser.feed(data[i : i + 1]))
    got.extend(parser.close())
    assert got == expected
    assert parser.stdout_bytes == len(data) and parser.stdout_lines == 3


# --- environment and classification -----------------------------------------------------------


def test_clean_env_drops_user_configuration(monkeypatch, tmp_path):
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", "/tmp/evil")
    monkeypatch.setenv("GREP_OPTIONS", "-i")
    env = clean_env(str(tmp_path / "corpus"), {"LC_ALL": "C", "GREP_COLORS": "x"})
    assert "RIPGREP_CONFIG_PATH" not in env and "GREP_OPTIONS" not in env
    assert "GREP_COLORS" not in env
    assert env["LC_ALL"] == "C" and env["LANG"] == "C.UTF-8"
    assert env["GIT_CEILING_DIRECTORIES"] == str(tmp_path.resolve())


def test_env_reaches_the_tool_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_USER_VAR", "1")
    script = "import os,sys; [print(f'{k}\\x001:' + v) for k, v in sorted(os.environ.items())]"
    result = run_search(
        Command([PY, "-c", script], str(tmp_path), 10, {"X_TOOL": "y"}, "grep-null")
    )
    names = set(result.files)
    assert b"X_TOOL" in names and b"SECRET_USER_VAR" not in names
    assert b"PATH" in names and b"LC_ALL" in names


@pytest.mark.parametrize(
    ("args", "status"),
    [
        ((0, False, 3, b""), "ok"),
        ((0, False, 0, b""), "no-match"),
        ((1, False, 0, b""), "no-match"),
        ((1, False, 0, b"ERROR: bad path"), "error"),
        ((1, False, 2, b""), "error"),
        ((2, False, 5, b""), "error"),
        ((-9, False, 0, b""), "error"),
        ((-9, True, 4, b""), "timeout"),
    ],
)
def test_classify(args, status):
    assert classify(*args) == status


# --- fake tools ------------------------------------------------------------------------------


def test_exit_two_is_an_error_not_a_miss(tmp_path):
    argv = [PY, str(FAKE / "exit_code.py"), "2", "0"]
    result = run_search(Command(argv, str(tmp_path), 10, None, "grep-null"), {b"f0.c"})
    assert result.exit_code == 2 and result.status == "error"
    assert b"fake tool exiting 2" in result.stderr_head
    ok = run_search(Command(argv[:2] + ["0", "3"], str(tmp_path), 10, None, "grep-null"), {b"f1.c"})
    assert ok.status == "ok" and ok.files == [b"f0.c", b"f1.c", b"f2.c"]
    assert ok.first_right_line == 1 and ok.lines_before_answer == 1
    assert ok.bytes_before_answer == len("f0.c:1:text\n")
    miss = run_search(Command(argv[:2] + ["1", "0"], str(tmp_path), 10, None, "grep-null"))
    assert miss.status == "error"  # exit 1 with a stderr message is not "no match"


@pytest.mark.parametrize("mode", ["sleep", "exit"])
@pytest.mark.slow
def test_timeout_kills_the_whole_group(tmp_path, mode):
    pids = tmp_path / "pids"
    argv = [PY, str(FAKE / "hold_pipe.py"), mode, str(pids)]
    start = time.monotonic()
    result = run_search(Command(argv, str(tmp_path), 1.0, None, "grep-null"), {b"a.c"})
    took = time.monotonic() - start
    assert took < 2.0, took
    assert result.timed_out and result.status == "timeout"
    assert result.files == [b"a.c"] and result.first_right_line == 0  # kept what was printed
    assert result.leftover_processes == 0
    for pid in map(int, pids.read_text().split()):
        assert not _alive(pid), pid


def test_raw_json_is_stable_except_timing(tmp_path):
    argv = [PY, str(FAKE / "exit_code.py"), "0", "2"]
    lines = []
    for _ in range(2):
        result = run_search(Command(argv, str(tmp_path), 10, None, "grep-null"), {b"f1.c"})
        record = json.loads(result_to_raw_json("c-code-0001", "f1", result))
        assert list(record) == sorted(record)
        for key in VARYING_KEYS:
            assert key in record
            del record[key]
        lines.append(json.dumps(record, sort_keys=True))
    assert lines[0] == lines[1]
    record = json.loads(lines[0])
    assert record["files"] == 2 and record["first_right_line"] == 1
    assert record["status"] == "ok" and record["timed_out"] is False


@pytest.mark.slow
def test_one_gib_of_output_in_bounded_memory(tmp_path):
    mib = 1024
    proc = subprocess.run(
        [PY, str(FAKE / "measure_memory.py"), str(FAKE / "flood.py"), str(mib), str(tmp_path)],
        capture_output=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    report = json.loads(proc.stdout)
    assert report["status"] == "ok"
    assert report["stdout_bytes"] == mib * 1024 * 1024
    assert report["lines"] == mib * 256  # 4 KiB lines
    assert report["bytes"] == mib * 1024 * 1024  # f.c:1:text is the printed form itself
    assert report["files"] == ["f.c"]
    assert report["growth_kib"] < 100 * 1024, report


@pytest.mark.parametrize("where", ["self", "child"])
def test_peak_rss_from_the_kernel(tmp_path, where):
    mib = 200
    argv = [PY, str(FAKE / "alloc.py"), str(mib), where]
    result = run_search(Command(argv, str(tmp_path), 30, None, "grep-null"), {b"a.c"})
    assert result.status == "ok"
    expected = mib * 1024
    assert abs(result.peak_rss_kib - expected) / expected < 0.10, result.peak_rss_kib
    assert result.user + result.sys > 0


def test_no_shell_and_cwd_is_the_corpus(tmp_path):
    script = "import os; print(os.getcwd() + '\\x001:' + '$(echo hi)')"
    result = run_search(Command([PY, "-c", script], str(tmp_path), 10, None, "grep-null"))
    assert result.files == [os.fsencode(tmp_path)]
    assert not (tmp_path / "hi").exists()


def test_overlong_line_is_parsed_from_its_head_and_counted_in_full():
    parser = StreamParser("grep-null")
    size = 5 * 1024 * 1024
    out = list(parser.feed(b"big.c\x007:"))
    for _ in range(size // 65536):
        out.extend(parser.feed(b"y" * 65536))
        assert len(parser._pending) <= 1 << 20
    out.extend(parser.feed(b"\n"))
    assert parser.last_size == len("big.c:7:") + size + 1
    out.extend(parser.feed(b"small.c\x001:z\n"))
    assert [m.path for m in out] == [b"big.c", b"small.c"]
    assert parser.stdout_lines == 2
