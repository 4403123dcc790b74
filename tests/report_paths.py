"""The report built from lists of paths laid out as the workflow writes them: the tests'
way in (the rule passes each path's key instead; see searchbench/report/inputs.py)."""

from pathlib import Path
from typing import Any

from design_fixture import schema_config

from searchbench.report import build as report
from searchbench.report.inputs import ReportInputs
from searchbench.report.model import Model
from searchbench.report.model import build_model as model_of


def build_model(config: dict, config_hash: str, command: str, **paths: Any) -> Model:
    return model_of(ReportInputs.from_paths(config, config_hash, command, **paths))


def build_report(
    config: dict,
    config_hash: str,
    command: str,
    html_out: str,
    md_out: str,
    csv_out: str,
    charts_out: str,
    **paths: Any,
) -> Model:
    inputs = ReportInputs.from_paths(config, config_hash, command, **paths)
    outputs = report.ReportOutputs(Path(html_out), Path(md_out), Path(csv_out), Path(charts_out))
    return report.build_report(inputs, outputs)


FIXTURE = Path(__file__).parent / "fixtures" / "report" / "results"


def fixture_model(seed: int = 1, **extra: Any) -> Model:
    """The report fixture's one corpus (alpha/code: scores, inference, corpus, tools), plus the
    artifacts a section under test reads (`extra`, as build_model's paths)."""
    return build_model(
        scores=[str(FIXTURE / "alpha" / "code" / "scores.tsv")],
        inference=[str(FIXTURE / "alpha" / "code" / "inference.json")],
        corpus=[str(FIXTURE / "alpha" / "corpus.json")],
        tools=str(FIXTURE / "tools.json"),
        config=schema_config(seed=seed, baseline="rg"),
        config_hash="x",
        command="snakemake",
        **extra,
    )
