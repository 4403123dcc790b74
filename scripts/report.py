"""Snakemake entry of rule `report`: every artifact in, results/report/ out.

input:  one named input per artifact of searchbench/report/inputs.py ARTIFACTS (docs_* for
        the docs track's), built by rule_inputs() in rules/common.smk
params: input_keys (each input's wildcard values, in input order), config, config_hash,
        command, commit
output: html, md, csv, charts (directory)
"""

from pathlib import Path

from searchbench.report.build import ReportOutputs, build_report
from searchbench.report.inputs import ReportInputs
from searchbench.scriptmain import run_script


def main(smk: object) -> None:
    inp, out, params = smk.input, smk.output, smk.params  # type: ignore[attr-defined]
    inputs = ReportInputs.from_rule(
        inp,
        dict(params.input_keys),
        config=dict(params.config),
        config_hash=str(params.config_hash),
        command=str(params.command),
        commit=str(getattr(params, "commit", "")),
    )
    outputs = ReportOutputs(Path(out.html), Path(out.md), Path(out.csv), Path(out.charts))
    build_report(inputs, outputs)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
