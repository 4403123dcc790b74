"""Per rule, the largest wall time and peak memory a run's jobs recorded: the figures behind
the resources in profiles/slurm/config.yaml.

    resources_from_benchmarks.py [BENCHMARKS_DIR] [--rules-dir DIR]

BENCHMARKS_DIR (default results/benchmarks) holds the `benchmark:` files Snakemake wrote, one
TSV per job (columns s, h:m:s, max_rss, ...; max_rss in MB). Which rule wrote a file is read
from the rules' own `benchmark:` paths in --rules-dir (default: this workflow's rules/), so a
new or renamed rule needs no change here. Prints one tab-separated line per rule: jobs, the
largest s, the sums of s (job-seconds) and of cpu_time (CPU-seconds), the largest max_rss,
and the jobs the largest s and the largest max_rss came from.
A file no rule's path matches is counted under `?`.
"""

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RULE = re.compile(r"^\s*(?:rule|checkpoint)\s+(\w+)\s*:")
PATH = re.compile(r"""^\s*["']results/benchmarks/([^"']+)["']""")
WILDCARD = re.compile(r"\{[^}]+\}")


@dataclass
class RuleFigures:
    jobs: int = 0
    max_s: float = 0.0
    max_s_job: str = ""
    sum_s: float = 0.0
    sum_cpu_s: float = 0.0
    max_rss_mb: float = 0.0
    max_rss_job: str = ""

    def add(self, job: str, seconds: float, rss_mb: float, cpu_s: float) -> None:
        self.jobs += 1
        self.sum_s += seconds
        self.sum_cpu_s += cpu_s
        if seconds >= self.max_s:
            self.max_s, self.max_s_job = seconds, job
        if rss_mb >= self.max_rss_mb:
            self.max_rss_mb, self.max_rss_job = rss_mb, job


def benchmark_patterns(rules_dir: Path) -> list[tuple[re.Pattern[str], str, int]]:
    """(path regex relative to results/benchmarks, rule, literal length) of every rule's
    `benchmark:` path; longer literals first, so `pooled/{track}/x` wins over `{corpus}/...`."""
    patterns = []
    for smk in sorted(rules_dir.glob("*.smk")):
        rule, awaiting = "", False
        for line in smk.read_text().splitlines():
            if header := RULE.match(line):
                rule, awaiting = header.group(1), False
            elif line.strip() == "benchmark:":
                awaiting = True
            elif awaiting and (path := PATH.match(line)):
                template = path.group(1)
                parts = WILDCARD.split(template)
                regex = "[^/]+".join(re.escape(p) for p in parts)
                patterns.append((re.compile(f"^{regex}$"), rule, sum(map(len, parts))))
                awaiting = False
    return sorted(patterns, key=lambda p: -p[2])


def rule_of(relative: str, patterns: list[tuple[re.Pattern[str], str, int]]) -> str:
    return next((rule for regex, rule, _ in patterns if regex.match(relative)), "?")


def read_benchmark(path: Path) -> tuple[float, float, float]:
    """(s, max_rss in MB, cpu_time) of a benchmark file's first row; '-' (not measured) is 0."""
    lines = path.read_text().splitlines()
    if len(lines) < 2:
        return 0.0, 0.0, 0.0
    row = dict(zip(lines[0].split("\t"), lines[1].split("\t"), strict=False))

    def number(key: str) -> float:
        try:
            return float(row.get(key, "0"))
        except ValueError:
            return 0.0

    return number("s"), number("max_rss"), number("cpu_time")


def collect(benchmarks: Path, rules_dir: Path) -> dict[str, RuleFigures]:
    patterns = benchmark_patterns(rules_dir)
    figures: dict[str, RuleFigures] = {}
    for path in sorted(benchmarks.rglob("*.tsv")):
        relative = path.relative_to(benchmarks).as_posix()
        figures.setdefault(rule_of(relative, patterns), RuleFigures()).add(
            relative, *read_benchmark(path)
        )
    return figures


def format_table(figures: dict[str, RuleFigures]) -> list[str]:
    lines = ["rule\tjobs\tmax_s\tsum_s\tsum_cpu_s\tmax_rss_mb\tslowest_job\tlargest_job"]
    for rule in sorted(figures, key=lambda r: -figures[r].max_s):
        f = figures[rule]
        lines.append(
            f"{rule}\t{f.jobs}\t{f.max_s:.2f}\t{f.sum_s:.2f}\t{f.sum_cpu_s:.2f}\t{f.max_rss_mb:.1f}"
            f"\t{f.max_s_job}\t{f.max_rss_job}"
        )
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmarks", nargs="?", default="results/benchmarks", type=Path)
    parser.add_argument("--rules-dir", default=REPO / "rules", type=Path)
    args = parser.parse_args(argv)
    if not args.benchmarks.is_dir():
        print(f"resources_from_benchmarks: no folder {args.benchmarks}", file=sys.stderr)
        return 1
    print("\n".join(format_table(collect(args.benchmarks, args.rules_dir))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
