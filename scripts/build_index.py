"""Build a tool's per-corpus index directory (ctags, GNU Global, cscope, codesearch) once, and
record what it cost (results/{corpus}/index/{tool}.json): wall time, peak memory, size on disk.

A build past index.budget_seconds is killed and recorded as `over budget` (a failed one as
`failed`), with the index directory left empty: the tool's searches on this corpus then end in
error and count as such (run_status), never silently dropped."""

import logging
import os

from searchbench.artifacts import write_json
from searchbench.corpora import corpus_tree
from searchbench.runner import INDEX_READY, build_index
from searchbench.scriptmain import run_script
from searchbench.tools import read_tool_json


def main(smk) -> None:
    tool = read_tool_json(smk.input.tool)
    build = build_index(
        tool,
        str(corpus_tree(smk.input.root)),
        os.path.abspath(smk.output.index),
        timeout=float(smk.params.budget),
        check=False,
    )
    corpus = smk.wildcards.corpus
    write_json(smk.output.cost, build.record(tool.spec.name, corpus))
    line = f"{corpus}: {build.message}"
    (logging.info if build.status == INDEX_READY else logging.warning)("%s", line)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
