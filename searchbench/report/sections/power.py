"""The minimum detectable difference beside each observed one: not detected vs not detectable."""

from __future__ import annotations

from typing import Any

from searchbench.measures import DETECTED, METRIC_LABELS
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc, fmt_num, fmt_p, fmt_signed, html_table
from searchbench.report.model import Model, Section


def power_reading(comp: dict[str, Any] | None, mde: float | None) -> str:
    """Whether a tool's observed MRR difference was detected, or could not have been."""
    if comp is None:
        return "no comparison"
    verdict = comp["verdict"]
    if verdict in DETECTED or verdict == "identical":
        return verdict
    if mde is None:
        return f"{verdict}: no feasible difference was detectable"
    size = abs(as_float(comp.get("diff")))
    if size < mde:
        return f"{verdict}: |diff| below the MDE, could not reliably have been detected"
    return f"{verdict}: |diff| at or above the MDE"


def power_summary(power: dict[str, Any]) -> str:
    """One sentence: the MDE and what it rests on."""
    mde = power.get("mde")
    label = dict(METRIC_LABELS).get(str(power["metadata"].get("metric", "rr")), "MRR")
    target = as_float(power["metadata"]["power_target"])
    head = (
        f"Minimum detectable {label} difference at {target:.0%} power (all queries): {fmt_num(mde)}"
        if mde is not None
        else f"Minimum detectable {label} difference: none ({power.get('mde_note', '')})"
    )
    return (
        f"{head}. It rests on n = {power['n']} queries, a tie share of "
        f"{as_float(power['tie_share']):.0%} (pooled over {len(power['pooled_tools'])} tools "
        f"that differ from the baseline; expected n_eff {fmt_num(power['n_eff_expected'], 1)}) "
        f"and {power['metadata']['simulations']} simulated samples; detected = the 95% interval "
        f"excludes 0 and the sign-flip p < α/m = {fmt_p(power['test_alpha'])} (m = "
        f"{power['holm_m']}: Holm's first step, the worst case for one true effect in the family). "
        f"Largest feasible difference at this tie share: {fmt_num(power['max_feasible_delta'])}."
        + plan_sentence(power)
    )


def plan_sentence(power: dict[str, Any]) -> str:
    """For planning: the MDE at other sample sizes, and the queries a target would need."""
    plan = power.get("plan") or []
    if not plan:
        return ""
    sizes = "; ".join(f"{p['queries']}: {fmt_num(p['mde'])}" for p in plan)
    most = plan[-1]["queries"]
    feasible = as_float(power.get("max_feasible_delta"))

    def need(q: dict[str, Any]) -> str:
        if q["queries"] is not None:
            return f"{q['queries']} queries"
        if as_float(q["mde"]) > feasible:
            return "none: larger than the largest feasible difference"
        return f"more than {most}"

    needs = "; ".join(
        f"{fmt_num(q['mde'], 2)}: {need(q)}" for q in power.get("queries_needed") or []
    )
    return (
        f" Planning (same tie share and differences): MDE at n = {sizes}. Queries needed to "
        f"detect a mean difference of {needs}."
    )


def power_html(power: dict[str, Any] | None, sec: Section) -> list[str]:
    """The MDE beside each tool's observed MRR difference: not detected vs not detectable."""
    if not power:
        return []
    mde = power.get("mde")
    rows = []
    for tool in sec.tools:
        if tool == sec.baseline:
            continue
        comp = sec.comparisons.get((tool, sec.primary, "all"))
        diff = fmt_signed(comp.get("diff")) if comp else "–"
        n_eff = power.get("n_eff", {}).get(tool, comp.get("n_eff") if comp else "–")
        rows.append([tool, n_eff, diff, power_reading(comp, mde)])
    label = dict(METRIC_LABELS).get(sec.primary, sec.primary)
    return [
        f"<h3>What these queries could detect ({esc(label)}, all queries)</h3>",
        f"<p>{esc(power_summary(power))}</p>",
        html_table(["tool", "n_eff", f"{label} diff vs its reference", "reading"], rows),
    ]


def power_markdown(power: dict[str, Any] | None) -> list[str]:
    return [power_summary(power) + "\n"] if power else []


def html(page: Page, sec: Section) -> list[str]:
    return power_html(page.model.power.get((sec.corpus, sec.track)), sec)


def markdown(model: Model, sec: Section) -> list[str]:
    return power_markdown(model.power.get((sec.corpus, sec.track)))
