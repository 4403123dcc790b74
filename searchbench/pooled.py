"""The answer first: one track's leaderboard and verdicts pooled over corpora (issue 33, items 1
and 2), written to results/pooled/{track}.json for the report to show.

Weighting. Each corpus is one unit: a tool's pooled figure is the mean over the corpora it was
measured on of its mean over that corpus's queries (a corpus of 300 queries weighs as much as
one of 40). The query-weighted mean (every query pooled) is given beside it.

Interval. A 95% percentile bootstrap stratified by corpus: each resample draws every corpus's
queries with replacement within that corpus (searchbench.inference.bootstrap_means, one
Generator per corpus) and averages the corpora's resampled means with equal weight.

Test. A two-sided sign-flip randomization test of the corpus-weighted mean paired difference
D = (1/K) sum_c mean(d_c): every query's difference keeps or flips its sign, independently,
across all corpora. D is sum_q w_q d_q with w_q = 1 / (K n_c), so the test is the inference's
own randomization_p on the weighted differences (exact over 2**n_eff patterns up to
EXACT_MAX_N_EFF, else Monte Carlo), with its p_min and Tarone rule unchanged.

Verdict. The per-corpus inference's combined rule, unchanged (searchbench.inference
adjust_family: Tarone, Holm, verdict; its vocabulary is searchbench.measures.Verdict), Holm
within each family of this file: ``primary`` (config primary, each vs the baseline) and
``leader`` (the track's leader against the runner-up, among the tools that are not ablation
variants; the runner-up is the next one that was asked some query with the leader). A leader
pair that a primary comparison already tests repeats it (one pair, one verdict), as the
inference's all-pairs family does.

Which queries. A tool is pooled over the queries it was asked (status not-applicable is not:
a language server is asked its languages only) on the corpora where it is not broken
(health.tsv); a comparison uses the queries both tools were asked, on the corpora where
neither is broken. A tool asked no query of the track on any corpus, or not run on it at all
(tools.yaml `tracks`), is no row: it is listed under not_applicable with the reason.

Seeded: every draw comes from a Generator named by (seed, what it draws), so the same inputs
give byte-identical output, and floats are rounded to ROUND_DECIMALS.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from searchbench.calibration import (
    holm_rows,
    percentile_interval,
    rate,
    sign_flip_p,
)
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.inference import (
    CONFIDENCE,
    EXACT_MAX_N_EFF,
    adjust_family,
    bootstrap_counts,
    bootstrap_means,
    check_finite,
    comparison_rng,
    holm_exclusion,
    min_p,
    randomization_p,
    verdict,
)
from searchbench.measures import DETECTED, METRIC_LABELS, METRICS, MIN_QUERIES, Verdict
from searchbench.repeatability import pooled_flag
from searchbench.statuses import NOT_APPLICABLE

ROUND_DECIMALS = 12
SUBSET = "all"
WEIGHTING = "corpora weighted equally; queries resampled within each corpus"
FAMILIES = {
    "primary": "the declared questions (config primary), each vs the baseline; Holm among them",
    "leader": "the track's leader vs the runner-up (not ablation variants); Holm within it",
}
COST_RULE = (
    "median over the tool's corpora of each corpus's figure: median_seconds, the median over "
    "timed queries of each query's median wall time (the timing tables: the code track's "
    "queries, failed runs left out); bytes_before_answer, the median bytes before the answer "
    "over found queries and bytes_read over every query (agent_cost.tsv); index_seconds, the "
    "build wall time of the index it searches, or for a session tool (a language server, an "
    "embedding search) the seconds until its session was ready, since it indexes as it starts "
    "(null when it has neither)"
)
REPEATABILITY = (
    "each search job asks a seeded sample of its answered queries again, the same way: "
    "repeatable is false when any printed something else on any of the tool's corpora, null "
    "when none was audited (repeat_queries, repeat_differ: the counts)"
)

Strata = dict[str, pd.Series]  # corpus -> per-query values by qid (sorted)


@dataclass(frozen=True)
class CorpusInputs:
    """What one corpus contributes to a track's pooled file (read by scripts/pooled.py)."""

    corpus: str
    scores: pd.DataFrame  # scores.tsv, as searchbench.metrics.read_scores reads it
    inference: Mapping[str, Any]  # inference.json
    broken: Mapping[str, str] = field(default_factory=dict)  # tool -> why (health.tsv)
    agent_cost: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # tool -> row
    seconds: Mapping[str, float] = field(default_factory=dict)  # tool -> median wall per query
    index_seconds: Mapping[str, float] = field(default_factory=dict)  # tool -> build wall
    # tool -> its repeatability audit (results/{corpus}/{track}/repeat/{tool}.json)
    repeat: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def rounded(value: Any) -> Any:
    """Every float of a JSON value to ROUND_DECIMALS (-0.0 as 0.0); NaN is refused."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BenchError(f"a non-finite figure {value!r} would be written; this is a bug")
        return round(value, ROUND_DECIMALS) + 0.0
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


# ----------------------------------------------------------------------------- per-query data


def asked_values(scores: pd.DataFrame, tool: str, metric: str) -> pd.Series:
    """A tool's metric on the queries it was asked, by qid (sorted); empty when none."""
    rows = scores[(scores["tool"] == tool) & (scores["status"] != NOT_APPLICABLE)]
    values = rows.set_index("qid")[metric].sort_index().astype(float)
    if values.index.has_duplicates:
        raise BenchError(f"scores of tool {tool!r} have a qid twice; rerun the score rule")
    return values


def tool_strata(corpora: Sequence[CorpusInputs], tool: str, metric: str) -> Strata:
    """corpus -> the tool's values on its asked queries, over the corpora where it was scored,
    is not broken and was asked at least one query."""
    out: Strata = {}
    for c in sorted(corpora, key=lambda c: c.corpus):
        if tool in c.broken or tool not in set(c.scores["tool"]):
            continue
        values = asked_values(c.scores, tool, metric)
        if len(values):
            out[c.corpus] = values
    return out


def corpus_weighted_mean(strata: Mapping[str, np.ndarray | pd.Series]) -> float:
    """The mean over corpora of each corpus's mean (corpora weighted equally)."""
    return math.fsum(float(np.mean(v)) for _, v in sorted(strata.items())) / len(strata)


def query_weighted_mean(strata: Mapping[str, np.ndarray | pd.Series]) -> float:
    """The mean over every query of every corpus (a corpus weighs by its queries)."""
    values = [float(x) for _, v in sorted(strata.items()) for x in np.asarray(v)]
    return math.fsum(values) / len(values)


def stratified_means(
    strata: Mapping[str, np.ndarray], seed: int, name: Sequence[str], resamples: int
) -> np.ndarray:
    """The corpus-weighted mean of each of ``resamples`` resamples drawn within each corpus
    (each corpus its own Generator, named by the comparison and the corpus)."""
    total = np.zeros(resamples)
    for corpus, values in sorted(strata.items()):
        rng = comparison_rng(seed, "pooled", "bootstrap", *name, corpus)
        total += bootstrap_means(np.asarray(values, dtype=float), rng, resamples)
    return total / len(strata)


def interval(means: np.ndarray, scale: float) -> tuple[float, float]:
    """The 95% percentile interval of resampled means (calibration.percentile_interval: a mean
    within rounding of 0 is 0, so the vectorised A/A twin reads the same interval)."""
    low, high = percentile_interval(np.asarray(means, dtype=float)[None, :], scale)
    return float(low[0]), float(high[0])


def weighted_differences(diffs: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each query's difference times its weight 1 / (K n_c), concatenated in corpus order:
    their sum is the corpus-weighted mean difference, the randomization test's statistic."""
    k = len(diffs)
    return np.concatenate(
        [np.asarray(d, dtype=float) / (k * len(d)) for _, d in sorted(diffs.items())]
    )


# ----------------------------------------------------------------------------- one comparison


def paired_strata(
    corpora: Sequence[CorpusInputs], tool: str, reference: str, metric: str
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], list[dict[str, str]], bool]:
    """corpus -> (tool, reference) values on the queries both were asked, where neither is
    broken; the corpora left out for a broken tool (with why); whether the two tools score the
    same on every paired query and every metric (the inference's ``identical``)."""
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    excluded: list[dict[str, str]] = []
    identical = True
    for c in sorted(corpora, key=lambda c: c.corpus):
        scored = set(c.scores["tool"])
        if tool not in scored or reference not in scored:
            continue
        reasons = [f"{t} {c.broken[t]}" for t in (tool, reference) if t in c.broken]
        if reasons:
            excluded.append({"corpus": c.corpus, "reason": "broken: " + "; ".join(reasons)})
            continue
        a, b = asked_values(c.scores, tool, metric), asked_values(c.scores, reference, metric)
        both = a.index.intersection(b.index)
        if not len(both):
            continue
        out[c.corpus] = (a.loc[both].to_numpy(), b.loc[both].to_numpy())
        for m in METRICS:
            x = asked_values(c.scores, tool, m).loc[both].to_numpy()
            y = asked_values(c.scores, reference, m).loc[both].to_numpy()
            identical = identical and bool(np.array_equal(x, y))
    return out, excluded, identical


def pooled_comparison(
    pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    seed: int,
    name: Sequence[str],
    resamples: int,
) -> dict[str, Any]:
    """Everything but Holm and the verdict of one pooled paired comparison (the fields of
    inference.paired_comparison): the corpus-weighted mean difference, its stratified
    interval and the sign-flip p over every corpus's queries."""
    diffs = {c: t - r for c, (t, r) in sorted(pairs.items())}
    for corpus, d in diffs.items():
        check_finite(d, (*name, corpus))
    n = sum(len(d) for d in diffs.values())
    n_eff = sum(int(np.count_nonzero(d)) for d in diffs.values())
    result: dict[str, Any] = {
        "n": n,
        "n_eff": n_eff,
        "corpora": len(diffs),
        "mean_tool": None,
        "mean_reference": None,
        "diff": None,
        "ci_low": None,
        "ci_high": None,
        "p_randomization": None,
        "p_exact": None,
        "p_min": min_p(n_eff, resamples),
    }
    if n == 0:
        return result
    scale = max(float(np.abs(d).max()) for d in diffs.values())
    low, high = interval(stratified_means(diffs, seed, name, resamples), scale)
    rng = comparison_rng(seed, "pooled", "randomization", *name)
    p, exact = randomization_p(weighted_differences(diffs), rng, resamples)
    result.update(
        mean_tool=corpus_weighted_mean({c: t for c, (t, _) in pairs.items()}),
        mean_reference=corpus_weighted_mean({c: r for c, (_, r) in pairs.items()}),
        diff=corpus_weighted_mean(diffs),
        ci_low=low,
        ci_high=high,
        p_randomization=p,
        p_exact=exact,
    )
    return result


def pooled_verdicts(
    corpora: Sequence[CorpusInputs],
    pairs: Sequence[tuple[str, str]],
    family: str,
    design: Design,
) -> list[dict[str, Any]]:
    """One family's pooled comparisons on the track's primary metric, Holm-adjusted within it
    by the inference's own adjust_family (Tarone's exclusions, Holm, the combined verdict
    rule)."""
    metric, seed, resamples = design.primary_metric, design.seed, design.resamples
    out = []
    for tool, reference in pairs:
        paired, excluded, identical = paired_strata(corpora, tool, reference, metric)
        result = pooled_comparison(
            paired, seed=seed, name=(tool, reference, metric, SUBSET), resamples=resamples
        )
        result.update(
            tool=tool,
            reference=reference,
            baseline=reference,  # adjust_family's name for the reference
            family=family,
            metric=metric,
            subset=SUBSET,
            identical=identical and result["n"] > 0,
            applicable=bool(paired) or bool(excluded),
            excluded=excluded,
            corpus_names=sorted(paired),
        )
        if not paired and excluded:
            result["broken"] = "; ".join(e["reason"] for e in excluded)
        out.append(result)
    adjust_family(out, design.alpha, design.min_queries)
    for c in out:
        del c["baseline"]
    return out


# ----------------------------------------------------------------------------- per corpus


def swapped_verdict(value: str) -> str:
    """A verdict read the other way round (reference vs tool)."""
    swap = {
        Verdict.DETECTED_BETTER.value: Verdict.DETECTED_WORSE.value,
        Verdict.DETECTED_WORSE.value: Verdict.DETECTED_BETTER.value,
    }
    return swap.get(value, value)


def corpus_comparison(
    inference: Mapping[str, Any], tool: str, reference: str, metric: str
) -> dict[str, Any] | None:
    """The per-corpus comparison of tool with reference (primary metric, all queries) as
    inference.json has it, oriented tool - reference; None when it holds none."""
    for c in [*inference.get("comparisons", []), *inference.get("pairs", [])]:
        if c["metric"] != metric or c["subset"] != SUBSET:
            continue
        if (c["tool"], c["baseline"]) == (tool, reference):
            return {k: c[k] for k in ("n", "diff", "ci_low", "ci_high", "verdict")}
        if (c["tool"], c["baseline"]) == (reference, tool):
            flip = lambda x: None if x is None else -x  # noqa: E731
            return {
                "n": c["n"],
                "diff": flip(c["diff"]),
                "ci_low": flip(c["ci_high"]),
                "ci_high": flip(c["ci_low"]),
                "verdict": swapped_verdict(c["verdict"]),
            }
    return None


def required_comparison(
    corpus: CorpusInputs, tool: str, reference: str, metric: str
) -> dict[str, Any]:
    found = corpus_comparison(corpus.inference, tool, reference, metric)
    if found is None:
        raise BenchError(
            f"corpus {corpus.corpus}'s inference.json has no comparison of {tool} with "
            f"{reference} on {metric} over all queries; rerun the inference rule (all_pairs on)"
        )
    return found


def forest_rows(
    corpora: Sequence[CorpusInputs], verdicts: Sequence[Mapping[str, Any]], metric: str
) -> list[dict[str, Any]]:
    """The per-corpus differences behind each pooled verdict, read from inference.json."""
    by_name = {c.corpus: c for c in corpora}
    rows, seen = [], set()
    for v in verdicts:
        if (v["tool"], v["reference"]) in seen:  # a repeated test (same_as): rows given once
            continue
        seen.add((v["tool"], v["reference"]))
        for corpus in v["corpus_names"]:
            found = required_comparison(by_name[corpus], v["tool"], v["reference"], metric)
            rows.append({"tool": v["tool"], "reference": v["reference"], "corpus": corpus, **found})
    return rows


# ----------------------------------------------------------------------------- leaderboard


def subset_phrase(corpora: Sequence[CorpusInputs], tool: str, counted: Sequence[str]) -> str:
    """ "all", or which queries the tool was asked on its corpora (a language server's)."""
    asked = total = 0
    languages: set[str] = set()
    for c in corpora:
        if c.corpus not in counted:
            continue
        rows = c.scores[c.scores["tool"] == tool]
        mine = rows[rows["status"] != NOT_APPLICABLE]
        asked += len(mine)
        total += len(rows)
        languages |= set(map(str, mine["language"]))
    if asked == total:
        return "all"
    return f"{', '.join(sorted(languages))} queries only ({asked} of {total} on its corpora)"


def median_of(values: Sequence[float | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return float(statistics.median(present)) if present else None


def cost_cell(row: Mapping[str, str] | None, column: str) -> float | None:
    if not row or row.get(column, "") == "":
        return None
    return float(row[column])


def win_tie_loss(
    corpora: Sequence[CorpusInputs], tool: str, baseline: str, counted: Sequence[str], metric: str
) -> dict[str, int | None]:
    """Per-corpus verdicts against the baseline over the tool's corpora: detected better,
    detected worse, anything else (not detected, tests disagree, not evidence, identical,
    the baseline broken there). None for the baseline itself."""
    if tool == baseline:
        return {"wins": None, "ties": None, "losses": None}
    counts = {"wins": 0, "ties": 0, "losses": 0}
    for c in corpora:
        if c.corpus in counted:
            found = required_comparison(c, tool, baseline, metric)["verdict"]
            key = {
                Verdict.DETECTED_BETTER.value: "wins",
                Verdict.DETECTED_WORSE.value: "losses",
            }.get(found, "ties")
            counts[key] += 1
    return dict(counts)


def tool_row(
    corpora: Sequence[CorpusInputs],
    tool: str,
    design: Design,
    *,
    family: str,
    ablation_of: str | None,
) -> dict[str, Any]:
    """One leaderboard row (rank filled in later)."""
    baseline, metric = design.baseline, design.primary_metric
    strata = tool_strata(corpora, tool, metric)
    counted = sorted(strata)
    row: dict[str, Any] = {
        "tool": tool,
        "family": family,
        "ablation_of": ablation_of,
        "corpora": len(counted),
        "queries": sum(len(v) for v in strata.values()),
        "subset": subset_phrase(corpora, tool, counted) if counted else "all",
        "pooled": None,
        "ci_low": None,
        "ci_high": None,
        "query_weighted": None,
        "corpus_means": {c: float(v.mean()) for c, v in strata.items()},
        "broken": sorted(c.corpus for c in corpora if tool in c.broken),
        **win_tie_loss(corpora, tool, baseline, counted, metric),
    }
    if counted:
        arrays = {c: v.to_numpy() for c, v in strata.items()}
        scale = max(float(np.abs(v).max()) for v in arrays.values())
        means = stratified_means(arrays, design.seed, (tool, metric, SUBSET), design.resamples)
        low, high = interval(means, scale)
        row.update(
            pooled=corpus_weighted_mean(arrays),
            ci_low=low,
            ci_high=high,
            query_weighted=query_weighted_mean(arrays),
        )
    own = [c for c in corpora if c.corpus in counted]
    row.update(
        median_seconds=median_of([c.seconds.get(tool) for c in own]),
        bytes_before_answer=median_of(
            [cost_cell(c.agent_cost.get(tool), "median_bytes_before") for c in own]
        ),
        bytes_read=median_of([cost_cell(c.agent_cost.get(tool), "median_bytes_read") for c in own]),
        index_seconds=median_of([c.index_seconds.get(tool) for c in own]),
        **pooled_flag([c.repeat[tool] for c in own if tool in c.repeat]),
    )
    return row


def ranked(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """By pooled figure (highest first) then name, ranked 1, 2, 2, 4 (equal figures, as
    written, share a rank); a tool with no figure (broken on every corpus) last, unranked."""
    order = sorted(rows, key=lambda r: (r["pooled"] is None, -(r["pooled"] or 0.0), r["tool"]))
    out: list[dict[str, Any]] = []
    for i, r in enumerate(order, start=1):
        rank = None
        if r["pooled"] is not None:
            tied = out and rounded(out[-1]["pooled"]) == rounded(r["pooled"])
            rank = out[-1]["rank"] if tied else i
        out.append({**r, "rank": rank})
    return out


def leader_pair(
    rows: Sequence[Mapping[str, Any]], shares_queries: Callable[[str, str], bool]
) -> tuple[str, str] | None:
    """(leader, runner-up): the first ranked tool that is not an ablation variant, and the next
    such tool that was asked some query with it (a usage leader measured on rxjs only was
    paired with a runner-up measured on C and Java corpora: no query to compare)."""
    choosable = [r["tool"] for r in rows if r["rank"] is not None and not r["ablation_of"]]
    if not choosable:
        return None
    leader = choosable[0]
    runner_up = next((t for t in choosable[1:] if shares_queries(leader, t)), None)
    return (leader, runner_up) if runner_up else None


def not_applicable_reason(languages: Sequence[str] | None) -> str:
    if languages:
        return (
            f"asked no query of this track: its languages ({', '.join(languages)}) are not "
            "those of the queries"
        )
    return "asked no query of this track on any corpus"


# ----------------------------------------------------------------------------- the file


def track_verdicts(
    corpora: Sequence[CorpusInputs], board: Sequence[Mapping[str, Any]], design: Design
) -> list[dict[str, Any]]:
    """The primary family's pooled verdicts, then the leader's against the runner-up."""
    on_board = {r["tool"] for r in board}
    baseline, metric = design.baseline, design.primary_metric
    pairs = [(t, baseline) for t in sorted(set(design.primary)) if t in on_board and t != baseline]
    verdicts = pooled_verdicts(corpora, pairs, "primary", design)
    leader = leader_pair(board, lambda a, b: bool(paired_strata(corpora, a, b, metric)[0]))
    if leader is None:
        return verdicts
    same = next((v for v in verdicts if {v["tool"], v["reference"]} == set(leader)), None)
    if same is None:
        return verdicts + pooled_verdicts(corpora, [leader], "leader", design)
    # one pair, one test: the primary comparison, read from the leader's side
    return [*verdicts, repeated(same, *leader)]


def pooled_track(
    corpora: Sequence[CorpusInputs],
    design: Design,
    *,
    families: Mapping[str, str] | None = None,
    languages: Mapping[str, Sequence[str] | None] | None = None,
    off_track: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """results/pooled/{track}.json's content (docs/artifacts.md), floats rounded: the
    design's track on its primary metric.

    ``families``: tool -> tools.yaml family; ``languages``: tool -> its tools.yaml languages
    (None: every one); ``off_track``: the run's tools not on this track -> the tracks they
    run on. The design's ablations (variant -> full tool) mark the variants' rows."""
    track, metric, baseline = design.track, design.primary_metric, design.baseline
    if not corpora:
        raise BenchError(f"the {track} track was measured on no corpus: nothing to pool")
    families, ablations = dict(families or {}), dict(design.ablations)
    languages, off_track = dict(languages or {}), dict(off_track or {})
    tools = sorted({str(t) for c in corpora for t in c.scores["tool"]})
    if baseline not in tools:
        raise BenchError(
            f"baseline tool {baseline!r} has no scores on the {track} track; rerun the score rule"
        )
    rows, not_applicable = [], []
    for tool in tools:
        row = tool_row(
            corpora, tool, design, family=families.get(tool, ""), ablation_of=ablations.get(tool)
        )
        if not row["corpora"] and not row["broken"]:
            not_applicable.append(
                {"tool": tool, "reason": not_applicable_reason(languages.get(tool))}
            )
        else:
            rows.append(row)
    for tool, tracks in sorted(off_track.items()):
        reason = f"runs on the {', '.join(tracks)} track{'s' if len(tracks) > 1 else ''} only"
        not_applicable.append({"tool": tool, "reason": reason + " (tools.yaml tracks)"})
    board = ranked(rows)
    verdicts = track_verdicts(corpora, board, design)
    forest = forest_rows(corpora, verdicts, metric)
    return rounded(
        {
            "track": track,
            "metric": metric,
            "metric_label": dict(METRIC_LABELS)[metric],
            "baseline": baseline,
            "alpha": design.alpha,
            "resamples": design.resamples,
            "seed": design.seed,
            "min_queries": design.min_queries,
            "confidence": CONFIDENCE,
            "weighting": WEIGHTING,
            "interval": (
                f"{CONFIDENCE:.0%} percentile bootstrap stratified by corpus: each resample draws "
                "every corpus's queries with replacement within it and averages the corpora's "
                "means with equal weight"
            ),
            "test": (
                "two-sided sign-flip randomization test of the corpus-weighted mean difference: "
                "each query's difference keeps or flips its sign, independently, across all "
                f"corpora; exact when at most {EXACT_MAX_N_EFF} queries differ"
            ),
            "verdict_rule": (
                "the per-corpus inference's combined rule: detected only when the interval "
                "excludes 0 and the Holm-adjusted p < alpha (Holm within the family, Tarone's "
                "exclusions first); tests disagree when exactly one holds"
            ),
            "families": dict(FAMILIES),
            "cost_rule": COST_RULE,
            "repeatability": REPEATABILITY,
            "corpora": sorted(c.corpus for c in corpora),
            "leaderboard": board,
            "not_applicable": not_applicable,
            "verdicts": [verdict_row(v) for v in verdicts],
            "forest": forest,
        }
    )


def repeated(comparison: Mapping[str, Any], tool: str, reference: str) -> dict[str, Any]:
    """A tested comparison read as tool vs reference, in the leader family (same test)."""
    out = dict(comparison)
    if (comparison["tool"], comparison["reference"]) != (tool, reference):
        flip = lambda x: None if x is None else -x  # noqa: E731
        out.update(
            mean_tool=comparison["mean_reference"],
            mean_reference=comparison["mean_tool"],
            diff=flip(comparison["diff"]),
            ci_low=flip(comparison["ci_high"]),
            ci_high=flip(comparison["ci_low"]),
            verdict=swapped_verdict(comparison["verdict"]),
        )
    out.update(tool=tool, reference=reference, family="leader", same_as=comparison["family"])
    return out


VERDICT_KEYS = (
    "tool",
    "reference",
    "family",
    "corpora",
    "queries",
    "diff",
    "ci_low",
    "ci_high",
    "p",
    "p_holm",
    "verdict",
    "n_eff",
    "p_min",
    "p_exact",
    "holm_m",
    "holm_excluded",
    "mean_tool",
    "mean_reference",
    "corpus_names",
    "excluded",
    "same_as",
)


def verdict_row(c: Mapping[str, Any]) -> dict[str, Any]:
    """A pooled comparison in the file's keys (p is the raw sign-flip p)."""
    row = {**c, "queries": c["n"], "p": c["p_randomization"]}
    row.setdefault("same_as", None)
    return {k: row[k] for k in VERDICT_KEYS}


# ----------------------------------------------------------------------------- cost inputs


def session_ready_seconds(records: Iterable[Mapping[str, Any]]) -> float | None:
    """The seconds one search job's session took to be ready (the session record every asked
    query carries, searchbench/session.py); None when no query met a ready session."""
    waits = {float(r["session_ready_seconds"]) for r in records if r.get("session_ready")}
    if len(waits) > 1:
        raise BenchError(f"one search job's queries name {len(waits)} session ready times")
    return waits.pop() if waits else None


def median_wall_seconds(rows: Sequence[Mapping[str, str]], ok_exits: Sequence[int]) -> float | None:
    """The median over timed queries of each query's median wall time, failed runs (timed out,
    or an exit code other than ok_exits) left out: the report's timing figure
    (searchbench.report.summaries.timing_summary median_wall_s); None with no good run."""
    walls: dict[str, list[float]] = {}
    for r in rows:
        code = r.get("exit_code", "0")
        failed = r.get("timed_out", "0") in ("1", "true", "True") or not code.lstrip("-").isdigit()
        if not failed and int(code) in ok_exits:
            walls.setdefault(r["qid"], []).append(float(r["wall"]))
    if not walls:
        return None
    return float(statistics.median(statistics.median(v) for _, v in sorted(walls.items())))


# ----------------------------------------------------------------------------- A/A twin


@dataclass(frozen=True)
class AAResult:
    """A/A runs of the pooled rule on one family: simulations x comparisons verdicts."""

    pairs: list[tuple[str, str]]
    verdict: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_randomization: np.ndarray

    def family_detections(self) -> int:
        """Simulations with at least one detected verdict (the family-wise false detections)."""
        return int(np.isin(self.verdict, list(DETECTED)).any(axis=1).sum())


def aa_swaps(seed: int, name: Sequence[str], corpus: str, simulations: int, n: int) -> np.ndarray:
    rng = comparison_rng(seed, "pooled-aa", "swaps", *name, corpus)
    return rng.random((simulations, n)) < 0.5


def aa_orders(seed: int, name: Sequence[str], corpus: str, simulations: int, n: int) -> np.ndarray:
    rng = comparison_rng(seed, "pooled-aa", "orders", *name, corpus)
    return rng.permuted(np.tile(np.arange(n), (simulations, 1)), axis=1)


def aa_diffs(
    pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    seed: int,
    name: Sequence[str],
    simulations: int,
) -> dict[str, np.ndarray]:
    """corpus -> (simulations, n_c) differences: tool and reference exchanged within each
    query with probability 1/2 (no true difference; n, magnitudes and ties kept), then each
    simulation's queries in its own random order within the corpus (so simulations do not
    share resamples of the same queries), as calibration.py builds its A/A pairs."""
    out = {}
    for corpus, (t, r) in sorted(pairs.items()):
        d = np.asarray(t, dtype=float) - np.asarray(r, dtype=float)
        signs = np.where(aa_swaps(seed, name, corpus, simulations, len(d)), -d, d)
        out[corpus] = np.take_along_axis(
            signs, aa_orders(seed, name, corpus, simulations, len(d)), axis=1
        )
    return out


def aa_statistics(
    diffs: Mapping[str, np.ndarray], *, seed: int, name: Sequence[str], resamples: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ci_low, ci_high, p) of every simulation at once: pooled_comparison's draws (the same
    per-corpus bootstrap indices and random sign patterns, from the same Generators), applied
    to each simulation's differences as matrix products."""
    k = len(diffs)
    simulations = len(next(iter(diffs.values())))
    means = np.zeros((simulations, resamples))
    for corpus, d in sorted(diffs.items()):
        rng = comparison_rng(seed, "pooled", "bootstrap", *name, corpus)
        counts = bootstrap_counts(rng, resamples, d.shape[1])
        means += d @ counts.T / d.shape[1]
    scale = max(float(np.abs(d[0]).max()) for d in diffs.values())
    low, high = percentile_interval(means / k, scale)
    weighted = np.concatenate([d / (k * d.shape[1]) for _, d in sorted(diffs.items())], axis=1)
    n_eff = int(np.count_nonzero(weighted[0]))
    nonzero = weighted[weighted != 0.0].reshape(simulations, n_eff)
    signs = None
    if n_eff > EXACT_MAX_N_EFF:
        rng = comparison_rng(seed, "pooled", "randomization", *name)
        signs = (rng.integers(0, 2, (resamples, n_eff), dtype=np.int8) * 2 - 1).astype(float)
    return low, high, sign_flip_p(nonzero, signs, resamples)


def aa_family(
    family_pairs: Sequence[Mapping[str, tuple[np.ndarray, np.ndarray]]],
    names: Sequence[tuple[str, str]],
    *,
    metric: str,
    seed: int,
    simulations: int,
    resamples: int,
    alpha: float,
    min_queries: int = MIN_QUERIES,
) -> AAResult:
    """Every A/A simulation's pooled verdicts for one family: each comparison's statistics
    (aa_statistics), then the inference's Tarone exclusion, Holm within the family and its
    verdict function, as pooled_verdicts applies them."""
    facts, lows, highs, ps = [], [], [], []
    for pairs, (tool, reference) in zip(family_pairs, names, strict=True):
        name = (tool, reference, metric, SUBSET)
        n = sum(len(t) for t, _ in pairs.values())
        n_eff = sum(int(np.count_nonzero(np.asarray(t) - np.asarray(r))) for t, r in pairs.values())
        fact = {"n": n, "n_eff": n_eff, "p_min": min_p(n_eff, resamples), "identical": n_eff == 0}
        fact["p_randomization"] = 1.0 if n else None  # only whether there is one matters
        fact["holm_excluded"] = holm_exclusion(fact, alpha, min_queries)
        facts.append(fact)
        if n_eff == 0:
            lows.append(np.zeros(simulations))
            highs.append(np.zeros(simulations))
            ps.append(np.ones(simulations))
            continue
        diffs = aa_diffs(pairs, seed, name, simulations)
        low, high, p = aa_statistics(diffs, seed=seed, name=name, resamples=resamples)
        lows.append(low)
        highs.append(high)
        ps.append(p)
    shape = (simulations, len(names))
    ci_low, ci_high = np.column_stack(lows).reshape(shape), np.column_stack(highs).reshape(shape)
    p = np.column_stack(ps).reshape(shape)
    tested = [j for j, f in enumerate(facts) if f["holm_excluded"] is None]
    p_holm = np.full(shape, np.nan)
    if tested:
        p_holm[:, tested] = holm_rows(p[:, tested])
    verdicts = np.empty(shape, dtype=object)
    for j, f in enumerate(facts):
        for s in range(simulations):
            verdicts[s, j] = verdict(
                f["n"],
                float(ci_low[s, j]) if f["n"] else None,
                float(ci_high[s, j]) if f["n"] else None,
                None if f["holm_excluded"] else float(p_holm[s, j]),
                f["p_min"],
                alpha,
                min_queries,
                identical=f["identical"],
            )
    return AAResult(list(names), verdicts, ci_low, ci_high, p)


def aa_run(
    corpora: Sequence[CorpusInputs],
    pairs: Sequence[tuple[str, str]],
    *,
    metric: str,
    seed: int,
    simulations: int,
    resamples: int,
    alpha: float,
    min_queries: int = MIN_QUERIES,
) -> tuple[AAResult, tuple[float | None, float | None, float | None]]:
    """A/A runs of the pooled rule on one family of real (tool, reference) pairs, on the
    queries and corpora pooled_verdicts would compare them on: the simulations and the
    family-wise false-detection rate with its 95% Clopper-Pearson interval."""
    family_pairs = [paired_strata(corpora, t, r, metric)[0] for t, r in pairs]
    result = aa_family(
        family_pairs,
        list(pairs),
        metric=metric,
        seed=seed,
        simulations=simulations,
        resamples=resamples,
        alpha=alpha,
        min_queries=min_queries,
    )
    return result, rate(result.family_detections(), simulations)
