"""How the queries were drawn (funnel) and the ground truth's cross-check with ctags."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import dict_table, esc
from searchbench.report.model import Model, Section
from searchbench.report.sections.overview import declared_share

DOCS_CLASSES = ("docs", "words")  # the docs track's token classes, each a track of its own


def docs_section_note(model: Model, corpus: str, track: str = "docs") -> str:
    """The funnel of one docs class, with the other class's beside it (never pooled)."""
    shared, drawn = declared_share(model, corpus, track)
    share = f" ({shared / drawn:.0%})" if drawn else ""
    return (
        f"Identifier tokens from headings: {drawn_line(model.docs_funnel, corpus)}. "
        f"Heading words (measured apart): {drawn_line(model.words_funnel, corpus)}. "
        f"Of this section's {drawn} queries, {shared}{share} are also declared in the code."
    )


def drawn_line(funnels: dict[str, list[dict[str, str]]], corpus: str) -> str:
    return funnel_line(funnels.get(corpus, [])) or "not drawn"


def funnel_line(rows: list[dict[str, str]]) -> str:
    return " → ".join(f"{r['step']} {r['count']}" for r in rows)


def html(page: Page, sec: Section) -> list[str]:
    """How the queries were drawn; on the code track, the ground truth's cross-check."""
    model = page.model
    if sec.track in DOCS_CLASSES:
        note = docs_section_note(model, sec.corpus, sec.track)
        return ["<h3>Query funnel</h3>", f"<p>{esc(note)}</p>"]
    return [
        "<h3>Query funnel and ground-truth audit</h3>",
        dict_table(model.funnel.get(sec.corpus, [])),
        *page.chart(sec, "funnel"),
        "<p>Ground truth cross-checked with universal-ctags, per language:</p>",
        dict_table(model.gt_audit.get(sec.corpus, [])),
    ]


def markdown(model: Model, sec: Section) -> list[str]:
    if sec.track not in DOCS_CLASSES:
        return []
    return [docs_section_note(model, sec.corpus, sec.track) + "\n"]
