"""Minimum detectable difference in one corpus and track's primary metric, by simulation:
power.json."""

from searchbench.design import Design
from searchbench.metrics import read_scores
from searchbench.power import Settings, run_power, write_power
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    context = {key: str(value) for key, value in smk.wildcards.items()}
    result = run_power(
        read_scores(smk.input.scores),
        Design.from_params(params.design),
        settings=Settings(**params.settings),
        context=context,
    )
    write_power(result, smk.output.json)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
