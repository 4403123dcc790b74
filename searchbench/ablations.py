"""What each of hay's signals is worth (issue 11 item 2): every ablation comparison of the
run in one table, per corpus and per language, read as the signal's worth.

The ablation family (searchbench/inference.py) compares each variant with the full tool it
varies, diff = variant - full. Here each row turns that around: worth = full - variant, with
the interval negated, so a positive worth means the signal helps. The test and the verdict
are the inference's, unchanged; only their reading is named for the signal: a variant
detected worse means the signal helps, detected better means it hurts.

Rows: the track's primary metric over all queries (MRR; nDCG@10 on the usage and behaviour
tracks: searchbench.measures), the comparisons each document's design marks primary_metric;
language `all` is the corpus-wide comparison (inference.json), the others are
by_language.json's; corpus `pooled` is the pooled per-language table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from searchbench.artifacts import tsv_text, write_text
from searchbench.inference import tsv_cell

COLUMNS = (
    "track",
    "corpus",
    "language",
    "variant",
    "full_tool",
    "n",
    "n_eff",
    "mean_full",
    "mean_variant",
    "worth",
    "worth_ci_low",
    "worth_ci_high",
    "p_randomization",
    "p_holm",
    "holm_m",
    "reading",
)
READING = {
    "detected worse": "signal helps",
    "detected better": "signal hurts",
}


def _negated(x: Any) -> float | None:
    # + 0.0: a difference of 0 is a worth of 0, never "-0"
    return None if x is None else -float(x) + 0.0


def worth_row(track: str, corpus: str, comp: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "track": track,
        "corpus": corpus,
        "language": comp.get("language", "all"),
        "variant": comp["tool"],
        "full_tool": comp["baseline"],
        "n": comp["n"],
        "n_eff": comp["n_eff"],
        "mean_full": comp["mean_base"],
        "mean_variant": comp["mean_tool"],
        "worth": _negated(comp["diff"]),
        "worth_ci_low": _negated(comp["ci_high"]),
        "worth_ci_high": _negated(comp["ci_low"]),
        "p_randomization": comp["p_randomization"],
        "p_holm": comp["p_holm"],
        "holm_m": comp["holm_m"],
        "reading": READING.get(str(comp["verdict"]), str(comp["verdict"])),
    }


def ablation_rows(track: str, corpus: str, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ablation family's comparisons on the track's primary metric over all queries of one
    inference or by_language document, as worth rows. A corpus's by_language document with
    one language repeats its corpus-wide rows and gives none."""
    languages = doc.get("metadata", {}).get("languages")
    if corpus != "pooled" and languages is not None and len(languages) < 2:
        return []
    return [
        worth_row(track, corpus, c)
        for c in doc.get("comparisons", [])
        if c.get("family") == "ablation" and c["primary_metric"] and c["subset"] == "all"
    ]


def collect(documents: Iterable[tuple[str, str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Rows of (track, corpus, document) in a stable order: track, corpus ('pooled' last),
    variant, language ('all' first)."""
    rows = [r for track, corpus, doc in documents for r in ablation_rows(track, corpus, doc)]
    return sorted(
        rows,
        key=lambda r: (r["track"], r["corpus"] == "pooled", r["corpus"], r["variant"],
                       r["language"] != "all", r["language"]),
    )  # fmt: skip


def ablations_tsv(rows: Iterable[Mapping[str, Any]]) -> str:
    return tsv_text(COLUMNS, ([tsv_cell(r[c]) for c in COLUMNS] for r in rows))


def write_ablations(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike) -> None:
    write_text(path, ablations_tsv(rows))
