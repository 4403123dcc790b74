"""Per corpus and track: the results tables, verdicts and the notes needed to read them."""

from __future__ import annotations

from typing import Any

from searchbench.measures import DETECTED, SUBSETS
from searchbench.report.charts import Page
from searchbench.report.fmt import (
    METRIC_LABEL,
    METRICS,
    esc,
    fmt_ci,
    fmt_num,
    fmt_p,
    fmt_signed,
    md_table,
)
from searchbench.report.model import Model, Section, table_rows


def subset_note(sec: Section) -> str:
    n, k = len(sec.qids), len(sec.trivial)
    share = k / n if n else 0.0
    return (
        f"{k} of {n} queries ({share:.1%}) are trivial: the symbol occurs in one file only, so "
        f"every tool that finds it ranks it first. The discriminating subset is the other "
        f"{n - k}."
    )


def evidence_note(sec: Section, min_queries: int) -> str | None:
    if len(sec.qids) < min_queries:
        return (
            f"not evidence: only {len(sec.qids)} queries (fewer than {min_queries}); "
            f"no difference is claimed for {sec.corpus}/{sec.track}."
        )
    return None


def md_metric_cell(row: dict[str, Any]) -> str:
    verdict = row["verdict"]
    if verdict == "baseline":
        return f"{fmt_num(row['mean'])} (baseline)"
    if verdict == "identical":
        return f"{fmt_num(row['mean'])} (identical to the baseline)"
    if row["diff"] is None:
        return fmt_num(row["mean"])
    text = (
        f"{fmt_num(row['mean'])} ({fmt_signed(row['diff'])} "
        f"{fmt_ci(row['ci_low'], row['ci_high'])}, p={fmt_p(row['p_randomization'])}, "
        f"Holm p={fmt_p(row['p_holm'])})"
    )
    if verdict in DETECTED:
        return f"**{text} {verdict}**"
    if verdict == "tests disagree":
        return f"{text} tests disagree †"
    if verdict == "not evidence":
        return f"_{text} not evidence_"
    return f"{text} {verdict}"


def language_caveats(model: Model, sec: Section) -> dict[str, tuple[str, str]]:
    """Tools that declare the languages they cover (tools.yaml `languages`: a language server,
    ctags' parsers), where some of this section's queries are in others: those queries were
    not asked of the tool (status not-applicable), and its means and comparisons use the rest
    (issue 8: ctags 5.9 has no Swift parser and read "detected worse" on Swift; issue 16).
    Per tool: a short label for its row and the sentence for the section."""
    caveats = {}
    for record in model.tools:
        tool, covered = str(record.get("name")), record.get("languages")
        if covered is None or tool not in sec.tools:
            continue
        cost = sec.cost.get(tool, {})
        skipped = int(cost.get("not_applicable") or 0)
        if not skipped:
            continue
        total = skipped + int(cost.get("queries") or 0)
        languages = ", ".join(covered)
        if skipped == total:
            caveats[tool] = (
                "not applicable",
                f"{tool}: not applicable here: none of the {total} queries is in the languages "
                f"it covers ({languages}); it was not run.",
            )
        else:
            caveats[tool] = (
                f"asked {total - skipped} of {total}",
                f"{tool}: asked only about the queries in the languages it covers ({languages}): "
                f"{total - skipped} of {total}; the other {skipped} were not run, and its means "
                "and comparisons use those it was asked.",
            )
    return caveats


def row_caveats(model: Model, sec: Section) -> dict[str, tuple[str, str]]:
    """Every tool's caveat: the languages it was asked about, and whether it is broken."""
    caveats = language_caveats(model, sec)
    return {**caveats, **broken_caveats(sec, caveats)}


def broken_caveats(sec: Section, caveats: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Tools broken on this corpus and track (health.tsv): the row says so, the note why."""
    out = {}
    for tool in sec.tools:
        health = (sec.health.get(tool) or {}).get("health", "")
        if not health.startswith("broken: "):
            continue
        text = (
            f"{tool}: broken here: {health.removeprefix('broken: ')}. A failed query is no "
            "loss: it takes no verdict and leaves its Holm family; its mean is as measured."
        )
        before = caveats.get(tool, ("", ""))[1]
        out[tool] = ("broken", f"{before} {text}".strip())
    return out


def compared_in(sec: Section, tool: str) -> str:
    """Where a tool's row was tested: 'primary vs rg', 'ablation vs hay', 'baseline'."""
    if tool == sec.baseline:
        return "baseline"
    comp = sec.comparisons.get((tool, sec.primary, "all"))
    if comp is None:
        return ""
    return f"{comp.get('family', '?')} vs {comp.get('baseline', sec.baseline)}"


def verdict_cell(verdict: str, attrs: str) -> str:
    if verdict in DETECTED:
        vtext, vcls = f"<strong>{esc(verdict)}</strong>", "verdict detected"
    elif verdict == "tests disagree":
        vtext, vcls = '<span class="badge disagree">tests disagree †</span>', "verdict disagree"
    elif verdict == "not evidence":
        vtext = '<span class="badge not-evidence">not evidence</span>'
        vcls = "verdict not-evidence"
    elif verdict == "identical":
        vtext, vcls = '<span class="badge identical">identical</span>', "verdict identical"
    else:
        vtext, vcls = esc(verdict), "verdict"
    return f'<td class="name {vcls}" {attrs} data-field="verdict">{vtext}</td>'


def metric_cells(row: dict[str, Any]) -> str:
    """The five cells of one tool x metric group: bold only where detected, grey where the
    comparison is not evidence."""
    attrs = f'data-tool="{esc(row["tool"])}" data-metric="{esc(row["metric"])}"'
    verdict = row["verdict"]
    detected = verdict in DETECTED
    klass = {"not evidence": ' class="not-evidence"', "identical": ' class="identical"'}.get(
        verdict, ""
    )

    def cell(field_name: str, text: str) -> str:
        inner = f"<strong>{esc(text)}</strong>" if detected else esc(text)
        return f'<td{klass} {attrs} data-field="{field_name}">{inner}</td>'

    mean_cell = cell("mean", fmt_num(row["mean"]))
    if verdict == "baseline":
        return (
            mean_cell + f'<td colspan="4" class="name" {attrs} data-field="verdict">baseline</td>'
        )
    if row["diff"] is None:
        return (
            mean_cell
            + f'<td colspan="3"{klass} {attrs} data-field="diff">no query to compare</td>'
            + verdict_cell(verdict or "no comparison", attrs)
        )
    return (
        mean_cell
        + cell("diff", f"{fmt_signed(row['diff'])} {fmt_ci(row['ci_low'], row['ci_high'])}")
        + cell("p_randomization", fmt_p(row["p_randomization"]))
        + cell("p_holm", fmt_p(row["p_holm"]))
        + verdict_cell(verdict, attrs)
    )


def results_table(
    sec: Section, subset: str, caveats: dict[str, tuple[str, str]] | None = None
) -> str:
    rows = table_rows(sec, subset)
    head1 = (
        '<th class="name" rowspan="2">tool</th><th class="name" rowspan="2">compared in</th>'
    ) + "".join(
        f'<th colspan="5">{esc(lbl)}{" (primary)" if m == sec.primary else ""}</th>'
        for m, lbl in METRICS
    )
    head2 = "".join(
        "<th>mean</th><th>diff [95% CI]</th><th>p rand.</th>"
        "<th>p Holm (family)</th><th>verdict</th>"
        for _ in METRICS
    )
    body = []
    for tool in sec.tools:
        trows = [r for r in rows if r["tool"] == tool]
        not_ev = tool != sec.baseline and all(r["verdict"] == "not evidence" for r in trows)
        cls = ' class="not-evidence"' if not_ev else ""
        cells = "".join(metric_cells(r) for r in trows)
        caveat = (caveats or {}).get(tool)
        mark = (
            f' <span class="caveat" title="{esc(caveat[1])}">({esc(caveat[0])})</span>'
            if caveat
            else ""
        )
        body.append(
            f'<tr{cls} data-tool="{esc(tool)}"><td class="name">{esc(tool)}{mark}</td>'
            f'<td class="name family">{esc(compared_in(sec, tool))}</td>{cells}</tr>'
        )
    table_id = f"table-{sec.corpus}-{sec.track}-{subset}"
    return (
        f'<div class="scroll"><table class="results" id="{esc(table_id)}" '
        f'data-corpus="{esc(sec.corpus)}" data-track="{esc(sec.track)}" '
        f'data-subset="{esc(subset)}"><thead><tr>{head1}</tr>'
        f"<tr>{head2}</tr></thead><tbody>{''.join(body)}</tbody></table></div>\n"
    )


LEGEND_NOTE = (
    "Bold: detected (interval excludes 0 and the test rejects). † tests disagree: the "
    "bootstrap interval and the randomization test give different answers; the conservative "
    "reading (not detected) is taken. Grey: not evidence (fewer queries than the minimum, or "
    "so few queries where the two tools differ that no test could reach α). Identical: the "
    "tool ranks the right file exactly as the baseline on every query (nothing to test). "
    "Holm p is adjusted within the comparison's family (named in the second column) and is – "
    "where the comparison left it (Tarone's rule, listed above). The diff of an ablation "
    "variant is against the full tool it varies, not the baseline."
)


def _sizes(sizes: dict[str, Any]) -> str:
    return ", ".join(
        f"{label} {sizes[m].get('all', '?')}/{sizes[m].get('discriminating', '?')}"
        for m, label in METRICS
        if isinstance(sizes.get(m), dict)
    )


def families_note(meta: dict[str, Any]) -> str | None:
    """Each declared comparison family of this corpus and track: its pairs, what it controls
    and its Holm sizes."""
    families = meta.get("families")
    if not isinstance(families, dict):
        return None
    parts = []
    for name in ("primary", "secondary", "ablation"):
        family = families.get(name) or {}
        pairs = [f"{t} vs {r}" for t, r in family.get("pairs") or []]
        if not pairs:
            parts.append(f"{name}: none")
            continue
        parts.append(
            f"{name} ({'; '.join(pairs)}): {family.get('controls', '')}; Holm m after "
            f"Tarone's rule (all/discriminating queries): {_sizes(family.get('holm_m') or {})}"
        )
    return (
        "Comparison families, each with its own Holm adjustment, keeping the family-wise error "
        "rate of its comparisons at α (nothing is corrected across families): "
        + ". ".join(parts)
        + ". So adding a tool or an ablation variant never changes the primary verdict."
    )


def holm_note(meta: dict[str, Any], baseline: str) -> str | None:
    """The comparison families, and which comparisons left their Holm adjustment and why."""
    text = families_note(meta)
    if text is None:
        return None
    text += (
        " An adjusted p depends on its family: on m and on which comparisons are in it "
        "(never the interval or the raw p)."
    )
    identical = [str(t) for t in meta.get("identical_tools") or []]
    if identical:
        text += f" Left out as identical to {baseline} (nothing to test): {', '.join(identical)}."
    unreachable: dict[str, list[str]] = {}
    for e in meta.get("holm_excluded") or []:
        if str(e.get("reason", "")).startswith("cannot reach"):
            where = f"{METRIC_LABEL.get(e['metric'], e['metric'])} {e['subset']}"
            unreachable.setdefault(str(e["tool"]), []).append(f"{where}: n_eff {e['n_eff']}")
    if unreachable:
        text += (
            " Left out because too few queries differ for any p to reach α (their verdict is "
            "not evidence): "
            + "; ".join(f"{t} ({', '.join(v)})" for t, v in sorted(unreachable.items()))
            + "."
        )
    return text


def html(page: Page, sec: Section) -> list[str]:
    """Heading, how to read it, and one results table per query subset."""
    model, meta = page.model, sec.meta
    out = [f'<h2 id="{esc(sec.corpus)}-{esc(sec.track)}">{esc(sec.corpus)} / {esc(sec.track)}</h2>']
    note = evidence_note(sec, model.min_queries)
    if note:
        out.append(
            '<p class="note"><span class="badge not-evidence">not evidence</span> '
            f'<span class="not-evidence">{esc(note)}</span></p>'
        )
    out.append(
        f"<p>{esc(subset_note(sec))} Inference: {esc(meta.get('resamples', '?'))} resamples, "
        f"seed {esc(meta.get('seed', '?'))}, α = {esc(meta.get('alpha', '?'))}; "
        f"{esc(meta.get('family_rule', 'family rule not stated'))}.</p>"
    )
    holm = holm_note(meta, sec.baseline)
    out += [f'<p class="note">{esc(holm)}</p>'] if holm else []
    out += [f'<p class="warn">{esc(w)}</p>' for w in sec.warnings]
    caveats = row_caveats(model, sec)
    out += [f'<p class="note caveat">{esc(text)}</p>' for _, text in caveats.values()]
    for subset in SUBSETS:
        title = "All queries" if subset == "all" else "Discriminating queries (not trivial)"
        out.append(f"<h3>{title} (n = {len(sec.subset_qids(subset))})</h3>")
        out.append(results_table(sec, subset, caveats))
    out.append(f'<p class="note">{esc(LEGEND_NOTE)}</p>')
    return out


def markdown(model: Model, sec: Section) -> list[str]:
    out = [f"## {sec.corpus} / {sec.track}\n"]
    note = evidence_note(sec, model.min_queries)
    if note:
        out.append(f"**{note}**\n")
    out.append(subset_note(sec) + "\n")
    caveats = row_caveats(model, sec)
    out += [f"{text}\n" for _, text in caveats.values()]
    for subset in SUBSETS:
        rows = table_rows(sec, subset)
        out.append(f"### {subset} queries (n = {len(sec.subset_qids(subset))})\n")
        body = []
        for tool in sec.tools:
            cells = [md_metric_cell(r) for r in rows if r["tool"] == tool]
            label = f"{tool} ({caveats[tool][0]})" if tool in caveats else tool
            body.append([label, compared_in(sec, tool), *cells])
        out.append(md_table(["tool", "compared in", *[lbl for _, lbl in METRICS]], body))
    holm = holm_note(sec.meta, sec.baseline)
    out += [holm + "\n"] if holm else []
    return out + [f"- warning: {w}\n" for w in sec.warnings]
