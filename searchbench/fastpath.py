"""Output-equivalent fast path: a tool searches only the files that contain the literal.

Plain `ast-grep run --pattern SYM` takes minutes per query on the Linux tree, `busybox grep
-r` tens of seconds, and even rg, grep and hay about a second; at 1,000 queries and a dozen
tools that is the whole budget. A literal search can only print lines of files that contain
the literal, so a quality run may hand a tool just those files (containing.tsv, one pass for
every query), as explicit arguments in the tool's own walk order (its list_files output).
This is not assumed: the fast_path_check rule runs plain and fast side by side on a seeded
sample of queries and compares everything printed, byte for byte; a tool whose check fails
keeps plain runs. Timing always uses plain runs.
"""

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
from functools import lru_cache

from searchbench.containment import files_containing_all
from searchbench.errors import BenchError
from searchbench.runner import SearchResult, SearchSetup, run_argv, search_argv
from searchbench.tools import ResolvedTool

# Leave room for the environment under the kernel's argument limit.
ARGV_BUDGET = 1 << 20
SEARCH_ROOT = "./"


def locate_rg() -> str:
    """ripgrep for listing the files that contain a literal: the venv's, else PATH's."""
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    found = shutil.which("rg", path=path)
    if found is None:
        raise BenchError(
            "fast path: ripgrep (rg) not found; pip install --only-binary=:all: ripgrep"
        )
    return found


def walk_order(listing: list[bytes]) -> list[bytes]:
    """The tool's own file order (its list_files output), duplicates dropped."""
    return list(dict.fromkeys(listing))


def files_containing(rg: str, corpus_root: str, query: str) -> set[bytes]:
    """Every file whose bytes contain the literal (see searchbench.containment)."""
    return files_containing_all(rg, corpus_root, [query]).get(query, set())


def fast_argv(
    tool: ResolvedTool, query: str, candidates: list[bytes], index: str | None, word: bool
) -> list[str] | None:
    """The plain argv with its search root replaced by the candidate files, or None when
    the template has no single `./` root or the list would not fit on a command line."""
    argv = search_argv(tool, query, index=index, word=word)
    if argv.count(SEARCH_ROOT) != 1 or argv[-1] != SEARCH_ROOT:
        return None
    if tool.spec.fast_path_bare_names:
        # After `--`, a name like `-x.c` stays a file name.
        files = [os.fsdecode(path) for path in candidates]
        if "--" not in argv:
            argv = [*argv[:-1], "--", SEARCH_ROOT]
    else:
        files = [SEARCH_ROOT + os.fsdecode(path) for path in candidates]
    if tool.spec.fast_path_pad:
        files.append(empty_file())
    if sum(len(os.fsencode(f)) + 1 for f in files) > ARGV_BUDGET:
        return None
    return argv[:-1] + files


@lru_cache(maxsize=1)
def empty_file() -> str:
    """An empty regular file outside any corpus: it can never match, and with it a tool is
    never given a single file (ag then drops file names, whatever its flags say)."""
    fd, path = tempfile.mkstemp(prefix="searchbench-empty-")
    os.close(fd)
    atexit.register(os.unlink, path)
    return path


def no_match_result(tool: ResolvedTool, argv: list[str]) -> SearchResult:
    """What a tool reports when no file contains the literal, without running it."""
    return SearchResult(
        argv=argv,
        exit_code=tool.spec.no_match_exit[0],
        status="no-match",
        timed_out=False,
        elapsed=0.0,
        user=0.0,
        sys=0.0,
        peak_rss_kib=0,
        rss_source="not-run",
        lines=0,
        bytes=0,
        stdout_sha256=hashlib.sha256(b"").hexdigest(),
    )


def run_fast(
    setup: SearchSetup,
    query: str,
    walk: list[bytes],
    containing: set[bytes],
    right_paths: set[bytes] | None = None,
    known_paths=None,
    decl_line: tuple[bytes, int] | None = None,
) -> tuple[SearchResult, bool]:
    """One search through the fast path; (result, used_fast_path).

    containing: every file holding the literal (containing.tsv). Files among them that are
    missing from the tool's listing (ast-grep's listing pattern matches nothing in Markdown,
    say) are searched on their own first: if the tool prints anything for them, their place
    in its order is unknown, and the query runs plain. So is a candidate list too long for
    a command line.
    """
    tool, root, timeout = setup.tool, setup.root, setup.timeout
    listed = set(walk)
    candidates = [path for path in walk if path in containing]
    outside = sorted(containing - listed)
    plain = search_argv(tool, query, index=setup.index, word=setup.word)
    argv = fast_argv(tool, query, candidates, setup.index, setup.word)
    if outside:
        probe_argv = fast_argv(tool, query, outside, setup.index, setup.word)
        if probe_argv is None or _prints_anything(tool, probe_argv, root, timeout):
            argv = None
    if argv is None:
        return run_argv(tool, plain, root, timeout, right_paths, known_paths, decl_line), False
    if not candidates:
        return no_match_result(tool, plain), True
    result = run_argv(tool, argv, root, timeout, right_paths, known_paths, decl_line)
    result.argv = plain  # the run it stands for; the file list is derived, not configured
    return result, True


def _prints_anything(tool: ResolvedTool, argv: list[str], corpus_root: str, timeout: float) -> bool:
    probe = run_argv(tool, argv, corpus_root, timeout, None, None, None)
    return probe.stdout_bytes > 0 or probe.status in ("error", "timeout")


def check_plan(plain_seconds: list[float], settings: dict) -> int:
    """How many queries the equivalence check compares, given the plain runs so far: all
    planned ones, or `queries_when_slow` once a plain run took over `slow_seconds`."""
    if any(seconds > settings["slow_seconds"] for seconds in plain_seconds):
        return min(settings["queries"], settings["queries_when_slow"])
    return settings["queries"]


def compare(plain: SearchResult, fast: SearchResult) -> dict:
    """Equivalent when both print the same bytes and end the same way."""
    same = (
        plain.stdout_sha256 == fast.stdout_sha256
        and plain.status == fast.status
        and not plain.timed_out
        and not fast.timed_out
    )
    return {
        "equivalent": same,
        "plain_sha256": plain.stdout_sha256,
        "fast_sha256": fast.stdout_sha256,
        "plain_status": plain.status,
        "fast_status": fast.status,
        "plain_lines": plain.lines,
        "fast_lines": fast.lines,
    }
