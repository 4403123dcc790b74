"""Artifact files: written whole or not at all, read back with their header checked.

Each TSV artifact's columns are declared once, by the module that writes it (for example
`metrics.SCORE_COLUMNS`, `timing.TIMING_HEADER`); every reader passes those same columns to
`tsv_rows`/`read_tsv`, so a renamed or reordered column stops the run with one sentence
instead of giving a silently wrong number. JSON artifacts are written by `json_text` only,
so every one of them has the same bytes for the same content (sorted keys, two-space
indent, no NaN). docs/artifacts.md lists the artifacts and the rule that writes each.
"""

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from searchbench.errors import BenchError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------- writing


def stage_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to a new temporary file beside `path` and return it (not yet in place).

    Use `write_bytes` for one file; stage several and `os.replace` them together when a
    step's outputs must appear together (a corpus tree, its files.tsv and corpus.json)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        # mkstemp makes the file private (0600); an artifact gets the usual permissions.
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename it into place."""
    tmp = stage_bytes(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """UTF-8, newlines as written (`\\n`), atomically."""
    write_bytes(path, text.encode("utf-8"))


def json_text(value: Any) -> str:
    """The one JSON layout of our artifacts: sorted keys, indent 2, no NaN, final newline."""
    return json.dumps(value, indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_json(path: str | os.PathLike, value: Any) -> None:
    write_text(path, json_text(value))


def tsv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Header and rows, tab-separated; a field holding a tab or newline is refused (encode
    paths with `paths.encode_path` first), so every artifact reads back field for field."""
    lines = ["\t".join(columns)]
    for row in rows:
        fields = [str(value) for value in row]
        if len(fields) != len(columns):
            raise BenchError(f"row {fields} has {len(fields)} fields for columns {list(columns)}")
        if any("\t" in f or "\n" in f for f in fields):
            raise BenchError(f"a field in {fields} contains a tab or newline; encode paths first")
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- reading


def tsv_rows(path: str | os.PathLike, columns: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each data row of a TSV artifact whose header is `columns`."""
    if not Path(path).is_file():
        raise BenchError(f"{path} does not exist: run the rule that writes it first")
    with open(path, encoding="utf-8", newline="\n") as handle:
        lines = handle.read().split("\n")
    header = lines[0].split("\t")
    if header != list(columns):
        raise BenchError(
            f"{path}: header is {header}, expected {list(columns)}; "
            "rerun the rule that writes it (docs/artifacts.md)"
        )
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != len(columns):
            raise BenchError(
                f"{path} line {number} has {len(fields)} fields, expected {len(columns)}: "
                f"{line[:200]!r}"
            )
        yield number, fields


def read_tsv(path: str | os.PathLike, columns: Sequence[str]) -> list[dict[str, str]]:
    """A TSV artifact as rows of text, keyed by its declared columns."""
    return [dict(zip(columns, fields, strict=True)) for _, fields in tsv_rows(path, columns)]


def read_tsv_frame(path: str | os.PathLike, columns: Sequence[str]) -> Any:
    """A TSV artifact as a pandas DataFrame of strings (never NaN: an empty field is '')."""
    import pandas as pd  # only the steps that compute on tables load pandas

    rows = [fields for _, fields in tsv_rows(path, columns)]
    return pd.DataFrame(rows, columns=list(columns), dtype=str)


def read_json(path: str | os.PathLike) -> Any:
    """A JSON artifact; a damaged one is named with the fix, not a traceback."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise BenchError(f"cannot read {path}: {err}; rerun the rule that writes it") from err
