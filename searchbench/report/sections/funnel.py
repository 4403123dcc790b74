"""How the queries were drawn (funnel) and the ground truth's cross-check with ctags."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import dict_table, esc
from searchbench.report.model import Model, Section
from searchbench.report.sections.overview import declared_share


def docs_section_note(model: Model, corpus: str) -> str:
    shared, drawn = declared_share(model, corpus)
    share = f" ({shared / drawn:.0%})" if drawn else ""
    return (
        f"Docs queries from headings: {funnel_line(model.docs_funnel.get(corpus, []))}. "
        f"{shared} of {drawn}{share} are also declared in the code."
    )


def funnel_line(rows: list[dict[str, str]]) -> str:
    return " → ".join(f"{r['step']} {r['count']}" for r in rows)


def html(page: Page, sec: Section) -> list[str]:
    """How the queries were drawn; on the code track, the ground truth's cross-check."""
    model = page.model
    if sec.track == "docs":
        return ["<h3>Query funnel</h3>", f"<p>{esc(docs_section_note(model, sec.corpus))}</p>"]
    return [
        "<h3>Query funnel and ground-truth audit</h3>",
        dict_table(model.funnel.get(sec.corpus, [])),
        *page.chart(sec, "funnel"),
        "<p>Ground truth cross-checked with universal-ctags, per language:</p>",
        dict_table(model.gt_audit.get(sec.corpus, [])),
    ]


def markdown(model: Model, sec: Section) -> list[str]:
    return [docs_section_note(model, sec.corpus) + "\n"] if sec.track == "docs" else []
