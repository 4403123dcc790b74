"""How long does the one-pass containment step take, against one plain ripgrep search?

    bench_containment.py [--repeats N] CORPUS_DIR QUERIES_TSV

Times, alternately and N times each, (a) one plain `rg --sort path` search of the tree for the
first query of QUERIES_TSV (the baseline's own argv from config/tools.yaml) and (b) the whole
containment pass for every query of QUERIES_TSV (searchbench.containment), and prints the
medians and their ratio. Target (issue 7): ratio <= 3 for 1,000 kernel queries. Run on a
corpus already in the page cache (the first, untimed, rg run warms it).
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from searchbench.command import search_argv
from searchbench.containment import files_containing_all
from searchbench.fastpath import locate_rg
from searchbench.queries_io import read_queries
from searchbench.runner import clean_env
from searchbench.tools import load_tools, resolve_tools

REPO = Path(__file__).resolve().parent.parent


def plain_rg(corpus: Path, query: str) -> float:
    specs = load_tools(REPO / "config" / "tools.yaml")
    tool = resolve_tools({"rg": specs["rg"]})["rg"]
    argv = search_argv(tool, query)
    start = time.perf_counter()
    subprocess.run(
        argv, cwd=corpus, env=clean_env(str(corpus)), stdout=subprocess.DEVNULL, check=False
    )
    return time.perf_counter() - start


def one_pass(corpus: Path, literals: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    found = files_containing_all(locate_rg(), str(corpus), literals)
    return time.perf_counter() - start, sum(len(v) for v in found.values())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    literals = [q.query for q in read_queries(args.queries)]
    plain_rg(args.corpus, literals[0])  # warm the page cache
    rg_times, pass_times, rows = [], [], 0
    for _ in range(args.repeats):
        rg_times.append(plain_rg(args.corpus, literals[0]))
        seconds, rows = one_pass(args.corpus, literals)
        pass_times.append(seconds)
    rg_median, pass_median = statistics.median(rg_times), statistics.median(pass_times)
    print(f"queries\t{len(literals)}")
    print(f"(query, file) rows\t{rows}")
    print(f"plain rg --sort path, one query (median of {args.repeats})\t{rg_median:.3f} s")
    print(f"containment pass, all queries (median of {args.repeats})\t{pass_median:.3f} s")
    print(f"ratio\t{pass_median / rg_median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
