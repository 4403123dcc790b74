"""The files one tool searches in one corpus, in its own order (for the file-set audit)."""

from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.corpora import corpus_tree
from searchbench.fastpath import tool_listing
from searchbench.fileset import tree_names
from searchbench.paths import encode_path
from searchbench.scriptmain import run_script
from searchbench.tools import read_tool_json


def main(smk) -> None:
    tool = read_tool_json(smk.input.tool)
    root = str(corpus_tree(smk.input.root))
    # the corpus's names, to read back those a line-split or lossy listing breaks
    listed = tool_listing(tool, root, timeout=max(600, smk.params.timeout), known=tree_names(root))
    write_text(Path(smk.output[0]), "".join(f"{encode_path(p)}\n" for p in listed))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
