"""Results by language, for one corpus and track or pooled over the corpora of a track:
writes by_language.json and .tsv (searchbench/by_language.py)."""

from pathlib import Path

from searchbench.by_language import language_inference, pooled_scores, write_language_inference
from searchbench.measures import primary_metric_of
from searchbench.metrics import read_scores
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    paths = [Path(p) for p in smk.input.scores]
    corpora = list(params.corpora)
    frames = {corpus: read_scores(path) for corpus, path in zip(corpora, paths, strict=True)}
    scores = frames[corpora[0]] if len(frames) == 1 else pooled_scores(frames)
    result = language_inference(
        scores,
        baseline=params.baseline,
        seed=int(params.seed),
        alpha=float(params.alpha),
        resamples=int(params.resamples),
        min_queries=int(params.min_queries),
        primary=list(params.primary),
        ablations=dict(params.ablations),
        primary_metric=primary_metric_of(str(smk.wildcards.track)),
        context={"track": str(smk.wildcards.track), "corpora": corpora},
    )
    write_language_inference(result, smk.output.json, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
