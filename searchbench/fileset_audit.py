"""Which files each tool actually searches, compared with the corpus's file set.

The target is every text file of the corpus with at least one byte (files.tsv kind `text`):
an empty file cannot match any query, and binary files are outside the target by design.
Each tool lists what it searches by matching the empty pattern with its own flags, so the
listing goes through the same walk, ignore rules and binary detection as a real search.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from searchbench.artifacts import tsv_text
from searchbench.fileset import FileEntry
from searchbench.paths import encode_path

EXAMPLES = 5
AUDIT_HEADER = (
    "tool",
    "target",
    "searched",
    "missing",
    "extra",
    "duplicates",
    "examples_missing",
    "examples_extra",
)


NOT_AUDITED = "not audited: the tool has no list_files_argv"


@dataclass(frozen=True)
class AuditRow:
    """One tool's line; the counts are None for a tool that cannot list what it searches."""

    tool: str
    target: int
    searched: int | None
    missing: int | None
    extra: int | None
    duplicates: int | None
    examples_missing: tuple[str, ...]
    examples_extra: tuple[str, ...]


def target_set(entries: Iterable[FileEntry]) -> set[str]:
    """Encoded paths of the text files a search should cover."""
    return {encode_path(e.path) for e in entries if e.kind == "text" and e.bytes > 0}


def audit_tool(tool: str, target: set[str], listed: list[str]) -> AuditRow:
    """Compare one tool's listing (encoded paths, its order, maybe repeated) with the target."""
    searched = set(listed)
    missing = sorted(target - searched)
    extra = sorted(searched - target)
    return AuditRow(
        tool=tool,
        target=len(target),
        searched=len(searched),
        missing=len(missing),
        extra=len(extra),
        duplicates=len(listed) - len(searched),
        examples_missing=tuple(missing[:EXAMPLES]),
        examples_extra=tuple(extra[:EXAMPLES]),
    )


def not_audited(tool: str, target: set[str]) -> AuditRow:
    """A row that says so, rather than a tool missing from the audit without a word."""
    return AuditRow(tool, len(target), None, None, None, None, (NOT_AUDITED,), ())


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def format_audit(rows: Iterable[AuditRow]) -> str:
    return tsv_text(AUDIT_HEADER, (audit_fields(row) for row in sorted(rows, key=lambda r: r.tool)))


def audit_fields(row: AuditRow) -> list[str]:
    counts = (row.searched, row.missing, row.extra, row.duplicates)
    return [
        *(row.tool, str(row.target), *(_count(c) for c in counts)),
        *(",".join(row.examples_missing) or "-", ",".join(row.examples_extra) or "-"),
    ]
