"""Issue 37 item 1: symlinks never make the workflow's work unbounded.

The workflow itself (fetch_corpus only) on a small local corpus built in tmp_path. Before,
a refetch made Snakemake back up the old checkout (an update() folder) with a copy following
links: a loop grew ~40 nested copies (two loops and a 200 MB file: 71 GB), crashed, and every
later run stopped on FileExistsError in .snakemake/backups. Every run here is bounded by a
timeout that kills, and the corpus is a few bytes, so a failing test cannot fill the disk.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_cli import NO_WORKFLOW_PROFILE

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
TARGET = "results/loop/files.tsv"
LOOP_LINE = "symlink 'selfloop' -> '.' leads back to its own folder, a loop"
LOOP_FIX = "remove the link from the source or set `subdir` to a folder without it"
pytestmark = pytest.mark.slow


def snakemake(work: Path) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(work),
        "--configfile",
        str(work / "config.yaml"),
        *NO_WORKFLOW_PROFILE,
        "--cores",
        "1",
        TARGET,
    ]
    env = {**os.environ, "PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"])}
    env.pop("PYTHONPATH", None)
    # subprocess.run kills on timeout (SIGKILL): a runaway copy stops within the minute.
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def tree_bytes(path: Path) -> int:
    """Bytes under path, links not followed (what a backup holds on disk)."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        for name in dirnames + filenames:
            total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def snapshot(work: Path) -> dict[str, bytes]:
    found = {}
    for top in (work / "resources", work / "results" / "loop"):
        for dirpath, _, filenames in os.walk(top, followlinks=False):
            for name in filenames:
                full = Path(dirpath) / name
                found[str(full.relative_to(work))] = (
                    os.readlink(full).encode() if full.is_symlink() else full.read_bytes()
                )
    return found


@pytest.fixture
def work(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "src").mkdir(parents=True)
    (corpus / "src" / "a.c").write_text("int loop_fn_one(void) { return 1; }\n")
    (corpus / "README").write_text("loop_fn_one returns one.\n")
    work = tmp_path / "work"
    work.mkdir()
    config = {
        "tools_file": str(REPO / "config" / "tools.yaml"),
        "languages_file": str(REPO / "config" / "languages.yaml"),
        "astgrep_rules_dir": str(REPO / "config" / "astgrep"),
        "corpora": {"loop": {"source": {"kind": "local", "path": str(corpus)}}},
    }
    (work / "config.yaml").write_text(yaml.safe_dump(config))
    proc = snakemake(work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return work


def _output(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout + proc.stderr


def test_a_loop_added_to_a_local_corpus_is_refused_and_no_run_is_stuck(work):
    corpus = work.parent / "corpus"
    tree = work / "resources" / "corpora" / "loop" / "tree"
    records = {"resources/corpora/loop/checkout.json", "results/loop/corpus.json",
               "results/loop/files.tsv"}  # fmt: skip
    before = snapshot(work)
    os.symlink(".", corpus / "selfloop")
    # a second refetch was the stuck one; a rerun with no edit said "Nothing to be done"
    for edit in ("two", "three", None):
        if edit:
            (corpus / "src" / "a.c").write_text(f"int loop_fn_{edit}(void) {{ return 2; }}\n")
        proc = snakemake(work)
        assert "FileExistsError" not in _output(proc) and "Traceback" not in _output(proc)
        assert tree_bytes(work / ".snakemake" / "backups") < 64_000
        lines = [line for line in _output(proc).splitlines() if LOOP_LINE in line]
        assert proc.returncode != 0 and lines, _output(proc)[-3000:]
        assert all(LOOP_FIX in line for line in lines)
        # The last good tree and the results made from it are kept; the fetch's own records
        # are gone, so that no later run takes the old checkout for the refused one.
        after = snapshot(work)
        assert not records & set(after)
        assert after == {k: v for k, v in before.items() if k not in records}
    os.unlink(corpus / "selfloop")
    proc = snakemake(work)
    assert proc.returncode == 0, _output(proc)[-3000:]
    assert "loop_fn_three" in (tree / "src" / "a.c").read_text()
    checkout = json.loads((tree.parent / "checkout.json").read_text())
    assert checkout["corpus"] == "loop" and checkout["files"] == 2
    assert tree_bytes(work / ".snakemake" / "backups") < 64_000


def test_a_refetch_never_copies_the_checkout(work):
    """Links that stay (a folder link, a dangling link) and a refetch: no copy of the tree."""
    corpus = work.parent / "corpus"
    os.symlink("src", corpus / "lib")
    os.symlink("missing", corpus / "gone")
    for edit in ("two", "three"):
        (corpus / "src" / "a.c").write_text(f"int loop_fn_{edit}(void) {{ return 2; }}\n")
        proc = snakemake(work)
        assert proc.returncode == 0, _output(proc)[-3000:]
        backups = work / ".snakemake" / "backups"
        assert not (backups / "resources" / "corpora" / "loop" / "tree").exists()
        assert tree_bytes(backups) < 64_000
    tree = work / "resources" / "corpora" / "loop" / "tree"
    assert os.readlink(tree / "lib") == "src" and os.readlink(tree / "gone") == "missing"
    files = (work / "results" / "loop" / "files.tsv").read_text().splitlines()
    assert "gone\t7\tsymlink\t-" in files and "lib\t3\tsymlink\t-" in files
