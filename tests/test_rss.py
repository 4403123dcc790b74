"""Peak memory is the tool's own, not a copy of the (large) process that started it
(docs/method.md §8)."""

import os
import shutil
import sys

import pytest

from searchbench.command import Command
from searchbench.runner import peak_rss, run_search


def test_peak_rss_prefers_wait4_only_above_the_fork_floor():
    assert peak_rss(wait4_maxrss=300_000, spawn_floor=100_000, polled_hwm=290_000) == (
        300_000,
        "wait4",
    )
    # ru_maxrss at the floor is the parent's copy, not the tool: use the polled HWM.
    assert peak_rss(wait4_maxrss=100_500, spawn_floor=100_000, polled_hwm=6_000) == (
        6_000,
        "hwm-poll",
    )
    assert peak_rss(wait4_maxrss=100_500, spawn_floor=100_000, polled_hwm=0) == (0, "below-floor")


def test_small_tool_is_not_charged_with_the_parents_memory(tmp_path):
    ballast = bytearray(300 * 2**20)  # make this process large, as a Snakemake job is
    ballast[::4096] = b"x" * len(ballast[::4096])
    script = (
        "import time; x = bytearray(20 * 2**20); x[::4096] = b'y' * len(x[::4096]); time.sleep(0.2)"
    )
    result = run_search(
        Command([sys.executable, "-S", "-c", script], str(tmp_path), 10, None, "grep")
    )
    assert result.rss_source == "hwm-poll"
    assert 20 * 1024 < result.peak_rss_kib < 100 * 1024, result.peak_rss_kib
    del ballast


@pytest.mark.skipif(shutil.which("rg") is None, reason="rg not installed")
def test_rg_peak_is_megabytes_not_the_runner_size(tmp_path):
    (tmp_path / "a.txt").write_text("needle\n")
    ballast = bytearray(200 * 2**20)
    ballast[::4096] = b"x" * len(ballast[::4096])
    rg = shutil.which("rg")
    sizes = []
    for _ in range(3):
        result = run_search(
            Command(
                [rg, "--null", "-n", "-F", "-e", "needle", "./"],
                str(tmp_path),
                10,
                None,
                "grep-null",
            )
        )
        assert result.status == "ok"
        sizes.append(result.peak_rss_kib)
    # rg on one file needs a few MB; the runner holds > 200 MB. A 0 means "too short to see".
    assert max(sizes) < 50 * 1024, sizes
    del ballast
    assert os.getpid() > 0
