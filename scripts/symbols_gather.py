"""Gather the symbol pass's shards into symbols.tsv and unseen.tsv (rule `symbols`):
byte-identical to one pass over every file, whatever the number of shards."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from searchbench.scriptmain import run_script  # noqa: E402
from searchbench.symbols import gather_shards, write_symbols_tsv, write_unseen_tsv  # noqa: E402


def main(smk) -> None:
    symbols, unseen = gather_shards(smk.input.symbols, smk.input.unseen)
    logging.info("shards\t%d", len(smk.input.symbols))
    logging.info("declarations\t%d", len(symbols))
    logging.info("distinct names\t%d", len({row.symbol for row in symbols}))
    for reason in sorted({row.reason for row in unseen}):
        logging.info("unseen %s\t%d", reason, sum(row.reason == reason for row in unseen))
    write_symbols_tsv(symbols, Path(smk.output.symbols))
    write_unseen_tsv(unseen, Path(smk.output.unseen))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
