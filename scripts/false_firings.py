"""One corpus's false-firing audit: every raw firing of hay's c-shape and keyword rules on
its text files, by word and language (searchbench/false_firings.py)."""

from pathlib import Path

from searchbench.corpora import corpus_tree
from searchbench.false_firings import audit_files, read_word_list, table_rows, write_corpus_table
from searchbench.fileset import read_files_tsv
from searchbench.hay.misfires import read_symbols
from searchbench.scriptmain import run_script


def main(smk) -> None:
    tally, examples = audit_files(
        corpus_tree(smk.input.root),
        read_files_tsv(Path(smk.input.files)),
        read_symbols(Path(smk.input.symbols)),
    )
    rows = table_rows(tally, examples, read_word_list(smk.input.words))
    write_corpus_table(rows, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
