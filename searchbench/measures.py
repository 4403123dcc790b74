"""The benchmark's vocabulary, declared once: measures, subsets, verdicts, the minimum-query rule.

Scoring (metrics), inference, power and the report all take their names from here, so adding a
measure is one function, one `Measure` line and its oracle test (tests/test_metrics.py checks
every measure against ir_measures). The definitions are trec_eval's (docs/method.md §5):

- first rank: 1-based position of the first right file, 0 when no right file was returned;
- reciprocal rank: 1 / first rank, 0 when absent;
- success@k: 1 when a right file is within the first k, else 0;
- nDCG@k: every right file in the first k earns 1 / log2(rank + 1); divided by the same sum
  for the ideal list (all right files first, at most k of them);
- recall@k: the share of the right files found among the first k distinct files (every
  query has at least one right file: a query without one is refused).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial


def first_rank(ranked_docids: Sequence[str], relevant: Collection[str]) -> int:
    """1-based rank of the first right docid, 0 when none was returned."""
    for rank, docid in enumerate(ranked_docids, start=1):
        if docid in relevant:
            return rank
    return 0


def reciprocal_rank(ranked_docids: Sequence[str], relevant: Collection[str]) -> float:
    """1 / rank of the first right docid, 0.0 when none was returned."""
    rank = first_rank(ranked_docids, relevant)
    return 1.0 / rank if rank else 0.0


def success_at(ranked_docids: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """1.0 when a right docid is among the first k, else 0.0."""
    rank = first_rank(ranked_docids[:k], relevant)
    return 1.0 if rank else 0.0


def ndcg_at(ranked_docids: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Binary-relevance nDCG@k with a log2(rank + 1) discount (trec_eval's ndcg_cut)."""
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(relevant)) + 1))
    if ideal == 0.0:
        return 0.0
    gain = sum(
        1.0 / math.log2(rank + 1)
        for rank, docid in enumerate(ranked_docids[:k], start=1)
        if docid in relevant
    )
    return gain / ideal


def recall_at(ranked_docids: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """|right docids among the first k distinct docids| / |right docids| (trec_eval's recall_k).

    A query without a right docid has no recall; it cannot occur (qrels list at least one
    right file per query), so it is refused rather than scored 0."""
    if not relevant:
        raise ValueError("recall is undefined for a query without a right file")
    first_k = list(dict.fromkeys(ranked_docids))[:k]
    return sum(1 for docid in first_k if docid in relevant) / len(relevant)


@dataclass(frozen=True)
class Measure:
    """One per-query measure: its scores.tsv column, its label, its cut-off, its function."""

    name: str
    label: str
    cutoff: int | None
    score: Callable[[Sequence[str], Collection[str]], float]
    primary: bool = False


MEASURES: tuple[Measure, ...] = (
    Measure("rr", "MRR", None, reciprocal_rank, primary=True),
    Measure("success10", "success@10", 10, partial(success_at, k=10)),
    Measure("ndcg10", "nDCG@10", 10, partial(ndcg_at, k=10)),
    Measure("recall10", "recall@10", 10, partial(recall_at, k=10)),
)
METRICS: tuple[str, ...] = tuple(m.name for m in MEASURES)
METRIC_LABELS: tuple[tuple[str, str], ...] = tuple((m.name, m.label) for m in MEASURES)
PRIMARY_METRIC: str = next(m.name for m in MEASURES if m.primary)


@dataclass(frozen=True)
class Track:
    """One track, declared once (docs/extending.md "Adding a track"): the workflow's rules,
    targets, run status, report inputs and sections, and the docs contract are derived from
    TRACK_DECLARATIONS.

    name: the `{track}` wildcard's value and results/{corpus}/{name}/.
    question: the question it asks, in a reader's words (the report and README "tracks").
    queries_rule: the checkpoint drawing its queries (rules/queries.smk); None for the code
        track, which is always measured.
    primary_metric: the metric its verdicts are read on; tracks whose questions have several
        right files are judged on nDCG@10 (docs/method.md §4): MRR sees only the first.
    min_queries_from: the config section whose min_queries it needs (default its own name).
    drawn: its file per corpus that says its queries were drawn, whether or not measured.
    needs_transcripts: offered only on corpora with agent transcripts (behaviour.logs).
    """

    name: str
    question: str
    queries_rule: str | None
    primary_metric: str = "rr"
    min_queries_from: str | None = None
    drawn: str = "queries.tsv"
    needs_transcripts: bool = False

    @property
    def optional(self) -> bool:
        """Measured only once its queries are drawn, and enough of them."""
        return self.queries_rule is not None

    @property
    def min_queries_key(self) -> str:
        return self.min_queries_from or self.name


# Every track, in report order: code is always measured; the others once their queries are
# drawn, and enough of them (rules/common.smk measured_tracks); behaviour only where agent
# transcripts are configured.
TRACK_DECLARATIONS: tuple[Track, ...] = (
    Track("code", "where is this name declared?", None),
    Track(
        "docs",
        "which document is about this word?",
        "doc_queries",
        drawn="declared_in_code.tsv",
    ),
    # The docs track's second token class: shares its threshold (docs.min_queries).
    Track(
        "words",
        "which document is about this plain heading word?",
        "word_queries",
        min_queries_from="docs",
        drawn="declared_in_code.tsv",
    ),
    Track("usage", "where is this used?", "usage_queries", primary_metric="ndcg10"),
    Track(
        "behaviour",
        "what a coding agent searched for",
        "behaviour_queries",
        primary_metric="ndcg10",
        needs_transcripts=True,
    ),
)
TRACK_BY_NAME: dict[str, Track] = {t.name: t for t in TRACK_DECLARATIONS}
# The `{track}` wildcard's values.
TRACKS: tuple[str, ...] = tuple(t.name for t in TRACK_DECLARATIONS)
# The tracks measured only once their queries are drawn (each waits on its checkpoint).
OPTIONAL_TRACKS: tuple[str, ...] = tuple(t.name for t in TRACK_DECLARATIONS if t.optional)
TRACK_QUESTIONS: dict[str, str] = {t.name: t.question for t in TRACK_DECLARATIONS}
TRACK_PRIMARY_METRIC: dict[str, str] = {
    t.name: t.primary_metric for t in TRACK_DECLARATIONS if t.primary_metric != PRIMARY_METRIC
}


def primary_metric_of(track: str) -> str:
    """The metric a track's verdicts are read on: MRR unless the track has many answers."""
    return TRACK_PRIMARY_METRIC.get(track, PRIMARY_METRIC)


# `discriminating`: the queries that are not trivial (the name is in more than one file).
SUBSETS: tuple[str, ...] = ("all", "discriminating")


class Verdict(StrEnum):
    """What one comparison may conclude (docs/method.md §6); the values are what is written."""

    DETECTED_BETTER = "detected better"
    DETECTED_WORSE = "detected worse"
    TESTS_DISAGREE = "tests disagree"
    NOT_DETECTED = "not detected"
    NOT_EVIDENCE = "not evidence"
    IDENTICAL = "identical"
    # The tool covers none of the queries' languages (tools.yaml `languages`): never run.
    NOT_APPLICABLE = "not applicable"
    # The tool (or the reference) failed too often to be measured here: its errors,
    # timeouts and unparsable outputs are no loss (searchbench.health).
    BROKEN = "broken"


VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)
DETECTED = frozenset({Verdict.DETECTED_BETTER.value, Verdict.DETECTED_WORSE.value})

# Under this many queries no verdict is a claim (config `min_queries`; this is its default).
MIN_QUERIES = 10
