"""How the quality runs ended: ok, no match, error, timeout, fast path."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import dict_table
from searchbench.report.model import Model


def html(page: Page) -> list[str]:
    """How each tool's quality runs ended (run_status.tsv)."""
    if not page.model.run_status:
        return []
    return [
        '<h2 id="runs">How the quality runs ended</h2>',
        "<p>A timeout or an error scores 0 for that query and is counted here, never "
        "folded into <em>not found</em>. <em>fast_path</em> counts queries answered through "
        "the checked, output-equivalent fast path (only files containing the literal, in "
        "the tool's own order).</p>",
        dict_table(page.model.run_status),
    ]


def markdown(model: Model) -> list[str]:
    return []
