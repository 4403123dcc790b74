"""summary.csv: one row per corpus, track, subset, tool and metric; floats repr-exact.

`baseline` is the comparison's reference (an ablation variant's full tool), `family` the
comparison family it was tested in (primary, secondary, ablation). The last columns are the
tool's failures on that corpus and track (health.tsv: error, timeout, stopped queries,
unparsed lines, no-matches with unparsed lines, printed paths outside the corpus, their share)
and `health`: ok, or `broken: why` (its verdict then reads `broken`)."""

from __future__ import annotations

import csv
import io

from searchbench.measures import SUBSETS
from searchbench.report.fmt import fmt_exact
from searchbench.report.model import HEALTH_FIELDS, Model, table_rows

CSV_COLUMNS = (
    "corpus",
    "track",
    "subset",
    "tool",
    "baseline",
    "family",
    "metric",
    "queries",
    "trivial_share",
    "mean",
    "mean_base",
    "diff",
    "ci_low",
    "ci_high",
    "p_randomization",
    "p_holm",
    "n_eff",
    "verdict",
    *HEALTH_FIELDS,
)


def render_csv(model: Model) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for sec in model.sections:
        for subset in SUBSETS:
            for row in table_rows(sec, subset):
                w.writerow(
                    [row[c] if isinstance(row[c], str) else fmt_exact(row[c]) for c in CSV_COLUMNS]
                )
    return buf.getvalue()
