"""Whether each tool searched exactly the corpus's file set (code track)."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import dict_table
from searchbench.report.model import Model, Section


def html(page: Page, sec: Section) -> list[str]:
    if sec.track != "code":
        return []
    return ["<h3>File-set audit</h3>", dict_table(page.model.fileset_audit.get(sec.corpus, []))]


def markdown(model: Model, sec: Section) -> list[str]:
    return []
