"""Results by language, for one corpus and track or pooled over the corpora of a track:
writes by_language.json and .tsv (searchbench/by_language.py). Given the docs track's
declared_in_code.tsv files (rule docs_strata), by stratum instead: declared in code or not."""

from pathlib import Path

import pandas as pd

from searchbench.artifacts import read_tsv_frame
from searchbench.by_language import (
    language_inference,
    pooled_scores,
    with_docs_strata,
    write_language_inference,
)
from searchbench.design import Design
from searchbench.headings import DECLARED_COLUMNS
from searchbench.health import broken_tools, read_health
from searchbench.metrics import read_scores
from searchbench.scriptmain import run_script


def broken_in(corpora: list[str], health_paths: list[Path]) -> dict[str, str]:
    """tool -> why it is broken; pooled, a tool broken on any corpus is broken (say where)."""
    found: dict[str, list[str]] = {}
    for corpus, path in zip(corpora, health_paths, strict=True):
        for tool, why in broken_tools(read_health(path)).items():
            found.setdefault(tool, []).append(why if len(corpora) == 1 else f"on {corpus}: {why}")
    return {tool: "; ".join(whys) for tool, whys in sorted(found.items())}


def main(smk) -> None:
    params = smk.params
    paths = [Path(p) for p in smk.input.scores]
    corpora = list(params.corpora)
    frames = {corpus: read_scores(path) for corpus, path in zip(corpora, paths, strict=True)}
    scores = frames[corpora[0]] if len(frames) == 1 else pooled_scores(frames)
    by = "language"
    design = Design.from_params(params.design)  # docs_strata's: its docs class's track
    if getattr(smk.input, "declared", None):
        declared = pd.concat([read_tsv_frame(p, DECLARED_COLUMNS) for p in smk.input.declared])
        scores, by = with_docs_strata(scores, declared), "stratum"
    result = language_inference(
        scores,
        design,
        context={"track": design.track, "corpora": corpora},
        broken=broken_in(corpora, [Path(p) for p in smk.input.health]),
        by=by,
    )
    write_language_inference(result, smk.output.json, smk.output.tsv, by)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
