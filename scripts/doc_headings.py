"""The docs track's ground truth: heading tokens and heading words of every document (rule
`doc_headings`)."""

import logging
from pathlib import Path

from searchbench import headings
from searchbench.artifacts import write_text
from searchbench.corpora import corpus_tree
from searchbench.fileset import read_files_tsv
from searchbench.paths import encode_path
from searchbench.sampling import frame_tsv_text
from searchbench.scriptmain import run_script
from searchbench.symbols import SYMBOL_COLUMNS, UNSEEN_COLUMNS


def main(smk) -> None:
    texts = [encode_path(e.path) for e in read_files_tsv(smk.input.files) if e.kind == "text"]
    table, unseen, words = headings.scan_documents(
        corpus_tree(smk.input.root),
        texts,
        dict(smk.params.markups),
        list(smk.params.unseen_extensions),
        headings.token_rules(smk.params.tokens),
        headings.word_rule(dict(smk.params.words)),
    )
    # Both rendered before either is written: a bad field leaves neither behind.
    outputs = [
        (smk.output.headings, frame_tsv_text(table, SYMBOL_COLUMNS)),
        (smk.output.unseen, frame_tsv_text(unseen, UNSEEN_COLUMNS)),
        (smk.output.words, frame_tsv_text(words, SYMBOL_COLUMNS)),
    ]
    for path, text in outputs:
        write_text(Path(path), text)
    documents = table["path"].nunique()
    logging.info(f"documents with heading tokens\t{documents}")
    logging.info(f"heading tokens\t{len(table)}\tdistinct\t{table['symbol'].nunique()}")
    logging.info(f"heading words\t{len(words)}\tdistinct\t{words['symbol'].nunique()}")
    for row in unseen.itertuples(index=False):
        logging.info(f"unseen\t{row.reason}\t{row.path}")


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
