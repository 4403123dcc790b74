"""The repeatability audit (issue 32 item 6): each search job asks a seeded sample of its
answered queries a second time, the same way (plain or fast path, in the same session), and
results/{corpus}/{track}/repeat/{tool}.json says how many printed something else. A tool whose
output differs between two runs of one query (probe-code 0.6.0's walk) is flagged beside its
scores: its figures describe one draw, not the tool.

Only queries that ended normally (ok or no-match) are asked again: a timeout or error is the
health rule's business, and a second timeout would say nothing about order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from searchbench.statuses import ANSWERED
from searchbench.subsample import seeded_subsample

EXAMPLES = 5


def sample(records: Sequence[dict[str, Any]], k: int, seed: int) -> list[str]:
    """Up to k qids of the answered queries, seeded and sorted (docs/method.md §8)."""
    return seeded_subsample([r["qid"] for r in records if r["status"] in ANSWERED], k, seed)


def check(first: dict[str, Any], first_files: list[str], again: dict[str, Any],
          again_files: list[str]) -> dict[str, Any]:  # fmt: skip
    """One query asked twice: the same bytes printed, and the same files in the same order
    (what the scores read). A status change counts as different output."""
    same_output = first["status"] == again["status"] and (
        first["stdout_sha256"] == again["stdout_sha256"]
    )
    return {
        "same_output": same_output,
        "same_files": first["status"] == again["status"] and first_files == again_files,
        "status": [first["status"], again["status"]],
    }


def summary(tool: str, checks: dict[str, dict[str, Any]], k: int, seed: int) -> dict[str, Any]:
    """The audit's record: counts, and the first differing qids as examples."""
    differ_output = sorted(q for q, c in checks.items() if not c["same_output"])
    differ_files = sorted(q for q, c in checks.items() if not c["same_files"])
    return {
        "tool": tool,
        "settings": {"queries": k, "seed": seed},
        "queries": len(checks),
        "differ_output": len(differ_output),
        "differ_files": len(differ_files),
        "examples": differ_output[:EXAMPLES],
        "checks": checks,
    }


def audit(
    tool: str,
    records: Sequence[dict[str, Any]],
    files: dict[str, list[str]],
    ask_again: Callable[[str], tuple[dict[str, Any], list[str]]],
    k: int,
    seed: int,
) -> dict[str, Any]:
    """Ask the sampled queries again (ask_again: qid -> its record and files) and compare."""
    by_qid = {r["qid"]: r for r in records}
    checks = {}
    for qid in sample(records, k, seed):
        record, again_files = ask_again(qid)
        checks[qid] = check(by_qid[qid], files[qid], record, again_files)
    return summary(tool, checks, k, seed)


def pooled_flag(documents: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A tool's repeatability over the corpora pooled: repeatable is None when no query was
    audited (never read as "repeated"), else whether every audited query printed the same."""
    queries = sum(int(d["queries"]) for d in documents)
    differ = sum(int(d["differ_output"]) for d in documents)
    return {
        "repeatable": None if queries == 0 else differ == 0,
        "repeat_queries": queries,
        "repeat_differ": differ,
    }
