"""Run the workflow once and print where its wall time went (issue 7's targets).

    bench_scale.py [--configfile F] [--cores N] [--quality-only] [--fresh] [-- SNAKEMAKE_ARGS]

Runs Snakemake on the configuration (all targets, or with --quality-only the quality runs:
every corpus's inference, file-set audit and ground-truth audit, no timing), measures the
wall time of that one run, then reads what the jobs recorded (results/benchmarks/, raw
records, fast-path checks) and prints:

- wall time, and job-seconds per rule for the jobs this run executed;
- the critical path: per corpus, the chain fetch -> symbols (the longest shard, then the
  gather) -> queries -> containment ->
  (the slowest tool's list_files + fast_path_check + search) -> score -> inference, the
  longest over corpora; wall / critical path says how far the schedule is from it;
- the tool processes' own time on that path (the slowest tool's searches as the runner
  timed them) against the job time around them: the runner's overhead per search;
- per corpus and tool: how many quality runs used the fast path, and each check's outcome;
- Snakemake's own CPU (its process alone, not its jobs: scheduling and DAG work), polled
  from /proc while it runs;
- the tool processes' own CPU over every quality run (user + sys, as the runner recorded
  it; a language server's session once per job, from wait4 on it and the server it waited
  for), and the wall time it needs at the least on this many cores: a floor no scheduling of
  the workflow can go under.

--fresh deletes the configuration's results and checkouts first (a run from nothing).
Figures are for this machine and this run; ratios are what to compare across machines.
"""

import argparse
import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
CHAIN = ("fetch_corpus", "symbols", "queries", "containment")
PER_TOOL = ("build_index", "list_files", "fast_path_check", "search")
AFTER = ("score", "inference", "power")


def own_cpu_seconds(stat_line: str, ticks_per_second: float) -> float:
    """utime + stime of a process itself (its children excluded) from a /proc/PID/stat line:
    the 14th and 15th fields, counted after the command name, which may hold spaces."""
    fields = stat_line.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / ticks_per_second


def run_polling_cpu(command: list[str], poll_seconds: float = 2.0) -> tuple[int, str, float]:
    """Run the command; (exit code, stderr, its own CPU seconds at the last poll)."""
    ticks = os.sysconf("SC_CLK_TCK")
    own = 0.0
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, text=True)
        while proc.poll() is None:
            # It may exit between poll() and the read: the last reading stands.
            with contextlib.suppress(OSError, IndexError, ValueError):
                own = own_cpu_seconds(Path(f"/proc/{proc.pid}/stat").read_text(), ticks)
            time.sleep(poll_seconds)
        err.seek(0)
        return proc.returncode, err.read(), own


def benchmark_seconds(path: Path) -> float:
    lines = path.read_text().splitlines()
    return float(lines[1].split("\t")[0]) if len(lines) > 1 else 0.0


def job_times(results: Path, since: float) -> dict[tuple[str, str, str, str], float]:
    """(corpus or '', track or '', rule, tool or '') -> seconds, for benchmark files written
    since `since` (a corpus's jobs of each track are separate jobs: code, docs, usage)."""
    times = {}
    for path in (results / "benchmarks").rglob("*.tsv"):
        if path.stat().st_mtime < since:
            continue
        parts = path.relative_to(results / "benchmarks").parts
        corpus = parts[0] if len(parts) > 1 else ""
        track = parts[1] if len(parts) > 2 else ""
        rule, _, tool = path.stem.partition(".")
        times[(corpus, track, rule, tool)] = benchmark_seconds(path)
    return times


# Jobs that take every core by design (threads: workflow.cores): the others idle beside them.
EVERY_CORE_RULES = frozenset({"timing", "build_tool"})


def job_intervals(results: Path, since: float) -> list[tuple[float, float, str]]:
    """(start, end, rule) of every job whose benchmark file was written since `since`: the
    file is written as the job ends, and holds its duration."""
    out = []
    for path in (results / "benchmarks").rglob("*.tsv"):
        end = path.stat().st_mtime
        if end >= since:
            out.append((end - benchmark_seconds(path), end, path.stem.partition(".")[0]))
    return sorted(out)


def idle_core_seconds(
    intervals: list[tuple[float, float, str]], cores: int, start: float, end: float
) -> tuple[float, float]:
    """(core-seconds no job held between start and end, the part of them while a job that
    takes every core ran), counting each other job as one core (a sweep over job starts and
    ends)."""
    events = sorted(
        [(a, 1, rule in EVERY_CORE_RULES) for a, _, rule in intervals]
        + [(b, -1, rule in EVERY_CORE_RULES) for _, b, rule in intervals]
    )
    idle = beside = 0.0
    running = every = 0
    last = start
    for time_, step, whole in [*events, (end, 0, False)]:
        moment = min(max(time_, start), end)
        free = max(0, cores - running) * (moment - last)
        idle += free
        beside += free if every else 0.0
        last = moment
        running += step
        every += step if whole else 0
    return idle, beside


def critical_path(times: dict[tuple[str, str, str, str], float]) -> tuple[float, str, str, str]:
    """(seconds, corpus, track, slowest tool) of the longest chain of one corpus and track:
    the corpus's own jobs (fetch, symbols ...) then the track's."""

    def get(corpus: str, track: str, rule: str, tool: str = "") -> float:
        return times.get((corpus, track, rule, tool), times.get((corpus, "", rule, tool), 0.0))

    best = (0.0, "", "", "")
    for corpus, track in sorted({(c, t) for c, t, _, _ in times if c and t}):
        chain = sum(get(corpus, track, rule) for rule in CHAIN + AFTER)
        # The symbol pass's shards run side by side: the longest one is on the path.
        chain += max(
            (s for (c, _, r, _), s in times.items() if c == corpus and r == "symbols_shard"),
            default=0.0,
        )
        tools = {u for c, t, r, u in times if (c, t) == (corpus, track) and r in PER_TOOL and u}
        per_tool = {u: sum(get(corpus, track, rule, u) for rule in PER_TOOL) for u in tools}
        slowest = max(per_tool, key=per_tool.get, default="")
        total = chain + per_tool.get(slowest, 0.0)
        if total > best[0]:
            best = (total, corpus, track, slowest)
    return best


def raw_records(
    results: Path, corpus: str, tool: str = "*", track: str = "*"
) -> Iterator[tuple[str, dict]]:
    """(tool, record) for every quality run's raw record of a corpus (one track or tool, or
    every one)."""
    for raw in sorted((results / corpus).glob(f"{track}/raw/{tool}.jsonl")):
        for line in raw.read_text().splitlines():
            yield raw.stem, json.loads(line)


def raw_seconds(results: Path, corpus: str, tool: str, track: str = "*") -> tuple[float, int, int]:
    """(sum of elapsed, runs, fast-path runs) over a tool's raw records of a corpus (one
    track, or every track)."""
    total, runs, fast = 0.0, 0, 0
    for _, record in raw_records(results, corpus, tool, track):
        total += record["elapsed"]
        runs += 1
        fast += bool(record.get("fast_path"))
    return total, runs, fast


EXTRA_CPU_FIELDS = ("check_cpu_seconds", "repeat_cpu_seconds")


def records_cpu(records: list[dict]) -> float:
    """The tool's own CPU over one job's raw records: each query's process (user + sys), the
    fast-path check's and the repeatability audit's runs of it, and, for a tool with a
    session, the session once (the server's work; the same figure is on every record)."""
    queries = sum(
        r["user"] + r["sys"] + sum(r.get(field) or 0.0 for field in EXTRA_CPU_FIELDS)
        for r in records
    )
    return queries + max((r.get("session_cpu_seconds") or 0.0 for r in records), default=0.0)


def index_cpu(results: Path, corpus: str) -> dict[str, float]:
    """tool -> the CPU seconds its index build on the corpus took (results/{corpus}/index/
    {tool}.json): the tool's own work, as its searches are."""
    return {
        path.stem: float(record.get("user_seconds") or 0.0)
        + float(record.get("sys_seconds") or 0.0)
        for path in sorted((results / corpus / "index").glob("*.json"))
        for record in [json.loads(path.read_text())]
    }


def tool_cpu(results: Path, corpora: list[str]) -> dict[str, tuple[float, int]]:
    """tool -> (CPU seconds, runs) over every quality run's raw records of the corpora, each
    job's session included (records_cpu), and its index builds."""
    cpu: dict[str, tuple[float, int]] = {}
    for corpus in corpora:
        for tool, seconds in index_cpu(results, corpus).items():
            total, runs = cpu.get(tool, (0.0, 0))
            cpu[tool] = (total + seconds, runs)
        for raw in sorted((results / corpus).glob("*/raw/*.jsonl")):
            records = [json.loads(line) for line in raw.read_text().splitlines()]
            seconds, runs = cpu.get(raw.stem, (0.0, 0))
            cpu[raw.stem] = (seconds + records_cpu(records), runs + len(records))
    return cpu


def cpu_floor_lines(cpu: dict[str, tuple[float, int]], cores: int, largest: int = 4) -> list[str]:
    """The tool processes' own CPU, the least wall time it takes on ``cores``, and the tools
    that use most of it."""
    total = sum(seconds for seconds, _ in cpu.values())
    runs = sum(count for _, count in cpu.values())
    top = sorted(cpu.items(), key=lambda kv: (-kv[1][0], kv[0]))[:largest]
    return [
        f"tool processes' own CPU\t{total:.1f} core-s over {runs} quality runs "
        f"(language servers' sessions and index builds included)",
        f"floor on {cores} cores\t{total / cores:.1f} s of wall for the tools alone",
        "largest\t" + ", ".join(f"{tool} {seconds:.1f}" for tool, (seconds, _) in top),
    ]


def fast_path_table(results: Path, corpora: list[str]) -> list[str]:
    """Per corpus, track and tool: how many of that track's quality runs took the fast path,
    and the outcome of that track's check."""
    lines = ["corpus\ttrack\ttool\tfast_runs/runs\tcheck (queries checked/planned)"]
    for corpus in corpora:
        for raw in sorted((results / corpus).glob("*/raw/*.jsonl")):
            tool, track = raw.stem, raw.parent.parent.name
            _, runs, fast = raw_seconds(results, corpus, tool, track)
            check_path = raw.parent.parent / "fastpath" / f"{tool}.json"
            if check_path.exists():
                check = json.loads(check_path.read_text())
                outcome = (
                    f"{'equivalent' if check['equivalent'] else 'NOT equivalent'} "
                    f"({check['queries_checked']}/{check.get('queries_planned', '?')})"
                )
            else:
                outcome = "no fast path"
            lines.append(f"{corpus}\t{track}\t{tool}\t{fast}/{runs}\t{outcome}")
    return lines


# The rules that are statistics (issue 34 target 3): arithmetic on the scores.
STATISTICS_RULES = frozenset(
    {"inference", "calibration", "power", "by_language", "by_language_pooled", "docs_strata",
     "pooled", "ablations", "calibration_status"}
)  # fmt: skip


def timing_seconds(results: Path, corpora: list[str]) -> float:
    """Wall seconds of the timing stage's own tool processes: every measured run's wall, plus
    its warm-ups counted at the mean wall of their query's measured runs (their own time is
    not recorded)."""
    total = 0.0
    for corpus in corpora:
        for table in sorted((results / corpus / "timing").glob("*.tsv")):
            with table.open() as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
            by_query: dict[str, list[dict[str, str]]] = defaultdict(list)
            for row in rows:
                by_query[row["qid"]].append(row)
            for runs in by_query.values():
                walls = [float(r["wall"]) for r in runs if r["wall"]]
                if walls:
                    warmups = max(int(r["warmups"] or 0) for r in runs)
                    total += sum(walls) + warmups * sum(walls) / len(walls)
    return total


def search_overheads(
    times: dict[tuple[str, str, str, str], float], results: Path
) -> list[tuple[float, str, float, float, float]]:
    """(overhead ratio, job, job seconds, tool CPU, tool wall) of each search job: the job's
    seconds beyond its tool processes' own CPU, over that CPU (target 4: at most 0.10)."""
    out = []
    for (corpus, track, rule, tool), seconds in times.items():
        if rule != "search" or not tool:
            continue
        records = [r for _, r in raw_records(results, corpus, tool, track)]
        cpu = records_cpu(records)
        elapsed = sum(r["elapsed"] for r in records)
        if cpu > 0:
            out.append(((seconds - cpu) / cpu, f"{corpus}/{track}/{tool}", seconds, cpu, elapsed))
    return sorted(out, reverse=True)


def target_lines(
    times: dict[tuple[str, str, str, str], float],
    tools_cpu: float,
    timed: float,
    wall: float,
    cores: int,
    path_seconds: float,
    overheads: list[tuple[float, str, float, float, float]],
) -> list[str]:
    """Issue 34's four ratios, each with its target, all from this one run."""
    floor = max(tools_cpu / cores, path_seconds)
    job_seconds = sum(times.values())
    own = job_seconds - tools_cpu - timed
    stats = sum(s for (_, _, rule, _), s in times.items() if rule in STATISTICS_RULES)
    search_job = sum(o[2] for o in overheads)
    search_cpu = sum(o[3] for o in overheads)
    search_wall = sum(o[4] for o in overheads)
    ratios = sorted(o[0] for o in overheads)
    median = ratios[len(ratios) // 2] if ratios else float("nan")
    worst = ", ".join(f"{o[1]} {o[0]:.2f}" for o in overheads[:3])
    safe = max(tools_cpu, 1e-9)
    return [
        f"target 1: wall / floor\t{wall / max(floor, 1e-9):.2f} (target <= 1.5; floor "
        f"{floor:.1f} s = max(tools' CPU / {cores} cores, critical path {path_seconds:.1f} s))",
        f"target 2: workflow's own work / tools' CPU\t{own / safe:.2f} (target <= 0.25; "
        f"{own:.1f} of {job_seconds:.1f} job-s are neither a tool process, {tools_cpu:.1f}, "
        f"nor a timed run, {timed:.1f})",
        f"target 3: statistics / tools' CPU\t{stats / safe:.2f} (target <= 0.05; "
        f"{stats:.1f} job-s in {', '.join(sorted(STATISTICS_RULES))})",
        f"target 4: runner overhead per search job\tmedian {median:.2f}, all search jobs "
        f"{(search_job - search_cpu) / max(search_cpu, 1e-9):.2f} (target <= 0.10; "
        f"{len(overheads)} jobs; largest: {worst}); the jobs' {search_job:.1f} s hold "
        f"{search_wall:.1f} s of the tools' own wall time, {search_cpu:.1f} s of their CPU",
    ]


def targets(config: dict, quality_only: bool) -> list[str]:
    if not quality_only:
        return []
    out = []
    for corpus in sorted(config["corpora"]):
        out += [
            f"results/{corpus}/code/inference.json",
            f"results/{corpus}/code/power.json",
            f"results/{corpus}/code/gt_audit_summary.tsv",
            f"results/{corpus}/fileset_audit.tsv",
        ]
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configfile", default="config/config.yaml")
    parser.add_argument("--cores", default="all")
    parser.add_argument("--quality-only", action="store_true")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout to read (--analyse)")
    parser.add_argument(
        "--analyse",
        nargs=2,
        type=float,
        metavar=("SINCE", "WALL"),
        help="run nothing: read the jobs written since epoch SINCE by a run of WALL seconds",
    )
    parser.add_argument("snakemake_args", nargs="*")
    args = parser.parse_args(argv)
    root = args.root if args.analyse else REPO
    config = yaml.safe_load((root / args.configfile).read_text())
    corpora = sorted(config["corpora"])
    results = root / "results"
    if args.fresh:
        for corpus in corpora:
            for path in (results / corpus, REPO / "resources" / "corpora" / corpus):
                shutil.rmtree(path, ignore_errors=True)
            shutil.rmtree(results / "benchmarks" / corpus, ignore_errors=True)
    # Targets before --configfile, which takes every word after it as a config file.
    command = [sys.executable, "-m", "snakemake", *targets(config, args.quality_only)]
    command += ["--cores", args.cores, *args.snakemake_args, "--configfile", args.configfile]
    if args.analyse:
        start, wall = args.analyse
        snakemake_cpu = float("nan")
    else:
        start = time.time()
        returncode, stderr, snakemake_cpu = run_polling_cpu(command)
        wall = time.time() - start
        if returncode != 0:
            sys.stderr.write(stderr[-3000:])
            return returncode
    times = job_times(results, start)
    per_rule: dict[str, list[float]] = defaultdict(list)
    for (_, _, rule, _), seconds in times.items():
        per_rule[rule].append(seconds)
    print(f"command\t{' '.join(command[2:])}")
    print(f"wall\t{wall:.1f} s\t({len(times)} jobs ran)")
    print(
        f"snakemake's own CPU\t{snakemake_cpu:.1f} s\t({snakemake_cpu / wall:.0%} of one core: "
        "scheduling and DAG work, its jobs excluded)"
    )
    for rule, values in sorted(per_rule.items(), key=lambda kv: -sum(kv[1])):
        print(f"rule {rule}\t{sum(values):.1f} job-s\t{len(values)} jobs")
    path_seconds, corpus, track, tool = critical_path(times)
    if path_seconds:
        print(
            f"critical path\t{path_seconds:.1f} s\t"
            f"(corpus {corpus}, track {track}, slowest tool {tool})"
        )
        print(f"wall / critical path\t{wall / path_seconds:.2f}")
        own, runs, _ = raw_seconds(results, corpus, tool, track)
        search_job = times.get((corpus, track, "search", tool), 0.0)
        if search_job:
            print(
                f"tool processes' own time on it\t{own:.1f} s in {runs} searches, "
                f"inside a {search_job:.1f} s search job (ratio {search_job / max(own, 1e-9):.2f})"
            )
    cores = (os.cpu_count() or 1) if args.cores == "all" else int(args.cores)
    cpu = tool_cpu(results, corpora)
    print("\n".join(cpu_floor_lines(cpu, cores)))
    tools_cpu = sum(seconds for seconds, _ in cpu.values())
    overheads = search_overheads(times, results)
    timed = timing_seconds(results, corpora)
    print("\n".join(target_lines(times, tools_cpu, timed, wall, cores, path_seconds, overheads)))
    idle, beside = idle_core_seconds(job_intervals(results, start), cores, start, start + wall)
    print(
        f"cores idle\t{idle:.1f} of {wall * cores:.1f} core-s ({idle / (wall * cores):.0%}); "
        f"{beside:.1f} of them beside a job that takes every core "
        f"({', '.join(sorted(EVERY_CORE_RULES))}), the rest waiting on the schedule"
    )
    print("\n".join(fast_path_table(results, corpora)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
