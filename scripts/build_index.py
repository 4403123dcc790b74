"""Build a tool's per-corpus index directory (ctags, GNU Global, cscope, codesearch) once."""

import os

from searchbench.corpora import corpus_tree
from searchbench.runner import build_index
from searchbench.scriptmain import run_script  # noqa: E402
from searchbench.tools import read_tool_json


def main(smk) -> None:
    tool = read_tool_json(smk.input.tool)
    build_index(tool, str(corpus_tree(smk.input.root)), os.path.abspath(smk.output[0]))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
