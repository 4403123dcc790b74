"""Time and memory per tool, with the runs each figure rests on."""

from __future__ import annotations

from typing import Any

from searchbench.artifacts import read_json
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc, fmt_num, html_table
from searchbench.report.inputs import ReportInputs
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


def ratio_to(tool: dict[str, Any], baseline: dict[str, Any] | None) -> str:
    """The tool's median wall time over the baseline's, timed in the same run and corpus:
    the figure to compare across machines (absolute times belong to the host below)."""
    if not baseline:
        return "–"
    base, mine = as_float(baseline["median_wall_s"]), as_float(tool["median_wall_s"])
    return "–" if not base > 0 or mine != mine else f"{mine / base:.2f}"


def host_line(sources: ReportInputs, corpus: str) -> str:
    """Where this corpus's timing ran: one sentence from the host records of its tools."""
    records = [
        read_json(path) for (c, _), path in sources.keyed("timing_host").items() if c == corpus
    ]
    if not records:
        return "No host record for these timings."
    first = records[0]
    machines = {(r.get("cpu_model"), r.get("cores"), r.get("kernel")) for r in records}
    loads = sorted(
        as_float(r[key][0]) for r in records for key in ("load_before", "load_after") if r.get(key)
    )
    mem = as_float(first.get("mem_total_kib")) / 1024 / 1024
    text = (
        f"Measured on {first.get('cpu_model')} ({first.get('cores')} cores, {mem:.1f} GiB), "
        f"{first.get('kernel')}, corpus on {first.get('corpus_filesystem')}"
    )
    if loads:
        text += f"; 1-minute load average {loads[0]:.2f}–{loads[-1]:.2f} around the timed runs"
    if len(machines) > 1:
        text += f"; WARNING: the tools were timed on {len(machines)} different machines"
    return text + "."


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
                    ratio_to(t, timing.get(sec.baseline)),
                    fmt_num(t["peak_rss_kib"] / 1024, 1),
                    t["rss_sources"],
                    t["timeouts"],
                    t["failed"],
                    runs_flag(t),
                ]
            )
    if not rows:
        return '<p class="note">No timing measurements for this corpus.</p>\n'
    notes = f"{timing_budget_note(model.config)} {host_line(model.sources, sec.corpus)}"
    return f"<p>{esc(notes)}</p>\n" + html_table(
        [
            "tool",
            "queries",
            "runs",
            "runs per query",
            "median wall (ms)",
            f"× {sec.baseline}",
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
