"""Compare a tool's plain and fast-path runs byte for byte on a seeded sample of queries."""

import json
import logging
import os
from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.corpora import corpus_tree
from searchbench.fastpath import compare, locate_rg, run_fast, sample_queries, walk_order
from searchbench.paths import decode_path
from searchbench.queries_io import read_queries
from searchbench.runner import run_tool
from searchbench.tools import read_tools_json

snakemake = globals()["snakemake"]
logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(message)s")


def main() -> None:
    tool = read_tools_json(snakemake.input.tools)[snakemake.wildcards.tool]
    rg = locate_rg()
    walk = walk_order(
        [os.fsencode(decode_path(line)) for line in Path(snakemake.input.walk).read_text().split()]
    )
    queries = {q.qid: q for q in read_queries(Path(snakemake.input.queries))}
    index = str(Path(snakemake.input.index[0]).resolve()) if snakemake.input.index else None
    root, timeout = str(corpus_tree(snakemake.input.root)), snakemake.params.timeout
    word = snakemake.params.word_match
    checks = {}
    for qid in sample_queries(list(queries), snakemake.params.queries, snakemake.params.seed):
        query = queries[qid].query
        plain = run_tool(tool, query, root, timeout, None, None, index=index, word=word)
        fast, used = run_fast(tool, query, root, timeout, None, None, walk, rg, index, word)
        checks[qid] = {
            **compare(plain, fast),
            "fast_path_used": used,
            "plain_seconds": round(plain.elapsed, 3),
            "fast_seconds": round(fast.elapsed, 3),
        }
        logging.info("%s %s: %s", tool.spec.name, qid, checks[qid])
    equivalent = bool(checks) and all(c["equivalent"] for c in checks.values())
    # Timings are kept in the log only, so that this file is reproducible.
    record = {
        "tool": tool.spec.name,
        "rg": rg,
        "equivalent": equivalent,
        "queries_checked": len(checks),
        "checks": {
            qid: {k: v for k, v in c.items() if not k.endswith("_seconds")}
            for qid, c in checks.items()
        },
        "decision": "fast path" if equivalent else "plain runs (fast path not equivalent)",
    }
    write_text_atomic(
        Path(snakemake.output[0]), json.dumps(record, indent=2, sort_keys=True) + "\n"
    )


main()
