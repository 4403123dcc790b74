"""Where each tool put the right file: the paired differences and the rank buckets, charted."""

from __future__ import annotations

from searchbench.report.charts import CHART_TITLES, Page
from searchbench.report.model import Model, Section


def html(page: Page, sec: Section) -> list[str]:
    out: list[str] = []
    for kind in ("forest", "ranks"):
        if page.has_chart(sec, kind):
            out += [f"<h3>{CHART_TITLES[kind]}</h3>", *page.chart(sec, kind)]
    return out


def markdown(model: Model, sec: Section) -> list[str]:
    return []
