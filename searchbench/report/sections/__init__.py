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
    contents,
    corpus,
    docs_unmeasured,
    false_firings,
    families,
    filter_rank,
    intro,
    leaderboard,
    method,
    overview,
    pooled_languages,
    pooled_verdicts,
    provenance,
    runs,
    skipped,
    strata,
    ties,
    tracks,
    variants,
    weaknesses,
)

SECTIONS = (
    intro,
    leaderboard,
    pooled_verdicts,
    contents,
    overview,
    families,
    tracks,
    strata,
    pooled_languages,
    ablations,
    variants,
    filter_rank,
    ties,
    false_firings,
    agent_cost,
    calibration,
    method,
    weaknesses,
    agreement,
    corpus,
    docs_unmeasured,
    runs,
    skipped,
    provenance,
)
