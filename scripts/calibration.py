"""A/A calibration of the verdict rule on this corpus and track's own scores: writes
calibration.tsv (searchbench/calibration.py)."""

from searchbench.calibration import calibration_rows, write_calibration
from searchbench.design import Design
from searchbench.health import broken_tools, read_health
from searchbench.metrics import read_scores
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    rows = calibration_rows(
        read_scores(smk.input.scores),
        # the declared families as the inference rule has them, the calibration's resamples
        Design.from_params(params.design),
        corpus=str(params.corpus),
        broken=broken_tools(read_health(smk.input.health)),
    )
    write_calibration(rows, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
