"""How every quality run ended, per corpus, track and tool: a timeout or an error is never
folded into "not found", so it is counted here and shown in the report."""

import json
from collections import Counter
from pathlib import Path

from searchbench.artifacts import tsv_text

STATUS_HEADER = (
    "corpus",
    "track",
    "tool",
    "queries",
    "ok",
    "no-match",
    "error",
    "timeout",
    "not-applicable",
    "fast_path",
    "leftover_processes",
    "unparsed_lines",
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


def format_status(raw_paths: list[Path]) -> str:
    rows = []
    for path in sorted(raw_paths, key=raw_key):
        counts = summarize_raw(path)
        rows.append([*raw_key(path), *(counts[k] for k in STATUS_HEADER[3:])])
    return tsv_text(STATUS_HEADER, rows)
