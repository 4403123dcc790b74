"""How the quality runs ended: ok, no match, error, timeout, fast path."""

from __future__ import annotations

from searchbench.artifacts import read_tsv
from searchbench.report.charts import Page
from searchbench.report.fmt import dict_table
from searchbench.report.model import Model
from searchbench.run_status import STATUS_HEADER


def html(page: Page) -> list[str]:
    """How each tool's quality runs ended (run_status.tsv)."""
    path = page.model.sources.one("run_status")
    rows = read_tsv(path, STATUS_HEADER) if path is not None else []
    if not rows:
        return []
    return [
        '<h2 id="runs">How the quality runs ended</h2>',
        "<p>A timeout or an error scores 0 for that query and is counted here, never "
        "folded into <em>not found</em>. <em>fast_path</em> counts queries answered through "
        "the checked, output-equivalent fast path (only files containing the literal, in "
        "the tool's own order).</p>",
        dict_table(rows),
    ]


def markdown(model: Model) -> list[str]:
    return []
