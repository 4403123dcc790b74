"""Every tool's record in one file for the report (results/tools.json), and the tools not
available with why (results/tools_skipped.tsv)."""

from searchbench.scriptmain import run_script
from searchbench.tools import combine_tool_records


def main(smk) -> None:
    combine_tool_records(list(smk.input), smk.output[0], smk.output.skipped)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
