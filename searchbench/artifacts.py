"""Artifact files: written whole or not at all, read back with their header checked.

Each TSV artifact's columns are declared once, by the module that writes it (for example
`metrics.SCORE_COLUMNS`, `timing.TIMING_HEADER`); every reader passes those same columns to
`tsv_rows`/`read_tsv`, so a renamed or reordered column stops the run with one sentence
instead of giving a silently wrong number. JSON artifacts are written by `json_text` only,
so every one of them has the same bytes for the same content (sorted keys, two-space
indent, no NaN). docs/artifacts.md lists the artifacts and the rule that writes each.

Every file written here under `results/` (relative to the working directory, where Snakemake
runs every job) gets a record, `results/.written/<path below results>.json`: its sha256,
size, mtime_ns and the rule that wrote it. The readers here (and `scriptmain`, for every
input of a job) check a file against its record before use, so a file edited by hand stops
the run with one line naming it and the command that regenerates it instead of flowing into
every number after it. One record per artifact, written only by the job that writes the
artifact: parallel jobs never rewrite a shared file. docs/artifacts.md, "Checked
intermediates".
"""

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
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


def _replace_bytes(path: str | os.PathLike, data: bytes) -> None:
    tmp = stage_bytes(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename it into place (and record it)."""
    _replace_bytes(path, data)
    record_written(path, hashlib.sha256(data).hexdigest())


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


# ---------------------------------------------------------------- records of written files

RESULTS = "results"
RECORDS = ".written"
_HASH_CHUNK = 1 << 20
# The rule whose job is writing (scriptmain sets it from the Snakemake object), for the
# regenerate command; None outside a Snakemake job.
_writing_rule: str | None = None


def set_writing_rule(rule: str | None) -> None:
    global _writing_rule
    _writing_rule = rule


def artifact_name(path: str | os.PathLike) -> str | None:
    """`path` as the workflow names it (relative to the working directory, `/`-separated) when
    it lies under results/ and is not a record itself; None for anything else (resources/,
    evidence/, a test's temporary folder): such files are not recorded."""
    rel = Path(os.path.relpath(os.path.abspath(path)))
    parts = rel.parts
    if len(parts) < 2 or parts[0] != RESULTS or parts[1] == RECORDS:
        return None
    return rel.as_posix()


def record_path(name: str) -> Path:
    """Where the record of the artifact `name` (an `artifact_name`) lives."""
    below = Path(name).relative_to(RESULTS)
    return Path(RESULTS, RECORDS, below.parent, below.name + ".json")


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _store_record(name: str, record: dict[str, Any]) -> None:
    # Not write_bytes: a record has no record.
    _replace_bytes(record_path(name), json_text(record).encode("utf-8"))


def _load_record(name: str) -> dict[str, Any] | None:
    try:
        record = json.loads(record_path(name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # none, or a damaged one: nothing to check against (it is rewritten)
    return record if isinstance(record, dict) and "sha256" in record else None


def record_written(
    path: str | os.PathLike, sha256: str | None = None, rule: str | None = None
) -> None:
    """Record what `path` holds now (its sha256: given by the writer, else read): called by
    the writers here, and by scriptmain for a job's outputs written some other way."""
    name = artifact_name(path)
    if name is None:
        return
    stat = os.stat(path)
    _store_record(
        name,
        {
            "path": name,
            "rule": rule or _writing_rule,
            "sha256": sha256 or file_sha256(path),
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
        },
    )


def forget_written(path: str | os.PathLike) -> None:
    """Drop the record of a file a job is about to rewrite (scriptmain, at the job's start): a
    job killed between writing the file and its record (SIGKILL, then a resume) must leave
    an unchecked file, never a false alarm; the rerun records it again."""
    name = artifact_name(path)
    if name is not None:
        record_path(name).unlink(missing_ok=True)


def record_unless_recorded(path: str | os.PathLike) -> None:
    """Record `path` unless its record already says what it holds: a job's outputs once it
    has succeeded, for those written without write_bytes (a staged rename, a merge)."""
    name = artifact_name(path)
    if name is not None and (_load_record(name) is None or _check(name) is not None):
        record_written(path)


def regenerate_command(names: Sequence[str], configfiles: Sequence[str] = ()) -> str:
    """The command that rewrites exactly these files. `--force` with the targets, not
    `--forcerun RULE PATH`: --forcerun takes every following word, so the path would become
    a second forced name and the default target would run, with every job of that rule."""
    config = "".join(f" --configfile {c}" for c in configfiles)
    return f"snakemake --force {' '.join(names)}{config}"


def changed_line(
    changes: Sequence[tuple[str, str | None, str, str]], configfiles: Sequence[str] = ()
) -> str:
    """One line for (name, rule, recorded sha256, current sha256) of each changed file."""
    name, rule, recorded, now = changes[0]
    writer = f"rule {rule}" if rule else "its rule"
    first = (
        f"{name} was changed after {writer} wrote it "
        f"(sha256 {recorded[:12]}… when written, {now[:12]}… now)"
    )
    names = [c[0] for c in changes]
    if len(changes) == 1:
        return f"{first}; regenerate it: {regenerate_command(names, configfiles)}"
    return (
        f"{first}, and {len(changes) - 1} more file(s) too: {', '.join(names[1:])}; "
        f"regenerate them: {regenerate_command(names, configfiles)}"
    )


def _check(name: str) -> tuple[str, str | None, str, str] | None:
    """None when the file is missing, unrecorded or holds what its record says; else the
    change. Stat first; hash only when size or mtime differ from the record (Snakemake
    touches every output after its job, so the first check after that hashes once and,
    when the content is the same, refreshes the record's size and mtime)."""
    record = _load_record(name)
    if record is None:
        return None
    try:
        stat = os.stat(name)
        if stat.st_size == record.get("size") and stat.st_mtime_ns == record.get("mtime_ns"):
            return None
        now = file_sha256(name)
        unchanged_since = os.stat(name).st_mtime_ns == stat.st_mtime_ns
    except FileNotFoundError:
        return None  # deleted (Snakemake does so before rerunning a job): nothing is read
    if now != record["sha256"]:
        # The writer may have replaced the file and not yet its record (a dry run beside a run).
        again = _load_record(name)
        if again is None or again["sha256"] != now:
            return (name, record.get("rule"), record["sha256"], now)
        record = again
    if unchanged_since:
        _store_record(name, {**record, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    return None


def check_written(path: str | os.PathLike) -> None:
    """Stop with one line when `path` no longer holds what was written there."""
    name = artifact_name(path)
    change = None if name is None else _check(name)
    if change is not None:
        raise BenchError(changed_line([change]))


def changed_artifacts(
    exempt: Callable[[str, str | None], bool] = lambda name, rule: False,
) -> list[tuple[str, str | None, str, str]]:
    """Every recorded file under ./results that was changed since written, sorted by name:
    the check at the start of a run. `exempt(name, rule)` skips the files this run forces
    anyway (--force, --forcerun)."""
    root = Path(RESULTS, RECORDS)
    changes = []
    for base, _dirs, files in os.walk(root):
        for file in files:
            if not file.endswith(".json"):
                continue  # a record being written (its temporary file)
            below = (Path(base) / file).relative_to(root).as_posix().removesuffix(".json")
            name = f"{RESULTS}/{below}"
            record = _load_record(name)
            if record is None or exempt(name, record.get("rule")):
                continue
            change = _check(name)
            if change is not None:
                changes.append(change)
    return sorted(changes)


# Snakemake's options that rewrite what they name (-F: everything) whatever its state.
FORCE_NAMED = frozenset({"-f", "--force", "--forcetargets", "-R", "--forcerun"})
FORCE_ALL = frozenset({"-F", "--forceall"})


def forced_by(argv: Sequence[str]) -> Callable[[str, str | None], bool]:
    """exempt(name, rule) for `changed_artifacts` from a Snakemake command line: the files it
    forces are rewritten before anything reads them, so the regenerate command (and -F, and
    --forcerun RULE) must not be stopped by the very edit it undoes. The check runs while
    the Snakefile is parsed, before Snakemake hands the DAG its settings, hence argv."""
    words: list[str] = []
    for word in argv:
        flag, eq, value = word.partition("=")
        words.extend([flag, value] if eq and flag.startswith("--") else [word])
    if FORCE_ALL & set(words):
        return lambda name, rule: True
    if not FORCE_NAMED & set(words):
        return lambda name, rule: False
    named = {
        os.path.relpath(w) if os.path.isabs(w) else os.path.normpath(w)
        for w in words
        if w and not w.startswith("-")
    }
    return lambda name, rule: name in named or rule in named


# ---------------------------------------------------------------- reading


def tsv_rows(path: str | os.PathLike, columns: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each data row of a TSV artifact whose header is `columns`."""
    if not Path(path).is_file():
        raise BenchError(f"{path} does not exist: run the rule that writes it first")
    check_written(path)
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
    check_written(path)
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise BenchError(f"cannot read {path}: {err}; rerun the rule that writes it") from err
