"""Vega-Lite chart specs (altair), their files beside the page, and the Page shared by sections."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchbench.measures import MIN_QUERIES, SUBSETS, VERDICTS, Verdict
from searchbench.report.fmt import METRIC_LABEL, METRICS, as_float, esc
from searchbench.report.model import Model, Section
from searchbench.report.summaries import RANK_BUCKETS, runs_flag

# One colour per verdict, by name: a colour list one short of the verdicts drew "broken" in
# the green of "detected better" (Vega cycles the range).
VERDICT_COLOURS: dict[str, str] = {
    Verdict.DETECTED_BETTER: "#1b7837",
    Verdict.DETECTED_WORSE: "#b2182b",
    Verdict.TESTS_DISAGREE: "#e08214",
    Verdict.NOT_DETECTED: "#666666",
    Verdict.NOT_EVIDENCE: "#bbbbbb",
    Verdict.IDENTICAL: "#6baed6",
    Verdict.NOT_APPLICABLE: "#f0f0f0",
    Verdict.BROKEN: "#762a83",
}


def verdict_colour() -> object:
    """The verdict encoding every forest chart shares: one colour per verdict, by name."""
    import altair as alt  # imported where a chart is drawn, as the other functions do

    return alt.Color(
        "verdict:N",
        scale=alt.Scale(domain=list(VERDICTS), range=[VERDICT_COLOURS[v] for v in VERDICTS]),
        legend=alt.Legend(title="verdict", orient="bottom"),
    )


BUCKET_COLOURS = ("#1b7837", "#7fbc41", "#fdb863", "#e66101", "#bbbbbb")


CHART_KINDS = ("forest", "ranks", "quality_time", "funnel")


def _vl_version() -> str:
    from altair.utils._importers import vl_version_for_vl_convert

    return vl_version_for_vl_convert()


def forest_chart(sec: Section, min_queries: int = MIN_QUERIES) -> Any:
    import altair as alt

    rows = []
    for (tool, metric, subset), comp in sorted(sec.comparisons.items()):
        rows.append(
            {
                "tool": tool,
                "metric": METRIC_LABEL.get(metric, metric),
                "subset": subset,
                "diff": as_float(comp.get("diff")),
                "ci_low": as_float(comp.get("ci_low")),
                "ci_high": as_float(comp.get("ci_high")),
                "p_randomization": as_float(comp.get("p_randomization")),
                "p_holm": as_float(comp.get("p_holm")),
                "verdict": comp["verdict"],
            }
        )
    others = [t for t in sec.tools if t != sec.baseline]
    y = alt.Y("tool:N", sort=others, title=None)
    colour = verdict_colour()
    base = alt.Chart()
    zero = base.mark_rule(strokeDash=[4, 4], color="#333").encode(x=alt.datum(0))
    ci = base.mark_rule(strokeWidth=2).encode(
        y=y,
        x=alt.X("ci_low:Q", title=f"paired difference vs {sec.baseline}"),
        x2="ci_high:Q",
        color=colour,
    )
    tooltip = [
        "tool:N",
        "metric:N",
        "subset:N",
        alt.Tooltip("diff:Q", format="+.3f"),
        alt.Tooltip("ci_low:Q", format=".3f"),
        alt.Tooltip("ci_high:Q", format=".3f"),
        alt.Tooltip("p_randomization:Q", format=".4f"),
        alt.Tooltip("p_holm:Q", format=".4f"),
        "verdict:N",
    ]
    point = base.mark_point(filled=True, size=70).encode(
        y=y,
        x="diff:Q",
        color=colour,
        shape=alt.Shape("verdict:N", legend=None),
        tooltip=tooltip,
    )
    title = f"{sec.corpus}/{sec.track}: paired difference vs {sec.baseline}, 95% bootstrap CI"
    if len(sec.qids) < min_queries:
        title += f" (not evidence: {len(sec.qids)} queries)"
    return (
        alt.layer(zero, ci, point, data=alt.Data(values=rows))
        .properties(width=200, height=max(60, 28 * len(others)))
        .facet(
            column=alt.Column("metric:N", sort=[lbl for _, lbl in METRICS], title=None),
            row=alt.Row("subset:N", sort=list(SUBSETS), title=None),
        )
        .properties(title=title)
    )


def ranks_chart(sec: Section) -> Any:
    import altair as alt

    rows = [dict(r, subset=s) for s in SUBSETS for r in sec.ranks[s]]
    return (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            y=alt.Y("tool:N", sort=sec.tools, title=None),
            x=alt.X("count:Q", stack="zero", title="queries"),
            color=alt.Color(
                "bucket:N",
                scale=alt.Scale(domain=list(RANK_BUCKETS), range=list(BUCKET_COLOURS)),
                legend=alt.Legend(title="file rank", orient="bottom"),
            ),
            order=alt.Order("order:Q"),
            tooltip=["tool:N", "bucket:N", "count:Q", alt.Tooltip("share:Q", format=".1%")],
        )
        .properties(width=300, height=max(60, 24 * len(sec.tools)))
        .facet(column=alt.Column("subset:N", sort=list(SUBSETS), title=None))
        .properties(title=f"{sec.corpus}/{sec.track}: rank of the first right file")
    )


def quality_time_rows(sec: Section, timing: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for tool in sec.tools:
        t = timing.get(tool)
        if not t:
            continue
        flag = runs_flag(t)
        rows.append(
            {
                "tool": tool,
                "label": f"{tool} ({flag})" if flag else tool,
                "mrr": sec.means["all"][tool][sec.primary],
                "median_wall_ms": t["median_wall_s"] * 1000.0,
                "min_wall_ms": t.get("min_wall_s", t["median_wall_s"]) * 1000.0,
                "max_wall_ms": t.get("max_wall_s", t["median_wall_s"]) * 1000.0,
                "peak_rss_mib": t["peak_rss_kib"] / 1024.0,
                "runs": t["runs"],
                "queries": t["queries"],
            }
        )
    return spread_labels(rows)


def spread_labels(rows: list[dict[str, Any]], gap: float = 0.05) -> list[dict[str, Any]]:
    """A label height per row, at least `gap` (MRR units) above the one below it, so that
    tools with close MRR (hay and its variants) do not print over each other."""
    below = float("-inf")
    for row in sorted(rows, key=lambda r: (r["mrr"], r["tool"])):
        row["label_y"] = max(row["mrr"], below + gap)
        below = row["label_y"]
    return rows


def quality_time_chart(sec: Section, timing: dict[str, dict[str, Any]]) -> Any:
    import altair as alt

    rows = quality_time_rows(sec, timing)
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X(
            "median_wall_ms:Q",
            scale=alt.Scale(type="log"),
            title="median wall time per query (ms, log)",
        ),
        y=alt.Y("mrr:Q", scale=alt.Scale(domain=[0, 1]), title="MRR (all queries)"),
    )
    points = base.mark_circle(opacity=0.7).encode(
        size=alt.Size("peak_rss_mib:Q", title="peak RSS (MiB)"),
        color=alt.Color("tool:N", sort=sec.tools, legend=None),
        tooltip=[
            "tool:N",
            alt.Tooltip("mrr:Q", format=".3f"),
            alt.Tooltip("median_wall_ms:Q", format=".1f"),
            alt.Tooltip("peak_rss_mib:Q", format=".1f"),
            "runs:Q",
            "queries:Q",
        ],
    )
    spread = base.mark_rule(opacity=0.5).encode(
        x2="max_wall_ms:Q",
        x="min_wall_ms:Q",
        color=alt.Color("tool:N", sort=sec.tools, legend=None),
    )
    labels = base.mark_text(align="left", dx=9).encode(y="label_y:Q", text="label:N")
    return (spread + points + labels).properties(
        width=420,
        height=260,
        title=(
            f"{sec.corpus}/{sec.track}: quality vs time (dot: median over queries; line: "
            "fastest to slowest query; size: peak memory)"
        ),
    )


def funnel_chart(corpus: str, rows: list[dict[str, str]]) -> Any:
    import altair as alt

    data = [
        {"step": r["step"], "count": int(as_float(r["count"]) or 0), "order": i}
        for i, r in enumerate(rows)
    ]
    base = alt.Chart(alt.Data(values=data)).encode(
        y=alt.Y("step:N", sort=[d["step"] for d in data], title=None),
        x=alt.X("count:Q", title="symbols"),
    )
    return (
        base.mark_bar(color="#4a6fa5") + base.mark_text(align="left", dx=3).encode(text="count:Q")
    ).properties(width=380, height=max(60, 22 * len(data)), title=f"{corpus}: query funnel")


def section_charts(model: Model, sec: Section) -> dict[str, dict[str, Any]]:
    """chart kind -> Vega-Lite spec dict, for one section."""
    specs = {
        "forest": forest_chart(sec, model.min_queries).to_dict(),
        "ranks": ranks_chart(sec).to_dict(),
    }
    timing = model.timing.get(sec.corpus, {})
    if quality_time_rows(sec, timing):
        specs["quality_time"] = quality_time_chart(sec, timing).to_dict()
    if sec.track == "code" and model.funnel.get(sec.corpus):
        specs["funnel"] = funnel_chart(sec.corpus, model.funnel[sec.corpus]).to_dict()
    if not sec.comparisons:
        del specs["forest"]
    return specs


def write_chart_files(spec: dict[str, Any], stem: Path, vl_version: str) -> None:
    import vl_convert as vlc

    stem.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    stem.with_name(stem.name + ".vl.json").write_text(text, encoding="utf-8")
    svg = vlc.vegalite_to_svg(spec, vl_version=vl_version, allowed_base_urls=[])
    stem.with_name(stem.name + ".svg").write_text(svg, encoding="utf-8")
    png = vlc.vegalite_to_png(spec, vl_version=vl_version, scale=1.0, allowed_base_urls=[])
    stem.with_name(stem.name + ".png").write_bytes(png)


def chart_div(chart_id: str, spec: dict[str, Any], rel_stem: str) -> str:
    spec_json = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    spec_json = spec_json.replace("</", "<\\/").replace("<!--", "<\\!--")
    return (
        f'<div class="chart" id="{esc(chart_id)}"></div>\n'
        f'<script type="text/javascript">embedChart("#{esc(chart_id)}", {spec_json});</script>\n'
        f'<p class="note">Also beside this page: <code>{esc(rel_stem)}.svg</code>, '
        f"<code>.png</code>, <code>.vl.json</code>.</p>\n"
    )


EMBED_JS = """
function embedChart(sel, spec) {
  vegaEmbed(sel, spec, {renderer: "svg", actions: false}).catch(function (err) {
    document.querySelector(sel).textContent = "chart failed to render: " + err;
  });
}
"""


CHART_TITLES = {
    "forest": "Paired differences vs the baseline",
    "ranks": "Rank distribution",
    "quality_time": "Quality vs time and memory",
    "funnel": "Query funnel",
    "quality_cost": "Quality against cost, pooled",
    "verdict_forest": "Pooled verdicts, per corpus",
}


@dataclass
class Page:
    """What the HTML sections share: the model, every chart spec, where the chart files sit
    beside the page, and the ids of the charts placed so far (one running count)."""

    model: Model
    specs: dict[tuple[str, str], dict[str, dict[str, Any]]]
    charts_rel: str = "charts"
    chart_ids: list[str] = field(default_factory=list)

    def chart(self, sec: Section, kind: str) -> list[str]:
        """The chart of one kind for a corpus and track, if the section has one."""
        return self.chart_at(sec.corpus, sec.track, kind)

    def chart_at(self, corpus: str, track: str, kind: str) -> list[str]:
        """The chart of one kind under charts/{corpus}/{track}/ ("pooled" for a track's
        pooled charts), if there is one."""
        spec = self.specs.get((corpus, track), {}).get(kind)
        if spec is None:
            return []
        self.chart_ids.append(f"chart-{len(self.chart_ids) + 1}")
        stem = f"{self.charts_rel}/{corpus}/{track}/{kind}"
        return [chart_div(self.chart_ids[-1], spec, stem)]

    def has_chart(self, sec: Section, kind: str) -> bool:
        return kind in self.specs.get((sec.corpus, sec.track), {})


# ----------------------------------------------------------------------------- pooled (front page)

FRONT_COLOUR = "#c51b7d"  # the Pareto front: one colour no other chart uses
COST_AXES = (
    # (leaderboard field, axis title, scale): times and bytes span orders of magnitude
    ("median_seconds", "median time per query (ms, log)", "log"),
    ("bytes_before_answer", "bytes read before the answer (symlog)", "symlog"),
)


def quality_cost_rows(doc: dict[str, Any], field: str, scale: float) -> list[dict[str, Any]]:
    """One point per ranked tool with that cost measured, marked on the Pareto front or not
    (higher pooled metric, lower cost); only the points on the front are labelled."""
    from searchbench.report.pooled import number, pareto_front

    board = doc["leaderboard"]
    points = [(str(r["tool"]), number(r["pooled"]), number(r.get(field))) for r in board]
    front = pareto_front(points)
    rows = []
    for r in board:
        cost = number(r.get(field))
        # a zero time cannot sit on a log axis (bytes are on a symlog axis: zero is fine)
        if cost is None or number(r["pooled"]) is None or (field == "median_seconds" and cost <= 0):
            continue
        rows.append(
            {
                "tool": str(r["tool"]),
                "pooled": number(r["pooled"]),
                "ci_low": number(r["ci_low"]),
                "ci_high": number(r["ci_high"]),
                "cost": cost * scale,
                "front": "Pareto front" if r["tool"] in front else "dominated",
                # only the front is named: ablation variants and greps crowd the rest
                "label": str(r["tool"]) if r["tool"] in front else "",
            }
        )
    return sorted(rows, key=lambda row: (row["cost"], row["tool"]))


def quality_cost_panel(doc: dict[str, Any], field: str, title: str, scale_type: str) -> Any:
    import altair as alt

    rows = quality_cost_rows(doc, field, 1000.0 if field == "median_seconds" else 1.0)
    label = str(doc["metric_label"])
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X(
            "cost:Q",
            scale=alt.Scale(type=scale_type),
            axis=alt.Axis(tickCount=4, format="~s"),
            title=title,
        ),
        y=alt.Y("pooled:Q", scale=alt.Scale(zero=False, nice=True), title=f"{label}, pooled"),
    )
    colour = alt.Color(
        "front:N",
        scale=alt.Scale(domain=["Pareto front", "dominated"], range=[FRONT_COLOUR, "#777777"]),
        legend=alt.Legend(title=None, orient="bottom"),
    )
    bars = base.mark_rule(color="#999999").encode(y="ci_low:Q", y2="ci_high:Q")
    front = (
        base.transform_filter(alt.datum.front == "Pareto front")
        .mark_line(color=FRONT_COLOUR, strokeWidth=2)
        .encode(order="cost:Q")
    )
    points = base.mark_point(filled=True, size=60).encode(
        color=colour,
        tooltip=[
            "tool:N",
            alt.Tooltip("pooled:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f"),
            alt.Tooltip("ci_high:Q", format=".3f"),
            alt.Tooltip("cost:Q", format=".3~s"),
            "front:N",
        ],
    )
    labels = base.mark_text(align="left", dx=6, dy=-6, fontSize=10).encode(text="label:N")
    return (bars + front + points + labels).properties(width=200, height=120)


def quality_cost_chart(doc: dict[str, Any]) -> Any:
    """Pooled primary metric (95% interval) against time per query and bytes read before the
    answer, one panel each, the Pareto front drawn: what an agent builder picks from."""
    import altair as alt

    panels = [
        quality_cost_panel(doc, f, title, scale)
        for f, title, scale in COST_AXES
        if quality_cost_rows(doc, f, 1.0)  # timing off: no time panel
    ]
    # stacked, so that the chart fits beside the leaderboard in the first screen
    return alt.vconcat(*panels).properties(
        title=f"{doc['track']}: quality against cost (bar: 95% CI)"
    )


def verdict_forest_chart(doc: dict[str, Any]) -> Any:
    """Per pooled comparison, the per-corpus paired differences with their intervals and the
    pooled one below them: heterogeneity seen, not averaged away."""
    import altair as alt

    corpora = [str(c) for c in doc["corpora"]]

    def row(v: dict[str, Any], corpus: str) -> dict[str, Any]:
        return {
            "comparison": f"{v['tool']} − {v['reference']}",
            "corpus": corpus,
            "diff": as_float(v.get("diff")),
            "ci_low": as_float(v.get("ci_low")),
            "ci_high": as_float(v.get("ci_high")),
            "verdict": str(v["verdict"]),
        }

    rows = [row(f, str(f["corpus"])) for f in doc["forest"]]
    rows += [row(v, "pooled") for v in doc["verdicts"]]
    y = alt.Y("corpus:N", sort=[*corpora, "pooled"], title=None)
    colour = verdict_colour()
    base = alt.Chart()
    zero = base.mark_rule(strokeDash=[4, 4], color="#333").encode(x=alt.datum(0))
    ci = base.mark_rule(strokeWidth=2).encode(
        y=y, x=alt.X("ci_low:Q", title=f"paired difference in {doc['metric_label']}"),
        x2="ci_high:Q", color=colour,
    )  # fmt: skip
    point = base.mark_point(filled=True, size=50).encode(
        y=y,
        x="diff:Q",
        color=colour,
        shape=alt.condition(
            alt.datum.corpus == "pooled", alt.value("diamond"), alt.value("circle")
        ),
        tooltip=["comparison:N", "corpus:N", alt.Tooltip("diff:Q", format="+.3f"), "verdict:N"],
    )
    order = list(dict.fromkeys(r["comparison"] for r in rows))
    return (
        alt.layer(zero, ci, point, data=alt.Data(values=rows))
        .properties(width=240, height=14 * (len(corpora) + 1))
        .facet(
            row=alt.Row(
                "comparison:N",
                sort=order,
                title=None,
                header=alt.Header(labelAngle=0, labelAlign="left"),
            )
        )
        .properties(title=f"{doc['track']} track: per-corpus differences (◆ pooled)")
    )


def pooled_charts(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """chart kind -> spec for one track's pooled document (charts/pooled/{track}/)."""
    specs = {}
    if any(quality_cost_rows(doc, f, 1.0) for f, *_ in COST_AXES):
        specs["quality_cost"] = quality_cost_chart(doc).to_dict()
    if doc["verdicts"]:
        specs["verdict_forest"] = verdict_forest_chart(doc).to_dict()
    return specs
