"""How often does the pooled rule (results/pooled/{track}.json) detect a difference where there
is none? A/A runs on a finished run's own scores.

    bench_pooled_aa.py [--track code] [--simulations 2000] [--resamples 2000] RESULTS_DIR

For each family of the pooled file (primary: each config primary tool vs the baseline; leader:
the leader vs the runner-up, as results/pooled/{track}.json names them) and for a stress family
of every other tool vs the baseline (Holm over all of them), every simulation swaps the two
tools' values within each query with probability 1/2 (no true difference; searchbench/
pooled.py aa_family, the same construction as calibration.py) and applies the pooled rule:
stratified interval, weighted sign-flip p, Tarone, Holm, verdict. Prints each family's
family-wise false-detection rate with its 95% Clopper-Pearson interval. Reads scores.tsv,
health.tsv and the pooled file; runs no tool.
"""

import argparse
import json
import time
from pathlib import Path

from searchbench.health import broken_tools, read_health
from searchbench.measures import primary_metric_of
from searchbench.metrics import read_scores
from searchbench.pooled import CorpusInputs, aa_run


def corpus_inputs(results: Path, track: str, corpora: list[str]) -> list[CorpusInputs]:
    out = []
    for corpus in corpora:
        health = results / corpus / track / "health.tsv"
        broken = broken_tools(read_health(health)) if health.exists() else {}
        scores = read_scores(results / corpus / track / "scores.tsv")
        out.append(CorpusInputs(corpus, scores, {}, broken=broken))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--track", default="code")
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    pooled = json.loads((args.results / "pooled" / f"{args.track}.json").read_text())
    metric = primary_metric_of(args.track)
    corpora = corpus_inputs(args.results, args.track, pooled["corpora"])
    families = {
        family: [
            (v["tool"], v["reference"])
            for v in pooled["verdicts"]
            if v["family"] == family and not v.get("same_as")
        ]
        for family in ("primary", "leader")
    }
    families["every tool vs the baseline"] = [
        (r["tool"], pooled["baseline"])
        for r in pooled["leaderboard"]
        if r["tool"] != pooled["baseline"] and r["rank"] is not None
    ]
    print(
        f"{args.track} track, corpora {', '.join(pooled['corpora'])}; seed {pooled['seed']}, "
        f"alpha {pooled['alpha']}, {args.simulations} simulations, {args.resamples} resamples"
    )
    for family, pairs in families.items():
        if not pairs:
            continue
        start = time.monotonic()
        _, (share, low, high) = aa_run(
            corpora,
            pairs,
            metric=metric,
            seed=int(pooled["seed"]),
            simulations=args.simulations,
            resamples=args.resamples,
            alpha=float(pooled["alpha"]),
            min_queries=int(pooled.get("min_queries", 10)),
        )
        named = ", ".join(f"{t} vs {r}" for t, r in pairs)
        print(
            f"{family} ({len(pairs)}: {named}): family-wise false detections "
            f"{share:.4f} [{low:.4f}, {high:.4f}] ({time.monotonic() - start:.0f} s)"
        )


if __name__ == "__main__":
    main()
