"""Corpora whose docs track drew too few queries to measure, with their funnel: the
identifier tokens (track docs) and the heading words (track words), each class on its own."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import html_table
from searchbench.report.model import Model
from searchbench.report.sections.funnel import funnel_line

CLASS_LABELS = {"docs": "identifier tokens", "words": "heading words"}


def class_funnels(model: Model) -> dict[str, dict[str, list[dict[str, str]]]]:
    return {"docs": model.docs_funnel, "words": model.words_funnel}


def docs_unmeasured(model: Model, track: str = "docs") -> list[str]:
    measured = {s.corpus for s in model.sections if s.track == track}
    return [c for c in sorted(class_funnels(model)[track]) if c not in measured]


def unmeasured_rows(model: Model) -> list[list[str]]:
    """(corpus, class, funnel) of every class not measured on a corpus."""
    funnels = class_funnels(model)
    corpora = sorted({c for track in CLASS_LABELS for c in docs_unmeasured(model, track)})
    return [
        [c, CLASS_LABELS[track], funnel_line(funnels[track][c])]
        for c in corpora
        for track in CLASS_LABELS
        if c in docs_unmeasured(model, track)
    ]


def html(page: Page) -> list[str]:
    rows = unmeasured_rows(page.model)
    if not rows:
        return []
    return [
        '<h2 id="docs-unmeasured">Docs track: corpora not measured</h2>',
        html_table(["corpus", "token class", "docs funnel"], rows),
    ]


def markdown(model: Model) -> list[str]:
    rows = unmeasured_rows(model)
    if not rows:
        return []
    return [
        "## Docs track: corpora not measured\n",
        *[f"- {c} ({label}): {funnel}\n" for c, label, funnel in rows],
    ]
