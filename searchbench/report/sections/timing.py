"""Time and memory per tool, with the runs each figure rests on."""

from __future__ import annotations

from typing import Any

from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_num, html_table
from searchbench.report.model import Model, Section
from searchbench.report.sections.intro import TIMING_OFF
from searchbench.report.summaries import runs_flag, runs_per_query


def timing_budget_note(config: dict[str, Any]) -> str:
    """How the runs behind the timing figures were chosen, from the timing settings."""
    t = config.get("timing") or {}
    return (
        f"Every timed query gets one measured run; warm-ups (up to {t.get('warmups', '?')} per "
        f"query) and further runs (up to {t.get('repeats', '?')} per query) only while the "
        f"budget of {t.get('budget_seconds', '?')} s per tool and corpus lasts. A tool's figure "
        "is the median over queries of each query's median; the note column flags figures "
        "resting on a single run per query."
    )


def timing_table(model: Model, sec: Section) -> str:
    if not model.timing_enabled:
        return f'<p class="note">{esc(TIMING_OFF)}</p>\n'
    timing = model.timing.get(sec.corpus, {})
    rows = []
    for tool in sec.tools:
        t = timing.get(tool)
        if t:
            rows.append(
                [
                    tool,
                    t["queries"],
                    t["runs"],
                    runs_per_query(t),
                    fmt_num(t["median_wall_s"] * 1000, 1),
                    fmt_num(t["peak_rss_kib"] / 1024, 1),
                    t["rss_sources"],
                    t["timeouts"],
                    t["failed"],
                    runs_flag(t),
                ]
            )
    if not rows:
        return '<p class="note">No timing measurements for this corpus.</p>\n'
    return f"<p>{esc(timing_budget_note(model.config))}</p>\n" + html_table(
        [
            "tool",
            "queries",
            "runs",
            "runs per query",
            "median wall (ms)",
            "peak RSS (MiB, max)",
            "RSS source (runs)",
            "timeouts",
            "failed runs (not in the median)",
            "note",
        ],
        rows,
    )


def html(page: Page, sec: Section) -> list[str]:
    return [
        "<h3>Quality vs time and memory</h3>",
        timing_table(page.model, sec),
        *page.chart(sec, "quality_time"),
    ]


def markdown(model: Model, sec: Section) -> list[str]:
    return []
