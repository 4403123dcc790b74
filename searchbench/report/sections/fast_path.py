"""The fast-path equivalence checks, per tool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from searchbench.artifacts import read_json
from searchbench.report.charts import Page
from searchbench.report.fmt import html_table
from searchbench.report.model import Model, Section


def fast_path_rows(checks: Sequence[dict[str, Any]]) -> list[list[str]]:
    """One row per tool: the check's outcome, on how many queries, and why fewer."""
    rows = []
    for check in sorted(checks, key=lambda c: str(c.get("tool"))):
        checked, planned = check.get("queries_checked", 0), check.get("queries_planned", "?")
        failed = sorted(q for q, c in check.get("checks", {}).items() if not c.get("equivalent"))
        note = "fewer: a plain run was slow" if check.get("reduced_because_slow") else ""
        if failed:
            note = "; ".join(filter(None, [note, "differed on " + ", ".join(failed)]))
        outcome = "equivalent: fast path" if check.get("equivalent") else "not equivalent: plain"
        rows.append([str(check.get("tool")), outcome, f"{checked} of {planned}", note])
    return rows


def fast_path_html(checks: Sequence[dict[str, Any]]) -> list[str]:
    if not checks:
        return []
    return [
        "<h3>Fast-path checks</h3>",
        "<p>Before a tool's quality runs may name only the files containing the literal, its "
        "plain and fast runs are compared byte for byte on seeded queries; a tool that differs "
        "on any keeps plain runs. How many of each tool's runs went fast is in "
        '<a href="#runs">how the runs ended</a>.</p>',
        html_table(["tool", "outcome", "queries checked", "note"], fast_path_rows(checks)),
    ]


def html(page: Page, sec: Section) -> list[str]:
    checks = [
        read_json(path)
        for (corpus, track, _), path in page.model.sources.keyed("fast_path").items()
        if (corpus, track) == (sec.corpus, sec.track)
    ]
    return fast_path_html(checks)


def markdown(model: Model, sec: Section) -> list[str]:
    return []
