"""Reading a track's raw/{tool}.jsonl (the runner's record of every query): one reader for
scoring, timing, filter-or-rank, agent cost and the pooled table. Apart from metrics, which
imports pandas: the timing jobs read these records and nothing else of it."""

import json
import os

from searchbench.errors import BenchError


def read_raw_records(path: str | os.PathLike) -> dict[str, dict]:
    """Read a raw/{tool}.jsonl file into {qid: record}; each qid exactly once."""
    records: dict[str, dict] = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise BenchError(f"{path}:{lineno}: not a JSON object ({err.msg})") from None
            qid = record.get("qid") if isinstance(record, dict) else None
            if not isinstance(qid, str):
                raise BenchError(f"{path}:{lineno}: record has no string 'qid'")
            if qid in records:
                raise BenchError(f"{path}:{lineno}: qid {qid!r} appears twice")
            records[qid] = record
    return records


def with_costs(record: dict, check_cpu: dict[str, float], repeat_cpu: dict[str, float]) -> dict:
    """A query's record with the tool's CPU its search job spent on the query beyond its run,
    where it spent some: the fast-path check's two runs (check_cpu_seconds) and the
    repeatability audit's second asking (repeat_cpu_seconds), so that every tool process of
    the job is counted as the tool's, not as the runner's. Like elapsed, they vary."""
    qid = record["qid"]
    extra = {}
    if qid in check_cpu:
        extra["check_cpu_seconds"] = round(check_cpu[qid], 6)
    if qid in repeat_cpu:
        extra["repeat_cpu_seconds"] = round(repeat_cpu[qid], 6)
    return {**record, **extra}
