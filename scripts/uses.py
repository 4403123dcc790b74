"""Build the uses table of one corpus, and optionally its usage queries (docs/usage.md).

Rule `uses` (input root, files, rules; params rules_dir, languages_file, max_parse_bytes,
max_line_bytes; output uses) writes uses.tsv. With the inputs symbols, unseen and the params
corpus, seed, n, min_length (and optionally min_other_files, max_files, audit_sample), and the
outputs queries, qrels, funnel (and optionally audit), the same script draws the usage
queries instead: rule `usage_queries` (see docs/usage.md for both rules' exact lists)."""

import logging
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from searchbench.artifacts import write_text  # noqa: E402
from searchbench.corpora import corpus_tree  # noqa: E402
from searchbench.fileset import load_languages, read_files_tsv  # noqa: E402
from searchbench.sampling import read_symbols, read_unseen  # noqa: E402
from searchbench.scriptmain import run_script  # noqa: E402
from searchbench.symbols import tokens_in_files  # noqa: E402
from searchbench.usage_queries import (  # noqa: E402
    MAX_FILES,
    MIN_OTHER_FILES,
    audit_text,
    read_uses,
    reference_agreement,
    select_usage_queries,
    write_usage_outputs,
)
from searchbench.uses import rule_counts, scan_uses, write_uses_tsv  # noqa: E402


def build_uses(smk) -> None:
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


def draw_usage(smk) -> None:
    root = str(corpus_tree(smk.input.root))
    fork = multiprocessing.get_context("fork")
    # The unseen files are tokenised in a second process while this one reads the tables.
    with ProcessPoolExecutor(1, mp_context=fork) as pool:
        unseen = read_unseen(smk.input.unseen)
        scan = pool.submit(tokens_in_files, root, list(unseen["path"]))
        result = select_usage_queries(
            read_symbols(smk.input.symbols),
            unseen,
            read_uses(smk.input.uses),
            root,
            min_length=int(smk.params.min_length),
            n=smk.params.n,
            seed=int(smk.params.seed),
            corpus=str(smk.params.corpus),
            min_other_files=int(getattr(smk.params, "min_other_files", MIN_OTHER_FILES)),
            max_files=int(getattr(smk.params, "max_files", MAX_FILES)),
            unseen_tokens=scan.result,
        )
    write_usage_outputs(result, smk.output.queries, smk.output.qrels, smk.output.funnel)
    for step, count in result.funnel:
        logging.info("funnel\t%s\t%d", step, count)
    if hasattr(smk.output, "audit"):
        rows = reference_agreement(
            root,
            result.sample,
            result.qrels,
            int(getattr(smk.params, "audit_sample", 100)),
            int(smk.params.seed),
        )
        write_text(Path(smk.output.audit), audit_text(rows))


def main(smk) -> None:
    if hasattr(smk.output, "uses"):
        build_uses(smk)
    else:
        draw_usage(smk)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
