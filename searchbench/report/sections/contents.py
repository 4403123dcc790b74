"""The table of contents, after the page's answer (leaderboards, verdicts) and before the
detail."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import esc
from searchbench.report.model import Model


def html(page: Page) -> list[str]:
    model = page.model
    toc = "".join(
        f'<li><a href="#{esc(s.corpus)}-{esc(s.track)}">{esc(s.key)}</a></li>'
        for s in model.sections
    )
    variants = (
        '<li><a href="#variants">variants, judged on held-out corpora</a></li>'
        if model.config.get("variants")
        else ""
    )
    return [
        '<h2 id="contents">Contents</h2>',
        '<ul><li><a href="#leaderboards">leaderboards</a></li>'
        '<li><a href="#pooled-verdicts">pooled verdicts</a></li>'
        '<li><a href="#families">best of each family</a></li>'
        '<li><a href="#languages">results by language, pooled</a></li>'
        f'<li><a href="#ablations">what each hay signal is worth</a></li>{variants}'
        '<li><a href="#method">method</a></li>'
        '<li><a href="#weaknesses">where this benchmark is wrong</a></li>'
        f'{toc}<li><a href="#agreement">do the metrics agree?</a></li>'
        '<li><a href="#runs">how the runs ended</a></li>'
        '<li><a href="#skipped">tools skipped</a></li>'
        '<li><a href="#provenance">provenance</a></li></ul>',
    ]


def markdown(model: Model) -> list[str]:
    return []
