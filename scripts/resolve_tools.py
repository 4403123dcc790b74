"""Resolve every tool's binary once; record path, version and sha256 (results/tools.json)."""

from searchbench.tools import resolve_tools, specs_from_mapping, write_tools_json

snakemake = globals()["snakemake"]

specs = specs_from_mapping(snakemake.params.tools)
write_tools_json(resolve_tools(specs, path_env=snakemake.params.path_env), snakemake.output[0])
