"""Minimum detectable MRR difference of one corpus and track, by simulation: power.json."""

from searchbench.metrics import read_scores
from searchbench.power import run_power, write_power
from searchbench.scriptmain import run_script  # noqa: E402


def main(smk) -> None:
    params = smk.params
    result = run_power(
        read_scores(smk.input.scores),
        baseline=params.baseline,
        seed=int(params.seed),
        alpha=float(params.alpha),
        resamples=int(params.resamples),
        min_queries=int(params.min_queries),
        primary=list(params.primary),
        context={key: str(value) for key, value in smk.wildcards.items()},
    )
    write_power(result, smk.output.json)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
