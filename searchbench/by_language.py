"""Results by language (issue 15 item 2): the declared comparisons, run on each language's
queries alone, for one corpus or pooled over the corpora of a track.

The method locates the gap between tools "in the tail, especially on languages where the
parser patterns are incomplete"; a corpus-wide mean hides which language carries a result.
A query's language is its answer file's (scores.tsv ``language``, from queries.tsv).

Per language, each declared comparison (primary, secondary, ablation: searchbench.inference)
gets the same paired inference as the corpus-wide one: bootstrap interval, sign-flip p and the
verdict rule, with fewer than min_queries queries "not evidence". The languages are slices of
one question, so Holm runs over every language's comparisons of a family together (per
metric and subset): a family of 1 primary comparison on 3 languages is a family of 3. A
language slice never claims what the corpus-wide family did not test.

Pooled: the queries of every corpus of a track, concatenated (qids are corpus-prefixed, so a
query is one unit); a language's pooled result weighs corpora by their queries in it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import pandas as pd

from searchbench.artifacts import json_text, tsv_text, write_text
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.inference import (
    DECLARED_FAMILIES,
    TSV_COLUMNS,
    adjust_family,
    check_declared,
    declared_pairs,
    family_comparisons,
    family_record,
    holm_excluded,
    tsv_cell,
)

LANGUAGE_COLUMNS = ("language", *TSV_COLUMNS)


def pooled_scores(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Scores of several corpora as one frame (corpus column added). Corpora scored with
    different tools, or a qid seen in two corpora (qids carry their corpus), are errors."""
    if not frames:
        raise BenchError("no scores to pool; the track was measured on no corpus")
    tools = {c: sorted(set(f["tool"])) for c, f in sorted(frames.items())}
    first, *_ = tools.items()
    for corpus, scored in tools.items():
        if scored != first[1]:
            raise BenchError(
                f"corpus {corpus} was scored with tools {scored}, corpus {first[0]} with "
                f"{first[1]}: pooled results need the same tools everywhere; rerun the score rule"
            )
    pooled = pd.concat([f.assign(corpus=c) for c, f in sorted(frames.items())], ignore_index=True)
    twice = pooled.groupby("qid")["corpus"].nunique()
    if (twice > 1).any():
        raise BenchError(f"qid {twice[twice > 1].index[0]!r} is in two corpora; rerun queries")
    return pooled


def language_inference(
    scores: pd.DataFrame,
    design: Design,
    *,
    context: Mapping[str, object] | None = None,
    broken: Mapping[str, str] | None = None,
    by: str = "language",
) -> dict:
    """by_language.json content: every declared comparison per language of the queries.
    ``broken`` (tool -> why, searchbench.health): its comparisons read ``broken``, out of Holm.
    ``by``: the scores column whose values slice the queries (the docs track's strata slice
    by ``stratum``: declared in code or not)."""
    if by not in scores.columns:
        raise BenchError(f"scores have no {by} column; rerun the score rule")
    plural = {"language": "languages"}.get(by, "strata")
    tools = sorted(set(scores["tool"]))
    ablations = dict(design.ablations)
    check_declared(tools, design.baseline, design.primary, ablations)
    declared = declared_pairs(tools, design.baseline, design.primary, ablations)
    broken = dict(sorted((broken or {}).items()))
    per_query = scores.drop_duplicates("qid")
    languages = per_query.groupby(by)["qid"].count().sort_index()
    by_family: dict[str, list[dict]] = {f: [] for f in DECLARED_FAMILIES}
    for language in languages.index:
        part = scores[scores[by] == language]
        for family in DECLARED_FAMILIES:
            found = family_comparisons(
                part,
                declared[family],
                family,
                design,
                broken=broken,
                stratum=f"{by}={language}",
                adjust=False,
            )
            by_family[family] += [{**c, by: str(language)} for c in found]
    for family in DECLARED_FAMILIES:
        adjust_family(by_family[family], design.alpha, design.min_queries)
    comparisons = [c for f in DECLARED_FAMILIES for c in by_family[f]]
    return {
        "metadata": {
            **dict(context or {}),
            "alpha": design.alpha,
            "baseline": design.baseline,
            "broken_tools": broken,
            "primary_metric": design.primary_metric,
            "seed": design.seed,
            "resamples": design.resamples,
            "min_queries": design.min_queries,
            plural: {str(k): int(v) for k, v in languages.items()},
            f"trivial_by_{by}": {
                str(k): int(v)
                for k, v in per_query.groupby(by)["trivial"].sum().sort_index().items()
            },
            "families": {f: family_record(f, declared[f], by_family[f]) for f in DECLARED_FAMILIES},
            "family_rule": (
                f"Holm within each family and (metric, subset) over every {by}'s "
                f"comparisons together (Tarone's rule first); the {plural} are slices of one "
                "question, so their number raises m"
            ),
            "holm_excluded": holm_excluded(comparisons),
        },
        "comparisons": comparisons,
    }


def language_tsv(result: Mapping, by: str = "language") -> str:
    columns = (by, *TSV_COLUMNS)
    rows = [[tsv_cell(c[col]) for col in columns] for c in result["comparisons"]]
    return tsv_text(columns, rows)


def write_language_inference(
    result: Mapping, json_path: str | os.PathLike, tsv_path: str | os.PathLike, by: str = "language"
) -> None:
    write_text(json_path, json_text(result))
    write_text(tsv_path, language_tsv(result, by))


# The docs track's strata (issue 36 item 3): is a docs token also declared in the code?
DECLARED_STRATA = {"yes": "declared in code", "no": "not declared in code"}


def with_docs_strata(scores: pd.DataFrame, declared: pd.DataFrame) -> pd.DataFrame:
    """scores with a ``stratum`` column from declared_in_code.tsv (qid, query,
    declared_in_code yes/no); a scored query missing there is an error naming the file."""
    mapping = dict(zip(declared["qid"], declared["declared_in_code"], strict=True))
    missing = sorted(set(scores["qid"]) - set(mapping))
    if missing:
        raise BenchError(
            f"{len(missing)} docs queries (first {missing[0]}) are not in declared_in_code.tsv; "
            "rerun the doc_queries rule"
        )
    return scores.assign(stratum=scores["qid"].map(lambda q: DECLARED_STRATA[mapping[q]]))
