"""Index cost is part of the result (issue 16 item 3): every index build's wall time, size on
disk and peak memory are recorded (results/{corpus}/index/{tool}.json), and a build past its
budget is killed and listed as over budget, its searches ending in error, never dropped."""

import json
import os
import runpy
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from searchbench.errors import BenchError
from searchbench.runner import SearchSetup, build_index, run_tool
from searchbench.tools import (
    load_tools,
    resolve_tools,
    specs_from_mapping,
    write_tool_json,
)

ROOT = Path(__file__).resolve().parents[1]
PATH_ENV = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

# An index builder that writes half an index, then hangs; a search that needs the index.
SLOW_INDEX = '#!/bin/sh\necho partial > "$1"\nexec sleep 60\n'
SEARCH = (
    "#!/bin/sh\n"
    '[ "$1" = --version ] && { echo "slowsearch 1.0"; exit 0; }\n'
    'test -f "$1" || { echo "slowsearch: no index at $1" >&2; exit 2; }\n'
    'exec grep -r -H -n -F -e "$3" ./\n'
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A corpus as the workflow lays it out: resources/corpora/{corpus}/tree (+ checkout.json)."""
    tree = tmp_path / "corpora" / "tiny" / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "ring.c").write_text(
        "struct ring { int head; };\nint ring_push(struct ring *r) { return r->head; }\n"
    )
    (tree / "README").write_text("ring_push pushes.\n")
    return tree


@pytest.fixture
def slow_tool(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("slowindex", SLOW_INDEX), ("slowsearch", SEARCH)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    specs = specs_from_mapping(
        {
            "slow": {
                "binary": "slowsearch",
                "index_binary": "slowindex",
                "index_argv": ["{index_binary}", "{index}/db"],
                "argv": ["{binary}", "{index}/db", "--", "{query}"],
                "output": "grep",
                "family": "tag-index",
                "version_argv": ["{binary}", "--version"],
            }
        }
    )
    return resolve_tools(specs, f"{bin_dir}{os.pathsep}{PATH_ENV}")["slow"]


def test_a_ctags_index_records_its_cost(corpus, tmp_path):
    if not shutil.which("ctags"):
        pytest.skip("universal-ctags not installed")
    ctags = resolve_tools({"ctags": load_tools(ROOT / "config" / "tools.yaml")["ctags"]})["ctags"]
    index = tmp_path / "ctags.idx"
    build = build_index(ctags, str(corpus), str(index), timeout=60)
    rec = build.record("ctags", "tiny")
    assert rec["status"] == "ready" and rec["exit_code"] == 0
    assert rec["bytes"] == (index / "tags").stat().st_size > 0 and rec["files"] == 1
    assert 0 < rec["wall_seconds"] < 60 and rec["budget_seconds"] == 60
    assert rec["peak_rss_kib"] >= 0 and rec["rss_source"] in {"wait4", "hwm-poll", "below-floor"}
    assert rec["argv"][0].endswith("ctags") and rec["tool"] == "ctags" and rec["corpus"] == "tiny"
    json.dumps(rec)  # a JSON record as it is


@pytest.mark.slow
def test_a_build_over_budget_is_killed_and_its_searches_end_in_error(slow_tool, corpus, tmp_path):
    index = tmp_path / "slow.idx"
    start = time.monotonic()
    build = build_index(slow_tool, str(corpus), str(index), timeout=1, check=False)
    assert time.monotonic() - start < 10  # killed at the budget, not after the sleep
    assert build.status == "over budget" and 1 <= build.wall_seconds < 10
    assert build.bytes == 0 and build.files == 0 and list(index.iterdir()) == []  # no half index
    assert "over its budget of 1 s" in build.message and "\n" not in build.message
    result = run_tool(SearchSetup(slow_tool, str(corpus), 30, index=str(index)), "ring_push")
    assert result.status == "error" and result.files == []
    with pytest.raises(BenchError, match="over its budget"):
        build_index(slow_tool, str(corpus), str(index), timeout=1)


def test_the_build_index_job_writes_the_record_and_one_log_line(slow_tool, corpus, tmp_path):
    tool_json = tmp_path / "tools" / "slow.json"
    write_tool_json(slow_tool, tool_json)
    out = tmp_path / "results" / "tiny"
    log = tmp_path / "build_index.slow.log"
    smk = SimpleNamespace(
        input=SimpleNamespace(root=str(corpus.parent / "checkout.json"), tool=str(tool_json)),
        output=SimpleNamespace(index=str(tmp_path / "slow.idx"), cost=str(out / "slow.json")),
        params=SimpleNamespace(budget=1),
        wildcards=SimpleNamespace(corpus="tiny", tool="slow"),
        log=[str(log)],
        rule="build_index",
    )
    runpy.run_path(str(ROOT / "scripts" / "build_index.py"), init_globals={"snakemake": smk})
    rec = json.loads((out / "slow.json").read_text())
    assert rec["status"] == "over budget" and rec["budget_seconds"] == 1.0
    assert {"wall_seconds", "peak_rss_kib", "bytes", "files", "argv"} <= set(rec)
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tiny: building the index of slow ran over")
