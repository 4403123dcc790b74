"""The fast-path equivalence checks, per tool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from searchbench.artifacts import read_json
from searchbench.report.charts import Page
from searchbench.report.fmt import html_table
from searchbench.report.model import Model, Section


def audit_cell(audit: dict[str, Any] | None) -> str:
    """What the timing stage's plain runs said of a tool's fast path (code track only)."""
    if not audit:
        return "–"
    if not audit.get("fast_path_queries"):
        return "no timed query went fast"
    return (
        f"{audit['compared']} of {audit['fast_path_queries']} timed queries, "
        f"{audit['plain_runs_compared']} plain runs: "
        + ("same bytes" if audit.get("equivalent") else "differ")
    )


def fast_path_rows(
    checks: Sequence[dict[str, Any]], audits: dict[str, dict[str, Any]] | None = None
) -> list[list[str]]:
    """One row per tool: the check's outcome, on how many queries, and why fewer; with
    ``audits`` (the code track), what the timing runs said of it."""
    rows = []
    for check in sorted(checks, key=lambda c: str(c.get("tool"))):
        checked, planned = check.get("queries_checked", 0), check.get("queries_planned", "?")
        failed = sorted(q for q, c in check.get("checks", {}).items() if not c.get("equivalent"))
        note = "fewer: a plain run was slow" if check.get("reduced_because_slow") else ""
        if failed:
            note = "; ".join(filter(None, [note, "differed on " + ", ".join(failed)]))
        outcome = "equivalent: fast path" if check.get("equivalent") else "not equivalent: plain"
        row = [str(check.get("tool")), outcome, f"{checked} of {planned}", note]
        if audits is not None:
            row.insert(3, audit_cell(audits.get(str(check.get("tool")))))
        rows.append(row)
    return rows


def fast_path_html(
    checks: Sequence[dict[str, Any]], audits: dict[str, dict[str, Any]] | None = None
) -> list[str]:
    if not checks:
        return []
    header = ["tool", "outcome", "queries checked", "note"]
    audited = ""
    if audits is not None:
        header.insert(3, "audited by the timing runs")
        audited = (
            " Afterwards the timing stage's plain runs audit it again at no extra run: every "
            "timed query that went fast is compared with each plain run of it; a difference "
            "would have stopped the run."
        )
    return [
        "<h3>Fast-path checks</h3>",
        "<p>Before a tool's quality runs may name only the files containing the literal, its "
        "plain and fast runs are compared byte for byte on seeded queries; a tool that differs "
        f"on any keeps plain runs.{audited} How many of each tool's runs went fast is in "
        '<a href="#runs">how the runs ended</a>.</p>',
        html_table(header, fast_path_rows(checks, audits)),
    ]


def html(page: Page, sec: Section) -> list[str]:
    checks = [
        read_json(path)
        for (corpus, track, _), path in page.model.sources.keyed("fast_path").items()
        if (corpus, track) == (sec.corpus, sec.track)
    ]
    # the timing runs are the code track's queries: their audit shows beside its checks
    audits = {
        tool: read_json(path)
        for (corpus, tool), path in page.model.sources.keyed("timing_fast_path").items()
        if corpus == sec.corpus
    }
    return fast_path_html(checks, audits if sec.track == "code" and audits else None)


def markdown(model: Model, sec: Section) -> list[str]:
    return []
