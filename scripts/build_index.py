"""Build a tool's per-corpus index (the ctags tags file) once, for all its queries."""

import os

from searchbench.corpora import corpus_tree
from searchbench.runner import build_index
from searchbench.tools import read_tool_json

snakemake = globals()["snakemake"]

tool = read_tool_json(snakemake.input.tool)
build_index(tool, str(corpus_tree(snakemake.input.root)), os.path.abspath(snakemake.output[0]))
