"""Shared test set-up: the venv's binaries (rg, ast-grep, hay, snakemake) come first on PATH."""

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
os.environ["PATH"] = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


# The test files that run whole workflows, heaviest first (seconds on 2 cores in a
# `--durations` profile, December 2026: test_slurm 320, test_workflow 264, test_reruns 127,
# test_toy_track 80, the rest under 55). `./bench test` hands whole files to its workers
# (pytest-xdist, --dist loadfile --no-loadscope-reorder) in collection order, so a heavy file
# collected late would run alone at the end; the order changes no outcome, as every file
# makes its own runs.
HEAVIEST_FIRST = (
    "test_workflow.py",
    "test_slurm.py",
    "test_reruns.py",
    "test_toy_track.py",
    "test_tool_health.py",
    "test_behaviour_track.py",
    "test_link_loops.py",
    "test_config_errors.py",
    "test_semble.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(HEAVIEST_FIRST)}
    # sort is stable: tests keep their order within a file
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
