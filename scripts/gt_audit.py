"""Audit the code track's ground truth against universal-ctags (rule `gt_audit`)."""

import logging

from searchbench import gt_audit
from searchbench.corpora import corpus_tree
from searchbench.queries_io import query_frame
from searchbench.scriptmain import run_script


def main(smk) -> None:
    ctags, version = gt_audit.resolve_ctags()
    logging.info(f"ctags\t{ctags}\t{version}")
    queries = query_frame(smk.input.queries)
    root = str(corpus_tree(smk.input.root))
    tags = gt_audit.ctags_tags(root, queries, scope="mentions", ctags=ctags)
    parsed = gt_audit.parsed_paths(root, queries["path"], ctags)
    table = gt_audit.audit(queries, tags, parsed)
    summary = gt_audit.summarize(table)
    gt_audit.write_audit(table, summary, smk.output.audit, smk.output.summary)
    for row in summary.itertuples(index=False):
        logging.info("summary\t" + "\t".join(map(str, row)))
    lines = gt_audit.disagreements(queries, table, tags)
    for line in [*gt_audit.reason_counts(lines), *lines]:
        logging.info(line)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
