"""The timing budget: which runs happen for given durations, and the table they produce."""

import json
import os
import runpy
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from searchbench.artifacts import read_tsv
from searchbench.corpora import corpus_tree
from searchbench.report.summaries import runs_flag, timing_summary
from searchbench.runner import SearchSetup, run_tool
from searchbench.subsample import seeded_subsample
from searchbench.timing import (
    TIMING_HEADER,
    Run,
    TimingSettings,
    format_timing,
    simulate,
    time_queries,
)
from searchbench.tools import load_tools, resolve_tools, write_tool_json

REPO = Path(__file__).resolve().parent.parent
DEFAULT = TimingSettings(warmups=1, repeats=3, budget_seconds=60)


def kinds(runs: list[Run]) -> list[str]:
    """Runs as W<query> (warm-up) or M<query> (measured), in the order they happened."""
    return [f"{'M' if run.measured else 'W'}{run.query}" for run in runs]


def measured_per_query(runs: list[Run], n: int) -> list[int]:
    return [sum(1 for run in runs if run.measured and run.query == q) for q in range(n)]


# ----------------------------------------------------------------------------- the plan


def test_a_slow_tool_costs_one_run_per_query_and_no_warm_up() -> None:
    """Plain ast-grep on the kernel (~110 s a query), 5 queries: 5 runs, not 20."""
    runs = simulate(5, DEFAULT, [110.0] * 100)
    assert kinds(runs) == ["M0", "M1", "M2", "M3", "M4"]
    assert sum(run.wall for run in runs) == 550.0  # over budget: first runs are owed


def test_a_fast_tool_gets_every_warm_up_and_repeat_in_rounds() -> None:
    runs = simulate(3, DEFAULT, [0.01] * 100)
    assert kinds(runs) == ["W0", "M0", "W1", "M1", "W2", "M2", "M0", "M1", "M2", "M0", "M1", "M2"]


def test_the_budget_cuts_repeats_evenly_after_warm_ups() -> None:
    """5 s a run, 60 s: warm-ups fit beside the owed first runs (50 s), then one more
    round starts while it fits: queries 0 and 1 get a second run, the budget is spent."""
    runs = simulate(5, DEFAULT, [5.0] * 100)
    assert kinds(runs) == ["W0", "M0", "W1", "M1", "W2", "M2", "W3", "M3", "W4", "M4", "M0", "M1"]
    assert measured_per_query(runs, 5) == [2, 2, 1, 1, 1]
    assert sum(run.wall for run in runs) == 60.0


def test_warm_ups_stop_when_they_would_crowd_out_owed_first_runs() -> None:
    """10 s a run, 5 queries, 60 s: the first run (10 s <= the 12 s share) is a warm-up; a
    second warm-up would leave 60 - 30 = 30 s for 4 owed runs of 10 s, so none follows."""
    runs = simulate(5, DEFAULT, [10.0] * 100)
    assert kinds(runs) == ["W0", "M0", "M1", "M2", "M3", "M4"]


def test_a_first_run_over_its_share_stands_as_measured_even_if_later_runs_are_fast() -> None:
    """The first run (20 s > 60 s / 5) is query 0's figure; warm-ups stay off for the job;
    the later fast runs fill every repeat within the budget."""
    runs = simulate(5, DEFAULT, [20.0] + [1.0] * 100)
    assert kinds(runs)[:5] == ["M0", "M1", "M2", "M3", "M4"]
    assert all(run.measured for run in runs)
    assert measured_per_query(runs, 5) == [3, 3, 3, 3, 3]


def test_no_warm_ups_configured_means_the_first_run_is_measured() -> None:
    runs = simulate(2, TimingSettings(warmups=0, repeats=2, budget_seconds=60), [0.5] * 10)
    assert kinds(runs) == ["M0", "M1", "M0", "M1"]


def test_several_warm_ups_per_query_and_a_timeout_sized_run() -> None:
    """Two warm-ups per query while they fit; once slow runs (30 s, a timeout's length) have
    spent the budget, the last query gets its owed run only, and no round follows."""
    settings = TimingSettings(warmups=2, repeats=2, budget_seconds=40)
    runs = simulate(3, settings, [1.0, 1.0, 30.0, 1.0, 30.0, 30.0, 1.0, 1.0, 1.0])
    assert kinds(runs) == ["W0", "W0", "M0", "W1", "W1", "M1", "M2"]
    assert measured_per_query(runs, 3) == [1, 1, 1]


def test_the_plan_is_a_function_of_the_durations() -> None:
    walls = [0.3, 2.0, 1.1, 7.5, 0.2, 4.0, 3.3, 0.9, 6.1, 2.2, 5.0, 1.0, 0.7, 2.8, 3.9]
    settings = TimingSettings(warmups=1, repeats=4, budget_seconds=20)
    assert simulate(4, settings, walls) == simulate(4, settings, walls)
    assert simulate(0, settings, walls) == []


def test_timing_sample_is_seeded_and_sorted() -> None:
    qids = [f"q{i:03d}" for i in range(50)]
    first = seeded_subsample(qids, 5, seed=3)
    assert first == sorted(first) and len(set(first)) == 5
    assert seeded_subsample(list(reversed(qids)), 5, seed=3) == first
    assert seeded_subsample(qids, 5, seed=4) != first
    assert seeded_subsample(qids[:3], 5, seed=3) == qids[:3]


# ----------------------------------------------------------------------------- real runs


@pytest.fixture(scope="module")
def rg():
    specs = load_tools(REPO / "config" / "tools.yaml")
    tool = resolve_tools({"rg": specs["rg"]}, os.environ["PATH"])["rg"]
    assert tool.available
    return tool


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("timing")
    (root / "ring.c").write_text("static int ring_advance(int x) { return x + 1; }\n")
    (root / "use.c").write_text("int ring_reset(void) { return ring_advance(0); }\n")
    return root


def time_rg(rg, corpus: Path, settings: TimingSettings) -> list:
    queries = {"q1": "ring_advance", "q2": "ring_reset", "q3": "absent_symbol_xyz"}
    return time_queries(
        sorted(queries),
        settings,
        lambda qid: run_tool(SearchSetup(rg, str(corpus), 30), queries[qid]),
    )


def test_rg_within_the_budget_gets_warm_ups_and_every_repeat(rg, corpus: Path, tmp_path: Path):
    rows = time_rg(rg, corpus, DEFAULT)
    assert [(r.qid, r.repeat, r.runs, r.warmups) for r in rows] == [
        (q, k, 3, 1) for q in ("q1", "q2", "q3") for k in (1, 2, 3)
    ]
    assert [r.exit_code for r in rows] == [0] * 6 + [1] * 3  # rg: 1 is "nothing found"
    table = tmp_path / "rg.tsv"
    table.write_text(format_timing(rows))
    assert table.read_text().splitlines()[0].split("\t") == list(TIMING_HEADER)
    summary = timing_summary(read_tsv(table, TIMING_HEADER))
    assert (summary["queries"], summary["runs"], summary["min_runs"]) == (3, 9, 3)
    assert runs_flag(summary) == ""


def test_rg_over_a_tiny_budget_gets_one_run_per_query_flagged(rg, corpus: Path, tmp_path: Path):
    rows = time_rg(rg, corpus, TimingSettings(warmups=1, repeats=3, budget_seconds=1e-9))
    assert [(r.qid, r.repeat, r.runs, r.warmups) for r in rows] == [
        ("q1", 1, 1, 0),
        ("q2", 1, 1, 0),
        ("q3", 1, 1, 0),
    ]
    table = tmp_path / "rg.tsv"
    table.write_text(format_timing(rows))
    summary = timing_summary(read_tsv(table, TIMING_HEADER))
    assert (summary["queries"], summary["runs"], summary["single_run_queries"]) == (3, 3, 3)
    assert runs_flag(summary) == "one run per query"


def test_runs_flag_names_the_queries_resting_on_one_run() -> None:
    rows = [
        {"qid": q, "wall": "0.1", "peak_rss_kib": "10", "timed_out": "false"}
        for q in ("a", "a", "b", "c", "c")
    ]
    summary = timing_summary(rows)
    assert (summary["min_runs"], summary["max_runs"]) == (1, 2)
    assert runs_flag(summary) == "1 of 3 queries on one run"


def test_the_rule_script_writes_the_budgeted_table(rg, corpus: Path, tmp_path: Path) -> None:
    """scripts/timing.py as the timing rule runs it: seeded queries, runs recorded per row."""
    resources = tmp_path / "resources"
    shutil.copytree(corpus, corpus_tree(resources))
    write_tool_json(rg, tmp_path / "rg.json")
    queries = tmp_path / "queries.tsv"
    symbols = ["ring_advance", "ring_reset", "absent_symbol_xyz", "return"]
    queries.write_text(
        "qid\tquery\tlanguage\tkind\tpath\tline\teligibility\n"
        + "".join(f"q{i}\t{s}\tc\tfunction\tring.c\t1\t-\n" for i, s in enumerate(symbols))
    )
    timing = {"queries": 2, "warmups": 1, "repeats": 2, "budget_seconds": 60}
    out = tmp_path / "rg.tsv"
    picked = seeded_subsample([f"q{i}" for i in range(4)], 2, seed=5)
    # the code track's quality runs: both timed queries through the fast path, as printed
    setup = SearchSetup(rg, str(corpus), 30)
    printed = {q: run_tool(setup, symbols[int(q[1:])]) for q in picked}
    quality = tmp_path / "raw.jsonl"

    def record(sha: dict[str, str]) -> None:
        quality.write_text(
            "".join(
                json.dumps(
                    {"qid": q, "fast_path": True, "stdout_sha256": sha[q], "status": r.status}
                )
                + "\n"
                for q, r in printed.items()
            )
        )

    smk = SimpleNamespace(
        input=SimpleNamespace(
            root=str(resources),
            queries=str(queries),
            tool=str(tmp_path / "rg.json"),
            index=[],
            quality_runs=[str(quality)],
        ),
        output=SimpleNamespace(
            table=str(out),
            host=str(tmp_path / "rg.host.json"),
            fast_path=str(tmp_path / "rg.fastpath.json"),
        ),
        log=[str(tmp_path / "timing.log")],
        wildcards=SimpleNamespace(tool="rg", corpus="tiny"),
        params=SimpleNamespace(timing={**timing, "timeout_seconds": 30}, seed=5, word_match=False),
    )
    # a fast path that printed otherwise on one timed query: one line, nothing written
    record({**{q: r.stdout_sha256 for q, r in printed.items()}, picked[0]: "0" * 64})
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(REPO / "scripts" / "timing.py"), init_globals={"snakemake": smk})
    assert str(stop.value).startswith(
        f"script: rg on tiny: its fast path printed otherwise than its plain runs on 1 of 2 "
        f"timed queries ({picked[0]})"
    )
    assert not out.exists() and not (tmp_path / "rg.fastpath.json").exists()
    record({q: r.stdout_sha256 for q, r in printed.items()})
    runpy.run_path(str(REPO / "scripts" / "timing.py"), init_globals={"snakemake": smk})
    audit = json.loads((tmp_path / "rg.fastpath.json").read_text())
    assert (audit["compared"], audit["plain_runs_compared"], audit["differing"]) == (2, 6, [])
    rows = read_tsv(out, TIMING_HEADER)
    host = json.loads((tmp_path / "rg.host.json").read_text())
    assert host["cores"] == os.cpu_count() and host["kernel"].startswith("Linux ")
    assert host["corpus_filesystem"] != "unknown" and len(host["load_before"]) == 3
    assert [(r["qid"], r["repeat"], r["runs"], r["warmups"]) for r in rows] == [
        (q, k, "2", "1") for q in picked for k in ("1", "2")
    ]


def test_the_filesystem_is_the_deepest_mount_holding_the_path(tmp_path: Path) -> None:
    from searchbench.host import cpu_model, filesystem_of, mem_total_kib

    mounts = "/dev/a / ext4 rw 0 0\ntmpfs /tmp tmpfs rw 0 0\n/dev/b /tmp/my\\040disk xfs rw 0 0\n"
    assert filesystem_of("/work/x", mounts) == "ext4"
    assert filesystem_of("/tmp/y", mounts) == "tmpfs"
    assert filesystem_of("/tmp/my disk/z", mounts) == "xfs"
    assert filesystem_of("/tmpfoo", mounts) == "ext4"  # a prefix of the name is not the mount
    assert cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 7B13\n") == "AMD EPYC 7B13"
    assert mem_total_kib("MemTotal:       24683664 kB\nMemFree: 1 kB\n") == 24683664
