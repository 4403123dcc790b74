"""Why tools tie: per pair of tools, summed over the corpora of a track, how often the two
agree on the file order and on the answer's rank, and why the rank differs where it does
(results/{corpus}/{track}/ties.tsv, searchbench/ties.py)."""

from __future__ import annotations

from searchbench.artifacts import read_tsv
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, html_table, md_table
from searchbench.report.model import Model
from searchbench.ties import CAUSES, COLUMNS

TITLE = "Why tools tie"
# Twelve tools make 66 pairs a track: the pairs that tie most and least say the most.
SHOWN = 6
COUNTS = ("queries", "identical_order", "identical_rank", *CAUSES)
LABELS = {
    "file_skipped": "file skipped",
    "match_rule": "match rule",
    "other": "other",
    "order": "order",
    "tool_failed": "tool failed",
}
NOTE = (
    "Per pair of tools, every query of every corpus of the track: the share whose two file "
    "lists are identical, whose answer (first right file) has the same rank (both not found "
    "included), and, where the ranks differ, one cause each, the first that applies: tool "
    "failed (an error or a timeout in either); file skipped (a file that decides the rank, "
    "one tool's files up to its answer that the other does not have up to its own, or the "
    "answer only one found, is outside the other tool's file set: hidden, ignored, binary, "
    "not its language); match rule (the other tool searches that file but did not print "
    "it); other (the tool that did not print it cannot list what it searches, as ctags, so "
    "skip and match rule look alike); order (both print every such file, on different sides "
    "of the answer: walk, sort or ranking order). The cause columns add up, with same rank, "
    "to 100% (a cause no pair has is left out). Shown: the pairs that tie most and least by "
    "rank; every pair is in each corpus's ties.tsv, with one example query per cause."
)

Totals = dict[tuple[str, str, str], dict[str, int]]


def totals(model: Model) -> Totals:
    """(track, tool_a, tool_b) -> every count summed over the corpora of the track."""
    out: Totals = {}
    for path in model.sources.keyed("ties").values():
        for r in read_tsv(path, COLUMNS):
            sums = out.setdefault((r["track"], r["tool_a"], r["tool_b"]), dict.fromkeys(COUNTS, 0))
            for column in COUNTS:
                sums[column] += int(r[column])
    return out


def share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "–"


def tie_order(item: tuple[tuple[str, str, str], dict[str, int]]) -> tuple:
    """Most ties first: by same-rank share, then same-order share, then the pair's names."""
    (track, a, b), c = item
    n = c["queries"] or 1
    return (track, -c["identical_rank"] / n, -c["identical_order"] / n, a, b)


def shown(items: list) -> tuple[list, int]:
    """The SHOWN pairs that tie most and the SHOWN that tie least, and how many are left out."""
    if len(items) <= 2 * SHOWN:
        return items, 0
    return items[:SHOWN] + items[-SHOWN:], len(items) - 2 * SHOWN


def occurring(found: Totals) -> list[str]:
    """The causes some pair has (tool failed is usually none): fewer, readable columns."""
    return [cause for cause in CAUSES if any(c[cause] for c in found.values())]


def table(found: Totals) -> tuple[list[str], list[list[str]]]:
    causes = occurring(found)
    header = ["track", "pair", "queries", "same order", "same rank"]
    header += [LABELS[c] for c in causes]
    body: list[list[str]] = []
    for track in sorted({key[0] for key in found}):
        items = sorted(((k, c) for k, c in found.items() if k[0] == track), key=tie_order)
        kept, left_out = shown(items)
        for index, ((_, a, b), c) in enumerate(kept):
            if left_out and index == SHOWN:
                body.append([track, f"… {left_out} more pairs", *[""] * (len(header) - 2)])
            n = c["queries"]
            body.append(
                [track, f"{a} · {b}", str(n), share(c["identical_order"], n),
                 share(c["identical_rank"], n), *(share(c[cause], n) for cause in causes)]
            )  # fmt: skip
    return header, body


def html(page: Page) -> list[str]:
    found = totals(page.model)
    if not found:
        return []
    header, body = table(found)
    return [f'<h2 id="ties">{esc(TITLE)}</h2>', f"<p>{esc(NOTE)}</p>",
            '<div class="scroll">' + html_table(header, body, name_cols=2) + "</div>"]  # fmt: skip


def markdown(model: Model) -> list[str]:
    found = totals(model)
    if not found:
        return []
    header, body = table(found)
    return [f"## {TITLE}\n", NOTE + "\n", md_table(header, body)]
