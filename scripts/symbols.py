"""Gather the symbol pass's shards into symbols.tsv and unseen.tsv (rule `symbols`):
byte-identical to one pass over every file, whatever the number of shards."""

import logging
import time
from pathlib import Path

from searchbench.scriptmain import run_script
from searchbench.symbols import gather_shards, read_unseen_tsv


def main(smk) -> None:
    started = time.monotonic()
    declarations, names = gather_shards(
        smk.input.symbols, smk.input.unseen, Path(smk.output.symbols), Path(smk.output.unseen)
    )
    logging.info("gathered %d shards in %.1f s", len(smk.input.symbols), time.monotonic() - started)
    logging.info("declarations\t%d", declarations)
    logging.info("distinct names\t%d", names)
    unseen = read_unseen_tsv(Path(smk.output.unseen))
    for reason in sorted({row.reason for row in unseen}):
        logging.info("unseen %s\t%d", reason, sum(row.reason == reason for row in unseen))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
