"""What each hay signal is worth: the ablation comparisons of every corpus and language in
one table (results/ablations.tsv, searchbench/ablations.py)."""

from __future__ import annotations

from searchbench.ablations import COLUMNS
from searchbench.artifacts import read_tsv
from searchbench.measures import METRIC_LABELS, PRIMARY_METRIC, primary_metric_of
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_p, fmt_signed, html_table, md_table
from searchbench.report.model import Model

TITLE = "What each hay signal is worth"
LABELS = dict(METRIC_LABELS)
NOTE = (
    "Each ablation variant switches signals off; its comparison with the full tool (the "
    "ablation family, same paired tests, Holm within the family) is read here as the signals' "
    "worth: full − variant {metric} over all queries, with its 95% interval. 'signal helps': "
    "the variant is detected worse; 'signal hurts': detected better. Rows: corpus-wide (all) "
    "and per language where a corpus has several; pooled: every corpus of the track together."
)


def note(found: list[dict[str, str]]) -> str:
    """The note, naming the metric of each track shown: MRR, or the track's own."""
    others = sorted({r["track"] for r in found if primary_metric_of(r["track"]) != PRIMARY_METRIC})
    metric = LABELS[PRIMARY_METRIC]
    if others:
        metric += " (" + "; ".join(f"{LABELS[primary_metric_of(t)]} on {t}" for t in others) + ")"
    return NOTE.format(metric=metric)


def rows(model: Model) -> list[dict[str, str]]:
    path = model.sources.one("ablations")
    return read_tsv(path, COLUMNS) if path else []


def worth(r: dict[str, str]) -> str:
    if not r["worth"]:
        return "–"
    return f"{fmt_signed(r['worth'])} {fmt_ci(r['worth_ci_low'], r['worth_ci_high'])}"


def table(found: list[dict[str, str]]) -> tuple[list[str], list[list[str]]]:
    header = [
        "track",
        "corpus",
        "language",
        "signals off (variant)",
        "n",
        "worth [95% CI]",
        "Holm p",
        "reading",
    ]
    body = [
        [
            r["track"],
            r["corpus"],
            r["language"],
            f"{r['variant']} (vs {r['full_tool']})",
            r["n"],
            worth(r),
            fmt_p(r["p_holm"]) if r["p_holm"] else "–",
            r["reading"],
        ]
        for r in found
    ]
    return header, body


def html(page: Page) -> list[str]:
    found = rows(page.model)
    if not found:
        return []
    header, body = table(found)
    return [f'<h2 id="ablations">{esc(TITLE)}</h2>', f"<p>{esc(note(found))}</p>",
            '<div class="scroll">' + html_table(header, body, name_cols=4) + "</div>"]  # fmt: skip


def markdown(model: Model) -> list[str]:
    found = rows(model)
    if not found:
        return []
    header, body = table(found)
    return [f"## {TITLE}\n", note(found) + "\n", md_table(header, body)]
