"""Resolve one tool's binary; record its path, version and sha256 (results/tools/{tool}.json)."""

from pathlib import Path

from searchbench.errors import BenchError
from searchbench.scriptmain import run_script
from searchbench.tools import (
    resolve_tools,
    specs_from_mapping,
    tool_identity,
    tool_search_path,
    write_tool_json,
)


def main(smk) -> None:
    name = smk.wildcards.tool
    specs = specs_from_mapping({name: dict(smk.params.spec)})
    repo_bin = Path(smk.scriptdir).resolve().parent / "bin"
    # whether this configuration builds peers (only a built tool's identity says)
    build_peers = smk.params.identity.get("build_peers", True)
    path_env = tool_search_path(repo_bin)
    tool = resolve_tools(specs, path_env=path_env, build_peers=build_peers)[name]
    # A build that failed (offline, not served) is recorded in its manifest; from the next run
    # on the tool is listed as skipped with that reason.
    if tool.spec.build and not tool.available and smk.params.identity["available"]:
        raise BenchError(
            f"tool {name}: {tool.skipped_reason}; run again: it is then listed under tools skipped"
        )
    # The record must describe the tool the workflow planned with (params.identity).
    if tool_identity(tool, build_peers) != smk.params.identity:
        raise BenchError(f"tool {name}: its binary changed while the workflow ran; run again")
    write_tool_json(tool, smk.output[0])


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
