"""Paired inference in the declared comparison families: writes inference.json and .tsv."""

from searchbench.health import broken_tools, read_health
from searchbench.inference import run_inference, write_inference
from searchbench.measures import primary_metric_of
from searchbench.metrics import check_scored_tools, read_scores
from searchbench.scriptmain import run_script  # noqa: E402


def main(smk) -> None:
    params = smk.params
    context = {key: str(value) for key, value in smk.wildcards.items()}
    scores = read_scores(smk.input.scores)
    # the rule names the track's tools; the baseline at least is always scored
    check_scored_tools(scores, smk.input.scores, list(getattr(params, "tools", [params.baseline])))
    result = run_inference(
        scores,
        baseline=params.baseline,
        seed=int(params.seed),
        alpha=float(params.alpha),
        resamples=int(params.resamples),
        min_queries=int(params.min_queries),
        primary=list(params.primary),
        ablations=dict(params.ablations),
        all_pairs=bool(getattr(params, "all_pairs", False)),
        primary_metric=primary_metric_of(context["track"]),
        context=context,
        broken=broken_tools(read_health(smk.input.health)),
    )
    write_inference(result, smk.output.json, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
