"""Filter or rank (issue 11 item 1, method §6 and §10.1): where the answer sits in each tool's
own output, and what sorted before it.

The method's hypothesis: hay's first place is earned (its order carries information about
the declaration), a filtering tool's first place is luck (its order is a path order, so the
answer is first only when its path happens to sort first). Per query and tool this module
records what refutes or supports that:

- what the tool printed: lines and files (the raw record's counts);
- the answer's file rank in the tool's own list, its line rank in the tool's own output,
  and its *path rank*: the rank it would have if the same files were sorted by path bytes
  (rank == path rank on every query: the order is path order; rank < path rank: promoted);
- the first FILES_CLASSIFIED files of the tool's list (two first pages of ten results),
  each classified by the strongest mention of the query it holds: `use` (the whole name as
  code), `longer` (only inside a longer identifier), `comment_or_string`, or `none` (a tool
  that matched something else); prose files (Markdown, reST, text) are `prose`. The same
  lines are counted, and `before_*` counts those files ranked above the answer.

The classification is a lexer's (Pygments: a well-kept tokenizer for every language we
measure), not the symbol-table parser's: it knows comments, strings and identifiers, not
declarations. A preprocessor line (`#define NAME`) is code, not a comment.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pygments.lexers import get_lexer_for_filename
from pygments.token import Comment, String
from pygments.util import ClassNotFound

from searchbench.artifacts import tsv_text, write_text
from searchbench.hay.signals import is_prose_file
from searchbench.paths import decode_path

FILES_CLASSIFIED = 20
CLASSES = ("use", "longer", "comment_or_string", "prose", "none")
# The strongest mention decides a file's class: a real use beats every other kind.
STRENGTH = {c: i for i, c in enumerate(CLASSES)}
LINE_CLASSES = ("use", "longer", "comment_or_string")

COLUMNS = (
    "qid",
    "tool",
    "status",
    "lines",
    "files",
    "rank",
    "path_rank",
    "line_rank",
    "classified_files",
    *(f"files_{c}" for c in CLASSES),
    *(f"lines_{c}" for c in LINE_CLASSES),
    *(f"before_{c}" for c in CLASSES),
    "first_file_class",
)
SUMMARY_COLUMNS = (
    "tool",
    "queries",
    "found",
    "first",
    "first_also_by_path",
    "first_promoted",
    "rank_is_path_rank",
    "promoted",
    "demoted",
    "median_rank_not_first",
    "median_before_not_first",
    *(f"before_{c}" for c in CLASSES),
    "use_line_share",
)
_WORD = r"[\w$]"


def cell(value: Any) -> str:
    """A TSV field: empty for None, floats in full (byte-identical reruns)."""
    if value is None:
        return ""
    return f"{value:.17g}" if isinstance(value, float) else str(value)


def bounded(symbol: str) -> re.Pattern[str]:
    """The name as a whole identifier (no word character on either side)."""
    return re.compile(rf"(?<!{_WORD}){re.escape(symbol)}(?!{_WORD})")


def _is_comment_or_string(ttype: Any) -> bool:
    if ttype in Comment.Preproc or ttype in Comment.PreprocFile:
        return False  # `#define NAME` and `#include` lines are code
    return ttype in Comment or ttype in String


@functools.lru_cache(maxsize=256)
def _lexer(name: str) -> Any:
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def quoted_spans(path: str, text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the comments and strings of a file, in order;
    none for a file no lexer knows (every mention then counts as code)."""
    lexer = _lexer(os.path.basename(path))
    if lexer is None:
        return []
    spans: list[tuple[int, int]] = []
    at = 0
    for ttype, value in lexer.get_tokens(text):
        end = at + len(value)
        if _is_comment_or_string(ttype):
            if spans and spans[-1][1] == at:
                spans[-1] = (spans[-1][0], end)  # merge adjacent pieces of one comment
            else:
                spans.append((at, end))
        at = end
    return spans


def classify_lines(text: str, spans: Sequence[tuple[int, int]], symbol: str) -> dict[int, str]:
    """line number -> the strongest kind of mention of `symbol` on it, for lines holding it."""
    out: dict[int, str] = {}
    starts = [s for s, _ in spans]
    word = bounded(symbol)
    at = text.find(symbol)
    while at >= 0:
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < spans[i][1]:
            kind = "comment_or_string"
        else:
            kind = "use" if word.match(text, at) is not None else "longer"
        line = text.count("\n", 0, at) + 1
        if line not in out or STRENGTH[kind] < STRENGTH[out[line]]:
            out[line] = kind
        at = text.find(symbol, at + 1)
    return out


def file_class(path: str, lines: Mapping[int, str]) -> str:
    if is_prose_file(os.fsencode(path)):
        return "prose"
    if not lines:
        return "none"
    return min(lines.values(), key=STRENGTH.__getitem__)


def path_rank(ranked: Sequence[str], answer: str) -> int:
    """The answer's rank if the same docids were sorted by path bytes."""
    ordered = sorted(ranked, key=lambda d: os.fsencode(decode_path(d)))
    return ordered.index(answer) + 1


class Classifier:
    """Reads and lexes each corpus file once (the last CACHED files are kept)."""

    CACHED = 4096

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = functools.lru_cache(maxsize=self.CACHED)(self._read)

    def _read(self, docid: str) -> tuple[str, list[tuple[int, int]]]:
        path = decode_path(docid)
        try:
            data = (self.root / path).read_bytes()
        except OSError:
            data = b""  # a path the tool invented or could not have read: no mention
        text = data.decode("utf-8", "replace")
        return text, quoted_spans(path, text)

    def lines(self, docid: str, symbol: str) -> dict[int, str]:
        text, spans = self.files(docid)
        return classify_lines(text, spans, symbol) if symbol in text else {}


def query_row(
    qid: str,
    tool: str,
    symbol: str,
    ranked: Sequence[str],
    answers: frozenset[str],
    record: Mapping[str, Any],
    classifier: Classifier,
) -> dict[str, Any]:
    rank = next((i for i, d in enumerate(ranked, 1) if d in answers), 0)
    row: dict[str, Any] = {
        "qid": qid,
        "tool": tool,
        "status": record.get("status", ""),
        "lines": record.get("lines", ""),
        "files": record.get("files", ""),
        "rank": rank,
        "path_rank": path_rank(ranked, ranked[rank - 1]) if rank else 0,
        "line_rank": record.get("decl_line_rank") or 0,
    }
    shown = ranked[:FILES_CLASSIFIED]
    row["classified_files"] = len(shown)
    files = {c: 0 for c in CLASSES}
    lines = {c: 0 for c in LINE_CLASSES}
    before = {c: 0 for c in CLASSES}
    classes = []
    for i, docid in enumerate(shown, 1):
        marks = classifier.lines(docid, symbol)
        kind = file_class(decode_path(docid), marks)
        classes.append(kind)
        files[kind] += 1
        for mark in marks.values():
            lines[mark] += 1
        if rank == 0 or i < rank:
            before[kind] += 1
    row.update({f"files_{c}": n for c, n in files.items()})
    row.update({f"lines_{c}": n for c, n in lines.items()})
    row.update({f"before_{c}": n for c, n in before.items()})
    row["first_file_class"] = classes[0] if classes else "-"
    return row


def filter_rank_rows(
    queries: Sequence[Mapping[str, str]],
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    raw: Mapping[str, Mapping[str, Mapping[str, Any]]],
    root: Path,
) -> list[dict[str, Any]]:
    """One row per query and tool, in qid then tool order."""
    classifier = Classifier(root)
    rows = []
    for q in sorted(queries, key=lambda q: q["qid"]):
        answers = frozenset(d for d, grade in qrels.get(q["qid"], {}).items() if grade > 0)
        for tool in sorted(runs):
            rows.append(
                query_row(
                    q["qid"],
                    tool,
                    q["query"],
                    runs[tool].get(q["qid"], []),
                    answers,
                    raw[tool].get(q["qid"], {}),
                    classifier,
                )
            )
    return rows


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def summary_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per tool: the figures that would refute 'first place is luck' or 'earned'."""
    by_tool: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_tool.setdefault(str(r["tool"]), []).append(r)
    out = []
    for tool in sorted(by_tool):
        rs = by_tool[tool]
        found = [r for r in rs if int(r["rank"])]
        first = [r for r in found if int(r["rank"]) == 1]
        later = [r for r in found if int(r["rank"]) > 1]
        use_lines = sum(int(r["lines_use"]) for r in rs)
        all_lines = sum(int(r[f"lines_{c}"]) for r in rs for c in LINE_CLASSES)
        out.append(
            {
                "tool": tool,
                "queries": len(rs),
                "found": len(found),
                "first": len(first),
                "first_also_by_path": sum(int(r["path_rank"]) == 1 for r in first),
                "first_promoted": sum(int(r["path_rank"]) > 1 for r in first),
                "rank_is_path_rank": sum(int(r["rank"]) == int(r["path_rank"]) for r in found),
                "promoted": sum(int(r["rank"]) < int(r["path_rank"]) for r in found),
                "demoted": sum(int(r["rank"]) > int(r["path_rank"]) for r in found),
                "median_rank_not_first": _median([int(r["rank"]) for r in later]),
                "median_before_not_first": _median(
                    [sum(int(r[f"before_{c}"]) for c in CLASSES) for r in later]
                ),
                **{f"before_{c}": sum(int(r[f"before_{c}"]) for r in later) for c in CLASSES},
                "use_line_share": use_lines / all_lines if all_lines else None,
            }
        )
    return out


def write_filter_rank(
    rows: Sequence[Mapping[str, Any]], tsv: str | os.PathLike, summary: str | os.PathLike
) -> None:
    write_text(tsv, tsv_text(COLUMNS, ([cell(r[c]) for c in COLUMNS] for r in rows)))
    summ = summary_rows(rows)
    write_text(
        summary,
        tsv_text(SUMMARY_COLUMNS, ([cell(r[c]) for c in SUMMARY_COLUMNS] for r in summ)),
    )
