"""Compare a tool's plain and fast-path runs byte for byte on a seeded sample of queries."""

import logging
import os
from pathlib import Path

from searchbench.artifacts import write_json
from searchbench.containment import read_containment
from searchbench.fastpath import check_plan, compare, run_fast, walk_order
from searchbench.paths import decode_path
from searchbench.queries_io import read_queries
from searchbench.runner import run_tool
from searchbench.scriptmain import run_script, search_setup_of_job
from searchbench.subsample import seeded_subsample


def main(smk) -> None:
    settings = smk.params.check
    walk = walk_order(
        [os.fsencode(decode_path(line)) for line in Path(smk.input.walk).read_text().split()]
    )
    containing = read_containment(smk.input.containing)
    queries = {q.qid: q for q in read_queries(Path(smk.input.queries))}
    setup = search_setup_of_job(smk, smk.params.timeout)
    tool = setup.tool
    sample = seeded_subsample(list(queries), settings["queries"], smk.params.seed)
    checks: dict[str, dict] = {}
    plain_seconds: list[float] = []
    for qid in sample:
        if len(checks) >= check_plan(plain_seconds, settings):
            break
        query = queries[qid].query
        plain = run_tool(setup, query)
        fast, used = run_fast(setup, query, walk, containing.get(qid, set()))
        plain_seconds.append(plain.elapsed)
        checks[qid] = {**compare(plain, fast), "fast_path_used": used}
        logging.info(
            "%s %s: plain %.3fs fast %.3fs %s",
            tool.spec.name,
            qid,
            plain.elapsed,
            fast.elapsed,
            checks[qid],
        )
    equivalent = bool(checks) and all(c["equivalent"] for c in checks.values())
    slow = len(checks) < len(sample)
    # Timings stay in the log, so that this file is reproducible; only the count of queries
    # checked can depend on them (a slow tool is checked on fewer), and the file says so.
    record = {
        "tool": tool.spec.name,
        "equivalent": equivalent,
        "queries_planned": len(sample),
        "queries_checked": len(checks),
        "reduced_because_slow": slow,
        "settings": settings,
        "checks": checks,
        "decision": "fast path" if equivalent else "plain runs (fast path not equivalent)",
    }
    write_json(smk.output[0], record)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
