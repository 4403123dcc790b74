"""Output-equivalent fast path: a tool searches only the files that contain the literal.

Plain `ast-grep run --pattern SYM` takes minutes per query on the Linux tree, `busybox grep
-r` tens of seconds, and even rg, grep and hay about a second; at 1,000 queries and a dozen
tools that is the whole budget. A literal search can only print lines of files that contain
the literal, so a quality run may hand a tool just those files (containing.tsv, one pass for
every query), as explicit arguments in the tool's own walk order (its list_files output).
This is not assumed: before its quality runs, the search job runs plain and fast side by side
on a seeded sample of queries and compares everything printed, byte for byte
(equivalence_check); a tool whose check fails keeps plain runs. Timing always uses plain
runs, and those audit the fast path again at no cost: every timed query a quality run
answered through the fast path is compared with every plain run of it
(audit_against_timing); one that differs stops the run.
"""

import atexit
import fnmatch
import functools
import hashlib
import logging
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

from searchbench.command import Command, SearchSetup, search_command
from searchbench.containment import files_containing_all
from searchbench.errors import BenchError
from searchbench.runner import SearchResult, list_files, run_search
from searchbench.statuses import ERROR, NO_MATCH, TIMEOUT
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


def tool_listing(
    tool: ResolvedTool,
    corpus_root: str,
    timeout: float = 600,
    known: frozenset[bytes] | None = None,
) -> list[bytes]:
    """The files the tool searches, in its order: what list_files_argv prints, with the files
    of list_files_unbound_argv merged in (names read back against known, runner.list_files).

    ast-grep's listing pattern (`$A`) matches nothing in most Markdown files, yet it parses
    them, and a bare name as a Markdown pattern matches paragraphs without the name (on
    mypy's code queries, 211 of 300 plain runs print a .md file): every fast run failed its
    check there and ran plain. Its Markdown files are listed apart (`scan` with a rule of
    kind `document`), and their place among the others comes from its walker's order:
    one-thread ast-grep visits files in exactly the reverse of ripgrep's sequential walk
    (both use the ignore crate; its parallel walker pops a stack). Measured on the default
    corpora: both listings follow that order on all of them. When they do not, the merge is
    left out (logged), and the fast-path check keeps the runs plain as before.
    """
    listed = list_files(tool, corpus_root, timeout, known=known)
    template = tool.spec.list_files_unbound_argv
    if not template:
        return listed
    unbound = list_files(tool, corpus_root, timeout, template=template, known=known)
    unmatched = [path for path in unbound if not always_named(tool, path)]
    if unmatched:
        raise BenchError(
            f"tool {tool.spec.name}: list_files_unbound_argv lists "
            f"{os.fsdecode(unmatched[0])!r}, which no pattern of fast_path_always matches; "
            "add its pattern to fast_path_always in the tools file"
        )
    # ripgrep's one-thread walk of every file (nothing ignored, hidden files included)
    walk = [locate_rg(), "--no-config", "--files", "-uuu", "-j1", "--null", SEARCH_ROOT]
    merged = merge_in_walk_order(
        listed, unbound, list_files(tool, corpus_root, timeout, template=walk, known=known)[::-1]
    )
    if merged is None:
        logging.warning(
            "%s: its listings do not follow the reverse of `rg --files -uuu -j1`; "
            "listing without the files of list_files_unbound_argv",
            tool.spec.name,
        )
        return listed
    return merged


def merge_in_walk_order(
    listed: Sequence[bytes], unbound: Sequence[bytes], walk: Sequence[bytes]
) -> list[bytes] | None:
    """listed and unbound merged in walk's order, or None unless each already follows it."""
    position = {path: index for index, path in enumerate(walk)}
    for listing in (listed, unbound):
        places = [position.get(path) for path in listing]
        if None in places or any(a >= b for a, b in pairwise(places)):
            return None
    wanted = set(listed) | set(unbound)
    return [path for path in walk if path in wanted]


def always_named(tool: ResolvedTool, path: bytes) -> bool:
    """A file every fast-path run names (its name matches a fast_path_always pattern)."""
    patterns = tool.spec.fast_path_always
    return bool(patterns) and _matches_any(tuple(patterns), path.rsplit(b"/", 1)[-1])


# asked for every file of the walk on every query: each name is matched once per job
@functools.lru_cache(maxsize=1 << 17)
def _matches_any(patterns: tuple[str, ...], name: bytes) -> bool:
    text = os.fsdecode(name)
    return any(fnmatch.fnmatchcase(text, pattern) for pattern in patterns)


def takes_fast_path(tool: ResolvedTool, query: str) -> bool:
    """Whether the query's shape allows the fast path (the tool's fast_path_queries)."""
    pattern = tool.spec.fast_path_queries
    return pattern is None or re.fullmatch(pattern, query) is not None


def longest_part(query: str) -> str | None:
    """The query's longest run of letters, digits and `_` (the first of equals), or None."""
    parts = re.findall(r"[A-Za-z0-9_]+", query)
    return max(parts, key=len) if parts else None


def by_part(tool: ResolvedTool, query: str) -> str | None:
    """The part whose holders a query goes fast over when only fast_path_by_part admits it."""
    pattern = tool.spec.fast_path_by_part
    if takes_fast_path(tool, query) or pattern is None or not re.fullmatch(pattern, query):
        return None
    return longest_part(query)


def walk_order(listing: list[bytes]) -> list[bytes]:
    """The tool's own file order (its list_files output), duplicates dropped."""
    return list(dict.fromkeys(listing))


def files_containing(rg: str, corpus_root: str, query: str) -> set[bytes]:
    """Every file whose bytes contain the literal (see searchbench.containment)."""
    return files_containing_all(rg, corpus_root, [query]).get(query, set())


def fast_command(tool: ResolvedTool, plain: Command, candidates: list[bytes]) -> Command | None:
    """The plain command with its search root replaced by the candidate files, or None when
    the template has no single `./` root or the list would not fit on a command line."""
    argv = list(plain.argv)
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
    return plain.narrowed(argv[:-1] + files)


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
        status=NO_MATCH,
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
    in its order is unknown, and the query runs plain. So do a candidate list too long for
    a command line and a query of a shape the tool's fast_path_queries leaves out, unless
    its fast_path_by_part takes it: then the candidates are the files holding its longest name.
    """
    tool = setup.tool
    part = by_part(tool, query)
    if part is not None:
        # every file the pattern can match holds this name, so these are the candidates
        containing = files_containing(locate_rg(), setup.root, part)
    listed = set(walk)
    candidates = [path for path in walk if path in containing or always_named(tool, path)]
    # Files holding the literal that the walk never reaches (through a link, for a tool
    # that does not follow links) cannot be printed by the plain run: not probed.
    outside = sorted(
        path
        for path in containing - listed
        if tool.spec.walk_follows_links or not through_link(setup.root, path)
    )
    plain = search_command(setup, query, plain=True)
    fast = None
    if takes_fast_path(tool, query) or part is not None:
        fast = fast_command(tool, plain, candidates)
    if fast is not None and outside:
        probe = fast_command(tool, plain, outside)
        if probe is None or _prints_anything(probe):
            fast = None
    if fast is None:
        return run_search(plain, right_paths, known_paths, decl_line), False
    if not candidates:
        return no_match_result(tool, list(plain.argv)), True
    # reports the plain argv: the run it stands for; the file list is derived, not configured
    return run_search(fast, right_paths, known_paths, decl_line), True


@lru_cache(maxsize=65536)
def through_link(root: str, path: bytes) -> bool:
    """Whether a corpus path (relative, `/`-separated) passes through a symbolic link."""
    base, parts = os.fsencode(root), path.split(b"/")
    return any(os.path.islink(os.path.join(base, *parts[:i])) for i in range(1, len(parts) + 1))


def _prints_anything(probe: Command) -> bool:
    result = run_search(probe)
    return result.stdout_bytes > 0 or result.status in (ERROR, TIMEOUT)


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


def equivalence_check(
    setup: SearchSetup,
    walk: list[bytes],
    containing: Mapping[str, set[bytes]],
    queries: Mapping[str, str],
    sample: Sequence[str],
    settings: dict,
) -> tuple[dict, dict[str, float]]:
    """The fast path against plain runs on the sampled queries (qid -> query text), fewer
    once a plain run is slow (check_plan): (the record of results/.../fastpath/{tool}.json,
    the CPU seconds of both runs per checked qid). Timings stay out of the record, so that
    it is reproducible; only the count of queries checked can depend on them (a slow tool is
    checked on fewer), and the record says so."""
    checks: dict[str, dict] = {}
    cpu: dict[str, float] = {}
    plain_seconds: list[float] = []
    for qid in sample:
        if len(checks) >= check_plan(plain_seconds, settings):
            break
        plain = run_search(search_command(setup, queries[qid]))
        fast, used = run_fast(setup, queries[qid], walk, containing.get(qid, set()))
        plain_seconds.append(plain.elapsed)
        checks[qid] = {**compare(plain, fast), "fast_path_used": used}
        cpu[qid] = plain.user + plain.sys + fast.user + fast.sys
        logging.info(
            "%s %s: plain %.3fs fast %.3fs %s",
            setup.tool.spec.name,
            qid,
            plain.elapsed,
            fast.elapsed,
            checks[qid],
        )
    equivalent = bool(checks) and all(c["equivalent"] for c in checks.values())
    record = {
        "tool": setup.tool.spec.name,
        "equivalent": equivalent,
        "queries_planned": len(sample),
        "queries_checked": len(checks),
        "reduced_because_slow": len(checks) < len(sample),
        "settings": settings,
        "checks": checks,
        "decision": "fast path" if equivalent else "plain runs (fast path not equivalent)",
    }
    return record, cpu


def audit_against_timing(
    plain: Mapping[str, Sequence[SearchResult]], quality: Mapping[str, Mapping[str, Any]]
) -> dict:
    """The fast path audited for free (issue 34 item 5): each timed query that a quality run
    answered through the fast path, its printed bytes and status against every plain run the
    timing stage made of it (warm-ups included). A plain run that timed out is not compared
    (what it printed was cut); the counts say how many were compared and which differ."""
    fast = sorted(q for q in plain if q in quality and quality[q].get("fast_path"))
    compared, differing = [], []
    for qid in fast:
        runs = [r for r in plain[qid] if not r.timed_out]
        if not runs or quality[qid].get("status") == TIMEOUT:
            continue
        compared.append(qid)
        record = quality[qid]
        if any(
            (r.stdout_sha256, r.status) != (record.get("stdout_sha256"), record.get("status"))
            for r in runs
        ):
            differing.append(qid)
    return {
        "timed_queries": len(plain),
        "fast_path_queries": len(fast),
        "compared": len(compared),
        "plain_runs_compared": sum(1 for q in compared for r in plain[q] if not r.timed_out),
        "differing": differing,
        "equivalent": not differing,
    }


def audit_failure(tool: str, corpus: str, audit: Mapping[str, Any]) -> str:
    """The one line that stops a run whose fast path printed otherwise than the plain runs."""
    first = ", ".join(audit["differing"][:3])
    return (
        f"{tool} on {corpus}: its fast path printed otherwise than its plain runs on "
        f"{len(audit['differing'])} of {audit['compared']} timed queries ({first}); its quality "
        f"runs cannot be trusted: set fast_path: false for {tool} in the tools file and rerun"
    )
