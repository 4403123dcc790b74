"""Whether each tool searched exactly the corpus's file set (code track)."""

from __future__ import annotations

from searchbench.artifacts import read_tsv
from searchbench.fileset_audit import AUDIT_HEADER
from searchbench.report.charts import Page
from searchbench.report.fmt import dict_table
from searchbench.report.model import Model, Section


def html(page: Page, sec: Section) -> list[str]:
    if sec.track != "code":
        return []
    path = (
        page.model.sources.by_corpus("fileset_audit").get(sec.corpus)
        if page.model.sources
        else None
    )
    rows = read_tsv(path, AUDIT_HEADER) if path is not None else []
    return ["<h3>File-set audit</h3>", dict_table(rows)]


def markdown(model: Model, sec: Section) -> list[str]:
    return []
