"""The docs track by stratum (issue 36 item 3): each docs class's comparisons on the queries
the code also declares and on those it does not (results/{corpus}/{track}/strata.json, the
by_language inference sliced by stratum), per corpus and pooled, so a reader sees whether a
tool's docs result comes from the tokens that are also code names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from searchbench.artifacts import read_json
from searchbench.by_language import DECLARED_STRATA
from searchbench.measures import METRIC_LABELS, primary_metric_of
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, fmt_signed, html_table, md_table
from searchbench.report.model import Model
from searchbench.report.sections.docs_unmeasured import CLASS_LABELS

TITLE = "Docs track by stratum: tokens the code also declares, and the rest"
NOTE = (
    "Each docs class split by whether its token is also declared in the code (the code track's "
    "symbol table). Primary family: the tool against the baseline; ablation family: a variant "
    "against the tool it varies. Difference on the track's primary metric ({metric}) over all "
    "queries of the stratum, 95% interval, verdict after Holm over both strata together."
)
HEADER = ["token class", "corpus", "stratum", "n", "comparison", "mean (reference)",
          "mean (tool)", "difference [95% CI]", "verdict"]  # fmt: skip
FAMILIES = ("primary", "ablation")
STRATA_ORDER = tuple(DECLARED_STRATA.values())


def shown(comp: Mapping[str, Any], track: str) -> bool:
    return (
        comp["family"] in FAMILIES
        and comp["subset"] == "all"
        and comp["metric"] == primary_metric_of(track)
    )


def stratum_rows(track: str, corpus: str, doc: Mapping[str, Any]) -> list[list[str]]:
    comps = [c for c in doc["comparisons"] if shown(c, track)]
    comps.sort(key=lambda c: (STRATA_ORDER.index(c["stratum"]), FAMILIES.index(c["family"]),
                              c["tool"]))  # fmt: skip
    return [
        [
            CLASS_LABELS[track], corpus, c["stratum"], str(c["n"]),
            f"{c['tool']} vs {c['baseline']}", fmt_num(c["mean_base"]), fmt_num(c["mean_tool"]),
            f"{fmt_signed(c['diff'])} {fmt_ci(c['ci_low'], c['ci_high'])}"
            if c["diff"] is not None else "–",
            str(c["verdict"]),
        ]
        for c in comps
    ]  # fmt: skip


def rows(model: Model) -> list[list[str]]:
    """Per docs class: each measured corpus, then pooled."""
    out: list[list[str]] = []
    pooled = {key[0]: path for key, path in model.sources.keyed("pooled_strata").items()}
    per_corpus = model.sources.keyed("strata")
    for track in CLASS_LABELS:
        for (corpus, key_track), path in per_corpus.items():
            if key_track == track:
                out += stratum_rows(track, corpus, read_json(path))
        if track in pooled:
            out += stratum_rows(track, "pooled", read_json(pooled[track]))
    return out


def note() -> str:
    return NOTE.format(metric=dict(METRIC_LABELS)[primary_metric_of("docs")])


def html(page: Page) -> list[str]:
    found = rows(page.model)
    if not found:
        return []
    return [f'<h2 id="strata">{esc(TITLE)}</h2>', f"<p>{esc(note())}</p>",
            '<div class="scroll">' + html_table(HEADER, found, name_cols=3) + "</div>"]  # fmt: skip


def markdown(model: Model) -> list[str]:
    found = rows(model)
    if not found:
        return []
    return [f"## {TITLE}\n", note() + "\n", md_table(HEADER, found)]
