"""Time one tool on a seeded subsample of a corpus's queries: warm-ups, then repeats."""

import logging
from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.corpora import corpus_tree
from searchbench.queries_io import read_queries
from searchbench.runner import run_tool
from searchbench.timing import TimingRow, format_timing, timing_sample
from searchbench.tools import read_tools_json

snakemake = globals()["snakemake"]
logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(message)s")


def main() -> None:
    settings = snakemake.params.timing
    tool = read_tools_json(snakemake.input.tools)[snakemake.wildcards.tool]
    queries = {q.qid: q for q in read_queries(Path(snakemake.input.queries))}
    index = str(Path(snakemake.input.index[0]).resolve()) if snakemake.input.index else None
    rows = []
    for qid in timing_sample(list(queries), settings["queries"], snakemake.params.seed):
        for repeat in range(1 - settings["warmups"], settings["repeats"] + 1):
            result = run_tool(
                tool,
                queries[qid].query,
                str(corpus_tree(snakemake.input.root)),
                settings["timeout_seconds"],
                None,
                None,
                index=index,
                word=snakemake.params.word_match,
            )
            if repeat < 1:  # a warm-up: fills the page cache, not recorded
                continue
            rows.append(
                TimingRow(
                    qid,
                    repeat,
                    result.elapsed,
                    result.user,
                    result.sys,
                    result.peak_rss_kib,
                    result.rss_source,
                    result.timed_out,
                    result.exit_code,
                )
            )
            logging.info("%s %s repeat %d: %.3fs", tool.spec.name, qid, repeat, result.elapsed)
    write_text_atomic(Path(snakemake.output[0]), format_timing(rows))


main()
