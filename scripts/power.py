"""Minimum detectable difference in one corpus and track's primary metric, by simulation:
power.json."""

from searchbench.measures import primary_metric_of
from searchbench.metrics import read_scores
from searchbench.power import run_power, write_power
from searchbench.scriptmain import run_script  # noqa: E402


def main(smk) -> None:
    params = smk.params
    context = {key: str(value) for key, value in smk.wildcards.items()}
    result = run_power(
        read_scores(smk.input.scores),
        baseline=params.baseline,
        seed=int(params.seed),
        alpha=float(params.alpha),
        resamples=int(params.resamples),
        min_queries=int(params.min_queries),
        primary=list(params.primary),
        metric=primary_metric_of(context["track"]),
        context=context,
    )
    write_power(result, smk.output.json)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
