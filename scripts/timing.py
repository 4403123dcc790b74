"""Time one tool on a seeded subsample of a corpus's queries, within the timing budget."""

import logging
from contextlib import nullcontext
from pathlib import Path

from searchbench.artifacts import write_json, write_text
from searchbench.errors import BenchError
from searchbench.fastpath import audit_against_timing, audit_failure
from searchbench.host import host_record, load_average
from searchbench.queries_io import read_queries
from searchbench.raw_io import read_raw_records
from searchbench.runner import SearchResult, run_tool
from searchbench.scriptmain import run_script, search_setup_of_job
from searchbench.session import tool_session
from searchbench.subsample import seeded_subsample
from searchbench.timing import TimingSettings, format_timing, time_queries
from searchbench.tools import covers


def main(smk) -> None:
    settings = smk.params.timing
    budget = TimingSettings.from_config(settings)
    queries = {q.qid: q for q in read_queries(Path(smk.input.queries))}
    setup = search_setup_of_job(smk, settings["timeout_seconds"])
    tool = setup.tool
    # A language server is timed on the queries it is asked (its languages) only.
    asked = [qid for qid, q in queries.items() if covers(tool.spec, q.language)]
    qids = seeded_subsample(asked, settings["queries"], smk.params.seed)
    load_before = load_average()
    # A session tool is timed per question to its running server: its start is index cost.
    with tool_session(setup) if qids else nullcontext((setup, [])) as (session_setup, _):

        def run_query(qid: str) -> SearchResult:
            result = run_tool(session_setup, queries[qid].query)
            logging.info("%s %s: %.3fs", tool.spec.name, qid, result.elapsed)
            plain.setdefault(qid, []).append(result)
            return result

        plain: dict[str, list[SearchResult]] = {}
        rows = time_queries(qids, budget, run_query)
    # The code track's quality runs of this tool (the rule's input): each timed query that
    # went through the fast path there is checked against these plain runs.
    quality = {
        qid: r for path in smk.input.quality_runs for qid, r in read_raw_records(path).items()
    }
    audit = {"tool": tool.spec.name, **audit_against_timing(plain, quality)}
    if not audit["equivalent"]:
        raise BenchError(audit_failure(tool.spec.name, smk.wildcards.corpus, audit))
    host = {**host_record(smk.input.root), "load_before": load_before, "load_after": load_average()}
    runs = {row.qid: row.runs for row in rows}
    logging.info(
        "%s: %d measured runs over %d queries (runs per query %d-%d), budget %.0fs",
        tool.spec.name,
        len(rows),
        len(runs),
        min(runs.values(), default=0),
        max(runs.values(), default=0),
        budget.budget_seconds,
    )
    write_json(Path(smk.output.host), host)
    write_json(Path(smk.output.fast_path), audit)
    write_text(Path(smk.output.table), format_timing(rows))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
