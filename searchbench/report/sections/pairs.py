"""The all-pairs matrix on the primary metric."""

from __future__ import annotations

from typing import Any

from searchbench.measures import DETECTED, METRIC_LABELS, PRIMARY_METRIC
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc, fmt_signed
from searchbench.report.model import Model, Section


def pair_cell(comp: dict[str, Any], sign: float) -> str:
    """One all-pairs cell: the difference, styled by its verdict; ‡ marks a pair a declared
    family tests (primary, secondary, ablation)."""
    verdict = str(comp.get("verdict", ""))
    text = fmt_signed(sign * as_float(comp.get("diff")))
    if verdict in DETECTED:
        text = f"<strong>{text}</strong>"
    elif verdict == "tests disagree":
        text += "†"
    elif verdict == "not evidence":
        text = f'<span class="not-evidence">{text}</span>'
    elif verdict == "identical":
        text = '<span class="identical" title="identical">≡</span>'
    if comp.get("family") not in (None, "all-pairs"):
        text += "‡"
    return f'<td class="num">{text}</td>'


def pairs_html(
    pairs: list[dict[str, Any]], baseline: str = "", meta: dict | None = None
) -> list[str]:
    """Every pair of tools on the primary metric over all queries: row minus column. A pair a
    declared family tests is that comparison (one test, one verdict), marked ‡."""
    metric = str((meta or {}).get("primary_metric") or PRIMARY_METRIC)
    label = dict(METRIC_LABELS).get(metric, metric)
    cells = {
        (c["tool"], c["baseline"]): c
        for c in pairs
        if c.get("metric") == metric and c.get("subset") == "all"
    }
    if not cells:
        return []
    tools = sorted({t for pair in cells for t in pair})
    rows = []
    for row in tools:
        line = [f"<th>{esc(row)}</th>"]
        for col in tools:
            comp, sign = cells.get((row, col)), 1.0
            if comp is None and (col, row) in cells:
                comp, sign = cells[(col, row)], -1.0
            line.append("<td></td>" if comp is None else pair_cell(comp, sign))
        rows.append("<tr>" + "".join(line) + "</tr>")
    head = "<tr><th></th>" + "".join(f"<th>{esc(t)}</th>" for t in tools) + "</tr>"
    families = (meta or {}).get("families") or {}
    m = ((families.get("all-pairs") or {}).get("holm_m") or {}).get(metric, {}).get("all", "?")
    return [
        f"<h3>All pairs ({esc(label)}, all queries)</h3>",
        f"<p>Mean paired {esc(label)} difference, row tool minus column tool, with the same "
        "two tests. "
        "‡: a pair a declared family tests (primary, secondary or ablation: each tool with "
        f"{esc(baseline)}, each variant with its full tool) is that comparison of the tables "
        "above, repeated as it is (same numbers, same verdict: one test per pair). The other "
        "cells are the all-pairs family, exploratory: Holm over those pairs that can reach α "
        f"(m = {esc(m)}), which keeps their family-wise error rate at α (with the three "
        "declared families, at most 4α over everything). Bold: detected; †: tests disagree; "
        "grey: not evidence; ≡: identical.</p>",
        f'<table class="pairs">{head}{"".join(rows)}</table>',
    ]


def html(page: Page, sec: Section) -> list[str]:
    return pairs_html(page.model.pairs.get((sec.corpus, sec.track), []), sec.baseline, sec.meta)


def markdown(model: Model, sec: Section) -> list[str]:
    return []
