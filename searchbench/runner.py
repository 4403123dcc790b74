"""Run one search the same honest way for every tool (docs/method.md §8, traps 1, 3, 4, 5).

- No shell: argv is a list whose first element is the resolved absolute binary.
- A clean environment: only PATH, HOME, a UTF-8 C locale, git discovery fenced at the corpus's
  parent, and no user configuration variables (RIPGREP_CONFIG_PATH, GREP_OPTIONS, GREP_COLORS
  are never passed); then the tool's own `env`.
- Each search is the leader of its own session/process group; a timeout kills the whole group
  (SIGKILL to -pgid), so a child holding the pipe cannot keep us waiting (trap 4), and
  `timed_out` is set at the moment we kill (trap 3), never inferred from end of output.
- stdout is read in a select loop and streamed through the parser: only counts, the ordered
  distinct file list and the position of the first right line are kept, so memory stays
  bounded however much a tool prints. stderr is drained too; its first 4 KB are kept.
- Resource usage comes from the kernel: os.wait4 on the direct child. Linux folds into it the
  usage of every descendant the child itself waited for (user/sys sums, maxrss as the maximum:
  the kernel's cmaxrss), so a wrapper like hay that runs rg is measured with rg included.
  Orphans the child did not wait for are not counted; after a timeout kill the figures cover
  only what finished, which is why timed-out samples are flagged, not averaged.
"""

import contextlib
import hashlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import psutil

from searchbench.command import Command, SearchSetup, search_argv, search_command  # noqa: F401
from searchbench.errors import BenchError
from searchbench.parsers import Match, StreamParser, read_back_names
from searchbench.paths import strip_dot_slash
from searchbench.statuses import ERROR, NO_MATCH, OK, TIMEOUT
from searchbench.tools import ResolvedTool, expand_argv, expand_env

STDERR_KEEP = 4096
READ_SIZE = 1 << 16
VARYING_KEYS = ("elapsed", "user", "sys", "peak_rss_kib", "rss_source")
HWM_POLL_SECONDS = 0.005
_DROPPED_ENV = ("RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "GREP_COLORS", "GREP_COLOR")


@dataclass
class SearchResult:
    argv: list[str]
    exit_code: int | None
    status: str  # ok, no-match, error, timeout
    timed_out: bool
    elapsed: float
    user: float
    sys: float
    peak_rss_kib: int
    rss_source: str  # wait4, hwm-poll or below-floor: see peak_rss()
    lines: int  # match lines parsed (binary notices and unparsable lines excluded)
    bytes: int  # those lines as `path:line:text\n`, the same rendering for every tool
    files: list[bytes] = field(default_factory=list)  # distinct, in first-printed order
    first_right_line: int | None = None  # 0-based index among match lines
    lines_before_answer: int = 0  # all lines when the answer never appears
    bytes_before_answer: int = 0
    decl_line_rank: int | None = None  # 1-based index of the declaration line itself
    stderr_head: bytes = b""
    stdout_lines: int = 0  # raw stdout, as printed
    stdout_bytes: int = 0
    notices: int = 0  # "Binary file X matches" lines dropped
    unparsed: int = 0
    # non-zombie processes of the group still alive after cleanup; a process that left the
    # group (setsid) is neither killed nor counted (README, measurement notes)
    leftover_processes: int = 0
    stdout_sha256: str = ""  # of everything printed: fast-path equivalence compares it
    # printed paths that are no file of the corpus (or leave it): the query is an error and
    # they are not in `files` (searchbench.health counts them)
    foreign_paths: int = 0
    foreign_path: bytes = b""  # the first of them, for the record


def clean_env(cwd: str, tool_env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every search runs in: nothing from the user's shell but PATH and HOME."""
    parent = os.path.dirname(os.path.realpath(cwd))
    # The interpreter's folder first: bin/hay runs `python3` from PATH and finds rg beside it,
    # so a venv that is not on the user's PATH still provides both.
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    env = {
        "PATH": os.pathsep.join([os.path.dirname(sys.executable), path]),
        "HOME": os.environ.get("HOME", "/nonexistent"),
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
        "GIT_CEILING_DIRECTORIES": parent,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    env.update(tool_env or {})
    for key in _DROPPED_ENV:
        env.pop(key, None)
    return env


def classify(
    exit_code: int | None,
    timed_out: bool,
    lines: int,
    stderr: bytes,
    no_match_exit=(1,),
    foreign_paths: int = 0,
) -> str:
    """ok / no-match / error / timeout. A crash or a signal is never "not found".

    Exit 0 with nothing parsed is no-match (readtags exits 0 when no tag matches). An exit code
    in no_match_exit is no-match only with no output and an empty stderr: ast-grep exits 1 both
    for "no match" and for errors, and only stderr tells them apart. A printed path that is no
    file of the corpus makes the query an error whatever the exit: the tool did not search it.
    """
    if timed_out:
        return TIMEOUT
    if foreign_paths or exit_code is None or exit_code < 0:
        return ERROR
    if exit_code == 0:
        return OK if lines else NO_MATCH
    if exit_code in no_match_exit and lines == 0 and not stderr.strip():
        return NO_MATCH
    return ERROR


def in_corpus(path: bytes, root: bytes) -> bool:
    """Whether a printed path (relative to the corpus root, already without the root's own
    absolute prefix) names a file inside the corpus: through a link inside it is fine, `../x`
    or an absolute path elsewhere is not."""
    if os.path.isabs(path):
        return False
    full = os.path.realpath(os.path.join(root, path))
    return full.startswith(root + b"/") and os.path.isfile(full)


def foreign_files(
    files: list[bytes], known_paths: set[bytes] | frozenset[bytes] | None, root: bytes
) -> list[bytes]:
    """The printed paths that are no file of the corpus: not in its file list (files.tsv)
    and not a file inside its checkout. None known: nothing is checked (index builds)."""
    if known_paths is None:
        return []
    unknown = [path for path in files if path not in known_paths and not in_corpus(path, root)]
    if not unknown:
        return []
    # A name holding a newline is printed over two lines (parsers: a known limitation): each
    # line reads as a name, its head or its tail. That is the corpus's own file, split; not
    # foreign (cscope -0 prints `two\nlines.c` as `two` and `lines.c`).
    pieces = {
        piece
        for parts in (path.split(b"\n") for path in known_paths if b"\n" in path)
        for i in range(1, len(parts))
        for piece in (b"\n".join(parts[:i]), b"\n".join(parts[i:]))
    }
    return [path for path in unknown if path not in pieces]


def _status_kib(pid: int | str, field: str) -> int:
    """A `kB` field of /proc/<pid>/status (VmHWM, VmRSS); 0 when the process is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(field.encode() + b":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cmdline(pid: int | str) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _exec_done(pid: int, own_cmdline: bytes) -> bool:
    """Before exec the child is a copy of this process: its VmHWM is ours, not the tool's."""
    cmdline = _cmdline(pid)
    return bool(cmdline) and cmdline != own_cmdline


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as handle:
            return [int(p) for p in handle.read().split()]
    except (OSError, ValueError):
        return []


def _tree_hwm(pid: int, own_cmdline: bytes) -> int:
    """Largest VmHWM in the tool's process tree (the same max-over-processes that ru_maxrss
    reports). The direct child counts only after its exec; descendants are the tool's own."""
    hwm = _status_kib(pid, "VmHWM") if _exec_done(pid, own_cmdline) else 0
    todo = _children(pid)
    while todo:
        child = todo.pop()
        hwm = max(hwm, _status_kib(child, "VmHWM"))
        todo.extend(_children(child))
    return hwm


def peak_rss(wait4_maxrss: int, spawn_floor: int, polled_hwm: int) -> tuple[int, str]:
    """The tool's peak RSS (KiB) and where it comes from.

    A child forked from this (large) Python process starts with a copy of its memory, and the
    kernel's ru_maxrss keeps that copy's size across exec: a 6 MB rg reads as this process's
    size. So ru_maxrss is the tool's own peak only when it exceeds that floor. Below it, the
    peak is the high-water mark (VmHWM, kept by the kernel for the exec'd image) polled while
    the tool ran: exact unless the tool grew in its last few milliseconds.
    """
    if wait4_maxrss > spawn_floor * 1.05 + 1024:
        return wait4_maxrss, "wait4"
    if polled_hwm > 0:
        return polled_hwm, "hwm-poll"
    return 0, "below-floor"  # ended before the first poll: too short to measure (0 = unknown)


def _group_members(pgid: int) -> list[psutil.Process]:
    members = []
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                members.append(proc)
        except (ProcessLookupError, psutil.Error):
            continue
    return members


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def ensure_group_gone(pgid: int, grace: float = 2.0) -> int:
    """Kill whatever is left of the group; return how many live members remain (0 = clean)."""
    deadline = time.monotonic() + grace
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return 0
        except PermissionError:
            pass
        _kill_group(pgid)
        live = _group_members(pgid)
        if not live:
            return 0  # only zombies are left; their parent (or init) reaps them
        if time.monotonic() >= deadline:
            return len(live)
        time.sleep(0.01)


@dataclass
class _Tally:
    """What scoring needs from a stream of match lines, in bounded memory."""

    right: set[bytes]
    decl_line: tuple[bytes, int] | None
    files: list[bytes] = field(default_factory=list)  # distinct, in first-printed order
    seen: set[bytes] = field(default_factory=set)
    lines: int = 0
    nbytes: int = 0
    first_right: int | None = None
    before_lines: int = 0
    before_bytes: int = 0
    decl_rank: int | None = None

    def add(self, match: Match, size: int) -> None:
        if match.path not in self.seen:
            self.seen.add(match.path)
            self.files.append(match.path)
        if self.first_right is None and match.path in self.right:
            self.first_right = self.before_lines = self.lines
            self.before_bytes = self.nbytes
        if self.decl_rank is None and (match.path, match.line) == self.decl_line:
            self.decl_rank = self.lines + 1
        self.lines += 1
        self.nbytes += size


@dataclass
class _Streams:
    """What reading a search's two pipes gathers besides the parsed matches."""

    timed_out: bool = False
    stderr_head: bytes = b""
    digest: Any = field(default_factory=hashlib.sha256)
    polled_hwm: int = 0


def _read_until_done(
    proc: subprocess.Popen,
    pgid: int,
    deadline: float,
    parser: StreamParser,
    tally: _Tally,
    streams: _Streams,
) -> None:
    """Read stdout (parsed as it arrives, hashed) and the head of stderr until both close or
    the deadline passes; then the group is killed and the timeout recorded as it happens,
    never inferred from EOF. Polls the tree's peak memory meanwhile."""
    own_cmdline = _cmdline("self")
    poll_every = 0.0002
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "out")
    selector.register(proc.stderr, selectors.EVENT_READ, "err")
    try:
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                _kill_group(pgid)
                streams.timed_out = True
                return
            events = selector.select(min(remaining, poll_every))
            poll_every = min(poll_every * 2, HWM_POLL_SECONDS)
            streams.polled_hwm = max(streams.polled_hwm, _tree_hwm(proc.pid, own_cmdline))
            for key, _ in events:
                _read_chunk(key, selector, parser, tally, streams)
        for match in parser.close():
            tally.add(match, parser.last_size)
    finally:
        selector.close()


def _read_chunk(
    key: selectors.SelectorKey,
    selector: selectors.BaseSelector,
    parser: StreamParser,
    tally: _Tally,
    streams: _Streams,
) -> None:
    chunk = os.read(key.fd, READ_SIZE)
    if not chunk:
        selector.unregister(key.fileobj)
    elif key.data == "err":
        if len(streams.stderr_head) < STDERR_KEEP:
            streams.stderr_head += chunk[: STDERR_KEEP - len(streams.stderr_head)]
    else:
        streams.digest.update(chunk)
        for match in parser.feed(chunk):
            tally.add(match, parser.last_size)


def run_search(
    command: Command,
    right_paths: set[bytes] | None = None,
    known_paths: set[bytes] | frozenset[bytes] | None = None,
    decl_line: tuple[bytes, int] | None = None,
) -> SearchResult:
    """Run a command (argv in cwd, the corpus root, with a clean env plus its env); see the
    module doc."""
    cwd, timeout = command.cwd, command.timeout
    # csearch prints the absolute paths its index holds: those under the root become relative.
    root_prefix = os.fsencode(os.path.realpath(cwd)) + b"/"
    parser = StreamParser(command.parse_format, known_paths, root_prefix=root_prefix)
    right = {strip_dot_slash(p) for p in right_paths} if right_paths else set()
    tally = _Tally(right, decl_line)
    spawn_floor = _status_kib("self", "VmHWM")
    start = time.monotonic()
    proc = subprocess.Popen(
        command.argv,
        cwd=cwd,
        env=clean_env(cwd, command.env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        close_fds=True,
    )
    pgid = proc.pid  # a new session makes the child its group leader
    deadline = start + timeout
    streams = _Streams()
    try:
        _read_until_done(proc, pgid, deadline, parser, tally, streams)
    except BaseException:
        _kill_group(pgid)
        raise
    finally:
        proc.stdout.close()
        proc.stderr.close()
        if not streams.timed_out and not _exited_by(proc.pid, deadline):
            _kill_group(pgid)  # closed its pipes but kept running past the deadline
            streams.timed_out = True
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.monotonic() - start
        leftover = ensure_group_gone(pgid)
    timed_out, stderr_head, digest = streams.timed_out, streams.stderr_head, streams.digest
    polled_hwm = streams.polled_hwm

    if tally.first_right is None:
        tally.before_lines, tally.before_bytes = tally.lines, tally.nbytes
    rss, rss_source = peak_rss(usage.ru_maxrss, spawn_floor, polled_hwm)
    exit_code = proc.returncode
    foreign = foreign_files(tally.files, known_paths, root_prefix[:-1])
    dropped = set(foreign)
    status = classify(
        exit_code, timed_out, tally.lines, stderr_head, command.no_match_exit, len(foreign)
    )
    return SearchResult(
        argv=command.reported_argv,
        exit_code=exit_code,
        status=status,
        timed_out=timed_out,
        elapsed=elapsed,
        user=usage.ru_utime,
        sys=usage.ru_stime,
        peak_rss_kib=rss,
        rss_source=rss_source,
        lines=tally.lines,
        bytes=tally.nbytes,
        files=[path for path in tally.files if path not in dropped],
        first_right_line=tally.first_right,
        lines_before_answer=tally.before_lines,
        bytes_before_answer=tally.before_bytes,
        decl_line_rank=tally.decl_rank,
        stderr_head=stderr_head,
        stdout_lines=parser.stdout_lines,
        stdout_bytes=parser.stdout_bytes,
        notices=parser.notices,
        unparsed=parser.unparsed,
        leftover_processes=leftover,
        stdout_sha256=digest.hexdigest(),
        foreign_paths=len(foreign),
        foreign_path=foreign[0] if foreign else b"",
    )


def _exited_by(pid: int, deadline: float) -> bool:
    """Wait, without reaping (WNOWAIT keeps the rusage for wait4), until pid exits or deadline."""
    pause = 0.0005
    while True:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def result_to_raw_json(qid: str, query: str, result: SearchResult) -> str:
    """One line of raw/{tool}.jsonl (keys sorted). elapsed/user/sys/peak_rss_kib vary by run."""
    return json.dumps(result_record(qid, query, result), sort_keys=True, ensure_ascii=False)


def result_record(qid: str, query: str, result: SearchResult) -> dict:
    """The raw record of one search, as a dict (a caller may add keys before writing it)."""
    return {
        "qid": qid,
        "query": query,
        "argv": result.argv,
        "exit_code": result.exit_code,
        "status": result.status,
        "timed_out": result.timed_out,
        "elapsed": result.elapsed,
        "user": result.user,
        "sys": result.sys,
        "peak_rss_kib": result.peak_rss_kib,
        "rss_source": result.rss_source,
        "lines": result.lines,
        "bytes": result.bytes,
        "files": len(result.files),
        "first_right_line": result.first_right_line,
        "lines_before_answer": result.lines_before_answer,
        "bytes_before_answer": result.bytes_before_answer,
        "decl_line_rank": result.decl_line_rank,
        "stdout_lines": result.stdout_lines,
        "stdout_bytes": result.stdout_bytes,
        "notices": result.notices,
        "unparsed": result.unparsed,
        "leftover_processes": result.leftover_processes,
        "stdout_sha256": result.stdout_sha256,
        "foreign_paths": result.foreign_paths,
        "foreign_path": result.foreign_path.decode("utf-8", "backslashreplace"),
        "stderr_head": result.stderr_head.decode("utf-8", "backslashreplace"),
    }


def run_tool(
    setup: SearchSetup,
    query: str,
    right_paths: set[bytes] | None = None,
    known_paths: set[bytes] | frozenset[bytes] | None = None,
    decl_line: tuple[bytes, int] | None = None,
) -> SearchResult:
    """run_search of the query's command (command.search_command)."""
    return run_search(search_command(setup, query), right_paths, known_paths, decl_line)


def _run_plain(argv: list[str], cwd: str, env: dict[str, str], timeout: float, what: str) -> bytes:
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=clean_env(cwd, env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"{what} timed out after {timeout} s: {' '.join(argv)}") from exc
    if proc.returncode not in (0, 1):
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise BenchError(
            f"{what} failed (exit {proc.returncode}): {detail[0] if detail else 'no stderr'}"
        )
    return proc.stdout


def list_files(
    tool: ResolvedTool,
    corpus_root: str,
    timeout: float = 600,
    template: list[str] | None = None,
    known: frozenset[bytes] | None = None,
) -> list[bytes]:
    """Files the tool would search, in its own order, paths without `./` (NUL- or line-split):
    what its list_files_argv prints, or another listing command of its entry (template).
    With known (the corpus's paths), names a line-split listing breaks (a newline in the
    name) or prints lossily (not UTF-8) are read back (parsers.read_back_names)."""
    template = template or tool.spec.list_files_argv
    if template is None:
        raise BenchError(f"tool {tool.spec.name} has no list_files_argv in the tools file")
    if not tool.available or tool.binary_path is None:
        raise BenchError(f"tool {tool.spec.name} is not available: {tool.skipped_reason}")
    argv = expand_argv(template, tool.binary_path, index_binary=tool.index_binary_path)
    env = expand_env(tool.spec.env, corpus_root)
    out = _run_plain(argv, corpus_root, env, timeout, f"listing files with {argv[0]}")
    parts = out.split(b"\0") if b"\0" in out else out.split(b"\n")
    paths = [strip_dot_slash(part) for part in parts]
    if known is not None:
        paths = read_back_names(paths, known)
    seen: set[bytes] = set()
    files = []
    for path in paths:
        if path and path not in seen:
            seen.add(path)
            files.append(path)
    return files


INDEX_READY, INDEX_OVER_BUDGET, INDEX_FAILED = "ready", "over budget", "failed"


@dataclass
class IndexBuild:
    """What one index build cost (results/{corpus}/index/{tool}.json): a tool cannot win by
    hiding its cost in an index. bytes/files describe the directory the searches get: empty
    (0) when the build ran over budget or failed, so no search reads a half-written index."""

    status: str  # ready, over budget, failed
    wall_seconds: float
    user_seconds: float
    sys_seconds: float
    peak_rss_kib: int
    rss_source: str  # wait4, hwm-poll or below-floor, as for a search (peak_rss)
    exit_code: int | None
    bytes: int  # sum of the sizes of the files in the index directory
    files: int
    budget_seconds: float
    argv: list[str]
    stderr_head: str
    message: str  # one line: what happened

    def record(self, tool: str, corpus: str) -> dict[str, Any]:
        return {
            "tool": tool,
            "corpus": corpus,
            **{k: getattr(self, k) for k in self.__dataclass_fields__},
            "peak_rss_measured_by": (
                "the build's process tree, as for searches: wait4 ru_maxrss of the direct "
                "child (descendants it waited for included) above the spawn floor, else the "
                "VmHWM polled every 5 ms (README, Peak memory)"
            ),
        }


def directory_size(path: str) -> tuple[int, int]:
    """(bytes, files): the sizes of the regular files under path, symlinks not followed."""
    total = count = 0
    for base, _dirs, names in os.walk(path):
        for name in names:
            st = os.lstat(os.path.join(base, name))
            total += st.st_size
            count += 1
    return total, count


def _fresh_dir(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)
    os.makedirs(path)


def build_index(
    tool: ResolvedTool, corpus_root: str, index: str, timeout: float = 3600, check: bool = True
) -> IndexBuild:
    """Build a tool's per-corpus index in the directory `index`, made afresh and empty, and
    measure it (wall time, peak memory, size on disk).

    `{index}` names that directory, in index_argv, argv and env alike: the tool writes its
    file or files there (ctags `tags`, cscope's three, gtags' GTAGS/GRTAGS/GPATH), never into
    the corpus, which the build runs in. The build runs like a search (own process group,
    clean env); past `timeout` (the budget) the group is killed. A build over budget or failed
    leaves the directory empty; with `check` it raises instead of returning such a build."""
    if not tool.spec.index_argv:
        raise BenchError(f"tool {tool.spec.name} has no index_argv in the tools file")
    if tool.index_binary_path is None:
        raise BenchError(f"tool {tool.spec.name}: index binary not available")
    index = os.path.abspath(index)
    _fresh_dir(index)
    argv = expand_argv(
        tool.spec.index_argv,
        tool.binary_path or "",
        index=index,
        index_binary=tool.index_binary_path,
    )
    env = expand_env(tool.spec.env, corpus_root, index)
    # the output is not read as matches: "grep" only counts lines, nothing is kept
    result = run_search(Command(argv, corpus_root, timeout, env, "grep"))
    what = f"building the index of {tool.spec.name}"
    stderr = result.stderr_head.decode("utf-8", "replace")
    if result.timed_out:
        status = INDEX_OVER_BUDGET
        message = (
            f"{what} ran over its budget of {timeout:g} s and was killed after "
            f"{result.elapsed:.1f} s; its searches on this corpus find nothing (status error)"
        )
    elif result.exit_code not in (0, 1):
        status = INDEX_FAILED
        detail = stderr.strip().splitlines()[:1]
        message = (
            f"{what} failed (exit {result.exit_code}): "
            f"{detail[0] if detail else 'no stderr'}; its searches on this corpus find nothing"
        )
    else:
        status = INDEX_READY
        message = f"{what}: ready after {result.elapsed:.2f} s"
    if status != INDEX_READY:
        _fresh_dir(index)  # no search may read a half-written index
    size, count = directory_size(index)
    build = IndexBuild(
        status=status,
        wall_seconds=round(result.elapsed, 6),
        user_seconds=round(result.user, 6),
        sys_seconds=round(result.sys, 6),
        peak_rss_kib=result.peak_rss_kib,
        rss_source=result.rss_source,
        exit_code=result.exit_code,
        bytes=size,
        files=count,
        budget_seconds=timeout,
        argv=list(argv),
        stderr_head=stderr,
        message=message,
    )
    if check and status != INDEX_READY:
        raise BenchError(f"{message}: {' '.join(argv)}")
    return build
