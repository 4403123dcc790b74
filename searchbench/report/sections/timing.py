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


def index_costs(model: Model, corpus: str) -> dict[str, dict[str, Any]]:
    """tool -> its index build record on this corpus (results/{corpus}/index/{tool}.json); a
    tool searching another's index (tools.yaml `index_of`: cscope-refs) has that one's."""
    built = {
        tool: read_json(path)
        for (c, tool), path in model.sources.keyed("index_cost").items()
        if c == corpus
    }
    shared = {str(t.get("name")): t.get("index_of") for t in model.tools if t.get("index_of")}
    return {**{t: built[o] for t, o in shared.items() if o in built}, **built}


def index_rows(model: Model, sec: Section) -> list[list[Any]]:
    """Per tool: its index build (time, size, memory, status) and "ready after" = build time
    + median query time x this track's queries; a tool without an index is ready after its
    queries alone, so the reader sees after how many queries an index pays off."""
    costs = index_costs(model, sec.corpus)
    timing = model.timing.get(sec.corpus, {})
    queries = len(sec.qids)
    rows = []
    for tool in sec.tools:
        cost, t = costs.get(tool), timing.get(tool)
        query_s = as_float(t["median_wall_s"]) * queries if t else float("nan")
        if cost is None:
            rows.append(
                [tool, "no index", "–", "–", "–", "–", fmt_num(query_s, 2), fmt_num(query_s, 2)]
            )
            continue
        ready = cost.get("status") == "ready"
        build_s = as_float(cost.get("wall_seconds"))
        rows.append(
            [
                tool,
                str(cost.get("status")),
                fmt_num(build_s, 2),
                fmt_num(as_float(cost.get("bytes")) / 1024 / 1024, 2),
                str(cost.get("files", "–")),
                fmt_num(as_float(cost.get("peak_rss_kib")) / 1024, 1),
                fmt_num(query_s, 2),
                fmt_num(build_s + query_s, 2)
                if ready
                else f"not ready within {fmt_num(cost.get('budget_seconds'), 0)} s",
            ]
        )
    return rows


def index_table(model: Model, sec: Section) -> str:
    """The index cost beside query time, on the code track (the timed queries' track)."""
    if sec.track != "code" or not index_costs(model, sec.corpus):
        return ""
    queries = len(sec.qids)
    note = (
        f"An index is part of a tool's cost: its build (wall time, size on disk, peak memory; "
        f"killed past index.budget_seconds and listed as not ready) is paid before the first "
        f"query. Ready after = build time + median query time × the {queries} queries of this "
        f"track; a tool without an index is ready after its queries alone."
    )
    return f"<p>{esc(note)}</p>\n" + html_table(
        [
            "tool",
            "index",
            "build wall (s)",
            "index size (MiB)",
            "index files",
            "build peak RSS (MiB)",
            f"median query × {queries} (s)",
            f"ready after {queries} queries (s)",
        ],
        index_rows(model, sec),
    )


def html(page: Page, sec: Section) -> list[str]:
    return [
        "<h3>Quality vs time and memory</h3>",
        timing_table(page.model, sec),
        *page.chart(sec, "quality_time"),
        *(
            ["<h4>Index cost: ready after</h4>", table]
            if (table := index_table(page.model, sec))
            else []
        ),
    ]


def markdown(model: Model, sec: Section) -> list[str]:
    return []
