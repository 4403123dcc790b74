"""Compare two result sets per track, corpus and tool (searchbench/compare.py).

    python devtools/compare_runs.py A B [--metric rr] [--subset all] [--changed] [--tsv]

A and B: evidence/NAME, a workflow folder (or its results/), or a summary.csv.
"""

import argparse
import sys

from searchbench.compare import compare, load, render, tsv
from searchbench.errors import BenchError
from searchbench.measures import METRICS, SUBSETS


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the result set to compare against (e.g. evidence/default)")
    parser.add_argument("b", help="the result set to compare (e.g. results)")
    parser.add_argument("--metric", choices=METRICS, default="rr")
    parser.add_argument("--subset", choices=SUBSETS, default="all")
    parser.add_argument("--changed", action="store_true", help="only rows that moved")
    parser.add_argument("--tsv", action="store_true", help="tab-separated, every row")
    args = parser.parse_args(argv)
    try:
        a = load(args.a, args.metric, args.subset)
        b = load(args.b, args.metric, args.subset)
    except BenchError as err:
        print(f"compare: {err}", file=sys.stderr)
        return 2
    changes = compare(a, b)
    sys.stdout.write(tsv(changes) if args.tsv else render(changes, args.a, args.b, args.changed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
