"""Build the symbol table and the unseen-file list of one corpus (rule `symbols`)."""

import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from searchbench.corpora import corpus_tree  # noqa: E402
from searchbench.fileset import load_languages, read_files_tsv  # noqa: E402
from searchbench.scriptmain import run_script  # noqa: E402
from searchbench.symbols import scan_symbols, write_symbols_tsv, write_unseen_tsv  # noqa: E402


def main(smk) -> None:
    files = read_files_tsv(Path(smk.input.files))
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
    logging.info("scanned %d files in %.1f s", len(files), time.monotonic() - started)
    logging.info("declarations\t%d", len(symbols))
    logging.info("distinct names\t%d", len({row.symbol for row in symbols}))
    for reason in sorted({row.reason for row in unseen}):
        logging.info("unseen %s\t%d", reason, sum(row.reason == reason for row in unseen))
    write_symbols_tsv(symbols, Path(smk.output.symbols))
    write_unseen_tsv(unseen, Path(smk.output.unseen))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
