"""A leaderboard per track, first on the page: tools ranked by the track's primary metric
pooled over corpora (results/pooled/{track}.json), with its interval, the query-weighted figure
beside it, per-corpus wins / ties / losses against the baseline and what each answer costs;
the quality-against-cost chart beside the table; one line naming the tools that do not apply."""

from __future__ import annotations

from typing import Any

from searchbench.report.charts import COST_AXES, Page, quality_cost_rows
from searchbench.report.fmt import esc, fmt_ci, fmt_num, md_table
from searchbench.report.model import Model
from searchbench.report.pooled import fmt_bytes, fmt_repeatable, fmt_seconds
from searchbench.report.sections.intro import TRACK_QUESTIONS

SUBSET_MARK = "*"


def header(doc: dict[str, Any]) -> list[str]:
    return [
        "#",
        "tool",
        "family",
        f"{doc['metric_label']} pooled [95% CI]",
        "query-weighted",
        "corpora",
        "queries",
        f"W/T/L vs {doc['baseline']}",
        "median time / query",
        "bytes before answer",
        "index time",
        "repeatable",
        "broken on",
    ]


def board_row(row: dict[str, Any]) -> list[str]:
    """One ranked tool as display cells; a tool pooled on a subset of the queries is marked."""
    subset = row.get("subset", "all") not in ("all", None, "")
    corpora = row.get("corpora")
    return [
        "–" if row["rank"] is None else str(row["rank"]),
        f"{row['tool']}{SUBSET_MARK if subset else ''}",
        str(row.get("family") or "–"),
        f"{fmt_num(row['pooled'])} {fmt_ci(row['ci_low'], row['ci_high'])}",
        fmt_num(row.get("query_weighted")),
        str(len(corpora) if isinstance(corpora, list) else (corpora if corpora else "–")),
        str(row.get("queries") if row.get("queries") is not None else "–"),
        wtl(row),
        fmt_seconds(row.get("median_seconds")),
        fmt_bytes(row.get("bytes_before_answer")),
        fmt_seconds(row.get("index_seconds")),
        fmt_repeatable(row),
        ", ".join(map(str, row.get("broken") or [])) or "–",
    ]


def wtl(row: dict[str, Any]) -> str:
    """Wins / ties / losses against the baseline; the baseline itself has none."""
    counts = [row.get(k) for k in ("wins", "ties", "losses")]
    return "–" if None in counts else "/".join(map(str, counts))


def title(track: str) -> str:
    question = TRACK_QUESTIONS.get(track)
    return f"Leaderboard, {track} track" + (f": {question}" if question else "")


def weighting(doc: dict[str, Any]) -> str:
    """How the figures were pooled, in the producer's words plus what the columns mean."""
    rule = str(doc["weighting"]).strip().rstrip(".")
    return (
        f"Ranked by {doc['metric_label']} pooled over {', '.join(map(str, doc['corpora']))}. "
        f"{rule[:1].upper()}{rule[1:]}. Query-weighted: the mean over every query "
        f"instead. W/T/L: corpora where the tool is detected better / not told apart / "
        f"detected worse than {doc['baseline']}."
    )


def under_table(doc: dict[str, Any]) -> str:
    """The one line under the table: the tools that do not apply and why, and the tools
    pooled and compared on a subset of the queries."""
    # tools sharing a reason share one clause (a track's off-track tools are many)
    by_reason: dict[str, list[str]] = {}
    for r in doc["not_applicable"]:
        by_reason.setdefault(str(r["reason"]), []).append(str(r["tool"]))
    absent = "; ".join(f"{', '.join(tools)} ({why})" for why, tools in by_reason.items())
    line = f"Not applicable here: {absent}." if absent else "Every tool applies to this track."
    subsets = "; ".join(
        f"{r['tool']} on {r['subset']}"
        for r in doc["leaderboard"]
        if r.get("subset", "all") not in ("all", None, "")
    )
    if subsets:
        line += f" {SUBSET_MARK} pooled and compared on a subset: {subsets}."
    return line


def rows_of(doc: dict[str, Any]) -> list[list[str]]:
    return [board_row(r) for r in doc["leaderboard"]]


def table_html(doc: dict[str, Any]) -> str:
    head = "".join(
        f'<th class="name">{esc(h)}</th>' if i in (1, 2) else f"<th>{esc(h)}</th>"
        for i, h in enumerate(header(doc))
    )
    cls = {1: ' class="name"', 2: ' class="name"'}
    body = "".join(
        "<tr>"
        + "".join(f"<td{cls.get(i, '')}>{esc(c)}</td>" for i, c in enumerate(cells))
        + "</tr>"
        for cells in rows_of(doc)
    )
    return (
        f'<table class="leaderboard" id="leaderboard-table-{esc(doc["track"])}"><thead>'
        f"<tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def html(page: Page) -> list[str]:
    out = []
    for i, (track, doc) in enumerate(page.model.pooled.items()):
        anchor = ' id="leaderboards"' if i == 0 else ""
        out += [
            f'<section class="board"{anchor}>',
            f'<h2 id="leaderboard-{esc(track)}">{esc(title(track))}</h2>',
            f'<p class="small">{esc(weighting(doc))}</p>',
            '<div class="front board-row">',
            f'<div class="front-table">{table_html(doc)}<p class="small">'
            f"{esc(under_table(doc))}</p></div>",
            f'<div class="front-chart" id="quality-cost-{esc(track)}">',
            *page.chart_at("pooled", track, "quality_cost"),
            "</div></div></section>",
        ]
    return out


def has_cost_chart(doc: dict[str, Any]) -> bool:
    return any(quality_cost_rows(doc, field, 1.0) for field, *_ in COST_AXES)


def markdown(model: Model) -> list[str]:
    """Per track: the title, the weighting, the table, the line under it, the chart (its SVG
    beside the summary under charts/pooled/{track}/)."""
    out = []
    for track, doc in model.pooled.items():
        out += [
            f"## {title(track)}\n",
            weighting(doc) + "\n",
            md_table(header(doc), rows_of(doc)),
            under_table(doc) + "\n",
        ]
        if has_cost_chart(doc):
            out.append(
                f"![{track} track: quality against cost](charts/pooled/{track}/quality_cost.svg)\n"
            )
    return out
