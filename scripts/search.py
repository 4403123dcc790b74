"""Run one tool on every query of a corpus track: a TREC run and a raw JSONL record."""

import logging
import os
from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.fileset import read_files_tsv
from searchbench.paths import encode_path
from searchbench.queries_io import read_queries, right_paths
from searchbench.runner import result_to_raw_json, run_tool
from searchbench.tools import read_tools_json
from searchbench.trec import read_qrels, write_run

snakemake = globals()["snakemake"]
logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(message)s")


def main() -> None:
    tool = read_tools_json(snakemake.input.tools)[snakemake.wildcards.tool]
    queries = read_queries(Path(snakemake.input.queries))
    qrels = read_qrels(snakemake.input.qrels)
    # files.tsv paths are the raw names (surrogate-escaped str), as tools print them.
    known = frozenset(os.fsencode(entry.path) for entry in read_files_tsv(snakemake.input.files))
    index = os.path.abspath(snakemake.input.index[0]) if snakemake.input.index else None
    run: dict[str, list[str]] = {}
    raw_lines = []
    for number, query in enumerate(queries, start=1):
        result = run_tool(
            tool,
            query.query,
            snakemake.input.root,
            snakemake.params.timeout,
            right_paths(qrels.get(query.qid, {})),
            known,
            index=index,
            word=snakemake.params.word_match,
            decl_line=query.decl_line,
        )
        run[query.qid] = [encode_path(p) for p in result.files]
        raw_lines.append(result_to_raw_json(query.qid, query.query, result))
        logging.info(
            "%s %d/%d %s status=%s files=%d elapsed=%.3fs",
            tool.spec.name,
            number,
            len(queries),
            query.qid,
            result.status,
            len(result.files),
            result.elapsed,
        )
    write_run(snakemake.output.run, run, tag=tool.spec.name)
    write_text_atomic(Path(snakemake.output.raw), "".join(line + "\n" for line in raw_lines))


main()
