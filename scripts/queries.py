"""Draw the code track's queries and qrels from the symbol table (rule `queries`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from searchbench.corpora import corpus_tree
from searchbench.sampling import (  # noqa: E402
    read_symbols,
    read_unseen,
    select_queries,
    write_outputs,
)


def main(smk) -> None:
    with open(smk.log[0], "w", encoding="utf-8") as log:
        symbols = read_symbols(smk.input.symbols)
        unseen = read_unseen(smk.input.unseen)
        funnel, sample = select_queries(
            symbols,
            unseen,
            str(corpus_tree(smk.input.root)),
            min_length=int(smk.params.min_length),
            n=smk.params.n,
            seed=int(smk.params.seed),
            corpus=str(smk.params.corpus),
            kinds=list(getattr(smk.params, "kinds", None) or []),
        )
        write_outputs(sample, funnel, smk.output.queries, smk.output.qrels, smk.output.funnel)
        for step, count in funnel:
            print(f"funnel\t{step}\t{count}", file=log)
        if len(sample) < 10:
            print(f"only {len(sample)} queries: this corpus is not evidence (seed §8)", file=log)


main(snakemake)  # noqa: F821
