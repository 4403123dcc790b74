"""Scan one shard of a corpus's files for declarations (rule `symbols_shard`); the rule
`symbols` gathers the shards into symbols.tsv and unseen.tsv (scripts/symbols.py)."""

import logging
import time
from pathlib import Path

from searchbench.corpora import corpus_tree
from searchbench.fileset import load_languages, read_files_tsv
from searchbench.scriptmain import run_script
from searchbench.symbols import (
    scan_symbols,
    shard_files,
    write_symbols_tsv,
    write_unseen_tsv,
)


def main(smk) -> None:
    shard, shards = int(smk.wildcards.shard), int(smk.wildcards.shards)
    files = shard_files(read_files_tsv(Path(smk.input.files)), shard, shards)
    languages = load_languages(Path(smk.params.languages_file))
    started = time.monotonic()
    symbols, unseen = scan_symbols(
        corpus_tree(smk.input.root),
        files,
        Path(smk.params.rules_dir),
        languages,
        max_parse_bytes=int(smk.params.max_parse_bytes),
        threads=int(smk.threads),
        max_line_bytes=int(smk.params.max_line_bytes),
    )
    logging.info(
        "shard %d of %d: scanned %d files in %.1f s",
        shard,
        shards,
        len(files),
        time.monotonic() - started,
    )
    logging.info("declarations\t%d", len(symbols))
    logging.info("unseen files\t%d", len(unseen))
    write_symbols_tsv(symbols, Path(smk.output.symbols))
    write_unseen_tsv(unseen, Path(smk.output.unseen))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
