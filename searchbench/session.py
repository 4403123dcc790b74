"""A tool that answers every query of a search job from one process: a language server.

Started once per job (`session_argv`, run in the corpus root like a search, in its own process
group), it prints one line when ready (`ready S` or `not-ready S`) and then serves questions
on a Unix socket; each query is still one process run by the runner (`argv` with `{session}`,
lsp-symbol --connect), so timeouts, exit codes and the parsing of output stay the runner's.
What the session costs is recorded beside the queries: the seconds until it was ready (the
"ready after" of an index) and its peak memory, from wait4 on the session, which counts the
server it waited for. Starting a server per query instead (1-16 s each) made 300 queries a
corpus take hours (docs/tools.md); the answers are the same (tests/test_lsp.py).
"""

import contextlib
import dataclasses
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

from searchbench.command import SearchSetup
from searchbench.errors import BenchError
from searchbench.runner import clean_env, ensure_group_gone
from searchbench.tools import expand_argv, expand_env

# The longest wait for the ready line; the session's own --ready-timeout is what should end it.
READY_WAIT_SECONDS = 3600.0
STOP_GRACE_SECONDS = 10.0


@dataclass
class SessionRecord:
    """What one session cost, for the raw records of its queries."""

    ready: bool
    ready_seconds: float  # from start to the ready line
    peak_rss_kib: int  # wait4's maxrss: the session and the server it waited for
    exit_code: int | None
    note: str  # the ready line, or why there was none
    # wait4's user + sys: the session and the server it waited for. The queries' own records
    # hold only their clients' CPU; a server's work is here, once per session.
    cpu_seconds: float

    def as_record(self) -> dict:
        return {f"session_{k}": v for k, v in dataclasses.asdict(self).items()}


def session_argv(setup: SearchSetup, socket_path: str) -> list[str]:
    tool = setup.tool
    assert tool.spec.session_argv is not None and tool.binary_path is not None
    return expand_argv(
        tool.spec.session_argv,
        tool.binary_path,
        index=setup.index,
        index_binary=tool.index_binary_path,
        session=socket_path,
    )


def _ready_line(proc: subprocess.Popen, deadline: float) -> str:
    """The session's first stdout line, or '' when it exits or the deadline passes first."""
    assert proc.stdout is not None
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            return ""
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            return ""
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            return ""
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace").strip()


@contextlib.contextmanager
def tool_session(setup: SearchSetup) -> Iterator[tuple[SearchSetup, list[SessionRecord]]]:
    """The setup to run queries with (its `session` set when the tool has one) and a list
    that holds the session's record once the block is left."""
    records: list[SessionRecord] = []
    if setup.tool.spec.session_argv is None:
        yield setup, records
        return
    # A short directory: a Unix socket path is limited to 107 bytes.
    folder = tempfile.mkdtemp(prefix="sb-session-")
    socket_path = os.path.join(folder, "s")
    argv = session_argv(setup, socket_path)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=setup.root,
            env=clean_env(setup.root, expand_env(setup.tool.spec.env, setup.root, setup.index)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as err:
        shutil.rmtree(folder, ignore_errors=True)
        raise BenchError(f"cannot start the {setup.tool.spec.name} session: {err}") from err
    line = _ready_line(proc, start + READY_WAIT_SECONDS)
    ready_seconds = time.monotonic() - start
    try:
        yield dataclasses.replace(setup, session=socket_path), records
    finally:
        code, rss, cpu = _stop(proc, setup, socket_path)
        shutil.rmtree(folder, ignore_errors=True)
        note = line or "no ready line (the session exited or never said it was ready)"
        records.append(
            SessionRecord(
                line.startswith("ready "), round(ready_seconds, 3), rss, code, note, round(cpu, 3)
            )
        )


def _stop(
    proc: subprocess.Popen, setup: SearchSetup, socket_path: str
) -> tuple[int | None, int, float]:
    """Ask the session to end, then make sure its group is gone; (exit code, maxrss KiB,
    user + sys seconds)."""
    tool = setup.tool
    if _running(proc.pid) and os.path.exists(socket_path) and tool.spec.session_stop_argv:
        stop = expand_argv(
            tool.spec.session_stop_argv,
            tool.binary_path or "",
            index_binary=tool.index_binary_path,
            session=socket_path,
        )
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(
                stop,
                cwd=setup.root,
                env=clean_env(setup.root),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=STOP_GRACE_SECONDS,
            )
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while _running(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    ensure_group_gone(proc.pid)
    assert proc.stdout is not None
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, int(usage.ru_maxrss), usage.ru_utime + usage.ru_stime


def _running(pid: int) -> bool:
    """Not exited yet (WNOWAIT: the exit status and rusage stay for wait4)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
