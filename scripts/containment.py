"""Every file containing each query's literal, for all queries of a track in one pass."""

import logging
import os
from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.containment import containment_rows, containment_text, files_containing_all
from searchbench.corpora import corpus_tree
from searchbench.errors import BenchError
from searchbench.fastpath import locate_rg
from searchbench.paths import decode_path
from searchbench.queries_io import read_queries
from searchbench.scriptmain import run_script


def main(smk) -> None:
    queries = read_queries(Path(smk.input.queries))
    root = str(corpus_tree(smk.input.root))
    found = files_containing_all(locate_rg(), root, [q.query for q in queries])
    rows = containment_rows({q.qid: q.query for q in queries}, found)
    holders: dict[str, set[bytes]] = {}
    for qid, path in rows:
        holders.setdefault(qid, set()).add(path)
    # The declaring file holds the literal by construction: if the pass missed it, the
    # pass is broken (an encoding or link problem), and every fast run would be wrong.
    for query in queries:
        answer = os.fsencode(decode_path(query.path))
        if answer not in holders.get(query.qid, set()):
            raise BenchError(
                f"containment pass: {query.qid} ({query.query!r}) was not found in its own "
                f"answer file {query.path}; check the corpus checkout and rerun"
            )
    logging.info("%d queries, %d (query, file) rows", len(queries), len(rows))
    write_text(Path(smk.output[0]), containment_text(rows))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
