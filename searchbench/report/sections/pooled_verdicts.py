"""Pooled verdicts per track: the declared primary comparisons and the leader against the
runner-up, the pooled paired difference with its stratified interval, the randomization test
and Holm within its family (results/pooled/{track}.json); beside them the per-corpus
differences as a forest chart, so that heterogeneity is seen, not averaged away."""

from __future__ import annotations

from typing import Any

from searchbench.measures import DETECTED
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_p, fmt_signed, md_table
from searchbench.report.model import Model

TITLE = "Pooled verdicts"
HEADER = ["comparison", "family", "corpora", "queries", "difference [95% CI]", "p", "p (Holm)"]
HEADER += ["verdict", "per corpus"]


def note(doc: dict[str, Any]) -> str:
    return (
        f"Paired differences in {doc['metric_label']}, pooled over the corpora as the "
        "leaderboard is; p from a randomization test flipping signs within queries across "
        "every corpus, Holm-adjusted within its family (primary: the declared comparisons "
        "against the baseline; leader: the track's leader against the runner-up). Per corpus: "
        "each corpus's own difference and verdict, as the forest chart draws them."
    )


def per_corpus(doc: dict[str, Any], v: dict[str, Any]) -> str:
    return ", ".join(
        f"{f['corpus']} {fmt_signed(f['diff'])} ({f['verdict']})"
        for f in doc["forest"]
        if (f["tool"], f["reference"]) == (v["tool"], v["reference"])
    )


def rows(doc: dict[str, Any]) -> list[tuple[list[str], bool]]:
    """(cells, detected) per pooled comparison."""
    out = []
    for v in doc["verdicts"]:
        corpora = v.get("corpora")
        cells = [
            f"{v['tool']} − {v['reference']}",
            str(v["family"]),
            str(len(corpora) if isinstance(corpora, list) else (corpora or "–")),
            str(v.get("queries") if v.get("queries") is not None else "–"),
            f"{fmt_signed(v['diff'])} {fmt_ci(v['ci_low'], v['ci_high'])}",
            fmt_p(v.get("p")),
            fmt_p(v.get("p_holm")),
            str(v["verdict"]),
            per_corpus(doc, v),
        ]
        out.append((cells, str(v["verdict"]) in DETECTED))
    return out


def table_html(doc: dict[str, Any]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="name"><strong>{esc(c)}</strong></td>'
            if bold and i == 7
            else f'<td class="name">{esc(c)}</td>'
            if i in (0, 1, 7, 8)
            else f"<td>{esc(c)}</td>"
            for i, c in enumerate(cells)
        )
        + "</tr>"
        for cells, bold in rows(doc)
    )
    return f'<table class="verdicts"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def html(page: Page) -> list[str]:
    docs = [(t, d) for t, d in page.model.pooled.items() if d["verdicts"]]
    if not docs:
        return []
    out = [f'<h2 id="pooled-verdicts">{esc(TITLE)}</h2>', f"<p>{esc(note(docs[0][1]))}</p>"]
    for track, doc in docs:
        out += [
            f"<h3>{esc(track)} track</h3>",
            '<div class="front">',
            f'<div class="scroll">{table_html(doc)}</div>',
            '<div class="front-chart">',
            *page.chart_at("pooled", track, "verdict_forest"),
            "</div></div>",
        ]
    return out


def markdown(model: Model) -> list[str]:
    docs = [(t, d) for t, d in model.pooled.items() if d["verdicts"]]
    if not docs:
        return []
    out = [f"## {TITLE}\n", note(docs[0][1]) + "\n"]
    for track, doc in docs:
        table = [[*c[:7], f"**{c[7]}**" if bold else c[7], c[8]] for c, bold in rows(doc)]
        out += [
            f"### {track} track\n",
            md_table(HEADER, table),
            f"![{track} track: per-corpus differences](charts/pooled/{track}/verdict_forest.svg)\n",
        ]
    return out
