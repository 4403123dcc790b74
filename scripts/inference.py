"""Paired inference of each tool against the baseline: writes inference.json and .tsv."""

from searchbench.inference import run_inference, write_inference
from searchbench.metrics import read_scores


def main(snakemake) -> None:
    params = snakemake.params
    context = {key: str(value) for key, value in snakemake.wildcards.items()}
    result = run_inference(
        read_scores(snakemake.input.scores),
        baseline=params.baseline,
        seed=int(params.seed),
        alpha=float(params.alpha),
        resamples=int(params.resamples),
        min_queries=int(params.min_queries),
        all_pairs=bool(getattr(params, "all_pairs", False)),
        context=context,
    )
    write_inference(result, snakemake.output.json, snakemake.output.tsv)


main(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
