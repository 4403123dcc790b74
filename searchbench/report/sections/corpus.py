"""One corpus and track: its parts, in page order, each rendering itself."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.model import Model
from searchbench.report.sections import (
    cost,
    distributions,
    fast_path,
    fileset,
    funnel,
    languages,
    pairs,
    power,
    results,
    timing,
)

PARTS = (results, languages, power, pairs, distributions, cost, timing, funnel, fileset, fast_path)


def html(page: Page) -> list[str]:
    return [line for sec in page.model.sections for part in PARTS for line in part.html(page, sec)]


def markdown(model: Model) -> list[str]:
    return [line for sec in model.sections for part in PARTS for line in part.markdown(model, sec)]
