"""The findings at the top of the page: three to six sentences, each a pure function of the
pooled documents (results/pooled/{track}.json), so that no number in them is written by hand.

One sentence per track names its leader, by how much it leads the runner-up and that
comparison's verdict; one says where the tool under test (hay) wins and loses against the
baseline; one names the compared tools that cannot be told apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from searchbench.measures import DETECTED, TRACKS, Verdict
from searchbench.report.fmt import fmt_ci, fmt_num, fmt_signed

MAX_SENTENCES = 6
MAX_PAIRS = 4  # pairs named in the "cannot be told apart" sentence; the rest are counted
# Verdicts that compared nothing, and those that are not "cannot be told apart".
NO_COMPARISON = frozenset({Verdict.NOT_APPLICABLE.value, Verdict.BROKEN.value})
UNTOLD_EXCLUDED = DETECTED | NO_COMPARISON


def track_order(docs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documents in the benchmark's track order (code, docs, usage, behaviour)."""
    rank = {t: i for i, t in enumerate(TRACKS)}
    return sorted(docs, key=lambda d: (rank.get(str(d["track"]), len(rank)), str(d["track"])))


def interval(row: dict[str, Any]) -> str:
    return fmt_ci(row.get("ci_low"), row.get("ci_high"))


def corpora_words(n: int) -> str:
    return f"{n} corpus" if n == 1 else f"{n} corpora"


def leader_sentence(doc: dict[str, Any]) -> str | None:
    """Who leads the track, on what (its own corpora and queries), by how much over the
    runner-up the pooled rule compared it with, and whether that is detected."""
    board = doc["leaderboard"]
    if not board:
        return None
    top = board[0]
    label, track = doc["metric_label"], doc["track"]
    scope = corpora_words(int(top["corpora"]))
    if top.get("subset", "all") != "all":
        scope += f", {top['subset']}"
    head = (
        f"On the {track} track, {top['tool']} leads on {label} with {fmt_num(top['pooled'])} "
        f"{interval(top)} pooled over {scope}"
    )
    comp = next(
        (v for v in doc["verdicts"] if v["family"] == "leader" and v["tool"] == top["tool"]),
        None,
    )
    if comp is None and top.get("ablation_of"):
        # the pooled rule pairs the first tool that is not an ablation variant (leader_pair)
        comp = next((v for v in doc["verdicts"] if v["family"] == "leader"), None)
        if comp is not None:
            head += f" (a variant of {top['ablation_of']}); of the other tools {comp['tool']} leads"
            top = tool_row(doc, str(comp["tool"])) or top
            board = [r for r in board if not r.get("ablation_of")]
    if comp is None:
        return head + "; no other tool was asked its queries, so it is compared with none."
    verdict = str(comp["verdict"])
    tail = "" if verdict in DETECTED else ": the two cannot be told apart"
    # the pooled rule's runner-up: the next tool, not a variant of the leader, that shares
    # queries with it (searchbench.pooled.leader_pair); said so when it is not the second row
    reference = str(comp["reference"])
    if len(board) > 1 and board[1]["tool"] == reference:
        whom = f"the runner-up {reference}"
    else:
        whom = f"{reference}, the next tool that is not one of its variants and shares its queries"
    return f"{head}, {fmt_signed(comp['diff'])} {interval(comp)} against {whom} ({verdict}{tail})."


def tool_row(doc: dict[str, Any], tool: str) -> dict[str, Any] | None:
    return next((r for r in doc["leaderboard"] if r["tool"] == tool), None)


def tool_clause(doc: dict[str, Any], tool: str) -> str | None:
    """The tool's pooled difference and verdict against the baseline on one track and its
    per-corpus wins / ties / losses; None where it was not ranked."""
    row = tool_row(doc, tool)
    if row is None or tool == doc["baseline"]:
        return None
    comp = next(
        (
            v
            for v in doc["verdicts"]
            if v["family"] == "primary" and v["tool"] == tool
            and v["reference"] == doc["baseline"]
        ),
        None,
    )  # fmt: skip
    per_corpus = f"per corpus {row['wins']} won, {row['ties']} not told apart, {row['losses']} lost"
    if comp is None:
        return f"on the {doc['track']} track no pooled comparison ({per_corpus})"
    return (
        f"on the {doc['track']} track {fmt_signed(comp['diff'])} {interval(comp)} "
        f"{doc['metric_label']} ({comp['verdict']}; {per_corpus})"
    )


def tool_sentence(docs: Sequence[dict[str, Any]], tool: str) -> str | None:
    """Where the tool under test wins and where it loses against the baseline."""
    clauses = [c for c in (tool_clause(d, tool) for d in docs) if c]
    if not clauses:
        return None
    return f"Where {tool} wins and loses against {docs[0]['baseline']}: " + "; ".join(clauses) + "."


def apart_sentence(docs: Sequence[dict[str, Any]]) -> str | None:
    """The pooled comparisons that reached no detected difference."""
    pairs = [
        f"{v['tool']} and {v['reference']} on {d['track']} ({fmt_signed(v['diff'])} "
        f"{interval(v)}, {v['verdict']})"
        for d in docs
        for v in d["verdicts"]
        if str(v["verdict"]) not in UNTOLD_EXCLUDED
    ]
    compared = sum(str(v["verdict"]) not in NO_COMPARISON for d in docs for v in d["verdicts"])
    if not compared:
        return None
    if not pairs:
        return f"All {compared} pooled comparisons found a difference (detected better or worse)."
    more = len(pairs) - MAX_PAIRS
    tail = f"; and {more} more (pooled verdicts below)" if more > 0 else ""
    return "Cannot be told apart: " + "; ".join(pairs[:MAX_PAIRS]) + tail + "."


def findings(docs: Sequence[dict[str, Any]], tool: str = "hay") -> list[str]:
    """Three to six sentences from the pooled documents (none when there are none): the
    leaders of the first four tracks, the tool under test against the baseline, the ties."""
    ordered = track_order(docs)
    leaders = [s for s in map(leader_sentence, ordered) if s]
    rest = [s for s in (tool_sentence(ordered, tool), apart_sentence(ordered)) if s]
    return (leaders[: MAX_SENTENCES - len(rest)] + rest)[:MAX_SENTENCES]
