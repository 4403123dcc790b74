"""devtools/bench_scale.py reads every job's benchmark file, one per track."""

import os
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
bench = SimpleNamespace(**runpy.run_path(str(ROOT / "devtools" / "bench_scale.py")))


def write_benchmark(path: Path, seconds: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"s\th:m:s\n{seconds}\t0:00:00\n")


def test_each_track_s_jobs_count_and_the_longest_chain_is_one_corpus_and_track(tmp_path):
    root = tmp_path / "benchmarks"
    write_benchmark(root / "tools_json.tsv", 1.0)
    write_benchmark(root / "a" / "fetch_corpus.tsv", 10.0)
    write_benchmark(root / "a" / "symbols.tsv", 5.0)
    write_benchmark(root / "a" / "symbols_shard.0-of-1.tsv", 7.0)
    # The same rule and tool on two tracks: two jobs, neither hides the other.
    write_benchmark(root / "a" / "code" / "search.probe.tsv", 100.0)
    write_benchmark(root / "a" / "usage" / "search.probe.tsv", 300.0)
    write_benchmark(root / "a" / "usage" / "search.rg.tsv", 2.0)
    write_benchmark(root / "a" / "usage" / "inference.tsv", 4.0)

    times = bench.job_times(tmp_path, since=0.0)

    assert len(times) == 8
    assert sum(s for (_, _, rule, _), s in times.items() if rule == "search") == 402.0
    # fetch 10 + symbols 5 + longest shard 7 + inference 4 + probe's usage search 300
    assert bench.critical_path(times) == (326.0, "a", "usage", "probe")


def write_raw(path: Path, cpu: list[tuple[float, float]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'{{"elapsed": 1.0, "user": {u}, "sys": {s}}}' for u, s in cpu]
    path.write_text("\n".join(lines) + "\n")


def test_the_cpu_floor_sums_every_track_s_quality_runs_and_divides_by_the_cores(tmp_path):
    write_raw(tmp_path / "a" / "code" / "raw" / "probe.jsonl", [(0.5, 0.25), (1.0, 0.25)])
    write_raw(tmp_path / "a" / "usage" / "raw" / "probe.jsonl", [(2.0, 0.0)])
    write_raw(tmp_path / "b" / "code" / "raw" / "rg.jsonl", [(0.125, 0.125)])
    # A corpus the configuration does not name is not counted.
    write_raw(tmp_path / "c" / "code" / "raw" / "rg.jsonl", [(100.0, 0.0)])

    cpu = bench.tool_cpu(tmp_path, ["a", "b"])

    assert cpu == {"probe": (4.0, 3), "rg": (0.25, 1)}
    lines = bench.cpu_floor_lines(cpu, cores=2)
    assert lines[0].startswith("tool processes' own CPU\t4.2 core-s over 4 quality runs")
    assert lines[1] == "floor on 2 cores\t2.1 s of wall for the tools alone"
    assert lines[2] == "largest\tprobe 4.0, rg 0.2"


def test_a_language_server_s_session_counts_once_per_job_beside_its_clients(tmp_path):
    raw = tmp_path / "a" / "code" / "raw" / "clangd.jsonl"
    raw.parent.mkdir(parents=True)
    # the session's CPU is on every record of the job: it is counted once
    session = '"session_cpu_seconds": 30.0'
    raw.write_text(
        f'{{"elapsed": 1.0, "user": 0.25, "sys": 0.25, {session}}}\n'
        f'{{"elapsed": 1.0, "user": 0.5, "sys": 0.0, {session}}}\n'
    )
    write_raw(tmp_path / "a" / "usage" / "raw" / "clangd.jsonl", [(1.0, 0.0)])

    assert bench.tool_cpu(tmp_path, ["a"]) == {"clangd": (32.0, 3)}


def test_an_index_build_is_its_tool_s_cpu(tmp_path):
    write_raw(tmp_path / "a" / "code" / "raw" / "ctags.jsonl", [(0.5, 0.0)])
    index = tmp_path / "a" / "index"
    index.mkdir()
    (index / "ctags.json").write_text('{"user_seconds": 2.0, "sys_seconds": 0.25}')
    # a tool searching another's index (global-refs) has no build of its own
    (index / "global.json").write_text('{"user_seconds": 1.0, "sys_seconds": 0.0}')

    assert bench.tool_cpu(tmp_path, ["a"]) == {"ctags": (2.75, 1), "global": (1.0, 0)}


def test_the_fast_path_check_s_and_the_audit_s_runs_are_the_tool_s_cpu():
    records = [
        {"user": 1.0, "sys": 0.5, "check_cpu_seconds": 0.25, "repeat_cpu_seconds": 2.0},
        {"user": 0.5, "sys": 0.0, "repeat_cpu_seconds": None},
    ]
    assert bench.records_cpu(records) == 4.25


def test_the_fast_path_table_counts_each_track_s_runs_on_its_own_row(tmp_path):
    code, usage = tmp_path / "a" / "code", tmp_path / "a" / "usage"
    (code / "raw").mkdir(parents=True)
    (code / "raw" / "probe.jsonl").write_text(
        '{"elapsed": 1.0, "fast_path": true}\n{"elapsed": 1.0, "fast_path": true}\n'
        '{"elapsed": 1.0}\n'
    )
    (usage / "raw").mkdir(parents=True)
    (usage / "raw" / "probe.jsonl").write_text('{"elapsed": 1.0}\n')
    (code / "fastpath").mkdir()
    (code / "fastpath" / "probe.json").write_text(
        '{"equivalent": true, "queries_checked": 5, "queries_planned": 5}'
    )

    assert bench.fast_path_table(tmp_path, ["a"]) == [
        "corpus\ttrack\ttool\tfast_runs/runs\tcheck (queries checked/planned)",
        "a\tcode\tprobe\t2/3\tequivalent (5/5)",
        "a\tusage\tprobe\t0/1\tno fast path",
    ]


def test_own_cpu_is_read_after_a_command_name_with_spaces_and_parentheses():
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    # stime cutime cstime ...: the children's times (cutime, cstime) are not the process's own.
    line = "42 (python -m (x)) S 1 42 42 0 -1 4194304 10 0 0 0 250 50 9000 9000 20 0"
    assert bench.own_cpu_seconds(line, 100) == 3.0


def test_a_command_s_own_cpu_is_polled_while_it_runs():
    code, _, own = bench.run_polling_cpu(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass",
        ],
        poll_seconds=0.1,
    )
    assert code == 0
    assert 0.3 <= own <= 1.0


def test_the_four_targets_are_ratios_of_this_run_s_own_figures(tmp_path):
    """Issue 34's targets: wall over the floor, the workflow's own job-seconds and the
    statistics' over the tools' CPU, and each search job's seconds beyond its tools' CPU."""
    write_raw(tmp_path / "a" / "code" / "raw" / "rg.jsonl", [(1.0, 1.0), (2.0, 0.0)])  # CPU 4
    timing = tmp_path / "a" / "timing" / "rg.tsv"
    timing.parent.mkdir(parents=True)
    # q1: two measured runs (1 s, 3 s) after one warm-up, counted at their mean: 6 s
    timing.write_text(
        "qid\trepeat\truns\twarmups\twall\tuser\tsys\tpeak_rss_kib\trss_source\ttimed_out\t"
        "exit_code\nq1\t1\t2\t1\t1.0\t0\t0\t0\twait4\tfalse\t0\n"
        "q1\t2\t2\t1\t3.0\t0\t0\t0\twait4\tfalse\t0\n"
    )
    times = {
        ("a", "code", "search", "rg"): 5.0,
        ("a", "code", "inference", ""): 1.0,
        ("a", "code", "power", ""): 1.0,
        ("a", "", "timing", "rg"): 7.0,
        ("a", "", "fetch_corpus", ""): 2.0,
    }
    assert bench.timing_seconds(tmp_path, ["a"]) == 6.0
    overheads = bench.search_overheads(times, tmp_path)
    assert overheads == [(0.25, "a/code/rg", 5.0, 4.0, 2.0)]
    lines = bench.target_lines(times, 4.0, 6.0, 12.0, 2, 3.0, overheads)
    # floor = max(4 / 2, 3) = 3; own = 16 - 4 - 6 = 6; statistics 2
    assert lines[0].startswith("target 1: wall / floor\t4.00 (target <= 1.5; floor 3.0 s")
    assert lines[1].startswith("target 2: workflow's own work / tools' CPU\t1.50 (")
    assert lines[2].startswith("target 3: statistics / tools' CPU\t0.50 (")
    assert lines[3].startswith("target 4: runner overhead per search job\tmedian 0.25, all ")


def test_idle_cores_are_counted_between_jobs_and_beside_a_job_that_takes_them_all():
    jobs = [
        (0.0, 4.0, "search"),  # one core of two for 4 s: 4 core-s idle
        (4.0, 6.0, "timing"),  # every core by design: 2 core-s idle beside it
        (6.0, 10.0, "score"),
        (6.0, 10.0, "search"),  # both cores held
        (12.0, 13.0, "report"),  # past the window's end: not counted
    ]
    assert bench.idle_core_seconds(jobs, cores=2, start=0.0, end=11.0) == (8.0, 2.0)


def test_a_job_s_interval_ends_when_its_benchmark_file_was_written(tmp_path):
    path = tmp_path / "benchmarks" / "a" / "code" / "search.rg.tsv"
    write_benchmark(path, 3.5)
    os.utime(path, (1000.0, 1000.0))
    write_benchmark(tmp_path / "benchmarks" / "old.tsv", 1.0)
    os.utime(tmp_path / "benchmarks" / "old.tsv", (10.0, 10.0))

    assert bench.job_intervals(tmp_path, since=500.0) == [(996.5, 1000.0, "search")]
