"""Why tools tie, per pair of tools: results/{corpus}/{track}/ties.tsv (searchbench/ties.py)."""

from searchbench.scriptmain import run_script
from searchbench.ties import ties_from_files, write_ties


def main(smk) -> None:
    tools = list(smk.params.tools)
    runs = dict(zip(tools, smk.input.runs, strict=True))
    # Only the tools with a list_files_argv have a listing (filesets/{tool}.txt).
    listings = dict(zip(smk.params.listing_tools, smk.input.filesets, strict=True))
    rows = ties_from_files(
        smk.params.corpus, smk.params.track, runs, smk.input.qrels, smk.input.scores, listings
    )
    write_ties(rows, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
