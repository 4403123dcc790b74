"""The ground-truth uses table: every use of a name that ast-grep sees (docs/usage.md).

One `ast-grep scan` pass, like the symbol pass (searchbench.symbols, whose helpers this
module reuses: rule loading, the generated sgconfig.yml with our languageGlobs, the triage
of files into parsed and unseen ones, ARG_MAX-sized batches), runs the rules of
config/astgrep_uses/<language>.yml over the same files. One rule per kind of use, id
`<language>-<use kind>` (call, method-call, type, ...); every rule matches the used name
node, so a match's text is the name. Comments and string literals are never call or type
nodes in tree-sitter, so a name written there is not a use.

The files given to ast-grep are exactly the symbol pass's (same triage, same limits); the
files it does not see are the symbol pass's unseen.tsv, which this pass does not write. A
file ast-grep reports an error for is left out here as there (the symbol pass lists it as
astgrep-error).

Resolution is by name, not by type: `ops->open(x)` is a use of every `open` declared.

uses.tsv: `symbol language path line rule`, one row per distinct (name, file, line, rule),
sorted by all columns (path encoded, line numerically), the way symbols.tsv is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from searchbench.artifacts import tsv_rows, tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.paths import decode_path, encode_path
from searchbench.symbols import (
    ARGV_BUDGET,
    MAX_LINE_BYTES,
    NO_IGNORE,
    _batches,
    _errored_path,
    _lossy,
    _triage,
    exit_description,
    find_astgrep,
    load_rules,
    write_sgconfig,
)

USES_COLUMNS = ("symbol", "language", "path", "line", "rule")

# A match as the scan hands it on: (printed path, name, 0-based line, rule id).
Match = tuple[str, str, int, str]


class UseRow(NamedTuple):
    """One use: path is the decoded relative path, line is 1-based."""

    symbol: str
    language: str
    path: str
    line: int
    rule: str


# ---------------------------------------------------------------- the scan


def stream_batch(
    astgrep: str,
    sgconfig: Path,
    root: Path,
    batch: list[bytes],
    threads: int,
    emit: Callable[[Match], None],
) -> list[str]:
    """Run one ast-grep scan, hand each match to emit as it is printed (a kernel batch
    prints millions: none is kept as JSON), and return ast-grep's ERROR lines."""
    argv = [astgrep, "scan", "-c", str(sgconfig), "--json=stream", "--color=never"]
    argv += [f"--no-ignore={what}" for what in NO_IGNORE]
    argv += ["-j", str(max(1, int(threads)))]
    argv += [os.fsdecode(b"./" + p) for p in batch]
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=root, stdout=subprocess.PIPE, stderr=err, env=env)
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip():
                emit(match_fields(json.loads(line)))
        code = proc.wait()
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if code != 0:
        tail = " | ".join(stderr.strip().splitlines()[-3:])
        raise BenchError(f"ast-grep scan failed in {root} ({exit_description(code)}): {tail}")
    return [line[len("ERROR: ") :] for line in stderr.splitlines() if line.startswith("ERROR: ")]


def match_fields(match: dict) -> Match:
    """(printed path, name, 0-based line, rule id) of one ast-grep JSON match."""
    name = sys.intern(str(match["text"]))
    line = int(match["range"]["start"]["line"])
    return _printed(str(match["file"])), name, line, sys.intern(str(match["ruleId"]))


@lru_cache(maxsize=1 << 12)
def _printed(file: str) -> str:
    """The path as _triage keys it (one string per file, shared by all its matches)."""
    return _lossy(file.encode("utf-8", "surrogateescape"))


def scan_matches(
    root: Path,
    files: Iterable,
    rule_texts: dict[str, str],
    languages: dict,
    emit: Callable[[Match], None],
    *,
    max_parse_bytes: int,
    threads: int,
    astgrep: str | None = None,
    argv_budget: int = ARGV_BUDGET,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> tuple[dict[str, tuple[str, str, int]], set[str]]:
    """Run the given rules (language -> rule file text) over the files the symbol pass parses.

    Returns ast-grep's printed path -> (path, language, size) of the scanned files and the
    printed paths ast-grep reported an error for."""
    root = Path(root)
    parsed = set((languages.get("parsed") or {}).keys())
    astgrep = astgrep or find_astgrep()
    _, by_printed = _triage(root, files, parsed, max_parse_bytes, max_line_bytes)
    errored: set[str] = set()
    targets = sorted(os.fsencode(p) for p, _, _ in by_printed.values())
    with tempfile.TemporaryDirectory(prefix="searchbench-uses-") as work:
        sgconfig = write_sgconfig(Path(work), rule_texts, languages)
        for batch in _batches(targets, argv_budget):
            errors = stream_batch(astgrep, sgconfig, root, batch, threads, emit)
            errored.update(_errored_path(line, by_printed, root) for line in errors)
    return by_printed, errored


def scan_uses(
    root: Path,
    files: Iterable,
    rules_dir: Path,
    languages: dict,
    max_parse_bytes: int,
    threads: int,
    *,
    astgrep: str | None = None,
    argv_budget: int = ARGV_BUDGET,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> tuple[list[UseRow], list[str]]:
    """Scan the files (FileEntry rows or (path, bytes, kind, language) tuples) with the uses
    rules of rules_dir. Returns the sorted, deduplicated use rows and the paths ast-grep
    reported an error for (their uses are dropped). The result does not depend on threads,
    batch size or the order of `files`."""
    rule_texts = load_rules(Path(rules_dir), languages)
    seen: set[Match] = set()
    by_printed, errored = scan_matches(
        Path(root),
        files,
        rule_texts,
        languages,
        seen.add,
        max_parse_bytes=max_parse_bytes,
        threads=threads,
        astgrep=astgrep,
        argv_budget=argv_budget,
        max_line_bytes=max_line_bytes,
    )
    rows = [use_row(m, by_printed) for m in seen if m[0] not in errored]
    paths = sorted(by_printed[p][0] for p in errored)
    return sort_uses(rows), paths


def use_row(match: Match, by_printed: dict[str, tuple[str, str, int]]) -> UseRow:
    """The row of one match; the rule's language must be the file's (languages.yaml)."""
    printed, name, line, rule = match
    if printed not in by_printed:
        raise BenchError(f"ast-grep reported a file it was not given: {printed!r}")
    path, language, _ = by_printed[printed]
    if not rule.startswith(language + "-"):
        raise BenchError(
            f"ast-grep parsed {path} with rule {rule} but files.tsv says {language}: make "
            "config/languages.yaml extensions and the rule languages agree"
        )
    return UseRow(name, language, path, line + 1, rule)


# ---------------------------------------------------------------- TSV files


@lru_cache(maxsize=1 << 16)
def _encoded(path: str) -> str:
    return encode_path(path)


def sort_uses(rows: Iterable[UseRow]) -> list[UseRow]:
    """Distinct rows, sorted by all columns as written (path encoded), line numerically."""
    return sorted(set(rows), key=lambda r: (r.symbol, r.language, _encoded(r.path), r.line, r.rule))


def format_uses_tsv(rows: Iterable[UseRow]) -> str:
    return tsv_text(
        USES_COLUMNS,
        ((r.symbol, r.language, _encoded(r.path), r.line, r.rule) for r in sort_uses(rows)),
    )


def write_uses_tsv(rows: Iterable[UseRow], path: Path) -> None:
    write_text(Path(path), format_uses_tsv(rows))


def read_uses_tsv(path: Path) -> list[UseRow]:
    return list(iter_uses_tsv(path))


def iter_uses_tsv(path: Path) -> Iterator[UseRow]:
    for number, f in tsv_rows(path, USES_COLUMNS):
        if not f[3].isdigit():
            raise BenchError(f"{path} line {number}: line {f[3]!r} is not a number")
        yield UseRow(f[0], f[1], decode_path(f[2]), int(f[3]), f[4])


def rule_counts(rows: Iterable[UseRow]) -> dict[str, int]:
    """Rows per rule id, sorted by rule (for the log)."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.rule] = counts.get(row.rule, 0) + 1
    return dict(sorted(counts.items()))
