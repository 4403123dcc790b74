"""The report: tables, charts and provenance, readable offline.

Inputs are the artifacts of docs/artifacts.md; outputs are `index.html` (self-contained: the
Vega bundle and every chart spec are inline, so it renders with no network), `summary.md`,
`summary.csv` and `charts/{corpus}/{track}/{chart}.{vl.json,svg,png}`.

Numbers shown are computed here from `scores.tsv` (means, rank buckets, cost) or read from
`inference.json` (paired differences, intervals, p-values, verdicts). The one function that
knows the inference file's layout is `load_inference`.

Everything written is a function of the inputs only (sorted, no clock), so the same inputs
give byte-identical outputs; timing values are the only inputs that vary between runs.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import os
import shutil
import statistics
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchbench.artifacts import write_bytes
from searchbench.errors import BenchError
from searchbench.measures import DETECTED, METRIC_LABELS, MIN_QUERIES, SUBSETS, VERDICTS

METRICS: tuple[tuple[str, str], ...] = METRIC_LABELS
METRIC_LABEL = dict(METRICS)
VERDICT_COLOURS = ("#1b7837", "#b2182b", "#e08214", "#666666", "#bbbbbb", "#6baed6")
RANK_BUCKETS = ("1", "2-3", "4-10", ">10", "absent")
BUCKET_COLOURS = ("#1b7837", "#7fbc41", "#fdb863", "#e66101", "#bbbbbb")
CHART_KINDS = ("forest", "ranks", "quality_time", "funnel")
TRUE_WORDS = frozenset({"1", "true", "yes", "True", "TRUE"})


# ----------------------------------------------------------------------------- reading


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    """Rows of a header-first TSV file as dicts; a missing file is a clear error."""
    p = Path(path)
    if not p.is_file():
        raise BenchError(f"report input {p} does not exist: run the rule that writes it first")
    with p.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def read_json(path: str | Path) -> Any:
    p = Path(path)
    if not p.is_file():
        raise BenchError(f"report input {p} does not exist: run the rule that writes it first")
    with p.open(encoding="utf-8") as fh:
        return json.load(fh)


def load_inference(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(metadata, comparisons) of one inference.json.

    Layout (searchbench.inference): {"metadata": {seed, resamples, alpha, primary_metric,
    family, baseline, min_queries, ...}, "comparisons": [{tool, baseline, metric, subset, n,
    n_eff, mean_tool, mean_base, diff, ci_low, ci_high, p_randomization, p_holm, holm_m,
    holm_excluded, identical, verdict}], "pairs": [...] (optional, the all-pairs matrix)}.
    Metadata at the top level is accepted too.
    Adapt only this function if the producer's layout changes.
    """
    doc = read_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("comparisons"), list):
        raise BenchError(
            f"{path}: expected a JSON object with a 'comparisons' list; rerun the inference rule"
        )
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        meta = {k: v for k, v in doc.items() if k not in ("comparisons", "pairs")}
    return meta, doc["comparisons"]


def load_tools(path: str | Path) -> list[dict[str, Any]]:
    """tools.json as a list of tool records sorted by name (accepts list or mapping form)."""
    doc = read_json(path)
    if isinstance(doc, dict) and "tools" in doc:
        doc = doc["tools"]
    if isinstance(doc, dict):
        items = [{"name": name, **(rec or {})} for name, rec in doc.items()]
    elif isinstance(doc, list):
        items = [dict(rec) for rec in doc]
    else:
        raise BenchError(f"{path}: expected a list or mapping of tool records")
    return sorted(items, key=lambda r: str(r.get("name", "")))


def corpus_track_of(path: str | Path) -> tuple[str, str]:
    """results/{corpus}/{track}/<file> -> (corpus, track)."""
    parts = Path(path).parts
    if len(parts) < 3:
        raise BenchError(f"{path}: expected a path like results/CORPUS/TRACK/FILE")
    return parts[-3], parts[-2]


def corpus_of(path: str | Path, depth: int) -> str:
    """The corpus directory name `depth` levels above the file (1 = its own directory)."""
    parts = Path(path).parts
    if len(parts) <= depth:
        raise BenchError(f"{path}: cannot tell which corpus it belongs to")
    return parts[-1 - depth]


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def as_bool(value: Any) -> bool:
    return str(value).strip() in TRUE_WORDS


# ----------------------------------------------------------------------------- computing


def rank_bucket(rank: int) -> str:
    """The rank-distribution bucket of a file rank (0 = absent)."""
    if rank <= 0:
        return "absent"
    if rank == 1:
        return "1"
    if rank <= 3:
        return "2-3"
    if rank <= 10:
        return "4-10"
    return ">10"


def order_tools(tools: Iterable[str], baseline: str) -> list[str]:
    """Baseline first, the others by name."""
    names = sorted(set(tools))
    return ([baseline] if baseline in names else []) + [t for t in names if t != baseline]


def trivial_qids(rows: Sequence[dict[str, str]], baseline: str) -> set[str]:
    """Queries flagged trivial (found in one file only); read from the baseline's rows."""
    base_rows = [r for r in rows if r["tool"] == baseline] or list(rows)
    return {r["qid"] for r in base_rows if as_bool(r.get("trivial", "0"))}


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def present(values: Iterable[Any]) -> list[float]:
    """The values that parse as numbers (empty TSV fields dropped)."""
    return [v for v in map(as_float, values) if v == v]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def metric_means(rows: Sequence[dict[str, str]], qids: set[str]) -> dict[str, dict[str, float]]:
    """tool -> metric -> mean over the given queries."""
    out: dict[str, dict[str, float]] = {}
    for tool in sorted({r["tool"] for r in rows}):
        sel = [r for r in rows if r["tool"] == tool and r["qid"] in qids]
        out[tool] = {m: mean([as_float(r[m]) for r in sel]) for m, _ in METRICS}
    return out


def rank_distribution(rows: Sequence[dict[str, str]], qids: set[str]) -> list[dict[str, Any]]:
    """One record per tool and bucket: count and share of the given queries."""
    out = []
    for tool in sorted({r["tool"] for r in rows}):
        sel = [r for r in rows if r["tool"] == tool and r["qid"] in qids]
        counts = dict.fromkeys(RANK_BUCKETS, 0)
        for r in sel:
            counts[rank_bucket(int(as_float(r["rank"]) or 0))] += 1
        for i, bucket in enumerate(RANK_BUCKETS):
            share = counts[bucket] / len(sel) if sel else 0.0
            out.append(
                {
                    "tool": tool,
                    "bucket": bucket,
                    "order": i,
                    "count": counts[bucket],
                    "share": share,
                }
            )
    return out


def cost_summary(rows: Sequence[dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Per tool: status counts and medians of what an agent reads before the answer."""
    out: dict[str, dict[str, Any]] = {}
    for tool in sorted({r["tool"] for r in rows}):
        sel = [r for r in rows if r["tool"] == tool]
        found = [r for r in sel if as_float(r["rank"]) > 0]
        statuses = [r.get("status", "") for r in sel]
        out[tool] = {
            "queries": len(sel),
            "found": len(found),
            "no_match": statuses.count("no-match"),
            "error": statuses.count("error"),
            "timeout": statuses.count("timeout"),
            "returned": median([as_float(r["returned"]) for r in sel]),
            "lines_before": median(present(r["lines_before"] for r in found)),
            "bytes_before": median(present(r["bytes_before"] for r in found)),
            "line_rank": median(present(r["line_rank"] for r in found)),
        }
    return out


def failed_run(row: dict[str, str], ok_exits: Sequence[int]) -> bool:
    """A timed-out, crashed (signal) or erroring run: its wall time is no search time."""
    code = row.get("exit_code", "0")
    return as_bool(row.get("timed_out", "0")) or not code.isdigit() or int(code) not in ok_exits


def ok_exit_codes(config: dict[str, Any], tool: str) -> tuple[int, ...]:
    """0 and the tool's "nothing found" codes (no_match_exit, default [1])."""
    spec = (config.get("tools") or {}).get(tool) or {}
    return (0, *spec.get("no_match_exit", [1]))


def timing_summary(rows: Sequence[dict[str, str]], ok_exits: Sequence[int] = (0, 1)) -> dict:
    """Median over queries of the per-query median wall time of the runs that did not fail
    (`failed` counts the excluded ones); peak RSS is the maximum over every timed query and
    repeat (the seed's trap: not the first query's). The runs each figure rests on are
    counted from the rows: the time budget may have cut repeats."""
    per_query: dict[str, list[float]] = {}
    walls: dict[str, list[float]] = {}
    for r in rows:
        per_query.setdefault(r["qid"], []).append(as_float(r["wall"]))
        if not failed_run(r, ok_exits):
            walls.setdefault(r["qid"], []).append(as_float(r["wall"]))
    runs_per_query = [len(walls) for walls in per_query.values()]
    # 0 marks a run too short to measure (rss_source below-floor), not a zero peak.
    rss = [as_float(r["peak_rss_kib"]) for r in rows if as_float(r["peak_rss_kib"]) > 0]
    return {
        "queries": len(per_query),
        "runs": len(rows),
        "min_runs": min(runs_per_query, default=0),
        "max_runs": max(runs_per_query, default=0),
        "single_run_queries": runs_per_query.count(1),
        "median_wall_s": median([median(v) for _, v in sorted(walls.items())]),
        # The spread across queries of their median times (the chart draws it).
        "min_wall_s": min((median(v) for v in walls.values()), default=float("nan")),
        "max_wall_s": max((median(v) for v in walls.values()), default=float("nan")),
        "failed": len(rows) - sum(len(v) for v in walls.values()),
        "peak_rss_kib": max(rss) if rss else float("nan"),
        "timeouts": sum(as_bool(r.get("timed_out", "0")) for r in rows),
        "rss_sources": ", ".join(
            f"{src} ×{count}"
            for src, count in sorted(Counter(r.get("rss_source") or "-" for r in rows).items())
        ),
    }


def runs_flag(t: dict[str, Any]) -> str:
    """Words flagging a figure that rests on one run per query (the budget allowed no more)."""
    single, queries = t["single_run_queries"], t["queries"]
    if not single:
        return ""
    if single == queries:
        return "one run per query"
    return f"{single} of {queries} queries on one run"


def runs_per_query(t: dict[str, Any]) -> str:
    low, high = t["min_runs"], t["max_runs"]
    return str(low) if low == high else f"{low}-{high}"


def timing_enabled(config: dict[str, Any]) -> bool:
    """timing.enabled (default true); false: quality runs only, nothing was timed."""
    return bool((config.get("timing") or {}).get("enabled", True))


TIMING_OFF = (
    "Timing was not measured in this run (timing.enabled is false in the configuration): "
    "this report compares search quality only, with no time or memory figures."
)


def find_sha256(doc: Any, where: str = "") -> list[tuple[str, str]]:
    """Every (location, sha256) pair in a JSON document, in document order."""
    found: list[tuple[str, str]] = []
    if isinstance(doc, dict):
        label = next(
            (str(doc[k]) for k in ("name", "path", "url", "file", "package") if k in doc), where
        )
        for key in sorted(doc):
            value = doc[key]
            if key == "sha256" and isinstance(value, str):
                found.append((label, value))
            else:
                found.extend(find_sha256(value, f"{where}.{key}" if where else key))
    elif isinstance(doc, list):
        for i, item in enumerate(doc):
            found.extend(find_sha256(item, f"{where}[{i}]"))
    return found


def find_revisions(doc: Any) -> list[tuple[str, str]]:
    """Top-level and source-level keys that name a revision or version."""
    out = []
    for scope, d in (("", doc), ("source.", doc.get("source") if isinstance(doc, dict) else None)):
        if isinstance(d, dict):
            for key in sorted(d):
                if ("revision" in key or key in ("version", "commit")) and not isinstance(
                    d[key], (dict, list)
                ):
                    out.append((scope + key, str(d[key])))
    return out


# ----------------------------------------------------------------------------- model


@dataclass
class Section:
    """One corpus and track: everything its tables and charts show."""

    corpus: str
    track: str
    baseline: str
    tools: list[str]
    qids: list[str]
    trivial: set[str]
    meta: dict[str, Any]
    means: dict[str, dict[str, dict[str, float]]]  # subset -> tool -> metric -> mean
    comparisons: dict[tuple[str, str, str], dict[str, Any]]  # (tool, metric, subset)
    ranks: dict[str, list[dict[str, Any]]]  # subset -> records
    cost: dict[str, dict[str, Any]]
    warnings: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.corpus}/{self.track}"

    def subset_qids(self, subset: str) -> list[str]:
        return self.qids if subset == "all" else [q for q in self.qids if q not in self.trivial]


@dataclass
class Model:
    sections: list[Section]
    tools: list[dict[str, Any]]
    timing: dict[str, dict[str, dict[str, Any]]]  # corpus -> tool -> summary
    funnel: dict[str, list[dict[str, str]]]
    gt_audit: dict[str, list[dict[str, str]]]
    fileset_audit: dict[str, list[dict[str, str]]]
    corpora: dict[str, dict[str, Any]]
    inputs: list[tuple[str, str, int]]  # path, sha256, bytes
    config: dict[str, Any]
    config_hash: str
    command: str
    min_queries: int
    alpha: float
    run_status: list[dict[str, str]] = field(default_factory=list)
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    power: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    timing_enabled: bool = True  # false: the run measured quality only
    # (corpus, track) -> the fast-path check records (fastpath/{tool}.json), by tool
    fast_path: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    # the docs track's funnel and declared-in-code table, by corpus (measured or not)
    docs_funnel: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    declared_in_code: dict[str, list[dict[str, str]]] = field(default_factory=dict)


def build_section(
    corpus: str,
    track: str,
    rows: list[dict[str, str]],
    meta: dict[str, Any],
    comps: list[dict[str, Any]],
    baseline: str,
) -> Section:
    baseline = str(meta.get("baseline") or baseline)
    qids = sorted({r["qid"] for r in rows})
    trivial = trivial_qids(rows, baseline)
    tools = order_tools([r["tool"] for r in rows], baseline)
    section = Section(
        corpus=corpus,
        track=track,
        baseline=baseline,
        tools=tools,
        qids=qids,
        trivial=trivial,
        meta=meta,
        means={},
        comparisons={},
        ranks={},
        cost=cost_summary(rows),
    )
    for subset in SUBSETS:
        sel = set(section.subset_qids(subset))
        section.means[subset] = metric_means(rows, sel)
        section.ranks[subset] = rank_distribution(rows, sel)
    for comp in comps:
        if comp.get("corpus", corpus) != corpus or comp.get("track", track) != track:
            continue
        key = (str(comp["tool"]), str(comp["metric"]), str(comp["subset"]))
        comp = dict(comp)
        section.comparisons[key] = comp
        mine = section.means.get(key[2], {}).get(key[0], {}).get(key[1])
        theirs = as_float(comp.get("mean_tool"))
        if mine is not None and abs(mine - theirs) > 1e-9:
            section.warnings.append(
                f"{key[0]} {key[1]} ({key[2]}): inference.json mean {theirs:.6f} differs from "
                f"scores.tsv mean {mine:.6f}; rerun the inference rule"
            )
    return section


def build_model(
    scores: Sequence[str | Path],
    inference: Sequence[str | Path],
    corpus: Sequence[str | Path],
    tools: str | Path,
    timing: Sequence[str | Path],
    funnel: Sequence[str | Path],
    gt_audit: Sequence[str | Path],
    fileset_audit: Sequence[str | Path],
    config: dict[str, Any],
    config_hash: str,
    command: str,
    run_status: str | Path | None = None,
    power: Sequence[str | Path] = (),
    fast_path: Sequence[str | Path] = (),
    docs_funnel: Sequence[str | Path] = (),
    declared_in_code: Sequence[str | Path] = (),
) -> Model:
    """Read every input and compute what the report shows."""
    baseline = str(config.get("baseline", "rg"))
    min_queries = int(config.get("min_queries", MIN_QUERIES))  # for notes; verdicts are read
    inf_by_key = {corpus_track_of(p): load_inference(p) for p in inference}
    sections = []
    alpha = float(config.get("alpha", 0.05))
    for path in sorted(scores, key=lambda p: corpus_track_of(p)):
        c, t = corpus_track_of(path)
        meta, comps = inf_by_key.get((c, t), ({}, []))
        alpha = float(meta.get("alpha", alpha))
        sec = build_section(c, t, read_tsv(path), meta, comps, baseline)
        if (c, t) not in inf_by_key:
            sec.warnings.append(f"no inference.json for {c}/{t}: differences are not shown")
        sections.append(sec)
    timing_map: dict[str, dict[str, dict[str, Any]]] = {}
    timing = timing if timing_enabled(config) else []
    for p in sorted(timing, key=str):
        summary = timing_summary(read_tsv(p), ok_exit_codes(config, Path(p).stem))
        timing_map.setdefault(corpus_of(p, 2), {})[Path(p).stem] = summary
    all_inputs = [*scores, *inference, *corpus, tools, *timing, *funnel, *gt_audit, *fileset_audit]
    if run_status is not None:
        all_inputs.append(run_status)
    all_inputs.extend(power)
    all_inputs.extend(fast_path)
    all_inputs.extend([*docs_funnel, *declared_in_code])
    checks: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in sorted(fast_path, key=str):
        checks.setdefault(corpus_track_of(Path(p).parent), []).append(read_json(p))
    return Model(
        sections=sections,
        tools=load_tools(tools),
        timing=timing_map,
        funnel={corpus_of(p, 2): read_tsv(p) for p in sorted(funnel, key=str)},
        gt_audit={corpus_of(p, 2): read_tsv(p) for p in sorted(gt_audit, key=str)},
        fileset_audit={corpus_of(p, 1): read_tsv(p) for p in sorted(fileset_audit, key=str)},
        corpora={corpus_of(p, 1): read_json(p) for p in sorted(corpus, key=str)},
        inputs=sorted(
            (str(p), sha256_file(p), Path(p).stat().st_size) for p in set(map(str, all_inputs))
        ),
        config=config,
        config_hash=config_hash,
        command=command,
        min_queries=min_queries,
        alpha=alpha,
        run_status=read_tsv(run_status) if run_status is not None else [],
        pairs={corpus_track_of(p): read_json(p).get("pairs", []) for p in inference},
        power={corpus_track_of(p): read_json(p) for p in power},
        timing_enabled=timing_enabled(config),
        fast_path=checks,
        docs_funnel={corpus_of(p, 2): read_tsv(p) for p in sorted(docs_funnel, key=str)},
        declared_in_code={corpus_of(p, 2): read_tsv(p) for p in sorted(declared_in_code, key=str)},
    )


# ----------------------------------------------------------------------------- formatting


def fmt_num(x: Any, digits: int = 3) -> str:
    v = as_float(x)
    return "–" if v != v else f"{v:.{digits}f}"


def fmt_signed(x: Any, digits: int = 3) -> str:
    v = as_float(x)
    return "–" if v != v else f"{v:+.{digits}f}"


def fmt_ci(lo: Any, hi: Any) -> str:
    return f"[{fmt_num(lo)}, {fmt_num(hi)}]"


def fmt_p(p: Any) -> str:
    return fmt_num(p, 4)


def fmt_exact(x: Any) -> str:
    """CSV floats: repr-exact (%.17g) as docs/artifacts.md asks; empty when missing."""
    if x is None or x == "":
        return ""
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, int):
        return str(x)
    v = as_float(x)
    return "" if v != v else format(v, ".17g")


def subset_note(sec: Section) -> str:
    n, k = len(sec.qids), len(sec.trivial)
    share = k / n if n else 0.0
    return (
        f"{k} of {n} queries ({share:.1%}) are trivial: the symbol occurs in one file only, so "
        f"every tool that finds it ranks it first. The discriminating subset is the other "
        f"{n - k}."
    )


def evidence_note(sec: Section, min_queries: int) -> str | None:
    if len(sec.qids) < min_queries:
        return (
            f"not evidence: only {len(sec.qids)} queries (fewer than {min_queries}); "
            f"no difference is claimed for {sec.corpus}/{sec.track}."
        )
    return None


# ----------------------------------------------------------------------------- charts


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
                "mrr": sec.means["all"][tool]["rr"],
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


# ----------------------------------------------------------------------------- tables


def table_rows(sec: Section, subset: str) -> list[dict[str, Any]]:
    """Long-form rows (tool x metric) of one subset's table; baseline rows have no diff."""
    out = []
    n = len(sec.subset_qids(subset))
    for tool in sec.tools:
        for metric, label in METRICS:
            comp = sec.comparisons.get((tool, metric, subset))
            row: dict[str, Any] = {
                "corpus": sec.corpus,
                "track": sec.track,
                "subset": subset,
                "tool": tool,
                "baseline": sec.baseline,
                "metric": metric,
                "metric_label": label,
                "queries": n,
                "trivial_share": len(sec.trivial) / len(sec.qids) if sec.qids else 0.0,
                "mean": sec.means[subset].get(tool, {}).get(metric, float("nan")),
                "mean_base": None,
                "diff": None,
                "ci_low": None,
                "ci_high": None,
                "p_randomization": None,
                "p_holm": None,
                "n_eff": None,
                "verdict": "baseline" if tool == sec.baseline else "",
            }
            if comp is not None:
                row.update(
                    mean_base=comp.get("mean_base"),
                    diff=comp.get("diff"),
                    ci_low=comp.get("ci_low"),
                    ci_high=comp.get("ci_high"),
                    p_randomization=comp.get("p_randomization"),
                    p_holm=comp.get("p_holm"),
                    n_eff=comp.get("n_eff"),
                    verdict=comp["verdict"],
                )
            out.append(row)
    return out


CSV_COLUMNS = (
    "corpus",
    "track",
    "subset",
    "tool",
    "baseline",
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


def md_escape(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = [
        "| " + " | ".join(md_escape(h) for h in header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def md_metric_cell(row: dict[str, Any]) -> str:
    verdict = row["verdict"]
    if verdict == "baseline":
        return f"{fmt_num(row['mean'])} (baseline)"
    if verdict == "identical":
        return f"{fmt_num(row['mean'])} (identical to the baseline)"
    if row["diff"] is None:
        return fmt_num(row["mean"])
    text = (
        f"{fmt_num(row['mean'])} ({fmt_signed(row['diff'])} "
        f"{fmt_ci(row['ci_low'], row['ci_high'])}, p={fmt_p(row['p_randomization'])}, "
        f"Holm p={fmt_p(row['p_holm'])})"
    )
    if verdict in DETECTED:
        return f"**{text} {verdict}**"
    if verdict == "tests disagree":
        return f"{text} tests disagree †"
    if verdict == "not evidence":
        return f"_{text} not evidence_"
    return f"{text} {verdict}"


def render_markdown(model: Model) -> str:
    out = ["# Search-ranking benchmark: summary\n"]
    out.append(intro_text(model) + "\n")
    if not model.timing_enabled:
        out.append(TIMING_OFF + "\n")
    out += ["## Overview\n", overview_note(model) + "\n"]
    out.append(md_table(OVERVIEW_HEADER, overview_rows(model)))
    for sec in model.sections:
        out.append(f"## {sec.corpus} / {sec.track}\n")
        note = evidence_note(sec, model.min_queries)
        if note:
            out.append(f"**{note}**\n")
        out.append(subset_note(sec) + "\n")
        caveats = language_caveats(model, sec)
        out += [f"{text}\n" for _, text in caveats.values()]
        for subset in SUBSETS:
            rows = table_rows(sec, subset)
            n = len(sec.subset_qids(subset))
            out.append(f"### {subset} queries (n = {n})\n")
            body = []
            for tool in sec.tools:
                cells = [md_metric_cell(r) for r in rows if r["tool"] == tool]
                label = f"{tool} ({caveats[tool][0]})" if tool in caveats else tool
                body.append([label, *cells])
            out.append(md_table(["tool", *[lbl for _, lbl in METRICS]], body))
        holm = holm_note(sec.meta, sec.baseline)
        out += [holm + "\n"] if holm else []
        out += power_markdown(model.power.get((sec.corpus, sec.track)))
        for w in sec.warnings:
            out.append(f"- warning: {w}\n")
        if sec.track == "docs":
            out.append(docs_section_note(model, sec.corpus) + "\n")
    if docs_unmeasured(model):
        out.append("## Docs track: corpora not measured\n")
        for corpus in docs_unmeasured(model):
            out.append(f"- {corpus}: {funnel_line(model.docs_funnel[corpus])}\n")
    skipped = skipped_tools(model)
    out.append("## Tools skipped\n")
    out.append(
        md_table(["tool", "reason"], [[t["name"], t.get("skipped_reason") or ""] for t in skipped])
        if skipped
        else "None.\n"
    )
    out.append("## Provenance\n")
    out.append(
        f"- config hash: `{model.config_hash}`\n- seed: `{model.config.get('seed')}`\n"
        f"- command: `{model.command}`\n"
    )
    return "\n".join(out)


def language_caveats(model: Model, sec: Section) -> dict[str, tuple[str, str]]:
    """Tools that declare the languages they parse, on a code track with queries in others:
    those queries count as misses in the tool's scores, which says nothing about its ranking
    (issue 8: ctags 5.9 has no Swift parser and was "detected worse" on Swift).
    Per tool: a short label for its row and the sentence for the section."""
    if sec.track != "code":
        return {}
    per_language = {
        r["language"]: int(r["queries"])
        for r in model.gt_audit.get(sec.corpus, [])
        if r.get("language") not in (None, "all")
    }
    total = sum(per_language.values())
    caveats = {}
    for record in model.tools:
        tool, parsed = str(record.get("name")), record.get("languages")
        if parsed is None or tool not in sec.tools:
            continue
        unparsed = sorted(lang for lang in per_language if lang not in parsed)
        n = sum(per_language[lang] for lang in unparsed)
        if n:
            caveats[tool] = (
                f"no parser: {', '.join(unparsed)}",
                f"{tool}: no parser for {', '.join(unparsed)}; {n} of {total} queries are in "
                f"{'that language' if len(unparsed) == 1 else 'those languages'} and count as "
                "misses in its scores, whatever its ranking.",
            )
    return caveats


OVERVIEW_TOOL = "hay"  # the ranker this benchmark ships, read against the baseline


def docs_min_queries(model: Model) -> int:
    return int((model.config.get("docs") or {}).get("min_queries", 30))


def declared_share(model: Model, corpus: str) -> tuple[int, int]:
    """(docs queries also declared in the code, docs queries)."""
    rows = model.declared_in_code.get(corpus, [])
    return sum(r.get("declared_in_code") == "yes" for r in rows), len(rows)


def track_cells(model: Model, corpus: str, track: str) -> list[str]:
    """n, trivial share, hay − baseline MRR [CI] and verdict of one corpus and track; a docs
    track that was not measured says why in the first cell."""
    sec = next((s for s in model.sections if (s.corpus, s.track) == (corpus, track)), None)
    if sec is None:
        drawn = len(model.declared_in_code.get(corpus, []))
        why = f"not measured: {drawn} queries (< {docs_min_queries(model)})"
        return [why, "", "", ""]
    share = len(sec.trivial) / len(sec.qids) if sec.qids else 0.0
    comp = sec.comparisons.get((OVERVIEW_TOOL, "rr", "all"))
    if comp is None:
        return [str(len(sec.qids)), fmt_num(share, 2), f"no {OVERVIEW_TOOL}", ""]
    diff = f"{fmt_signed(comp.get('diff'))} {fmt_ci(comp.get('ci_low'), comp.get('ci_high'))}"
    return [str(len(sec.qids)), fmt_num(share, 2), diff, str(comp["verdict"])]


def overview_rows(model: Model) -> list[list[str]]:
    """One row per corpus: the code track and the docs track side by side."""
    rows = []
    for corpus in sorted({s.corpus for s in model.sections}):
        shared, drawn = declared_share(model, corpus)
        declared = f"{shared} of {drawn}" if drawn else "-"
        rows.append(
            [corpus, *track_cells(model, corpus, "code"), *track_cells(model, corpus, "docs")]
            + [declared]
        )
    return rows


OVERVIEW_HEADER = [
    "corpus",
    "code n",
    "code trivial",
    f"code {OVERVIEW_TOOL} − baseline MRR [95% CI]",
    "code verdict",
    "docs n",
    "docs trivial",
    f"docs {OVERVIEW_TOOL} − baseline MRR [95% CI]",
    "docs verdict",
    "docs queries declared in code",
]


def overview_note(model: Model) -> str:
    baseline = str(model.config.get("baseline", "rg"))
    return (
        f"Code and docs side by side: {OVERVIEW_TOOL} against {baseline} on MRR, all queries. "
        "The code track's answers are declarations, which a definition prior is built to put "
        "first; the docs track's answers are the documents whose heading holds the token, "
        "where such a prior may lose. A docs track with fewer than "
        f"{docs_min_queries(model)} queries is not measured (its funnel is in its section or "
        "below). Docs queries also declared in code stay in: finding the code first is the "
        "trap the track measures."
    )


def docs_unmeasured(model: Model) -> list[str]:
    measured = {s.corpus for s in model.sections if s.track == "docs"}
    return [c for c in sorted(model.docs_funnel) if c not in measured]


def docs_section_note(model: Model, corpus: str) -> str:
    shared, drawn = declared_share(model, corpus)
    share = f" ({shared / drawn:.0%})" if drawn else ""
    return (
        f"Docs queries from headings: {funnel_line(model.docs_funnel.get(corpus, []))}. "
        f"{shared} of {drawn}{share} are also declared in the code."
    )


def funnel_line(rows: list[dict[str, str]]) -> str:
    return " → ".join(f"{r['step']} {r['count']}" for r in rows)


def skipped_tools(model: Model) -> list[dict[str, Any]]:
    return [t for t in model.tools if not t.get("available", True)]


def word_match_note(model: Model) -> str | None:
    """With word_match on, the tools that have no whole-word form search as configured."""
    if not model.config.get("word_match"):
        return None
    plain = [
        str(t["name"])
        for t in model.tools
        if t.get("available", True) and "{word}" not in (t.get("argv") or [])
    ]
    if not plain:
        return None
    return (
        "Whole-word matching (word_match) is on; "
        + ", ".join(plain)
        + " have no whole-word form and search as configured (substring, structural or index)."
    )


def intro_text(model: Model) -> str:
    return (
        "MRR (mean reciprocal rank of the first file that declares the symbol) is the primary "
        "metric; success@10 and nDCG@10 are reported beside it. The headline uses the **file "
        "rank** (position of the right file in the order the tool first printed each file), "
        "not the line rank. Each tool is compared with the baseline on the same queries: the "
        "mean paired difference with a 95% percentile-bootstrap interval and a sign-flip "
        "randomization p-value, Holm-adjusted over the family of comparisons. A difference is "
        f"**detected** (bold) only when the interval excludes 0 and the test rejects at "
        f"α = {model.alpha:g}; where the two disagree the row says *tests disagree* and the "
        f"conservative reading is taken. Fewer than {model.min_queries} queries, or too "
        "few queries where the two tools differ for any result to reach α: *not evidence*, "
        "never bold. A tool that ranks the right file exactly as the baseline does on every "
        "query is *identical*. Beside the differences, the minimum detectable MRR difference "
        "(80% power, simulated from the corpus's own ties and differences) tells *not "
        "detected* from *could not have been detected*."
    )


# ----------------------------------------------------------------------------- HTML

CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;
max-width:1480px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
th,td{border:1px solid #d0d0d0;padding:3px 6px;text-align:right;vertical-align:top;
white-space:nowrap}
.scroll{overflow-x:auto}table.results{font-size:12px}
table.results td.verdict{white-space:normal}
th{background:#f2f2f2}th[colspan]{text-align:center}td.name,th.name{text-align:left}
td.not-evidence,span.not-evidence{color:#9a9a9a}
.badge{display:inline-block;border-radius:3px;padding:0 4px;font-size:11px}
.badge.not-evidence{background:#eee;color:#888;border:1px solid #ccc}
.badge.disagree{background:#fff3e0;color:#8a4b00;border:1px solid #e08214}
.badge.identical{background:#eef5fb;color:#2f6690;border:1px solid #6baed6}
td.identical,span.identical{color:#2f6690}
.verdict.detected{font-weight:bold}
.note{background:#f7f7f7;border-left:4px solid #bbb;padding:.4em .8em}
.warn{background:#fff3e0;border-left:4px solid #e08214;padding:.4em .8em}
.chart{margin:.6em 0 1.4em}
code,pre{font:12px ui-monospace,Menlo,Consolas,monospace}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;white-space:pre-wrap}
td.hash{font:11px ui-monospace,Menlo,Consolas,monospace;text-align:left;word-break:break-all}
"""


def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def html_table(header: Sequence[str], rows: Iterable[Sequence[Any]], name_cols: int = 1) -> str:
    """A plain table of already-formatted text cells (escaped here)."""
    th = "".join(
        f'<th class="name">{esc(h)}</th>' if i < name_cols else f"<th>{esc(h)}</th>"
        for i, h in enumerate(header)
    )
    body = []
    for r in rows:
        tds = "".join(
            f'<td class="name">{esc(c)}</td>' if i < name_cols else f"<td>{esc(c)}</td>"
            for i, c in enumerate(r)
        )
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(body)}</tbody></table>\n"


def verdict_cell(verdict: str, attrs: str) -> str:
    if verdict in DETECTED:
        vtext, vcls = f"<strong>{esc(verdict)}</strong>", "verdict detected"
    elif verdict == "tests disagree":
        vtext, vcls = '<span class="badge disagree">tests disagree †</span>', "verdict disagree"
    elif verdict == "not evidence":
        vtext = '<span class="badge not-evidence">not evidence</span>'
        vcls = "verdict not-evidence"
    elif verdict == "identical":
        vtext, vcls = '<span class="badge identical">identical</span>', "verdict identical"
    else:
        vtext, vcls = esc(verdict), "verdict"
    return f'<td class="name {vcls}" {attrs} data-field="verdict">{vtext}</td>'


def metric_cells(row: dict[str, Any]) -> str:
    """The five cells of one tool x metric group: bold only where detected, grey where the
    comparison is not evidence."""
    attrs = f'data-tool="{esc(row["tool"])}" data-metric="{esc(row["metric"])}"'
    verdict = row["verdict"]
    detected = verdict in DETECTED
    klass = {"not evidence": ' class="not-evidence"', "identical": ' class="identical"'}.get(
        verdict, ""
    )

    def cell(field_name: str, text: str) -> str:
        inner = f"<strong>{esc(text)}</strong>" if detected else esc(text)
        return f'<td{klass} {attrs} data-field="{field_name}">{inner}</td>'

    mean_cell = cell("mean", fmt_num(row["mean"]))
    if verdict == "baseline":
        return (
            mean_cell + f'<td colspan="4" class="name" {attrs} data-field="verdict">baseline</td>'
        )
    if row["diff"] is None:
        return (
            mean_cell
            + f'<td colspan="3"{klass} {attrs} data-field="diff">no query to compare</td>'
            + verdict_cell(verdict or "no comparison", attrs)
        )
    return (
        mean_cell
        + cell("diff", f"{fmt_signed(row['diff'])} {fmt_ci(row['ci_low'], row['ci_high'])}")
        + cell("p_randomization", fmt_p(row["p_randomization"]))
        + cell("p_holm", fmt_p(row["p_holm"]))
        + verdict_cell(verdict, attrs)
    )


def results_table(
    sec: Section, subset: str, caveats: dict[str, tuple[str, str]] | None = None
) -> str:
    rows = table_rows(sec, subset)
    head1 = '<th class="name" rowspan="2">tool</th>' + "".join(
        f'<th colspan="5">{esc(lbl)}{" (primary)" if m == "rr" else ""}</th>' for m, lbl in METRICS
    )
    head2 = "".join(
        f"<th>mean</th><th>diff vs {esc(sec.baseline)} [95% CI]</th><th>p rand.</th>"
        "<th>p Holm</th><th>verdict</th>"
        for _ in METRICS
    )
    body = []
    for tool in sec.tools:
        trows = [r for r in rows if r["tool"] == tool]
        not_ev = tool != sec.baseline and all(r["verdict"] == "not evidence" for r in trows)
        cls = ' class="not-evidence"' if not_ev else ""
        cells = "".join(metric_cells(r) for r in trows)
        caveat = (caveats or {}).get(tool)
        mark = (
            f' <span class="caveat" title="{esc(caveat[1])}">({esc(caveat[0])})</span>'
            if caveat
            else ""
        )
        body.append(
            f'<tr{cls} data-tool="{esc(tool)}"><td class="name">{esc(tool)}{mark}</td>{cells}</tr>'
        )
    table_id = f"table-{sec.corpus}-{sec.track}-{subset}"
    return (
        f'<div class="scroll"><table class="results" id="{esc(table_id)}" '
        f'data-corpus="{esc(sec.corpus)}" data-track="{esc(sec.track)}" '
        f'data-subset="{esc(subset)}"><thead><tr>{head1}</tr>'
        f"<tr>{head2}</tr></thead><tbody>{''.join(body)}</tbody></table></div>\n"
    )


def cost_table(sec: Section) -> str:
    rows = []
    for tool in sec.tools:
        c = sec.cost.get(tool)
        if not c:
            continue
        rows.append(
            [
                tool,
                f"{c['found']}/{c['queries']}",
                c["no_match"],
                c["error"],
                c["timeout"],
                fmt_num(c["returned"], 1),
                fmt_num(c["lines_before"], 1),
                fmt_num(c["bytes_before"], 0),
                fmt_num(c["line_rank"], 1),
            ]
        )
    return html_table(
        [
            "tool",
            "found",
            "no match",
            "errors",
            "timeouts",
            "median files returned",
            "median lines before answer",
            "median bytes before answer",
            "median line rank",
        ],
        rows,
    )


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


def fmt_cell(value: str) -> str:
    """A TSV field for display: long fractions shortened to 3 decimals, the rest as is."""
    if "." in value and value.replace(".", "", 1).replace("-", "", 1).isdigit():
        return f"{float(value):.3f}"
    return value


def dict_table(rows: list[dict[str, str]]) -> str:
    if not rows:
        return '<p class="note">No data.</p>\n'
    header = list(rows[0].keys())
    return html_table(header, [[fmt_cell(r.get(h) or "") for h in header] for r in rows])


def chart_div(chart_id: str, spec: dict[str, Any], rel_stem: str) -> str:
    spec_json = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    spec_json = spec_json.replace("</", "<\\/").replace("<!--", "<\\!--")
    return (
        f'<div class="chart" id="{esc(chart_id)}"></div>\n'
        f'<script type="text/javascript">embedChart("#{esc(chart_id)}", {spec_json});</script>\n'
        f'<p class="note">Also beside this page: <code>{esc(rel_stem)}.svg</code>, '
        f"<code>.png</code>, <code>.vl.json</code>.</p>\n"
    )


def provenance_html(model: Model) -> str:
    parts = ['<h2 id="provenance">Provenance</h2>']
    parts.append(
        "<p>Reproduce this report with:</p>"
        f"<pre>{esc(model.command)}</pre>"
        f"<p>config hash <code>{esc(model.config_hash)}</code>, seed "
        f"<code>{esc(model.config.get('seed'))}</code>, baseline "
        f"<code>{esc(model.config.get('baseline', ''))}</code>.</p>"
    )
    parts.append("<h3>Corpora</h3>")
    for name, doc in sorted(model.corpora.items()):
        revs = find_revisions(doc)
        shas = find_sha256(doc)
        parts.append(f"<h4>{esc(name)}</h4>")
        parts.append(html_table(["revision key", "value"], revs))
        parts.append(html_table(["archive", "sha256"], shas))
        parts.append(
            "<details><summary>corpus.json</summary><pre>"
            f"{esc(json.dumps(doc, indent=2, sort_keys=True))}</pre></details>"
        )
    parts.append("<h3>Tools</h3>")
    parts.append(
        html_table(
            ["tool", "available", "binary", "version", "file order", "sha256", "skipped reason"],
            [
                [
                    t.get("name", ""),
                    "yes" if t.get("available", True) else "no",
                    t.get("binary") or "",
                    t.get("version") or "",
                    t.get("order") or "",
                    t.get("sha256") or "",
                    t.get("skipped_reason") or "",
                ]
                for t in model.tools
            ],
        )
    )
    parts.append("<h3>Inputs</h3>")
    parts.append(html_table(["file", "sha256", "bytes"], model.inputs))
    parts.append(
        "<details><summary>configuration</summary><pre>"
        f"{esc(json.dumps(model.config, indent=2, sort_keys=True, default=str))}"
        "</pre></details>"
    )
    return "\n".join(parts)


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
LEGEND_NOTE = (
    "Bold: detected (interval excludes 0 and the test rejects). † tests disagree: the "
    "bootstrap interval and the randomization test give different answers; the conservative "
    "reading (not detected) is taken. Grey: not evidence (fewer queries than the minimum, or "
    "so few queries where the two tools differ that no test could reach α). Identical: the "
    "tool ranks the right file exactly as the baseline on every query (nothing to test). "
    "Holm p is – where the comparison left the Holm family (Tarone's rule, listed above)."
)


def section_html(
    model: Model,
    sec: Section,
    sec_specs: dict[str, dict[str, Any]],
    charts_rel: str,
    chart_ids: list[str],
) -> list[str]:
    """The HTML of one corpus and track; appends the ids of the charts it places."""

    def chart(kind: str) -> list[str]:
        if kind not in sec_specs:
            return []
        chart_ids.append(f"chart-{len(chart_ids) + 1}")
        stem = f"{charts_rel}/{sec.corpus}/{sec.track}/{kind}"
        return [chart_div(chart_ids[-1], sec_specs[kind], stem)]

    meta = sec.meta
    out = [f'<h2 id="{esc(sec.corpus)}-{esc(sec.track)}">{esc(sec.corpus)} / {esc(sec.track)}</h2>']
    note = evidence_note(sec, model.min_queries)
    if note:
        out.append(
            '<p class="note"><span class="badge not-evidence">not evidence</span> '
            f'<span class="not-evidence">{esc(note)}</span></p>'
        )
    out.append(
        f"<p>{esc(subset_note(sec))} Inference: {esc(meta.get('resamples', '?'))} resamples, "
        f"seed {esc(meta.get('seed', '?'))}, α = {esc(meta.get('alpha', '?'))}; family: "
        f"{esc(meta.get('family', 'not stated'))}.</p>"
    )
    holm = holm_note(meta, sec.baseline)
    out += [f'<p class="note">{esc(holm)}</p>'] if holm else []
    out += [f'<p class="warn">{esc(w)}</p>' for w in sec.warnings]
    caveats = language_caveats(model, sec)
    out += [f'<p class="note caveat">{esc(text)}</p>' for _, text in caveats.values()]
    for subset in SUBSETS:
        title = "All queries" if subset == "all" else "Discriminating queries (not trivial)"
        out.append(f"<h3>{title} (n = {len(sec.subset_qids(subset))})</h3>")
        out.append(results_table(sec, subset, caveats))
    out.append(f'<p class="note">{esc(LEGEND_NOTE)}</p>')
    out += power_html(model.power.get((sec.corpus, sec.track)), sec)
    pairs = model.pairs.get((sec.corpus, sec.track), [])
    out += pairs_html(pairs, sec.baseline, meta)
    for kind in ("forest", "ranks"):
        if kind in sec_specs:
            out.append(f"<h3>{CHART_TITLES[kind]}</h3>")
            out += chart(kind)
    out += ["<h3>Coverage and cost to reach the answer</h3>", cost_table(sec)]
    out += ["<h3>Quality vs time and memory</h3>", timing_table(model, sec), *chart("quality_time")]
    if sec.track == "docs":
        out += ["<h3>Query funnel</h3>", f"<p>{esc(docs_section_note(model, sec.corpus))}</p>"]
    if sec.track == "code":
        out += ["<h3>Query funnel and ground-truth audit</h3>"]
        out += [dict_table(model.funnel.get(sec.corpus, [])), *chart("funnel")]
        out.append("<p>Ground truth cross-checked with universal-ctags, per language:</p>")
        out.append(dict_table(model.gt_audit.get(sec.corpus, [])))
        out += ["<h3>File-set audit</h3>", dict_table(model.fileset_audit.get(sec.corpus, []))]
    out += fast_path_html(model.fast_path.get((sec.corpus, sec.track), []))
    return out


def fast_path_rows(checks: Sequence[dict[str, Any]]) -> list[list[str]]:
    """One row per tool: the check's outcome, on how many queries, and why fewer."""
    rows = []
    for check in sorted(checks, key=lambda c: str(c.get("tool"))):
        checked, planned = check.get("queries_checked", 0), check.get("queries_planned", "?")
        failed = sorted(q for q, c in check.get("checks", {}).items() if not c.get("equivalent"))
        note = "fewer: a plain run was slow" if check.get("reduced_because_slow") else ""
        if failed:
            note = "; ".join(filter(None, [note, "differed on " + ", ".join(failed)]))
        outcome = "equivalent: fast path" if check.get("equivalent") else "not equivalent: plain"
        rows.append([str(check.get("tool")), outcome, f"{checked} of {planned}", note])
    return rows


def fast_path_html(checks: Sequence[dict[str, Any]]) -> list[str]:
    if not checks:
        return []
    return [
        "<h3>Fast-path checks</h3>",
        "<p>Before a tool's quality runs may name only the files containing the literal, its "
        "plain and fast runs are compared byte for byte on seeded queries; a tool that differs "
        "on any keeps plain runs. How many of each tool's runs went fast is in "
        '<a href="#runs">how the runs ended</a>.</p>',
        html_table(["tool", "outcome", "queries checked", "note"], fast_path_rows(checks)),
    ]


def holm_note(meta: dict[str, Any], baseline: str) -> str | None:
    """Which comparisons left the vs-baseline Holm family (Tarone's rule), and its sizes."""
    sizes = meta.get("holm_m")
    if not isinstance(sizes, dict):
        return None
    parts = [
        f"{label} {sizes[m].get('all', '?')} (all), {sizes[m].get('discriminating', '?')} "
        "(discriminating)"
        for m, label in METRICS
        if isinstance(sizes.get(m), dict)
    ]
    text = (
        "Holm family sizes m after Tarone's rule: "
        + "; ".join(parts)
        + ". An adjusted p depends on its family: on m and on which comparisons are in it, "
        "so adding or removing a tool changes the others' adjusted p (never their interval or "
        "raw p)."
    )
    identical = [str(t) for t in meta.get("identical_tools") or []]
    if identical:
        text += f" Left out as identical to {baseline} (nothing to test): {', '.join(identical)}."
    unreachable: dict[str, list[str]] = {}
    for e in meta.get("holm_excluded") or []:
        if str(e.get("reason", "")).startswith("cannot reach"):
            where = f"{METRIC_LABEL.get(e['metric'], e['metric'])} {e['subset']}"
            unreachable.setdefault(str(e["tool"]), []).append(f"{where}: n_eff {e['n_eff']}")
    if unreachable:
        text += (
            " Left out because too few queries differ for any p to reach α (their verdict is "
            "not evidence): "
            + "; ".join(f"{t} ({', '.join(v)})" for t, v in sorted(unreachable.items()))
            + "."
        )
    return text


def power_reading(comp: dict[str, Any] | None, mde: float | None) -> str:
    """Whether a tool's observed MRR difference was detected, or could not have been."""
    if comp is None:
        return "no comparison"
    verdict = comp["verdict"]
    if verdict in DETECTED or verdict == "identical":
        return verdict
    if mde is None:
        return f"{verdict}: no feasible difference was detectable"
    size = abs(as_float(comp.get("diff")))
    if size < mde:
        return f"{verdict}: |diff| below the MDE, could not reliably have been detected"
    return f"{verdict}: |diff| at or above the MDE"


def power_summary(power: dict[str, Any]) -> str:
    """One sentence: the MDE and what it rests on."""
    mde = power.get("mde")
    head = (
        f"Minimum detectable MRR difference at {as_float(power['metadata']['power_target']):.0%} "
        f"power (all queries): {fmt_num(mde)}"
        if mde is not None
        else f"Minimum detectable MRR difference: none ({power.get('mde_note', '')})"
    )
    return (
        f"{head}. It rests on n = {power['n']} queries, a tie share of "
        f"{as_float(power['tie_share']):.0%} (pooled over {len(power['pooled_tools'])} tools "
        f"that differ from the baseline; expected n_eff {fmt_num(power['n_eff_expected'], 1)}) "
        f"and {power['metadata']['simulations']} simulated samples; detected = the 95% interval "
        f"excludes 0 and the sign-flip p < α/m = {fmt_p(power['test_alpha'])} (m = "
        f"{power['holm_m']}: Holm's first step, the worst case for one true effect in the family). "
        f"Largest feasible difference at this tie share: {fmt_num(power['max_feasible_delta'])}."
    )


def power_html(power: dict[str, Any] | None, sec: Section) -> list[str]:
    """The MDE beside each tool's observed MRR difference: not detected vs not detectable."""
    if not power:
        return []
    mde = power.get("mde")
    rows = []
    for tool in sec.tools:
        if tool == sec.baseline:
            continue
        comp = sec.comparisons.get((tool, "rr", "all"))
        diff = fmt_signed(comp.get("diff")) if comp else "–"
        n_eff = power.get("n_eff", {}).get(tool, comp.get("n_eff") if comp else "–")
        rows.append([tool, n_eff, diff, power_reading(comp, mde)])
    return [
        "<h3>What these queries could detect (MRR, all queries)</h3>",
        f"<p>{esc(power_summary(power))}</p>",
        html_table(["tool", "n_eff", f"MRR diff vs {sec.baseline}", "reading"], rows),
    ]


def power_markdown(power: dict[str, Any] | None) -> list[str]:
    return [power_summary(power) + "\n"] if power else []


def pair_cell(comp: dict[str, Any], sign: float) -> str:
    """One all-pairs cell: the difference, styled by its verdict; ‡ marks a vs-baseline pair."""
    verdict = str(comp.get("verdict", ""))
    text = fmt_signed(sign * as_float(comp.get("diff")))
    if verdict in DETECTED:
        text = f"<strong>{text}</strong>"
    elif verdict == "tests disagree":
        text += "†"
    elif verdict == "not evidence":
        text = f'<span class="not-evidence">{text}</span>'
    elif verdict == "identical":
        text = '<span class="identical" title="identical">≡</span>'
    if comp.get("family") == "vs-baseline":
        text += "‡"
    return f'<td class="num">{text}</td>'


def pairs_html(
    pairs: list[dict[str, Any]], baseline: str = "", meta: dict | None = None
) -> list[str]:
    """Every pair of tools on the primary metric over all queries: row minus column. A pair
    with the baseline is its vs-baseline comparison (one test, one verdict), marked ‡."""
    cells = {
        (c["tool"], c["baseline"]): c
        for c in pairs
        if c.get("metric") == "rr" and c.get("subset") == "all"
    }
    if not cells:
        return []
    tools = sorted({t for pair in cells for t in pair})
    rows = []
    for row in tools:
        line = [f"<th>{esc(row)}</th>"]
        for col in tools:
            comp, sign = cells.get((row, col)), 1.0
            if comp is None and (col, row) in cells:
                comp, sign = cells[(col, row)], -1.0
            line.append("<td></td>" if comp is None else pair_cell(comp, sign))
        rows.append("<tr>" + "".join(line) + "</tr>")
    head = "<tr><th></th>" + "".join(f"<th>{esc(t)}</th>" for t in tools) + "</tr>"
    m = ((meta or {}).get("pairs_holm_m") or {}).get("rr", {}).get("all", "?")
    return [
        "<h3>All pairs (MRR, all queries)</h3>",
        "<p>Mean paired MRR difference, row tool minus column tool, with the same two tests. "
        f"‡: a pair with the baseline {esc(baseline)} is its vs-baseline comparison of the "
        "tables above, repeated as it is (same numbers, same verdict: one test per pair). The "
        f"other cells are the all-pairs family: Holm over the pairs of tools other than "
        f"{esc(baseline)} that can reach α (m = {esc(m)}), which keeps their family-wise error "
        "rate at α (with the vs-baseline family, at most 2α). Bold: detected; †: tests "
        "disagree; grey: not evidence; ≡: identical.</p>",
        f'<table class="pairs">{head}{"".join(rows)}</table>',
    ]


def render_html(
    model: Model,
    specs: dict[tuple[str, str], dict[str, dict[str, Any]]],
    js_bundle: str,
    charts_rel: str = "charts",
) -> str:
    """The whole page: the Vega bundle inline, so it renders with no network."""
    toc = "".join(
        f'<li><a href="#{esc(s.corpus)}-{esc(s.track)}">{esc(s.key)}</a></li>'
        for s in model.sections
    )
    body = [
        "<h1>Search-ranking benchmark</h1>",
        f"<p>{intro_html(model)}</p>",
        *([] if model.timing_enabled else [f'<p class="note">{esc(TIMING_OFF)}</p>']),
        *[f'<p class="note">{esc(note)}</p>' for note in [word_match_note(model)] if note],
        f'<ul>{toc}<li><a href="#runs">how the runs ended</a></li>'
        '<li><a href="#skipped">tools skipped</a></li>'
        '<li><a href="#provenance">provenance</a></li></ul>',
        '<h2 id="overview">Overview</h2>',
        f"<p>{esc(overview_note(model))}</p>",
        html_table(OVERVIEW_HEADER, overview_rows(model)),
    ]
    chart_ids: list[str] = []
    for sec in model.sections:
        body += section_html(
            model, sec, specs.get((sec.corpus, sec.track), {}), charts_rel, chart_ids
        )
    if docs_unmeasured(model):
        body.append('<h2 id="docs-unmeasured">Docs track: corpora not measured</h2>')
        body.append(
            html_table(
                ["corpus", "docs funnel"],
                [[c, funnel_line(model.docs_funnel[c])] for c in docs_unmeasured(model)],
            )
        )
    if model.run_status:
        body.append('<h2 id="runs">How the quality runs ended</h2>')
        body.append(
            "<p>A timeout or an error scores 0 for that query and is counted here, never "
            "folded into <em>not found</em>. <em>fast_path</em> counts queries answered through "
            "the checked, output-equivalent fast path (only files containing the literal, in "
            "the tool's own order).</p>"
        )
        body.append(dict_table(model.run_status))
    skipped = skipped_tools(model)
    body.append('<h2 id="skipped">Tools skipped</h2>')
    body.append(
        html_table(
            ["tool", "reason"], [[t["name"], t.get("skipped_reason") or ""] for t in skipped]
        )
        if skipped
        else "<p>None: every configured tool was available.</p>"
    )
    body.append(provenance_html(model))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="UTF-8">\n'
        "<title>Search-ranking benchmark report</title>\n"
        f"<style>{CSS}</style>\n"
        f'<script type="text/javascript">\n{js_bundle}\n</script>\n'
        f'<script type="text/javascript">{EMBED_JS}</script>\n'
        '</head>\n<body>\n<noscript><p class="warn">JavaScript is off: the charts are also '
        f"beside this page as SVG and PNG under {esc(charts_rel)}/.</p></noscript>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def intro_html(model: Model) -> str:
    text = esc(intro_text(model))
    for marker, tag in (("**", "strong"), ("*", "em")):
        pieces = text.split(marker)
        text = "".join(p if i % 2 == 0 else f"<{tag}>{p}</{tag}>" for i, p in enumerate(pieces))
    return text


# ----------------------------------------------------------------------------- writing


def write_atomic(path: str | Path, data: str | bytes) -> None:
    write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def replace_dir(tmp_dir: Path, target: Path) -> None:
    """Swap a fully written directory into place."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        if old.exists():
            shutil.rmtree(old)
        os.replace(target, old)
    os.replace(tmp_dir, target)
    if old is not None:
        shutil.rmtree(old)


def build_report(
    scores: Sequence[str | Path],
    inference: Sequence[str | Path],
    corpus: Sequence[str | Path],
    tools: str | Path,
    timing: Sequence[str | Path],
    funnel: Sequence[str | Path],
    gt_audit: Sequence[str | Path],
    fileset_audit: Sequence[str | Path],
    config: dict[str, Any],
    config_hash: str,
    command: str,
    html_out: str | Path,
    md_out: str | Path,
    csv_out: str | Path,
    charts_out: str | Path,
    run_status: str | Path | None = None,
    power: Sequence[str | Path] = (),
    fast_path: Sequence[str | Path] = (),
    docs_funnel: Sequence[str | Path] = (),
    declared_in_code: Sequence[str | Path] = (),
) -> Model:
    """Paths in, paths out: read every artifact and write the report files."""
    import vl_convert as vlc

    model = build_model(
        scores,
        inference,
        corpus,
        tools,
        timing,
        funnel,
        gt_audit,
        fileset_audit,
        config,
        config_hash,
        command,
        run_status,
        power,
        fast_path,
        docs_funnel,
        declared_in_code,
    )
    vl_version = _vl_version()
    specs = {(s.corpus, s.track): section_charts(model, s) for s in model.sections}
    charts_dir = Path(charts_out)
    charts_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(dir=charts_dir.parent, prefix=f".{charts_dir.name}."))
    os.chmod(tmp_dir, 0o777 & ~current_umask())
    try:
        for (c, t), kinds in sorted(specs.items()):
            for kind, spec in sorted(kinds.items()):
                write_chart_files(spec, tmp_dir / c / t / kind, vl_version)
        replace_dir(tmp_dir, charts_dir)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise
    write_atomic(csv_out, render_csv(model))
    write_atomic(md_out, render_markdown(model))
    bundle = vlc.javascript_bundle(vl_version=vl_version)
    charts_rel = Path(os.path.relpath(charts_dir, Path(html_out).parent)).as_posix()
    write_atomic(html_out, render_html(model, specs, bundle, charts_rel))
    return model
