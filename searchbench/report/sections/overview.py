"""One line per corpus: hay against the baseline on both tracks."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, fmt_signed, html_table, md_table
from searchbench.report.model import Model

OVERVIEW_TOOL = "hay"  # the ranker this benchmark ships, read against the baseline


def docs_min_queries(model: Model) -> int:
    return int((model.config.get("docs") or {}).get("min_queries", 30))


def declared_share(model: Model, corpus: str) -> tuple[int, int]:
    """(docs queries also declared in the code, docs queries)."""
    rows = model.declared_in_code.get(corpus, [])
    return sum(r.get("declared_in_code") == "yes" for r in rows), len(rows)


def track_cells(model: Model, corpus: str, track: str) -> list[str]:
    """n, trivial share, hay − baseline MRR [CI] and verdict of one corpus and track; a docs
    track that was not measured says why in the first cell."""
    sec = next((s for s in model.sections if (s.corpus, s.track) == (corpus, track)), None)
    if sec is None:
        drawn = len(model.declared_in_code.get(corpus, []))
        why = f"not measured: {drawn} queries (< {docs_min_queries(model)})"
        return [why, "", "", ""]
    share = len(sec.trivial) / len(sec.qids) if sec.qids else 0.0
    comp = sec.comparisons.get((OVERVIEW_TOOL, "rr", "all"))
    if comp is None:
        return [str(len(sec.qids)), fmt_num(share, 2), f"no {OVERVIEW_TOOL}", ""]
    diff = f"{fmt_signed(comp.get('diff'))} {fmt_ci(comp.get('ci_low'), comp.get('ci_high'))}"
    return [str(len(sec.qids)), fmt_num(share, 2), diff, str(comp["verdict"])]


def overview_rows(model: Model) -> list[list[str]]:
    """One row per corpus: the code track and the docs track side by side."""
    rows = []
    for corpus in sorted({s.corpus for s in model.sections}):
        shared, drawn = declared_share(model, corpus)
        declared = f"{shared} of {drawn}" if drawn else "-"
        rows.append(
            [corpus, *track_cells(model, corpus, "code"), *track_cells(model, corpus, "docs")]
            + [declared]
        )
    return rows


OVERVIEW_HEADER = [
    "corpus",
    "code n",
    "code trivial",
    f"code {OVERVIEW_TOOL} − baseline MRR [95% CI]",
    "code verdict",
    "docs n",
    "docs trivial",
    f"docs {OVERVIEW_TOOL} − baseline MRR [95% CI]",
    "docs verdict",
    "docs queries declared in code",
]


def overview_note(model: Model) -> str:
    baseline = str(model.config.get("baseline", "rg"))
    return (
        f"Code and docs side by side: {OVERVIEW_TOOL} against {baseline} on MRR, all queries. "
        "The code track's answers are declarations, which a definition prior is built to put "
        "first; the docs track's answers are the documents whose heading holds the token, "
        "where such a prior may lose. A docs track with fewer than "
        f"{docs_min_queries(model)} queries is not measured (its funnel is in its section or "
        "below). Docs queries also declared in code stay in: finding the code first is the "
        "trap the track measures."
    )


def html(page: Page) -> list[str]:
    model = page.model
    return [
        '<h2 id="overview">Overview</h2>',
        f"<p>{esc(overview_note(model))}</p>",
        html_table(OVERVIEW_HEADER, overview_rows(model)),
    ]


def markdown(model: Model) -> list[str]:
    return [
        "## Overview\n",
        overview_note(model) + "\n",
        md_table(OVERVIEW_HEADER, overview_rows(model)),
    ]
