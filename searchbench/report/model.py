"""Every report input read once into one Model, with a Section per corpus and track."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchbench.errors import BenchError
from searchbench.measures import MIN_QUERIES, SUBSETS
from searchbench.report.fmt import METRICS, as_float, sha256_file
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
