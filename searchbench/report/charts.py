"""Vega-Lite chart specs (altair), their files beside the page, and the Page shared by sections."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchbench.measures import MIN_QUERIES, SUBSETS, VERDICTS
from searchbench.report.fmt import METRIC_LABEL, METRICS, as_float, esc
from searchbench.report.model import Model, Section
from searchbench.report.summaries import RANK_BUCKETS, runs_flag

VERDICT_COLOURS = ("#1b7837", "#b2182b", "#e08214", "#666666", "#bbbbbb", "#6baed6", "#f0f0f0")


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
    colour = alt.Color(
        "verdict:N",
        scale=alt.Scale(domain=list(VERDICTS), range=list(VERDICT_COLOURS)),
        legend=alt.Legend(title="verdict", orient="bottom"),
    )
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
        spec = self.specs.get((sec.corpus, sec.track), {}).get(kind)
        if spec is None:
            return []
        self.chart_ids.append(f"chart-{len(self.chart_ids) + 1}")
        stem = f"{self.charts_rel}/{sec.corpus}/{sec.track}/{kind}"
        return [chart_div(self.chart_ids[-1], spec, stem)]

    def has_chart(self, sec: Section, kind: str) -> bool:
        return kind in self.specs.get((sec.corpus, sec.track), {})
