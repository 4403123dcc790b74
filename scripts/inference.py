"""Paired inference in the declared comparison families: writes inference.json and .tsv."""

from searchbench.design import Design
from searchbench.health import broken_tools, read_health
from searchbench.inference import run_inference, write_inference
from searchbench.metrics import check_scored_tools, read_scores
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    context = {key: str(value) for key, value in smk.wildcards.items()}
    scores = read_scores(smk.input.scores)
    # the rule names the track's tools; the baseline at least is always scored
    design = Design.from_params(params.design)
    check_scored_tools(scores, smk.input.scores, list(getattr(params, "tools", [design.baseline])))
    result = run_inference(
        scores,
        design,
        all_pairs=bool(getattr(params, "all_pairs", False)),
        context=context,
        broken=broken_tools(read_health(smk.input.health)),
    )
    write_inference(result, smk.output.json, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
