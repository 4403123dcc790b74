"""Mine agent transcripts into literal searches and the files opened after them (rule
`mine_transcripts`, searchbench/transcripts.py). Only (repository, revision, query, paths)
leave the miner; per transcript file, what it kept and dropped goes to mining.tsv and the log."""

import logging
from pathlib import Path

from searchbench.scriptmain import run_script
from searchbench.transcripts import (
    mine,
    report_rows,
    write_mine_report,
    write_mined,
)


def main(smk) -> None:
    params = smk.params
    rows, report = mine(
        Path(params.logs),
        window=int(params.window),
        min_length=int(params.min_length),
        pins=dict(params.pins),
    )
    for file, reason, count in report_rows(report):
        logging.info(f"{file}\t{reason}\t{count}")
    logging.info(f"kept\t{len(rows)}")
    write_mined(rows, smk.output.mined)
    write_mine_report(report, smk.output.report)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
