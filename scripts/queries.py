"""Draw the code track's queries and qrels from the symbol table (rule `queries`)."""

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from searchbench.corpora import corpus_tree
from searchbench.sampling import (  # noqa: E402
    read_symbols,
    read_unseen,
    select_queries,
    write_outputs,
)
from searchbench.symbols import tokens_in_files  # noqa: E402


def main(smk) -> None:
    root = str(corpus_tree(smk.input.root))
    # The unseen files (the kernel: 270 MB) are tokenised in a second process while this one
    # reads the symbol table and finds the exactly-once names: the rule has two threads.
    fork = multiprocessing.get_context("fork")
    with (
        open(smk.log[0], "w", encoding="utf-8") as log,
        ProcessPoolExecutor(1, mp_context=fork) as pool,
    ):
        unseen = read_unseen(smk.input.unseen)
        scan = pool.submit(tokens_in_files, root, list(unseen["path"]))
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
        )
        write_outputs(sample, funnel, smk.output.queries, smk.output.qrels, smk.output.funnel)
        for step, count in funnel:
            print(f"funnel\t{step}\t{count}", file=log)
        if len(sample) < 10:
            print(f"only {len(sample)} queries: this corpus is not evidence (seed §8)", file=log)


main(snakemake)  # noqa: F821
