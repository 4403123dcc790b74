"""Coverage and what an agent reads before the answer, per tool."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import fmt_num, html_table
from searchbench.report.model import Model, Section


def cost_table(sec: Section) -> str:
    rows = []
    for tool in sec.tools:
        c = sec.cost.get(tool)
        if not c:
            continue
        rows.append(
            [
                tool,
                f"{c['found']}/{c['queries']}",
                c["no_match"],
                c["error"],
                c["timeout"],
                fmt_num(c["returned"], 1),
                fmt_num(c["lines_before"], 1),
                fmt_num(c["bytes_before"], 0),
                fmt_num(c["line_rank"], 1),
            ]
        )
    return html_table(
        [
            "tool",
            "found",
            "no match",
            "errors",
            "timeouts",
            "median files returned",
            "median lines before answer",
            "median bytes before answer",
            "median line rank",
        ],
        rows,
    )


def html(page: Page, sec: Section) -> list[str]:
    return ["<h3>Coverage and cost to reach the answer</h3>", cost_table(sec)]


def markdown(model: Model, sec: Section) -> list[str]:
    return []
