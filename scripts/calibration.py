"""A/A calibration of the verdict rule on this corpus and track's own scores: writes
calibration.tsv (searchbench/calibration.py)."""

from searchbench.calibration import calibration_rows, write_calibration
from searchbench.health import broken_tools, read_health
from searchbench.measures import primary_metric_of
from searchbench.metrics import read_scores
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    rows = calibration_rows(
        read_scores(smk.input.scores),
        baseline=params.baseline,
        seed=int(params.seed),
        simulations=int(params.simulations),
        resamples=int(params.resamples),
        alpha=float(params.alpha),
        min_queries=int(params.min_queries),
        # The declared families, as the inference rule has them; without them, every tool
        # against the baseline in one family.
        primary=list(getattr(params, "primary", [])),
        ablations=dict(getattr(params, "ablations", {})),
        corpus=str(params.corpus),
        track=str(params.track),
        metric=primary_metric_of(str(params.track)),
        broken=broken_tools(read_health(smk.input.health)),
    )
    write_calibration(rows, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
