"""Run one tool on every query of a corpus track: a TREC run and a raw JSONL record."""

import json
import logging
import os
from contextlib import nullcontext
from pathlib import Path

from searchbench import repeatability
from searchbench.artifacts import write_json, write_text
from searchbench.containment import read_containment
from searchbench.fastpath import equivalence_check, run_fast, walk_order
from searchbench.fileset import read_files_tsv
from searchbench.health import HealthRule, until_stopped
from searchbench.paths import decode_path, encode_path
from searchbench.queries_io import read_queries, right_paths
from searchbench.raw_io import with_costs
from searchbench.runner import SearchResult, result_record, run_tool
from searchbench.scriptmain import run_script, search_setup_of_job
from searchbench.session import SessionRecord, tool_session
from searchbench.statuses import NOT_APPLICABLE, STOPPED
from searchbench.subsample import seeded_subsample
from searchbench.tools import covers
from searchbench.trec import read_qrels, write_run


def fast_path_walk(
    smk, setup, queries
) -> tuple[list[bytes] | None, dict[str, set[bytes]], dict[str, float]]:
    """A fast-path tool (its job has a `check` output): the equivalence check on a seeded
    sample, written; then (its walk order, the files holding each query's literal) when the
    fast path printed what the plain runs did, else (None, {}): plain runs; and the check's
    CPU seconds per checked qid."""
    if "check" not in smk.output.keys():  # noqa: SIM118 (a Namedlist: `in` tests values)
        return None, {}, {}
    listing = Path(smk.input.walk).read_text().split()
    walk = walk_order([os.fsencode(decode_path(line)) for line in listing])
    containing = read_containment(smk.input.containing)
    texts = {query.qid: query.query for query in queries}
    settings = smk.params.check
    sample = seeded_subsample(list(texts), settings["queries"], smk.params.seed)
    check, cpu = equivalence_check(setup, walk, containing, texts, sample, settings)
    write_json(smk.output.check, check)
    logging.info("fast path: %s", check["decision"])
    if not check["equivalent"]:
        return None, {}, cpu
    return walk, containing, cpu


def not_run(status: str = NOT_APPLICABLE) -> SearchResult:
    """The record of a query that did not run: not asked of the tool (not-applicable), or
    left once the tool was stopped early (stopped). Nothing ran, nothing was printed."""
    return SearchResult(
        argv=[], exit_code=None, status=status, timed_out=False, elapsed=0.0, user=0.0,
        sys=0.0, peak_rss_kib=0, rss_source="not-run", lines=0, bytes=0,
    )  # fmt: skip


def with_session(record: dict, session: SessionRecord | None) -> dict:
    """A session tool's query record: its memory is the session's (the server answered it)."""
    if session is None or record["status"] in (NOT_APPLICABLE, STOPPED):
        return record
    peak = max(record["peak_rss_kib"], session.peak_rss_kib)
    return {**record, **session.as_record(), "peak_rss_kib": peak, "rss_source": "session"}


def main(smk) -> None:
    queries = read_queries(Path(smk.input.queries))
    qrels = read_qrels(smk.input.qrels)
    # files.tsv paths are the raw names (surrogate-escaped str), as tools print them.
    known = frozenset(os.fsencode(entry.path) for entry in read_files_tsv(smk.input.files))
    setup = search_setup_of_job(smk, smk.params.timeout)
    tool = setup.tool
    fast, containing, check_cpu = fast_path_walk(smk, setup, queries)
    repeat_cpu: dict[str, float] = {}
    run: dict[str, list[str]] = {}
    records = []
    stop_after = HealthRule.of_config(smk.params.tool_health).stop_after

    def ask(query) -> tuple[SearchResult, bool]:
        """One query: not asked outside the tool's languages, else plain or fast."""
        right = right_paths(qrels.get(query.qid, {}))
        if not covers(tool.spec, query.language):
            return not_run(), False
        if fast is None:
            return run_tool(setup, query.query, right, known, query.decl_line), False
        holders = containing.get(query.qid, set())
        return run_fast(setup, query.query, fast, holders, right, known, query.decl_line)

    def ask_again(qid: str) -> tuple[dict, list[str]]:
        """The repeatability audit's second asking of one query, the same way."""
        result, used_fast = ask(by_qid[qid])
        repeat_cpu[qid] = result.user + result.sys
        return result_record(qid, by_qid[qid].query, result), [encode_path(p) for p in result.files]

    by_qid = {query.qid: query for query in queries}
    repeat = smk.params.repeat
    # A language server on a corpus with none of its languages is never started.
    asked = any(covers(tool.spec, query.language) for query in queries)
    with tool_session(setup) if asked else nullcontext((setup, [])) as (setup, sessions):
        # After stop_after consecutive errors or timeouts the rest is not run (status
        # stopped): a hanging tool costs stop_after timeouts, not one per query.
        for number, (query, outcome) in enumerate(until_stopped(queries, ask, stop_after), 1):
            if outcome is None:
                status = STOPPED if covers(tool.spec, query.language) else NOT_APPLICABLE
                outcome = not_run(status), False
            result, used_fast = outcome
            run[query.qid] = [encode_path(p) for p in result.files]
            records.append(
                {**result_record(query.qid, query.query, result), "fast_path": used_fast}
            )
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
        # in the same session, after every query: a second asking of a seeded sample
        audit = repeatability.audit(
            tool.spec.name, records, run, ask_again, repeat["queries"], smk.params.seed
        )
    logging.info(
        "%s repeatability: %d of %d sampled queries printed something else the second time",
        tool.spec.name,
        audit["differ_output"],
        audit["queries"],
    )
    stopped = sum(r["status"] == STOPPED for r in records)
    if stopped:
        logging.warning(
            "%s stopped after %d consecutive errors or timeouts: %d queries not run "
            "(status stopped); it is broken on this corpus and track",
            tool.spec.name,
            stop_after,
            stopped,
        )
    session = sessions[0] if sessions else None
    if session is not None:
        logging.info(
            "%s session: %s, peak %d KiB, %.1f CPU-s",
            tool.spec.name,
            session.note,
            session.peak_rss_kib,
            session.cpu_seconds,
        )
    raw_lines = [
        json.dumps(
            with_costs(with_session(r, session), check_cpu, repeat_cpu),
            sort_keys=True,
            ensure_ascii=False,
        )
        for r in records
    ]
    write_run(smk.output.run, run, tag=tool.spec.name)
    write_json(smk.output.repeat, audit)
    write_text(Path(smk.output.raw), "".join(line + "\n" for line in raw_lines))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
