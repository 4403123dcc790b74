"""Draw the heading-word queries (track `words`, rule `word_queries`): the docs track's second
token class, a sample of its own beside the identifier tokens (docs/method.md §3)."""

import logging
from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.corpora import corpus_tree
from searchbench.headings import (
    DECLARED_COLUMNS,
    declared_in_code,
    tokens_in_documents,
    word_rule,
)
from searchbench.sampling import (
    check_answer_files,
    frame_tsv_text,
    read_symbols,
    read_unseen,
    write_outputs,
)
from searchbench.scriptmain import run_script
from searchbench.word_queries import select_words


def main(smk) -> None:
    root = corpus_tree(smk.input.root)
    unseen = read_unseen(smk.input.unseen)
    # Every word of every unseen document, as the heading words are split.
    unseen_words = {w.decode("utf-8") for w in tokens_in_documents(root, unseen["path"])}
    funnel, sample = select_words(
        read_symbols(smk.input.words),
        word_rule(dict(smk.params.words)),
        read_symbols(smk.input.identifiers)["symbol"],
        unseen_words,
        n=smk.params.n,
        seed=int(smk.params.seed),
        corpus=str(smk.params.corpus),
    )
    check_answer_files(root, sample)
    declared = declared_in_code(sample, read_symbols(smk.input.code_symbols))
    write_outputs(sample, funnel, smk.output.queries, smk.output.qrels, smk.output.funnel)
    write_text(Path(smk.output.declared), frame_tsv_text(declared, list(DECLARED_COLUMNS)))
    for step, count in funnel:
        logging.info(f"funnel\t{step}\t{count}")


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
