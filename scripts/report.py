"""Snakemake entry of rule `report`: every artifact in, results/report/ out.

input:  scores, inference, power, fast_path, corpus, timing, funnel, gt_audit,
        fileset_audit (lists), tools
params: config (dict), config_hash (str), command (str)
output: html, md, csv, charts (directory)
"""

from pathlib import Path

from searchbench.report import build_report
from searchbench.scriptmain import run_script


def as_list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, Path)):
        return [str(value)]
    return [str(v) for v in value]  # type: ignore[union-attr]


def both_tracks(inp: object, name: str) -> list[str]:
    """A rule input given per track: `name` (code) and `docs_name` (the docs track's)."""
    return as_list(getattr(inp, name, [])) + as_list(getattr(inp, f"docs_{name}", []))


def main(smk: object) -> None:
    inp, out, params = smk.input, smk.output, smk.params  # type: ignore[attr-defined]
    build_report(
        scores=both_tracks(inp, "scores"),
        inference=both_tracks(inp, "inference"),
        corpus=as_list(inp.corpus),
        tools=str(inp.tools),
        timing=as_list(getattr(inp, "timing", [])),
        funnel=as_list(getattr(inp, "funnel", [])),
        gt_audit=as_list(getattr(inp, "gt_audit", [])),
        fileset_audit=as_list(getattr(inp, "fileset_audit", [])),
        config=dict(params.config),
        config_hash=str(params.config_hash),
        command=str(params.command),
        html_out=str(out.html),
        md_out=str(out.md),
        csv_out=str(out.csv),
        charts_out=str(out.charts),
        run_status=getattr(inp, "run_status", None),
        power=both_tracks(inp, "power"),
        fast_path=both_tracks(inp, "fast_path"),
        docs_funnel=as_list(getattr(inp, "docs_funnel", [])),
        declared_in_code=as_list(getattr(inp, "declared_in_code", [])),
    )


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
