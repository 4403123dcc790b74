"""scripts/bench_scale.py reads every job's benchmark file, one per track."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import bench_scale as bench  # noqa: E402


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
