"""Configured tools that were not available, and why."""

from __future__ import annotations

from typing import Any

from searchbench.report.charts import Page
from searchbench.report.fmt import html_table, md_table
from searchbench.report.model import Model


def skipped_tools(model: Model) -> list[dict[str, Any]]:
    return [t for t in model.tools if not t.get("available", True)]


def html(page: Page) -> list[str]:
    skipped = skipped_tools(page.model)
    return [
        '<h2 id="skipped">Tools skipped</h2>',
        html_table(
            ["tool", "reason"], [[t["name"], t.get("skipped_reason") or ""] for t in skipped]
        )
        if skipped
        else "<p>None: every configured tool was available.</p>",
    ]


def markdown(model: Model) -> list[str]:
    skipped = skipped_tools(model)
    return [
        "## Tools skipped\n",
        md_table(["tool", "reason"], [[t["name"], t.get("skipped_reason") or ""] for t in skipped])
        if skipped
        else "None.\n",
    ]
