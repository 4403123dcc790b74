"""Every calibration family of the run with its status, a family whose family-wise false
detection stays above alpha flagged: results/calibration_status.tsv (searchbench/calibration.py)."""

from searchbench.calibration import write_status
from searchbench.scriptmain import run_script


def main(smk) -> None:
    write_status(list(smk.input), smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
