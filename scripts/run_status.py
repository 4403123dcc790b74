"""Count how every quality run ended (results/run_status.tsv)."""

from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.health import HealthRule
from searchbench.run_status import format_status
from searchbench.scriptmain import run_script


def main(smk) -> None:
    rule = HealthRule.of_config(smk.params.tool_health)
    write_text(Path(smk.output[0]), format_status([Path(p) for p in smk.input], rule))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
