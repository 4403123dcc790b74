"""A pooled leaderboard document (results/pooled/{track}.json, the `pooled` rule's contract)
built from the report fixture's own scores, timing and inference, for the report's tests.

Means, per-corpus wins / ties / losses, the per-corpus forest and the costs are the fixture's
real figures; the pooled intervals and p-values are set here (±0.06 around the pooled mean,
p = 0.001), since computing them is the `pooled` rule's job, not the report's: the report shows
what the document says.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import median
from typing import Any

from searchbench.artifacts import read_tsv
from searchbench.metrics import SCORE_COLUMNS
from searchbench.report.summaries import cost_summary, metric_means, timing_summary
from searchbench.timing import TIMING_HEADER

BASELINE = "rg"
HALF_WIDTH = 0.06
NOT_APPLICABLE = [
    {"tool": "bsd-grep", "reason": "binary `bsdgrep` not found on PATH"},
    {"tool": "clangd", "reason": "no C or C++ query on these corpora"},
]


def corpus_pairs(fix: Path, corpus: str, track: str) -> dict[tuple[str, str], dict]:
    """(tool, reference) -> the corpus's comparison on MRR over all queries, both ways."""
    doc = json.loads((fix / corpus / track / "inference.json").read_text())
    out = {}
    for c in doc["comparisons"] + doc.get("pairs", []):
        if c["metric"] == "rr" and c["subset"] == "all":
            out[(c["tool"], c["baseline"])] = c
            flipped = {"detected better": "detected worse", "detected worse": "detected better"}
            out.setdefault(
                (c["baseline"], c["tool"]),
                {
                    **c,
                    "diff": -c["diff"],
                    "ci_low": -c["ci_high"],
                    "ci_high": -c["ci_low"],
                    "verdict": flipped.get(c["verdict"], c["verdict"]),
                },
            )
    return out


def verdict_of(diff: float) -> str:
    return "detected better" if diff - HALF_WIDTH > 0 else (
        "detected worse" if diff + HALF_WIDTH < 0 else "not detected"
    )  # fmt: skip


def pooled_doc(fix: Path, corpora: tuple[str, ...], track: str = "code") -> dict[str, Any]:
    rows = {c: read_tsv(fix / c / track / "scores.tsv", SCORE_COLUMNS) for c in corpora}
    means = {c: metric_means(r, {x["qid"] for x in r}) for c, r in rows.items()}
    costs = {c: cost_summary(r) for c, r in rows.items()}
    pairs = {c: corpus_pairs(fix, c, track) for c in corpora}
    tools = sorted({t for m in means.values() for t in m})
    board = []
    for tool in tools:
        pooled = sum(means[c][tool]["rr"] for c in corpora) / len(corpora)
        every = [float(x["rr"]) for c in corpora for x in rows[c] if x["tool"] == tool]
        verdicts = [pairs[c].get((tool, BASELINE), {}).get("verdict") for c in corpora]
        timing = [
            timing_summary(read_tsv(fix / c / "timing" / f"{tool}.tsv", TIMING_HEADER))
            for c in corpora
            if (fix / c / "timing" / f"{tool}.tsv").exists()
        ]
        board.append(
            {
                "tool": tool,
                "family": "ranker" if tool == "hay" else "grep",
                "corpora": len(corpora),  # a count, as searchbench.pooled writes it
                "queries": len(every),
                "subset": "all",
                "pooled": pooled,
                "ci_low": pooled - HALF_WIDTH,
                "ci_high": pooled + HALF_WIDTH,
                "query_weighted": sum(every) / len(every),
                "wins": 0 if tool == BASELINE else verdicts.count("detected better"),
                "losses": 0 if tool == BASELINE else verdicts.count("detected worse"),
                "ties": 0
                if tool == BASELINE
                else len(verdicts)
                - verdicts.count("detected better")
                - verdicts.count("detected worse"),
                "broken": [],
                "median_seconds": median(t["median_wall_s"] for t in timing) if timing else None,
                "bytes_before_answer": median(costs[c][tool]["bytes_before"] for c in corpora),
                "index_seconds": None,
                "repeatable": tool != "ugrep",
            }
        )
    board.sort(key=lambda r: (-r["pooled"], r["tool"]))
    for rank, row in enumerate(board, start=1):
        row["rank"] = rank
    by_tool = {r["tool"]: r for r in board}
    compared = [("hay", BASELINE, "primary"), (board[0]["tool"], board[1]["tool"], "leader")]
    verdicts, forest = [], []
    for tool, ref, family in compared:
        diff = by_tool[tool]["pooled"] - by_tool[ref]["pooled"]
        verdicts.append(
            {
                "tool": tool,
                "reference": ref,
                "family": family,
                "corpora": len(corpora),  # a count, as searchbench.pooled writes it
                "queries": by_tool[tool]["queries"],
                "diff": diff,
                "ci_low": diff - HALF_WIDTH,
                "ci_high": diff + HALF_WIDTH,
                "p": 0.001,
                "p_holm": 0.001,
                "verdict": verdict_of(diff),
            }
        )
        for c in corpora:
            comp = pairs[c][(tool, ref)]
            forest.append(
                {
                    "tool": tool,
                    "reference": ref,
                    "corpus": c,
                    "n": comp["n"],
                    **{k: comp[k] for k in ("diff", "ci_low", "ci_high", "verdict")},
                }
            )
    return {
        "track": track,
        "metric": "rr",
        "metric_label": "MRR",
        "baseline": BASELINE,
        "alpha": 0.05,
        "resamples": 2000,
        "seed": 1,
        "weighting": "Each corpus weighs the same, whatever its number of queries.",
        "corpora": list(corpora),
        "leaderboard": board,
        "not_applicable": NOT_APPLICABLE,
        "verdicts": verdicts,
        "forest": forest,
    }


def write_pooled(doc: dict[str, Any], results: Path) -> Path:
    """Where the workflow writes it: results/pooled/{track}.json."""
    path = results / "pooled" / f"{doc['track']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return path
