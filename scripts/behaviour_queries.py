"""A corpus's behavioural queries: the mined searches made in its repository at its revision,
answered by the opened files that hold the literal (rule `behaviour_queries`,
searchbench/behaviour.py)."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from searchbench.artifacts import read_json  # noqa: E402
from searchbench.behaviour import (  # noqa: E402
    behaviour_queries,
    languages_from_files_tsv,
    searched_revision,
    write_behaviour_outputs,
)
from searchbench.corpora import corpus_tree  # noqa: E402
from searchbench.scriptmain import run_script  # noqa: E402
from searchbench.transcripts import read_mined  # noqa: E402


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
