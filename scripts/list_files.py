"""The files one tool searches in one corpus, in its own order (for the file-set audit)."""

from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.corpora import corpus_tree
from searchbench.paths import encode_path
from searchbench.runner import list_files
from searchbench.tools import read_tool_json

snakemake = globals()["snakemake"]

tool = read_tool_json(snakemake.input.tool)
listed = list_files(
    tool, str(corpus_tree(snakemake.input.root)), timeout=max(600, snakemake.params.timeout)
)
write_text_atomic(Path(snakemake.output[0]), "".join(f"{encode_path(p)}\n" for p in listed))
