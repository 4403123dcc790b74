"""Resolve one tool's binary; record its path, version and sha256 (results/tools/{tool}.json)."""

import sys
from pathlib import Path

from searchbench.tools import (
    resolve_tools,
    specs_from_mapping,
    tool_identity,
    tool_search_path,
    write_tool_json,
)

snakemake = globals()["snakemake"]

name = snakemake.wildcards.tool
specs = specs_from_mapping({name: dict(snakemake.params.spec)})
repo_bin = Path(snakemake.scriptdir).resolve().parent / "bin"
tool = resolve_tools(specs, path_env=tool_search_path(repo_bin))[name]
# The record must describe the tool the workflow planned with (params.identity).
if tool_identity(tool) != snakemake.params.identity:
    sys.exit(f"resolve_tool: tool {name}: its binary changed while the workflow ran; run again")
write_tool_json(tool, snakemake.output[0])
