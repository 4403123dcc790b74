"""Per corpus and track: the declared comparisons on each language's queries alone
(by_language.json, searchbench/by_language.py). Also the table the pooled section uses."""

from __future__ import annotations

from typing import Any

from searchbench.artifacts import read_json
from searchbench.measures import DETECTED, METRIC_LABELS, PRIMARY_METRIC
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, fmt_signed, md_table
from searchbench.report.model import Model, Section

NOTE = (
    "{metric} over all queries of each language (the answer file's), each declared comparison with "
    "the same paired tests as above: mean (diff [95% CI]) and verdict. Holm runs over every "
    "language's comparisons of a family together, so more languages make each one harder to "
    "claim; a language with fewer than {min_queries} queries is not evidence."
)


def note_of(meta: dict[str, Any]) -> str:
    """The per-language note, naming the metric the comparisons are read on."""
    metric = str(meta.get("primary_metric") or PRIMARY_METRIC)
    label = dict(METRIC_LABELS).get(metric, metric)
    return NOTE.format(min_queries=meta.get("min_queries", "?"), metric=label)


def cells_of(doc: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(tool, reference, language) -> the primary metric's comparison over all queries."""
    metric = str(doc.get("metadata", {}).get("primary_metric") or PRIMARY_METRIC)
    return {
        (c["tool"], c["baseline"], c["language"]): c
        for c in doc.get("comparisons", [])
        if c.get("metric") == metric and c.get("subset") == "all"
    }


def share(part: Any, whole: Any) -> str:
    return f"{int(part) / int(whole):.0%}" if int(whole) else "–"


def language_header(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(language, column label) in order of queries, most first."""
    counts = doc.get("metadata", {}).get("languages", {})
    trivial = doc.get("metadata", {}).get("trivial_by_language", {})
    order = sorted(counts, key=lambda lang: (-int(counts[lang]), lang))
    return [
        (lang, f"{lang} (n = {counts[lang]}, {share(trivial.get(lang, 0), counts[lang])} trivial)")
        for lang in order
    ]


def cell_text(comp: dict[str, Any] | None) -> tuple[str, bool]:
    """(text, detected) of one cell."""
    if comp is None or comp.get("diff") is None:
        return "–", False
    verdict = str(comp["verdict"])
    text = (
        f"{fmt_num(comp.get('mean_tool'))} ({fmt_signed(comp.get('diff'))} "
        f"{fmt_ci(comp.get('ci_low'), comp.get('ci_high'))}) {verdict}"
    )
    return text, verdict in DETECTED


def table(doc: dict[str, Any]) -> tuple[list[str], list[list[tuple[str, bool]]]]:
    """Header and rows (one per declared comparison) of one by_language document."""
    header = language_header(doc)
    cells = cells_of(doc)
    pairs = [
        (family, tool, reference)
        for family in ("primary", "secondary", "ablation")
        for tool, reference in doc.get("metadata", {})
        .get("families", {})
        .get(family, {})
        .get("pairs", [])
    ]
    rows = [
        [(f"{tool} vs {reference} ({family})", False)]
        + [cell_text(cells.get((tool, reference, lang))) for lang, _ in header]
        for family, tool, reference in pairs
    ]
    return ["comparison", *[label for _, label in header]], rows


def html_of(doc: dict[str, Any]) -> str:
    header, rows = table(doc)
    head = '<th class="name">' + esc(header[0]) + "</th>"
    head += "".join(f"<th>{esc(h)}</th>" for h in header[1:])
    body = []
    for row in rows:
        tds = []
        for i, (text, bold) in enumerate(row):
            inner = f"<strong>{esc(text)}</strong>" if bold else esc(text)
            tds.append(f'<td class="name">{inner}</td>' if i == 0 else f"<td>{inner}</td>")
        body.append(f"<tr>{''.join(tds)}</tr>")
    return (
        f'<div class="scroll"><table class="languages"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def markdown_of(doc: dict[str, Any]) -> str:
    header, rows = table(doc)
    return md_table(header, [[f"**{t}**" if b else t for t, b in row] for row in rows])


def document(model: Model, sec: Section) -> dict[str, Any] | None:
    path = model.sources.keyed("by_language").get((sec.corpus, sec.track))
    return read_json(path) if path else None


def html(page: Page, sec: Section) -> list[str]:
    doc = document(page.model, sec)
    if doc is None:
        return []
    languages = doc.get("metadata", {}).get("languages", {})
    title = f"<h3>By language ({sec.corpus}/{sec.track})</h3>"
    if len(languages) < 2:
        only = ", ".join(languages) or "none"
        return [title, f"<p>One language ({esc(only)}): the tables above are its results.</p>"]
    note = note_of(doc.get("metadata", {}))
    return [title, f"<p>{esc(note)}</p>", html_of(doc)]


def markdown(model: Model, sec: Section) -> list[str]:
    doc = document(model, sec)
    if doc is None or len(doc.get("metadata", {}).get("languages", {})) < 2:
        return []
    return [f"### By language ({sec.corpus}/{sec.track})\n", markdown_of(doc)]
