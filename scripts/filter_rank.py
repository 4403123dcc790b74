"""Filter or rank: where the answer sits in each tool's own output and what sorted before it
(searchbench/filter_rank.py), for one corpus and track."""

from pathlib import Path

from searchbench.corpora import corpus_tree
from searchbench.filter_rank import filter_rank_rows, write_filter_rank
from searchbench.metrics import read_raw_records
from searchbench.queries_io import query_rows
from searchbench.scriptmain import run_script
from searchbench.trec import read_qrels, read_run


def main(smk) -> None:
    tools = list(smk.params.tools)
    rows = filter_rank_rows(
        query_rows(smk.input.queries),
        read_qrels(smk.input.qrels),
        {t: read_run(p) for t, p in zip(tools, smk.input.runs, strict=True)},
        {t: read_raw_records(p) for t, p in zip(tools, smk.input.raw, strict=True)},
        Path(corpus_tree(smk.input.root)),
    )
    write_filter_rank(rows, smk.output.tsv, smk.output.summary)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
