"""Build the uses table of one corpus (rule `uses`, docs/usage.md).

The queries are drawn by scripts/usage_queries.py (rule `usage_queries`): a separate script,
so that a change to the sampling or the audit does not rerun this pass (code_hash)."""

import logging
import time
from pathlib import Path

from searchbench.corpora import corpus_tree
from searchbench.fileset import load_languages, read_files_tsv
from searchbench.scriptmain import run_script
from searchbench.uses import rule_counts, scan_uses, write_uses_tsv


def main(smk) -> None:
    files = read_files_tsv(Path(smk.input.files))
    languages = load_languages(Path(smk.params.languages_file))
    started = time.monotonic()
    rows, errored = scan_uses(
        corpus_tree(smk.input.root),
        files,
        Path(smk.params.rules_dir),
        languages,
        max_parse_bytes=int(smk.params.max_parse_bytes),
        threads=int(smk.threads),
        max_line_bytes=int(smk.params.max_line_bytes),
    )
    logging.info("scanned %d files in %.1f s", len(files), time.monotonic() - started)
    logging.info("uses\t%d", len(rows))
    for rule, count in rule_counts(rows).items():
        logging.info("rule %s\t%d", rule, count)
    for path in errored:
        logging.info("ast-grep error (no uses recorded)\t%s", path)
    write_uses_tsv(rows, Path(smk.output.uses))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
