"""Whether the metrics point the same way: per declared comparison, the signs of the
MRR, success@10, nDCG@10 and recall@10 differences, with the disagreements counted and
listed."""

from __future__ import annotations

from dataclasses import dataclass

from searchbench.measures import DETECTED, SUBSETS
from searchbench.report.charts import Page
from searchbench.report.fmt import METRICS, as_float, esc, fmt_signed, html_table, md_table
from searchbench.report.model import Model, Section

WHY_TWO_KINDS = (
    "Two kinds of metric are shown because averaging ranks is disputed (MRR treats the step "
    "from rank 1 to 2 as larger than from 2 to 100, and a mean of reciprocal ranks is not an "
    "interval quantity), while a proportion is not: success@10 is the share of queries whose "
    "answer is on the first page. A conclusion that holds on both kinds does not rest on "
    "that choice; where the signs differ it does, and the disagreement is listed here."
)


@dataclass(frozen=True)
class Agreement:
    corpus: str
    track: str
    tool: str
    reference: str
    subset: str
    diffs: tuple[float, ...]  # in METRICS order
    verdicts: tuple[str, ...]

    @property
    def disagrees(self) -> bool:
        """Some metric says better and another says worse (a zero takes no side)."""
        return any(d > 0 for d in self.diffs) and any(d < 0 for d in self.diffs)


def agreements(sec: Section) -> list[Agreement]:
    """One per tool and subset that has a difference on every metric."""
    out = []
    for tool in sec.tools:
        for subset in SUBSETS:
            comps = [sec.comparisons.get((tool, metric, subset)) for metric, _ in METRICS]
            if any(c is None for c in comps):
                continue
            diffs = tuple(as_float(c.get("diff")) for c in comps if c is not None)
            verdicts = tuple(str(c["verdict"]) for c in comps if c is not None)
            if all(d == d for d in diffs):  # NaN: no difference to compare
                reference = str(comps[0].get("baseline", sec.baseline)) if comps[0] else ""
                out.append(
                    Agreement(sec.corpus, sec.track, tool, reference, subset, diffs, verdicts)
                )
    return out


def summary(model: Model) -> tuple[int, list[Agreement]]:
    found = [a for sec in model.sections for a in agreements(sec)]
    return len(found), [a for a in found if a.disagrees]


def rows(disagreements: list[Agreement]) -> list[list[str]]:
    return [
        [
            f"{a.corpus}/{a.track}",
            a.tool,
            a.reference,
            a.subset,
            *map(fmt_signed, a.diffs),
            *a.verdicts,
        ]
        for a in disagreements
    ]


def counted(model: Model) -> str:
    total, disagree = summary(model)
    detected = sum(any(v in DETECTED for v in a.verdicts) for a in disagree)
    return (
        f"Of {total} declared comparisons (tool vs its reference × corpus × track × subset), "
        f"{len(disagree)} have metric differences of opposite sign; in {detected} of those at "
        "least one metric's difference is detected."
    )


HEADER = [
    "corpus/track",
    "tool",
    "vs",
    "subset",
    *[f"{label} diff" for _, label in METRICS],
    *[f"{label} verdict" for _, label in METRICS],
]


def html(page: Page) -> list[str]:
    _, disagree = summary(page.model)
    out = [
        '<h2 id="agreement">Do the metrics agree?</h2>',
        f"<p>{esc(counted(page.model))} {esc(WHY_TWO_KINDS)}</p>",
    ]
    return out + ([html_table(HEADER, rows(disagree))] if disagree else [])


def markdown(model: Model) -> list[str]:
    _, disagree = summary(model)
    out = ["## Do the metrics agree?\n", f"{counted(model)} {WHY_TWO_KINDS}\n"]
    return out + ([md_table(HEADER, rows(disagree))] if disagree else [])
