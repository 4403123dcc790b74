"""Draw a track's queries and qrels: the code track from the symbol table (rule `queries`),
the docs track from the heading tokens (rule `doc_queries`)."""

import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.corpora import corpus_tree
from searchbench.headings import DECLARED_COLUMNS, declared_in_code, tokens_in_documents
from searchbench.sampling import (
    IDENTIFIER,
    frame_tsv_text,
    read_symbols,
    read_unseen,
    select_queries,
    write_outputs,
)
from searchbench.scriptmain import run_script
from searchbench.symbols import tokens_in_files


def main(smk) -> None:
    root = str(corpus_tree(smk.input.root))
    track = str(getattr(smk.params, "track", "code"))
    # A docs token (`pytest.fixture`, `--lf`) is not one identifier token.
    tokenise = tokens_in_documents if track == "docs" else tokens_in_files
    # The unseen files (the kernel: 270 MB) are tokenised in a second process while this one
    # reads the symbol table and finds the exactly-once names (the rule asks for two threads
    # where the run has four cores or more: rules/common.smk DRAW_THREADS).
    fork = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(1, mp_context=fork) as pool:
        unseen = read_unseen(smk.input.unseen)
        scan = pool.submit(tokenise, root, list(unseen["path"]))
        symbols = read_symbols(smk.input.symbols)
        funnel, sample = select_queries(
            symbols,
            unseen,
            root,
            min_length=int(smk.params.min_length),
            n=smk.params.n,
            seed=int(smk.params.seed),
            corpus=str(smk.params.corpus),
            kinds=list(getattr(smk.params, "kinds", None) or []),
            unseen_tokens=scan.result,
            shape=str(getattr(smk.params, "shape", None) or IDENTIFIER),
            track=track,
        )
        declared = None
        if hasattr(smk.input, "code_symbols"):
            declared = declared_in_code(sample, read_symbols(smk.input.code_symbols))
        write_outputs(sample, funnel, smk.output.queries, smk.output.qrels, smk.output.funnel)
        if declared is not None:
            write_text(Path(smk.output.declared), frame_tsv_text(declared, list(DECLARED_COLUMNS)))
            shared = int((declared["declared_in_code"] == "yes").sum())
            logging.info(f"declared in code	{shared} of {len(declared)}")
        for step, count in funnel:
            logging.info(f"funnel\t{step}\t{count}")
        if len(sample) < 10:
            logging.info(f"only {len(sample)} {track} queries: this corpus is not evidence")


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
