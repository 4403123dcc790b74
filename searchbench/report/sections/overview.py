"""One line per corpus: hay against the baseline on both tracks."""

from __future__ import annotations

from collections.abc import Callable

from searchbench.health import MAX_FAILURE_SHARE, STOP_AFTER
from searchbench.measures import DETECTED
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, fmt_signed, html_table, md_table
from searchbench.report.model import Model, Section
from searchbench.statuses import ERROR, STOPPED, TIMEOUT

OVERVIEW_TOOL = "hay"  # the ranker this benchmark ships, read against the baseline


def docs_min_queries(model: Model) -> int:
    return int((model.config.get("docs") or {}).get("min_queries", 30))


def declared_rows(model: Model, track: str) -> dict[str, list[dict[str, str]]]:
    """declared_in_code.tsv of a docs class: identifier tokens (docs) or heading words."""
    return model.words_declared if track == "words" else model.declared_in_code


def declared_share(model: Model, corpus: str, track: str = "docs") -> tuple[int, int]:
    """(docs queries of one class also declared in the code, its docs queries)."""
    rows = declared_rows(model, track).get(corpus, [])
    return sum(r.get("declared_in_code") == "yes" for r in rows), len(rows)


def track_cells(model: Model, corpus: str, track: str) -> list[str]:
    """n, trivial share, hay − baseline MRR [CI] and verdict of one corpus and track; a docs
    track that was not measured says why in the first cell."""
    sec = next((s for s in model.sections if (s.corpus, s.track) == (corpus, track)), None)
    if sec is None:
        drawn = len(declared_rows(model, track).get(corpus, []))
        why = f"not measured: {drawn} queries (< {docs_min_queries(model)})"
        return [why, "", "", ""]
    share = len(sec.trivial) / len(sec.qids) if sec.qids else 0.0
    comp = sec.comparisons.get((OVERVIEW_TOOL, sec.primary, "all"))
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
            + [declared, *track_cells(model, corpus, "words")]
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
    "heading words n",
    "heading words trivial",
    f"heading words {OVERVIEW_TOOL} − baseline MRR [95% CI]",
    "heading words verdict",
]


def overview_note(model: Model) -> str:
    baseline = model.design.baseline
    return (
        f"Code and docs side by side: {OVERVIEW_TOOL} against {baseline} on MRR, all queries. "
        "The code track's answers are declarations, which a definition prior is built to put "
        "first; the docs track's answers are the documents whose heading holds the token, "
        "where such a prior may lose. A docs track with fewer than "
        f"{docs_min_queries(model)} queries is not measured (its funnel is in its section or "
        "below). Docs queries also declared in code stay in: finding the code first is the "
        "trap the track measures. Heading words (plain words of a heading: `Caching`) are the "
        "docs track's second token class, drawn, measured and pooled on their own (track "
        "words), never with the identifier tokens."
    )


MARK = {
    "detected better": "▲",
    "detected worse": "▼",
    "tests disagree": "†",
    "not detected": "",
    "not evidence": "∅",
    "identical": "≡",
    "broken": "✗ broken",
}
MATRIX_NOTE = (
    "Every tool on every corpus and track: the track's primary metric over all queries (MRR; "
    "nDCG@10 on the usage and behavioural tracks), marked by its verdict in its "
    "comparison family (▲ detected better, ▼ detected worse, † tests disagree, ∅ not "
    "evidence, ≡ identical, ✗ broken: it failed too often there to be measured, see tool "
    "health below; no mark: not detected). Each tool is compared with the baseline, "
    "an ablation variant with the full tool it varies (named in its row). Bold: detected."
)


def tool_order(model: Model) -> list[tuple[str, str]]:
    """(tool, reference) rows: the baseline, then primary, secondary and ablation tools."""
    order: dict[str, tuple[int, str]] = {}
    rank = {"primary": 1, "secondary": 2, "ablation": 3}
    for sec in model.sections:
        order.setdefault(sec.baseline, (0, ""))
        for (tool, metric, subset), comp in sec.comparisons.items():
            if metric == sec.primary and subset == "all":
                family = str(comp.get("family", "secondary"))
                reference = str(comp.get("baseline", sec.baseline))
                order.setdefault(tool, (rank.get(family, 2), reference))
    return [(t, ref) for t, (_, ref) in sorted(order.items(), key=lambda kv: (kv[1][0], kv[0]))]


def matrix_cell(sec: Section, tool: str) -> tuple[str, bool]:
    mrr = sec.means["all"].get(tool, {}).get(sec.primary)
    if mrr is None:
        return "–", False
    if tool == sec.baseline:
        return f"{fmt_num(mrr)} (baseline)", False
    comp = sec.comparisons.get((tool, sec.primary, "all")) or {}
    verdict = str(comp.get("verdict", ""))
    return f"{fmt_num(mrr)} {MARK.get(verdict, '')}".rstrip(), verdict in DETECTED


def matrix(model: Model) -> tuple[list[str], list[list[tuple[str, bool]]]]:
    header = ["tool", *[sec.key for sec in model.sections]]
    rows = []
    for tool, reference in tool_order(model):
        label = (
            f"{tool} (vs {reference})" if reference and reference != model_baseline(model) else tool
        )
        rows.append([(label, False), *[matrix_cell(sec, tool) for sec in model.sections]])
    return header, rows


def model_baseline(model: Model) -> str:
    return model.design.baseline


def emphasis(text: str, bold: bool) -> str:
    return f"<strong>{esc(text)}</strong>" if bold else esc(text)


def matrix_html(model: Model) -> str:
    header, rows = matrix(model)
    head = '<th class="name">tool</th>' + "".join(f"<th>{esc(h)}</th>" for h in header[1:])
    body = "".join(
        f'<tr><td class="name">{esc(row[0][0])}</td>'
        + "".join(f"<td>{emphasis(text, bold)}</td>" for text, bold in row[1:])
        + "</tr>"
        for row in rows
    )
    return (
        f'<div class="scroll"><table class="matrix"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


HEALTH_HEADER = [
    "corpus/track",
    "tool",
    "asked",
    "error",
    "timeout",
    "stopped",
    "unparsed lines",
    "no-match with unparsed lines",
    "paths outside the corpus",
    "failure share",
    "health",
]


def health_rows(model: Model) -> list[list[str]]:
    """Every tool that failed a query or printed an unparsed line, per corpus and track."""
    rows = []
    for sec in model.sections:
        for tool in sec.tools:
            h = sec.health.get(tool)
            if h is None or (h["failures"] == "0" and h["unparsed_lines"] == "0"):
                continue
            counts = [h[k] for k in ("asked", ERROR, TIMEOUT, STOPPED, "unparsed_lines")]
            share = f"{float(h['failure_share']):.0%}"
            rows.append(
                [sec.key, tool, *counts, h["unparsed_no_match"], h["foreign_paths"], share]
                + [h["health"]]
            )
    return rows


def health_note(model: Model) -> str:
    rule = model.config.get("tool_health") or {}
    share = float(rule.get("max_failure_share", MAX_FAILURE_SHARE))
    stop = int(rule.get("stop_after", STOP_AFTER))
    return (
        "Tool health: a failed query is no loss. Failures are errors (a printed path that is no "
        "file of the corpus is one), timeouts, queries not run after an early stop, and "
        "no-matches whose output had unparsed lines. Above "
        f"{share:.0%} of its queries failing on a corpus and track, or stopped after {stop} "
        "consecutive errors or timeouts, a tool is broken there: it takes no verdict (✗ "
        "broken) and leaves its Holm family. Every tool not listed failed no query and printed "
        "no unparsed line."
    )


def health_parts(model: Model, table: Callable[[list[str], list[list[str]]], str]) -> list[str]:
    """The tool-health note and table (or the words that no tool failed)."""
    if not any(sec.health for sec in model.sections):
        return []  # a run without health.tsv (before it existed): nothing to say
    rows = health_rows(model)
    return [health_note(model), table(HEALTH_HEADER, rows) if rows else "No tool failed.\n"]


def html(page: Page) -> list[str]:
    model = page.model
    health = health_parts(model, html_table)
    return [
        '<h2 id="overview">Overview</h2>',
        f"<p>{esc(MATRIX_NOTE)}</p>",
        matrix_html(model),
        *([f'<p id="tool-health">{esc(health[0])}</p>', health[1]] if health else []),
        f"<p>{esc(overview_note(model))}</p>",
        html_table(OVERVIEW_HEADER, overview_rows(model)),
    ]


def markdown(model: Model) -> list[str]:
    header, rows = matrix(model)
    health = health_parts(model, md_table)
    return [
        "## Overview\n",
        MATRIX_NOTE + "\n",
        md_table(header, [[f"**{t}**" if b else t for t, b in row] for row in rows]),
        *([health[0] + "\n", health[1]] if health else []),
        overview_note(model) + "\n",
        md_table(OVERVIEW_HEADER, overview_rows(model)),
    ]
