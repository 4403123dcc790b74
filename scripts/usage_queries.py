"""Draw the usage track's queries and qrels, and audit them against GNU Global (rule
`usage_queries`, docs/usage.md)."""

import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.corpora import corpus_tree
from searchbench.sampling import read_symbols, read_unseen
from searchbench.scriptmain import run_script
from searchbench.symbols import tokens_in_files
from searchbench.usage_queries import (
    MAX_FILES,
    MIN_OTHER_FILES,
    audit_text,
    read_uses,
    reference_agreement,
    select_usage_queries,
    write_usage_outputs,
)


def main(smk) -> None:
    root = str(corpus_tree(smk.input.root))
    fork = multiprocessing.get_context("fork")
    # The unseen files are tokenised in a second process while this one reads the tables.
    with ProcessPoolExecutor(1, mp_context=fork) as pool:
        unseen = read_unseen(smk.input.unseen)
        scan = pool.submit(tokens_in_files, root, list(unseen["path"]))
        result = select_usage_queries(
            read_symbols(smk.input.symbols),
            unseen,
            read_uses(smk.input.uses),
            root,
            min_length=int(smk.params.min_length),
            n=smk.params.n,
            seed=int(smk.params.seed),
            corpus=str(smk.params.corpus),
            min_other_files=int(getattr(smk.params, "min_other_files", MIN_OTHER_FILES)),
            max_files=int(getattr(smk.params, "max_files", MAX_FILES)),
            unseen_tokens=scan.result,
        )
    write_usage_outputs(result, smk.output.queries, smk.output.qrels, smk.output.funnel)
    for step, count in result.funnel:
        logging.info("funnel\t%s\t%d", step, count)
    if hasattr(smk.output, "audit"):
        rows = reference_agreement(
            root,
            result.sample,
            result.qrels,
            int(getattr(smk.params, "audit_sample", 100)),
            int(smk.params.seed),
        )
        write_text(Path(smk.output.audit), audit_text(rows))
        logging.info("audit written: %d languages", len(rows) - 1)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
