"""How every quality run ended, per corpus, track and tool: a timeout or an error is never
folded into "not found", so it is counted here and shown in the report; and which tools are
broken where (searchbench.health), with why."""

import json
import logging
from collections import Counter
from pathlib import Path

from searchbench.artifacts import tsv_text
from searchbench.health import HealthRule, ToolHealth, raw_records, tool_health
from searchbench.statuses import RUN_STATUSES

STATUS_HEADER = (
    "corpus",
    "track",
    "tool",
    "queries",
    *RUN_STATUSES,  # each status's count
    "fast_path",
    "leftover_processes",
    "unparsed_lines",
    "unparsed_no_match",
    "foreign_paths",
    "failure_share",
    "health",
)


def summarize_raw(path: Path) -> dict[str, int]:
    counts: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        counts["queries"] += 1
        counts[record["status"]] += 1
        counts["fast_path"] += bool(record.get("fast_path"))
        counts["leftover_processes"] += record.get("leftover_processes", 0)
        counts["unparsed_lines"] += record.get("unparsed", 0)
    return counts


def raw_key(path: Path) -> tuple[str, str, str]:
    """(corpus, track, tool) of results/{corpus}/{track}/raw/{tool}.jsonl."""
    return path.parents[2].name, path.parents[1].name, path.stem


def status_row(path: Path, rule: HealthRule) -> tuple[list[object], ToolHealth]:
    counts = summarize_raw(path)
    health = tool_health(raw_key(path)[2], raw_records(path), rule)
    by_health = {
        "unparsed_no_match": health.unparsed_no_match,
        "foreign_paths": health.foreign_paths,
        "failure_share": f"{health.share:.4f}",
        "health": health.row()[-1],
    }
    row = [*raw_key(path), *(by_health.get(k, counts[k]) for k in STATUS_HEADER[3:])]
    return row, health


def format_status(raw_paths: list[Path], rule: HealthRule | None = None) -> str:
    """run_status.tsv; each broken tool is also logged, one line each (the run goes on)."""
    rule = rule or HealthRule()
    rows = []
    for path in sorted(raw_paths, key=raw_key):
        row, health = status_row(path, rule)
        if health.broken:
            corpus, track, tool = raw_key(path)
            logging.warning("%s is broken on %s/%s: %s", tool, corpus, track, health.reason)
        rows.append(row)
    return tsv_text(STATUS_HEADER, rows)
