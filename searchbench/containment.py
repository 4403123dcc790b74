"""Which files contain each query's literal: one pass over the corpus for every query.

The fast path (searchbench.fastpath) may hand a tool only the files that contain the
literal. That list must be a superset of what any tool could print, so it is taken as
broadly as a byte search allows: every file, binaries read as text, symbolic links followed,
hidden files and ignore files disregarded.

One ripgrep process reads the corpus once with every query as a fixed-string pattern and
prints each line that contains at least one of them. Which queries a printed line contains
is then decided by an Aho-Corasick automaton that reports every occurrence, overlapping and
nested ones included: `rg --only-matching` would report `foo` but not `oob` in `foob`,
and a query inside another query (`Read` in `ReadAll`) must count for both. A line holds no
newline and a path no NUL byte, so `path NUL line NEWLINE` records split without ambiguity
even for file names with newlines.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence

import ahocorasick

from searchbench.artifacts import tsv_rows, tsv_text
from searchbench.errors import BenchError
from searchbench.paths import decode_path, encode_path, strip_dot_slash

COLUMNS = ("qid", "path")
SEARCH_ROOT = "./"
READ_CHUNK = 1 << 20


def pass_argv(rg: str, patterns_file: str) -> list[str]:
    """One ripgrep pass printing `path NUL line` for every line holding any pattern."""
    return [
        rg,
        "--no-config",
        "--no-heading",
        "--with-filename",
        "--no-line-number",
        "--null",
        "--color",
        "never",
        "--text",
        "--follow",
        "--no-ignore",
        "--hidden",
        "--fixed-strings",
        "--file",
        patterns_file,
        SEARCH_ROOT,
    ]


def automaton(literals: Iterable[str]) -> ahocorasick.Automaton:
    """Every literal as its bytes (Latin-1 text holds one byte per character)."""
    machine = ahocorasick.Automaton()
    for literal in set(literals):
        key = literal.encode("utf-8").decode("latin-1")
        machine.add_word(key, literal)
    machine.make_automaton()
    return machine


def records(chunks: Iterable[bytes]) -> Iterator[tuple[bytes, bytes]]:
    """(path, line) from a stream of `path NUL line NEWLINE` records."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        start = 0
        while True:
            nul = buffer.find(b"\0", start)
            if nul < 0:
                break
            end = buffer.find(b"\n", nul + 1)
            if end < 0:
                break
            yield buffer[start:nul], buffer[nul + 1 : end]
            start = end + 1
        buffer = buffer[start:]
    if buffer:
        raise BenchError(f"containment pass: output ended inside a record ({buffer[:80]!r})")


def literals_by_file(
    lines: Iterable[tuple[bytes, bytes]], machine: ahocorasick.Automaton
) -> dict[str, set[bytes]]:
    """For each literal, the files (paths without `./`) with a line that contains it."""
    found: dict[str, set[bytes]] = {}
    for path, line in lines:
        relative = strip_dot_slash(path)
        for _end, literal in machine.iter(line.decode("latin-1")):
            found.setdefault(literal, set()).add(relative)
    return found


def _stream(stdout) -> Iterator[bytes]:
    while chunk := stdout.read(READ_CHUNK):
        yield chunk


def files_containing_all(
    rg: str, corpus_root: str, literals: Sequence[str]
) -> dict[str, set[bytes]]:
    """literal -> every file of corpus_root whose bytes contain it (one ripgrep pass)."""
    for literal in literals:
        if not literal or "\n" in literal or "\r" in literal:
            raise BenchError(
                f"containment pass: query {literal!r} is empty or holds a line break; "
                "queries are single-line literals (check queries.tsv)"
            )
    if not literals:
        return {}
    machine = automaton(literals)
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    with (
        tempfile.NamedTemporaryFile("wb", suffix=".patterns") as patterns,
        tempfile.TemporaryFile() as stderr,  # a file, so a chatty stderr cannot block stdout
    ):
        patterns.write(b"".join(lit.encode("utf-8") + b"\n" for lit in sorted(set(literals))))
        patterns.flush()
        with subprocess.Popen(
            pass_argv(rg, patterns.name),
            cwd=corpus_root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
        ) as proc:
            found = literals_by_file(records(_stream(proc.stdout)), machine)
            code = proc.wait()
        stderr.seek(0)
        errors = stderr.read().decode("utf-8", "replace").splitlines()
    serious = [line for line in errors if not harmless_link_error(line)]
    if code not in (0, 1) and (serious or not errors):
        raise BenchError(
            f"containment pass: {rg} exited {code} in {corpus_root}: "
            f"{serious[0] if serious else 'no stderr'}; make every file readable"
        )
    return found


def harmless_link_error(line: str) -> bool:
    """A dangling link, a link that never resolves (`x -> x`) or a link to an ancestor: no
    tool can read a literal through it (the fetch refuses the last two; this is defence)."""
    return line.endswith(
        (
            "No such file or directory (os error 2)",
            "Too many levels of symbolic links (os error 40)",
        )
    ) or ("File system loop found" in line)


def containment_rows(
    qid_literals: Mapping[str, str], found: Mapping[str, set[bytes]]
) -> list[tuple[str, bytes]]:
    """(qid, path) rows, sorted by qid then path bytes."""
    rows = [
        (qid, path)
        for qid in sorted(qid_literals)
        for path in sorted(found.get(qid_literals[qid], ()))
    ]
    return rows


def containment_text(rows: Iterable[tuple[str, bytes]]) -> str:
    """containing.tsv: `qid TAB path` (encoded), one row per file that holds the literal."""
    return tsv_text(COLUMNS, ((qid, encode_path(p)) for qid, p in rows))


def read_containment(path: str | os.PathLike) -> dict[str, set[bytes]]:
    """qid -> raw path bytes of every file containing its literal."""
    found: dict[str, set[bytes]] = {}
    for _, (qid, token) in tsv_rows(path, COLUMNS):
        found.setdefault(qid, set()).add(os.fsencode(decode_path(token)))
    return found
