"""Every tool's record in one file for the report (results/tools.json)."""

from searchbench.scriptmain import run_script  # noqa: E402
from searchbench.tools import combine_tool_records


def main(smk) -> None:
    combine_tool_records(list(smk.input), smk.output[0])


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
