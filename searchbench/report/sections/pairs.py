"""The all-pairs matrix on the primary metric."""

from __future__ import annotations

from typing import Any

from searchbench.measures import DETECTED
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc, fmt_signed
from searchbench.report.model import Model, Section


def pair_cell(comp: dict[str, Any], sign: float) -> str:
    """One all-pairs cell: the difference, styled by its verdict; ‡ marks a vs-baseline pair."""
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
    if comp.get("family") == "vs-baseline":
        text += "‡"
    return f'<td class="num">{text}</td>'


def pairs_html(
    pairs: list[dict[str, Any]], baseline: str = "", meta: dict | None = None
) -> list[str]:
    """Every pair of tools on the primary metric over all queries: row minus column. A pair
    with the baseline is its vs-baseline comparison (one test, one verdict), marked ‡."""
    cells = {
        (c["tool"], c["baseline"]): c
        for c in pairs
        if c.get("metric") == "rr" and c.get("subset") == "all"
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
    m = ((meta or {}).get("pairs_holm_m") or {}).get("rr", {}).get("all", "?")
    return [
        "<h3>All pairs (MRR, all queries)</h3>",
        "<p>Mean paired MRR difference, row tool minus column tool, with the same two tests. "
        f"‡: a pair with the baseline {esc(baseline)} is its vs-baseline comparison of the "
        "tables above, repeated as it is (same numbers, same verdict: one test per pair). The "
        f"other cells are the all-pairs family: Holm over the pairs of tools other than "
        f"{esc(baseline)} that can reach α (m = {esc(m)}), which keeps their family-wise error "
        "rate at α (with the vs-baseline family, at most 2α). Bold: detected; †: tests "
        "disagree; grey: not evidence; ≡: identical.</p>",
        f'<table class="pairs">{head}{"".join(rows)}</table>',
    ]


def html(page: Page, sec: Section) -> list[str]:
    return pairs_html(page.model.pairs.get((sec.corpus, sec.track), []), sec.baseline, sec.meta)


def markdown(model: Model, sec: Section) -> list[str]:
    return []
