"""A corpus's behavioural queries: the mined searches made in its repository at its revision,
answered by the opened files that hold the literal (rule `behaviour_queries`,
searchbench/behaviour.py)."""

import logging

from searchbench.artifacts import read_json
from searchbench.behaviour import (
    behaviour_queries,
    languages_from_files_tsv,
    searched_revision,
    write_behaviour_outputs,
)
from searchbench.corpora import corpus_tree
from searchbench.scriptmain import run_script
from searchbench.transcripts import read_mined


def main(smk) -> None:
    params = smk.params
    revision = searched_revision(str(params.revision or ""), read_json(smk.input.corpus))
    rows, qrels, funnel = behaviour_queries(
        read_mined(smk.input.mined),
        str(params.corpus),
        corpus_tree(smk.input.root),
        list(params.repositories),
        revision,
        params.n,
        int(params.seed),
        int(params.min_length),
        language_of=languages_from_files_tsv(smk.input.files),
    )
    write_behaviour_outputs(
        rows, qrels, funnel, smk.output.queries, smk.output.qrels, smk.output.funnel
    )
    for step, count in funnel:
        logging.info(f"{step}\t{count}")


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
