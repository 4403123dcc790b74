"""Every report input read once into one Model, with a Section per corpus and track."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchbench.artifacts import file_sha256, read_json, read_tsv
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.gt_audit import SUMMARY_COLUMNS
from searchbench.headings import DECLARED_COLUMNS
from searchbench.health import read_health
from searchbench.measures import SUBSETS, TRACKS, primary_metric_of
from searchbench.metrics import SCORE_COLUMNS
from searchbench.report.fmt import METRICS, as_float
from searchbench.report.inputs import ReportInputs
from searchbench.report.pooled import load_pooled
from searchbench.report.summaries import (
    cost_summary,
    metric_means,
    ok_exit_codes,
    order_tools,
    rank_distribution,
    timing_enabled,
    timing_summary,
    trivial_qids,
)
from searchbench.sampling import FUNNEL_COLUMNS
from searchbench.timing import TIMING_HEADER


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
    # tool -> its health.tsv row (searchbench.health): failures counted, broken or ok
    health: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.corpus}/{self.track}"

    @property
    def primary(self) -> str:
        """The metric this track's verdicts are read on (its inference's primary_metric)."""
        return str(self.meta.get("primary_metric") or primary_metric_of(self.track))

    def subset_qids(self, subset: str) -> list[str]:
        return self.qids if subset == "all" else [q for q in self.qids if q not in self.trivial]


@dataclass
class Model:
    sections: list[Section]
    tools: list[dict[str, Any]]
    timing: dict[str, dict[str, dict[str, Any]]]  # corpus -> tool -> summary
    funnel: dict[str, list[dict[str, str]]]
    gt_audit: dict[str, list[dict[str, str]]]
    corpora: dict[str, dict[str, Any]]
    inputs: list[tuple[str, str, int]]  # path, sha256, bytes
    config: dict[str, Any]
    config_hash: str
    command: str
    # the run's statistics; each section reads its track's primary metric from its inference
    design: Design
    alpha: float  # the one the inference used
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    power: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    timing_enabled: bool = True  # false: the run measured quality only
    # the docs track's funnel and declared-in-code table, by corpus (measured or not)
    docs_funnel: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    declared_in_code: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # the docs track's second token class, heading words (track `words`)
    words_funnel: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    words_declared: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # every input path by key: a section may read an artifact only it shows (sections/runs.py)
    sources: ReportInputs = field(default_factory=ReportInputs.empty)
    # track -> its pooled leaderboard, verdicts and forest (report/pooled.py), track order
    pooled: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def min_queries(self) -> int:
        return self.design.min_queries


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


def read_rows(inputs: ReportInputs, name: str, columns: Sequence[str]) -> dict[str, list]:
    """A per-corpus TSV artifact's rows, by corpus, read with its writer's columns."""
    return {corpus: read_tsv(path, columns) for corpus, path in inputs.by_corpus(name).items()}


def read_sections(inputs: ReportInputs, baseline: str, alpha: float) -> tuple[list, float]:
    """One Section per scores.tsv, with its inference.json; the alpha inference used."""
    inference = {key: load_inference(path) for key, path in inputs.keyed("inference").items()}
    health = {key: read_health(path) for key, path in inputs.keyed("health").items()}
    sections = []
    for (corpus, track), path in inputs.keyed("scores").items():
        meta, comps = inference.get((corpus, track), ({}, []))
        alpha = float(meta.get("alpha", alpha))
        rows = read_tsv(path, SCORE_COLUMNS)
        sec = build_section(corpus, track, rows, meta, comps, baseline)
        sec.health = health.get((corpus, track), {})
        if (corpus, track) not in inference:
            sec.warnings.append(
                f"no inference.json for {corpus}/{track}: differences are not shown"
            )
        sections.append(sec)
    return sections, alpha


def read_timing(inputs: ReportInputs) -> dict[str, dict[str, dict[str, Any]]]:
    """corpus -> tool -> timing summary (none when timing is off)."""
    if not timing_enabled(inputs.config):
        return {}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for (corpus, tool), path in inputs.keyed("timing").items():
        rows = read_tsv(path, TIMING_HEADER)
        out.setdefault(corpus, {})[tool] = timing_summary(rows, ok_exit_codes(inputs.config, tool))
    return out


def build_model(inputs: ReportInputs) -> Model:
    """Read every input and compute what the report shows."""
    config = inputs.config
    # run-wide values only (any track would do): a section's metric is its inference's
    design = Design.from_config(config, TRACKS[0])
    sections, alpha = read_sections(inputs, design.baseline, design.alpha)
    # With timing off, timing tables given anyway are neither read nor listed as inputs.
    unread = set() if timing_enabled(config) else set(inputs.keyed("timing").values())
    tools = inputs.one("tools")
    if tools is None:
        raise BenchError("the report needs results/tools.json (report input 'tools')")
    return Model(
        sections=sections,
        tools=load_tools(tools),
        timing=read_timing(inputs),
        funnel=read_rows(inputs, "funnel", FUNNEL_COLUMNS),
        gt_audit=read_rows(inputs, "gt_audit", SUMMARY_COLUMNS),
        corpora={c: read_json(p) for c, p in inputs.by_corpus("corpus").items()},
        inputs=[
            (str(p), file_sha256(str(p)), p.stat().st_size)
            for p in inputs.every_path()
            if p not in unread
        ],
        config=config,
        config_hash=inputs.config_hash,
        command=inputs.command,
        design=design,  # min_queries for notes; verdicts are read
        alpha=alpha,
        pairs={k: read_json(p).get("pairs", []) for k, p in inputs.keyed("inference").items()},
        power={key: read_json(path) for key, path in inputs.keyed("power").items()},
        timing_enabled=timing_enabled(config),
        docs_funnel=read_rows(inputs, "docs_funnel", FUNNEL_COLUMNS),
        declared_in_code=read_rows(inputs, "declared_in_code", DECLARED_COLUMNS),
        words_funnel=read_rows(inputs, "words_funnel", FUNNEL_COLUMNS),
        words_declared=read_rows(inputs, "words_declared", DECLARED_COLUMNS),
        sources=inputs,
        pooled=read_pooled(inputs),
    )


def read_pooled(inputs: ReportInputs) -> dict[str, dict[str, Any]]:
    """track -> its pooled document, in the benchmark's track order."""
    docs = {key[0]: load_pooled(path) for key, path in inputs.keyed("pooled").items()}
    return {t: docs[t] for t in sorted(docs, key=track_rank)}


def track_rank(track: str) -> tuple[int, str]:
    return (TRACKS.index(track) if track in TRACKS else len(TRACKS), track)


# A tool's failures on the section's corpus and track (health.tsv), beside each of its rows.
HEALTH_FIELDS = (
    "error",
    "timeout",
    "stopped",
    "unparsed_lines",
    "unparsed_no_match",
    "foreign_paths",
    "failure_share",
    "health",
)


def health_columns(row: dict[str, str] | None) -> dict[str, str]:
    """The health fields of one tool's row; empty when the run has no health.tsv."""
    return {k: (row or {}).get(k, "") for k in HEALTH_FIELDS}


def table_rows(sec: Section, subset: str) -> list[dict[str, Any]]:
    """Long-form rows (tool x metric) of one subset's table; baseline rows have no diff.
    ``baseline`` is the comparison's reference: the baseline, or the full tool an ablation
    variant is compared with; ``family`` the comparison family it was tested in."""
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
                "family": "",
                **health_columns(sec.health.get(tool)),
            }
            if comp is not None:
                row.update(
                    baseline=comp.get("baseline", sec.baseline),
                    family=comp.get("family", ""),
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
