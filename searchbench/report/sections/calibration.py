"""Calibration on our own data: the A/A false-detection rates of the verdict rule, per corpus
and track (results/{corpus}/{track}/calibration.tsv, searchbench/calibration.py)."""

from __future__ import annotations

from searchbench.artifacts import read_tsv
from searchbench.calibration import COLUMNS
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
            with_ci(r, "fwer_combined"),
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


def html(page: Page) -> list[str]:
    found = rows(page.model)
    body = table(found)
    if not body:
        return []
    worst = worst_bootstrap(found)
    return [
        f'<h2 id="calibration">{esc(TITLE)}</h2>',
        f"<p>{esc(NOTE)}</p>",
        '<div class="scroll">' + html_table(HEADER, body, name_cols=3) + "</div>",
        *([f"<p>{esc(worst)}</p>"] if worst else []),
    ]


def markdown(model: Model) -> list[str]:
    found = rows(model)
    body = table(found)
    if not body:
        return []
    worst = worst_bootstrap(found)
    return [f"## {TITLE}\n", NOTE + "\n", md_table(HEADER, body),
            *([worst + "\n"] if worst else [])]  # fmt: skip
