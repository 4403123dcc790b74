"""Cost to an agent: the bytes an agent reads before reaching the answer, per tool, beside MRR,
over every corpus of a track (results/{corpus}/{track}/agent_cost.tsv,
searchbench/agent_cost.py)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from searchbench.agent_cost import COLUMNS
from searchbench.artifacts import read_tsv
from searchbench.errors import BenchError
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc, fmt_num, fmt_p, html_table, md_table
from searchbench.report.model import Model

TITLE = "Cost to an agent: bytes read before the answer"
NOTE = (
    "A proxy for tokens, not tokens (no tokenizer is run): the bytes of the match lines a tool "
    "prints, each counted as path:line:text so every tool's lines weigh alike, that an agent "
    "reads from the top of the output until the first line of a right file. A query whose "
    "answer never appears costs the whole output, and fails. MRR is pooled over every query of "
    "the track; 'bytes before answer' over the found queries only (median: the median of the "
    "corpora's medians); 'bytes read' over every query, found or not. 'Own format ÷ counted "
    "output': the bytes the tool printed as it prints them (JSON, headings and all) over the "
    "same output counted as path:line:text; well above 1, the proxy understates what that "
    "tool makes an agent read. The share over the budget: queries whose bytes read exceed "
    "{budget} bytes, a typical size at which an agent harness truncates a tool's output (a "
    "choice). ρ(rr, bytes) is Spearman's correlation across one corpus's queries between the "
    "reciprocal rank and the bytes read (its median over the corpora where it is defined): "
    "near −1, a better rank means less reading; near 0, MRR says nothing of the cost. Within "
    "a tool it leans to −1 by construction, since every file above the answer adds bytes; "
    "how far it stays from −1 is how unevenly those files weigh."
)
ACROSS_NOTE = (
    "Across tools, per corpus: Spearman's ρ between the tools' MRR and their mean bytes read "
    "(ablation variants left out). Negative: ordering the tools by MRR orders them by cost too; "
    "near 0 or positive: MRR hides the cost."
)
TRACK_ORDER = {"code": 0, "docs": 1}


def by_track(key: tuple[str, str], track_at: int) -> tuple[int, tuple[str, str]]:
    """The code track first, then docs, then by name."""
    return TRACK_ORDER.get(key[track_at], len(TRACK_ORDER)), key


def rows(model: Model) -> list[dict[str, str]]:
    """Every agent_cost row of the run, in (corpus, track) order; a file whose rows name
    another corpus or track than its key is a miswired input."""
    out = []
    for key, path in model.sources.keyed("agent_cost").items():
        found = read_tsv(path, COLUMNS)
        named = sorted({(r["corpus"], r["track"]) for r in found} - {tuple(key)})
        if named:
            raise BenchError(
                f"{path} names corpus and track {named}, its report key is {tuple(key)}; "
                "rerun the agent_cost rule"
            )
        out += found
    return out


def weighted(found: Sequence[dict[str, str]], column: str, weight: str) -> float:
    """The pooled mean of a per-corpus mean: weighted by its count of queries (or found)."""
    pairs = [(as_float(r[column]), as_float(r[weight])) for r in found if r[column]]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else float("nan")


def middle(values: Sequence[str]) -> float:
    present = [as_float(v) for v in values if v]
    return statistics.median(present) if present else float("nan")


def ratio(group: Sequence[dict[str, str]]) -> str:
    """Printed bytes over counted bytes of the whole output, pooled over the corpora."""
    printed = weighted(group, "mean_stdout_bytes", "n")
    counted = weighted(group, "mean_output_bytes", "n")
    return f"{fmt_num(printed / counted, 2)}×" if counted > 0 else "–"


def percent(value: float) -> str:
    return "–" if value != value else f"{100 * value:.1f}%"


def tool_table(found: list[dict[str, str]]) -> tuple[list[str], list[list[str]]]:
    """One line per track and tool, pooled over the track's corpora."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in found:
        groups.setdefault((r["track"], r["tool"]), []).append(r)
    header = [
        "track",
        "tool",
        "corpora",
        "found / queries",
        "MRR",
        "mean bytes before answer",
        "median bytes before answer",
        "mean bytes read per query",
        "own format ÷ counted output",
        "share over budget",
        "median ρ(rr, bytes) [corpora]",
    ]
    body = []
    for (track, tool), group in sorted(groups.items(), key=lambda kv: by_track(kv[0], 0)):
        rhos = [r["rho_rr_bytes"] for r in group if r["rho_rr_bytes"]]
        body.append(
            [
                track,
                tool,
                str(len(group)),
                f"{sum(int(r['found']) for r in group)} / {sum(int(r['n']) for r in group)}",
                fmt_num(weighted(group, "mrr", "n")),
                fmt_num(weighted(group, "mean_bytes_before", "found"), 0),
                fmt_num(middle([r["median_bytes_before"] for r in group]), 0),
                fmt_num(weighted(group, "mean_bytes_read", "n"), 0),
                ratio(group),
                percent(weighted(group, "share_over_budget", "n")),
                f"{fmt_num(middle(rhos))} [{len(rhos)}]",
            ]
        )
    return header, body


def across_table(found: list[dict[str, str]]) -> tuple[list[str], list[list[str]]]:
    """One line per corpus and track: the across-tools correlation (the same in each row)."""
    first: dict[tuple[str, str], dict[str, str]] = {}
    for r in found:
        first.setdefault((r["corpus"], r["track"]), r)
    header = ["corpus", "track", "tools", "ρ(MRR, mean bytes read)", "p"]
    ordered = sorted(first.items(), key=lambda kv: by_track(kv[0], 1))
    body = [
        [c, t, r["tools_n"], fmt_num(r["tools_rho_mrr_bytes"]), fmt_p(r["tools_p_mrr_bytes"])]
        for (c, t), r in ordered
    ]
    return header, body


def note(found: list[dict[str, str]]) -> str:
    budgets = sorted({r["budget_bytes"] for r in found})
    return NOTE.format(budget=" / ".join(f"{int(as_float(b)):,}" for b in budgets))


def html(page: Page) -> list[str]:
    found = rows(page.model)
    if not found:
        return []
    header, body = tool_table(found)
    across_header, across_body = across_table(found)
    return [
        f'<h2 id="agent-cost">{esc(TITLE)}</h2>',
        f"<p>{esc(note(found))}</p>",
        '<div class="scroll">' + html_table(header, body, name_cols=2) + "</div>",
        f"<p>{esc(ACROSS_NOTE)}</p>",
        html_table(across_header, across_body, name_cols=2),
    ]


def markdown(model: Model) -> list[str]:
    found = rows(model)
    if not found:
        return []
    header, body = tool_table(found)
    across_header, across_body = across_table(found)
    return [
        f"## {TITLE}\n",
        note(found) + "\n",
        md_table(header, body),
        ACROSS_NOTE + "\n",
        md_table(across_header, across_body),
    ]
