"""Number formatting and the HTML and Markdown table helpers every section uses."""

from __future__ import annotations

import html
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from searchbench.measures import METRIC_LABELS

METRICS: tuple[tuple[str, str], ...] = METRIC_LABELS


METRIC_LABEL = dict(METRICS)


TRUE_WORDS = frozenset({"1", "true", "yes", "True", "TRUE"})


def as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def as_bool(value: Any) -> bool:
    return str(value).strip() in TRUE_WORDS


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def present(values: Iterable[Any]) -> list[float]:
    """The values that parse as numbers (empty TSV fields dropped)."""
    return [v for v in map(as_float, values) if v == v]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt_num(x: Any, digits: int = 3) -> str:
    v = as_float(x)
    return "–" if v != v else f"{v:.{digits}f}"


def fmt_signed(x: Any, digits: int = 3) -> str:
    v = as_float(x)
    return "–" if v != v else f"{v:+.{digits}f}"


def fmt_ci(lo: Any, hi: Any) -> str:
    return f"[{fmt_num(lo)}, {fmt_num(hi)}]"


def fmt_p(p: Any) -> str:
    return fmt_num(p, 4)


def fmt_exact(x: Any) -> str:
    """CSV floats: repr-exact (%.17g) as docs/artifacts.md asks; empty when missing."""
    if x is None or x == "":
        return ""
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, int):
        return str(x)
    v = as_float(x)
    return "" if v != v else format(v, ".17g")


def md_escape(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = [
        "| " + " | ".join(md_escape(h) for h in header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def html_table(header: Sequence[str], rows: Iterable[Sequence[Any]], name_cols: int = 1) -> str:
    """A plain table of already-formatted text cells (escaped here)."""
    th = "".join(
        f'<th class="name">{esc(h)}</th>' if i < name_cols else f"<th>{esc(h)}</th>"
        for i, h in enumerate(header)
    )
    body = []
    for r in rows:
        tds = "".join(
            f'<td class="name">{esc(c)}</td>' if i < name_cols else f"<td>{esc(c)}</td>"
            for i, c in enumerate(r)
        )
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(body)}</tbody></table>\n"


def fmt_cell(value: str) -> str:
    """A TSV field for display: long fractions shortened to 3 decimals, the rest as is."""
    if "." in value and value.replace(".", "", 1).replace("-", "", 1).isdigit():
        return f"{float(value):.3f}"
    return value


def dict_table(rows: list[dict[str, str]]) -> str:
    if not rows:
        return '<p class="note">No data.</p>\n'
    header = list(rows[0].keys())
    return html_table(header, [[fmt_cell(r.get(h) or "") for h in header] for r in rows])
