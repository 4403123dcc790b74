"""The report's sections in page order.

Each module renders itself: `html(page) -> list[str]` and `markdown(model) -> list[str]`
(an empty list where a format leaves it out). `corpus` repeats its own parts for every
corpus and track. Adding a section: one module, one entry here, one rule input
(searchbench/report/inputs.py).
"""

from searchbench.report.sections import (
    ablations,
    agent_cost,
    agreement,
    calibration,
    corpus,
    docs_unmeasured,
    false_firings,
    families,
    filter_rank,
    intro,
    overview,
    pooled_languages,
    provenance,
    runs,
    skipped,
    ties,
    tracks,
    weaknesses,
)

SECTIONS = (
    intro,
    overview,
    families,
    tracks,
    pooled_languages,
    ablations,
    filter_rank,
    ties,
    false_firings,
    agent_cost,
    calibration,
    weaknesses,
    agreement,
    corpus,
    docs_unmeasured,
    runs,
    skipped,
    provenance,
)
