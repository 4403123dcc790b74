"""Corpora whose docs track drew too few queries to measure, with their funnel."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import html_table
from searchbench.report.model import Model
from searchbench.report.sections.funnel import funnel_line


def docs_unmeasured(model: Model) -> list[str]:
    measured = {s.corpus for s in model.sections if s.track == "docs"}
    return [c for c in sorted(model.docs_funnel) if c not in measured]


def html(page: Page) -> list[str]:
    model = page.model
    if not docs_unmeasured(model):
        return []
    return [
        '<h2 id="docs-unmeasured">Docs track: corpora not measured</h2>',
        html_table(
            ["corpus", "docs funnel"],
            [[c, funnel_line(model.docs_funnel[c])] for c in docs_unmeasured(model)],
        ),
    ]


def markdown(model: Model) -> list[str]:
    if not docs_unmeasured(model):
        return []
    return [
        "## Docs track: corpora not measured\n",
        *[f"- {c}: {funnel_line(model.docs_funnel[c])}\n" for c in docs_unmeasured(model)],
    ]
