"""devtools/bench_peers.py: the peer field's figures, printed from a run's own files."""

import json
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
bench_peers = SimpleNamespace(**runpy.run_path(str(ROOT / "devtools" / "bench_peers.py")))


def tool(name: str, binary: str, family: str, **extra) -> dict:
    return {"name": name, "binary": binary, "family": family, "available": True,
            "ablation_of": None, "version": f"{name} 1", **extra}  # fmt: skip


TOOLS = {
    "rg": tool("rg", "/venv/bin/rg", "grep"),
    "rg-current": tool("rg-current", "/r/tools/ripgrep/bin/rg", "grep"),
    "hay": tool("hay", "/repo/bin/hay", "ranker-under-test"),
    "hay-no-path": tool("hay-no-path", "/repo/bin/hay", "ranker-under-test", ablation_of="hay"),
    "clangd": tool("clangd", "/usr/bin/clangd", "language-server", languages=["c"]),
    "gone": tool("gone", "/x/gone", "agent-tool", available=False),
}


def test_programs_are_counted_by_the_command_they_run():
    assert bench_peers.programs(TOOLS) == {
        "clangd": ["clangd"],
        "hay": ["hay"],
        "rg": ["rg", "rg-current"],
    }


def test_it_prints_the_figures_of_a_run(tmp_path):
    results = tmp_path / "results"
    (results / "small" / "index").mkdir(parents=True)
    (results / "big" / "code").mkdir(parents=True)
    (results / "tools.json").write_text(json.dumps(TOOLS))
    (results / "small" / "files.tsv").write_text("path\na\n")
    (results / "big" / "files.tsv").write_text("path\na\nb\nc\n")
    cost = {"status": "ready", "wall_seconds": 2.5, "bytes": 1000, "peak_rss_kib": 10}
    (results / "big" / "index").mkdir()
    (results / "big" / "index" / "clangd.json").write_text(json.dumps(cost))
    comps = [
        {"tool": "clangd", "metric": "rr", "subset": "all", "mean_tool": 0.25, "mean_base": 0.5,
         "verdict": "detected worse", "n": 40},
        {"tool": "hay", "metric": "rr", "subset": "all", "mean_tool": 0.9, "mean_base": 0.5,
         "verdict": "detected better", "n": 300},
    ]  # fmt: skip
    inference = {"metadata": {"baseline": "rg"}, "comparisons": comps}
    (results / "big" / "code" / "inference.json").write_text(json.dumps(inference))
    out = subprocess.run(
        [sys.executable, str(ROOT / "devtools" / "bench_peers.py"), "--results", str(results),
         "--tools-dir", str(tmp_path / "none")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "## Programs: 3 distinct (target >= 24)" in out
    # every declared family but the three the run's tools belong to, in declaration order
    missing = (
        "structural, tag-index, trigram-index, token-index, agent-tool, agent-harness, embedding"
    )
    assert f"missing: {missing}\n" in out
    assert "largest corpus: big" in out and "| clangd | ready | 2.50 | 1,000 | 10 |" in out
    assert "| clangd | language-server | clangd 1 | 0.250 (detected worse, n 40) | – |" in out
    assert "| rg | grep | rg 1 | 0.500 (baseline) | – |" in out
