"""How much slower is hay than the ripgrep run it wraps?

    bench_hay.py [--repeats N] [--hay HAY] [--rg RG] CORPUS_DIR [QUERY ...]

For each query, runs `rg --json ...` (exactly the command hay runs) and `hay ...` alternately,
N times each, output to /dev/null, and prints the median wall time of each and the ratio
hay/rg as a TSV table, then the median ratio over queries. Under Snakemake:
input.corpus, params.queries (optional), params.repeats (optional), output.table.
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from searchbench.artifacts import write_text

DEFAULT_QUERIES = ["Reader", "ReadFull", "parseIPv4", "errNoSuchHost", "func"]


def wall(argv: list[str], cwd: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    rc = subprocess.run(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    ).returncode
    return time.perf_counter() - t0, rc


def bench(
    corpus: Path, queries: list[str], hay: str, rg: str, repeats: int
) -> list[tuple[str, float, float, float]]:
    """Per query: (query, median rg --json wall, median hay wall, ratio)."""
    from searchbench.hay.cli import rg_argv

    rows = []
    for query in queries:
        rg_cmd = rg_argv(rg, query, ["."], word=False)
        hay_cmd = [hay, "--rg", rg, "--", query, "."]
        wall(rg_cmd, corpus)  # warm the page cache
        rg_t, hay_t = [], []
        for _ in range(repeats):
            t, rc_rg = wall(rg_cmd, corpus)
            rg_t.append(t)
            t, rc_hay = wall(hay_cmd, corpus)
            hay_t.append(t)
            if rc_rg != rc_hay:
                raise SystemExit(f"query {query!r}: rg exited {rc_rg} but hay {rc_hay}")
        a, b = statistics.median(rg_t), statistics.median(hay_t)
        rows.append((query, a, b, b / a))
    return rows


def render(rows: list[tuple[str, float, float, float]]) -> str:
    out = ["query\trg_json_median_s\thay_median_s\tratio"]
    out += [f"{q}\t{a:.4f}\t{b:.4f}\t{r:.3f}" for q, a, b, r in rows]
    out.append(f"# median ratio over queries: {statistics.median(r[3] for r in rows):.3f}")
    return "\n".join(out) + "\n"


def default_binaries() -> tuple[str, str]:
    bindir = Path(sys.executable).parent
    hay = str(bindir / "hay") if (bindir / "hay").exists() else shutil.which("hay")
    rg = str(bindir / "rg") if (bindir / "rg").exists() else shutil.which("rg")
    if not hay or not rg:
        raise SystemExit("hay or rg not found; run `pip install -e .` in the venv")
    return hay, rg


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", type=Path)
    p.add_argument("queries", nargs="*", default=DEFAULT_QUERIES)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--hay")
    p.add_argument("--rg")
    args = p.parse_args(argv)
    hay, rg = default_binaries() if not (args.hay and args.rg) else (args.hay, args.rg)
    sys.stdout.write(
        render(bench(args.corpus, args.queries, args.hay or hay, args.rg or rg, args.repeats))
    )
    return 0


def main_snakemake(sm) -> None:
    hay, rg = default_binaries()
    queries = list(sm.params.get("queries", DEFAULT_QUERIES))
    text = render(bench(Path(sm.input.corpus), queries, hay, rg, int(sm.params.get("repeats", 7))))
    write_text(sm.output.table, text)


if __name__ == "__main__":
    if "snakemake" in globals():
        main_snakemake(snakemake)  # type: ignore[name-defined]  # noqa: F821
    else:
        sys.exit(main(sys.argv[1:]))
