"""Every tool's record in one file for the report (results/tools.json)."""

from searchbench.tools import combine_tool_records

snakemake = globals()["snakemake"]

combine_tool_records(list(snakemake.input), snakemake.output[0])
