"""Filter or rank: where each tool put the answer in its own output, and what sorted before
it (filter_rank.tsv, searchbench/filter_rank.py), pooled over the corpora of each track."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from searchbench.artifacts import read_tsv
from searchbench.filter_rank import CLASSES, COLUMNS, FILES_CLASSIFIED, summary_rows
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_num, html_table, md_table
from searchbench.report.model import Model

TITLE = "Filter or rank: is first place earned?"
NOTE = (
    "The method's hypothesis: a filtering tool's first place is luck (its files come in a path "
    "or walk order, so the answer is first only when its path sorts first); hay's is earned. "
    "Path rank is the answer's rank if the same files were sorted by path. 'first, earned': "
    "the answer was first although another file of the tool's own list sorts before it by "
    "path. When the answer is not first, the files above it (of the first {n}) are counted by "
    "the strongest mention of the name they hold, as a lexer (Pygments) sees it: a use in code, "
    "only inside a longer identifier, only in comments or strings, or a prose file. Lines: the "
    "share of mentions in the first {n} files that are uses in code."
)


def track_rows(model: Model) -> dict[str, list[dict[str, str]]]:
    """track -> every corpus's per-query rows."""
    out: dict[str, list[dict[str, str]]] = {}
    for (_corpus, track), path in model.sources.keyed("filter_rank").items():
        out.setdefault(track, []).extend(read_tsv(path, COLUMNS))
    return out


def share(part: Any, whole: Any) -> str:
    return f"{int(part) / int(whole):.0%}" if int(whole) else "–"


def table(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    header = [
        "tool",
        "queries",
        "first",
        "first, earned",
        "rank = path rank",
        "promoted",
        "demoted",
        "median rank when not first",
        *(f"above: {c}" for c in CLASSES),
        "mentions that are uses",
    ]
    body = []
    for s in summary_rows(rows):
        above = sum(int(s[f"before_{c}"]) for c in CLASSES)
        body.append(
            [
                str(s["tool"]),
                str(s["queries"]),
                share(s["first"], s["queries"]),
                share(s["first_promoted"], s["first"]),
                share(s["rank_is_path_rank"], s["found"]),
                share(s["promoted"], s["found"]),
                share(s["demoted"], s["found"]),
                fmt_num(s["median_rank_not_first"], 1),
                *(share(s[f"before_{c}"], above) for c in CLASSES),
                "–" if s["use_line_share"] is None else f"{s['use_line_share']:.0%}",
            ]
        )
    return header, body


def html(page: Page) -> list[str]:
    out = []
    for track, rows in sorted(track_rows(page.model).items()):
        if not out:
            out += [
                f'<h2 id="filter-rank">{esc(TITLE)}</h2>',
                f"<p>{esc(NOTE.format(n=FILES_CLASSIFIED))}</p>",
            ]
        header, body = table(rows)
        out += [
            f"<h3>{esc(track)} track, every corpus</h3>",
            '<div class="scroll">' + html_table(header, body) + "</div>",
        ]
    return out


def markdown(model: Model) -> list[str]:
    out = []
    for track, rows in sorted(track_rows(model).items()):
        if not out:
            out += [f"## {TITLE}\n", NOTE.format(n=FILES_CLASSIFIED) + "\n"]
        header, body = table(rows)
        out += [f"### {track} track, every corpus\n", md_table(header, body)]
    return out
