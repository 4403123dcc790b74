"""Calibration on our own data: the A/A false-detection rates of the verdict rule, per corpus
and track (results/{corpus}/{track}/calibration.tsv, searchbench/calibration.py)."""

from __future__ import annotations

from searchbench.artifacts import read_tsv
from searchbench.calibration import COLUMNS, PooledCheck, above_alpha, pooled_check
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc, fmt_num, html_table, md_table
from searchbench.report.model import Model

TITLE = "Calibration on our own data (A/A runs)"
NOTE = (
    "Each simulation swaps the tool's and the reference's MRR within each query at random, so "
    "there is no difference while n, the ties and n_eff are the corpus's own, and applies the "
    "published rule unchanged (95% bootstrap interval and sign-flip test, Holm within each "
    "declared family): its family-wise false-detection rate should stay near or below α. The "
    "bootstrap interval alone false-detects more often, most at small n_eff, and the sign-flip "
    "test alone says nothing of the size of a difference: a detection needs both."
)
READING = (
    "How to read one row above α: each row is its own estimate from its simulations, so with "
    "many rows some read above α by chance even when every family holds it; a row shows the "
    "rule failing only when its whole interval lies above α (it is then flagged here and in "
    "results/calibration_status.tsv), and the run only when more rows read above α than "
    "chance gives."
)
HEADER = [
    "corpus",
    "track",
    "family",
    "n",
    "n_eff (median)",
    "tested",
    "Holm m",
    "simulations",
    "combined + Holm, family-wise [95% CI]",
    "bootstrap alone, family-wise [95% CI]",
    "combined, per comparison",
    "bootstrap alone, per comparison",
    "randomization alone (no Holm), per comparison",
]


def rows(model: Model) -> list[dict[str, str]]:
    """Every calibration row of the run, in (corpus, track) order."""
    return [r for path in model.sources.keyed("calibration").values()
            for r in read_tsv(path, COLUMNS)]  # fmt: skip


def percent(value: str) -> str:
    v = as_float(value)
    return "–" if v != v else f"{100 * v:.1f}%"


def with_ci(r: dict[str, str], name: str) -> str:
    if not r[name]:
        return "–"
    return f"{percent(r[name])} [{percent(r[name + '_low'])}, {percent(r[name + '_high'])}]"


def table(found: list[dict[str, str]]) -> list[list[str]]:
    return [
        [
            r["corpus"],
            r["track"],
            r["family"],
            r["n"],
            fmt_num(r["n_eff"], 1) if r["n_eff"] else "–",
            r["comparisons"],
            r["m"],
            f"{r['simulations']} ({r['resamples']} resamples)",
            with_ci(r, "fwer_combined") + (" ⚑ above α" if above_alpha(r) else ""),
            with_ci(r, "fwer_bootstrap"),
            with_ci(r, "rate_combined"),
            with_ci(r, "rate_bootstrap"),
            with_ci(r, "rate_randomization"),
        ]
        for r in found
        if r["scope"] == "family"
    ]


def worst_bootstrap(found: list[dict[str, str]]) -> str:
    """One sentence: the comparison the bootstrap alone false-detected most often."""
    single = [r for r in found if r["scope"] == "comparison" and r["rate_bootstrap"]]
    if not single:
        return ""
    r = max(single, key=lambda r: (as_float(r["rate_bootstrap"]), -as_float(r["n_eff"])))
    return (
        f"The bootstrap alone false-detected most often for {r['tool']} vs {r['reference']} "
        f"({r['corpus']}/{r['track']}, n_eff {r['n_eff']}): {with_ci(r, 'rate_bootstrap')} of "
        f"{r['simulations']} simulations, where the combined rule detected "
        f"{with_ci(r, 'rate_combined')}."
    )


def pooled_sentence(check: PooledCheck, alpha: str) -> str:
    """The run's family rows read together, against chance (searchbench.calibration)."""
    if not check.rows:
        return ""
    return (
        f"Read together: {check.above} of the run's {check.rows} family rows that can detect "
        f"read above α = {percent(alpha)} (if every family's true rate were exactly α, chance "
        f"alone gives {check.expected_above:.1f}; P(≥ {check.above}) = {check.p_above:.2g}); "
        f"rows whose whole 95% interval lies above α: {len(check.flagged)} "
        f"({check.expected_flagged:.2f} expected by chance; "
        f"P(≥ {len(check.flagged)}) = {check.p_flagged:.2g})."
    )


def flagged_sentence(check: PooledCheck) -> str:
    if not check.rows:
        return ""
    if not check.flagged:
        return "No family's rate stays above α at this precision."
    named = "; ".join(
        f"{r['corpus']}/{r['track']} {r['family']}: {with_ci(r, 'fwer_combined')}"
        for r in check.flagged
    )
    return f"Flagged, the family-wise rate stays above α at this precision: {named}."


def sentences(found: list[dict[str, str]]) -> list[str]:
    """After the table: the pooled check, the flagged families, how to read a row above α,
    and the bootstrap alone's worst comparison."""
    check = pooled_check(found)
    alpha = next((r["alpha"] for r in found), "")
    said = [pooled_sentence(check, alpha), flagged_sentence(check), READING]
    return [s for s in (*said, worst_bootstrap(found)) if s]


def html(page: Page) -> list[str]:
    found = rows(page.model)
    body = table(found)
    if not body:
        return []
    return [
        f'<h2 id="calibration">{esc(TITLE)}</h2>',
        f"<p>{esc(NOTE)}</p>",
        '<div class="scroll">' + html_table(HEADER, body, name_cols=3) + "</div>",
        *(f"<p>{esc(s)}</p>" for s in sentences(found)),
    ]


def markdown(model: Model) -> list[str]:
    found = rows(model)
    body = table(found)
    if not body:
        return []
    return [f"## {TITLE}\n", NOTE + "\n", md_table(HEADER, body),
            *(s + "\n" for s in sentences(found))]  # fmt: skip
