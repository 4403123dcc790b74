"""The best tool of each family (grep, structural, tag index, ranker under test, ...) per
corpus and overall, on MRR over all queries: which kind of tool to give an agent."""

from __future__ import annotations

from statistics import mean

from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, html_table, md_table
from searchbench.report.model import Model, Section

NOTE = (
    "Best tool of each family by the track's primary metric (MRR; nDCG@10 on the usage and "
    "behavioural tracks) over all queries, with its verdict in its comparison "
    "family (against the baseline; an ablation variant, against its full tool). A tool asked "
    "only some queries (a language server: its languages) is shown with its reference's "
    "figure on those same queries, never against a mean over all. Overall: the family's "
    "best-ranked tool on the pooled leaderboard, with its 95% interval, pooled over the "
    "queries it was asked (* and the subset when not all); without a pooled file, the "
    "highest mean over the corpora (a tool missing on a corpus is left out, the count says so)."
)


def family_of(model: Model) -> dict[str, str]:
    return {str(t.get("name")): str(t.get("family") or "unstated") for t in model.tools}


def score_of(sec: Section, tool: str) -> float | None:
    """The tool's mean on the queries it was asked; None when it was asked none (NaN)."""
    value = sec.means["all"].get(tool, {}).get(sec.primary)
    return value if value is not None and value == value else None


def best(sec: Section, tools: list[str]) -> tuple[str, float] | None:
    scored = [(score, t) for t in tools if (score := score_of(sec, t)) is not None]
    if not scored:
        return None
    top = max(score for score, _ in scored)
    return min(t for score, t in scored if score == top), top  # ties: first by name


def cell(sec: Section, tools: list[str]) -> str:
    found = best(sec, tools)
    if found is None:
        return "–"
    tool, mrr = found
    comp = sec.comparisons.get((tool, sec.primary, "all"))
    verdict = "baseline" if tool == sec.baseline else (comp or {}).get("verdict", "")
    reference = (comp or {}).get("baseline", sec.baseline)
    if verdict and reference != sec.baseline:
        verdict += f" vs {reference}"  # an ablation variant is compared with its full tool
    text = f"{tool} {fmt_num(mrr)}" + (f" ({verdict})" if verdict else "")
    if comp and int(comp.get("not_applicable") or 0) > 0:
        # like with like: the reference on the same queries, not its mean over all
        text += f"; {reference} {fmt_num(comp.get('mean_base'))} on the same {comp.get('n')}"
    return text


def pooled_best(doc: dict, tools: list[str], corpora: int) -> str | None:
    """The family's best-ranked tool on the track's pooled leaderboard, or None."""
    rows = [r for r in doc["leaderboard"] if r["tool"] in tools and r["rank"] is not None]
    if not rows:
        return None
    r = rows[0]  # the leaderboard is sorted by rank
    subset = r.get("subset", "all")
    on = "" if subset in ("all", None, "") else f" (* on {subset})"
    return (
        f"{r['tool']} {fmt_num(r['pooled'])} {fmt_ci(r['ci_low'], r['ci_high'])} "
        f"over {r['corpora']} of {corpora} corpora{on}"
    )


def overall(sections: list[Section], tools: list[str], pooled: dict | None = None) -> str:
    if pooled is not None:
        found = pooled_best(pooled, tools, len(sections))
        if found is not None:
            return found
    means: dict[str, list[float]] = {}
    for sec in sections:
        for tool in tools:
            if (score := score_of(sec, tool)) is not None:
                means.setdefault(tool, []).append(score)
    if not means:
        return "–"
    top = max(mean(v) for v in means.values())
    tool = min(t for t, v in means.items() if mean(v) == top)
    return f"{tool} {fmt_num(top)} over {len(means[tool])} of {len(sections)} corpora"


def tables(model: Model) -> list[tuple[str, list[str], list[list[str]]]]:
    """(track, header, rows): one row per family present in the run."""
    families = family_of(model)
    out = []
    for track in sorted({s.track for s in model.sections}):
        sections = [s for s in model.sections if s.track == track]
        rows = []
        for family in sorted(set(families.values())):
            members = sorted(t for t, f in families.items() if f == family)
            if not any(t in s.tools for s in sections for t in members):
                continue
            doc = model.pooled.get(track) if model.pooled else None
            row = [family, *[cell(s, members) for s in sections], overall(sections, members, doc)]
            rows.append(row)
        out.append((track, ["family", *[s.corpus for s in sections], "overall"], rows))
    return out


def html(page: Page) -> list[str]:
    out = ['<h2 id="families">Best of each family</h2>', f"<p>{esc(NOTE)}</p>"]
    for track, header, rows in tables(page.model):
        out += [
            f"<h3>{esc(track)} track</h3>",
            f'<div class="scroll">{html_table(header, rows)}</div>',
        ]
    return out


def markdown(model: Model) -> list[str]:
    out = ["## Best of each family\n", NOTE + "\n"]
    for track, header, rows in tables(model):
        out += [f"### {track} track\n", md_table(header, rows)]
    return out
