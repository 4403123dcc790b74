"""Issue 32 item 2: semble, the embedding family's first member. Built by the real pip
toolchain of rule build_tool from PyPI wheels (about 15 s), its model's weights checked by
sha256 at build time and here by the cosine of two fixed sentences, then run as a session on
a small corpus the way a search job runs it."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from searchbench.build import BUILT, FAILED, build, build_argv, check_pin
from searchbench.embed_session import grep_null_lines, parse
from searchbench.errors import BenchError
from searchbench.parsers import parse_output
from searchbench.tools import REPO_BIN, load_tools

ROOT = Path(__file__).resolve().parents[1]
SPEC = load_tools(ROOT / "config" / "tools.yaml")["semble"]
SESSION = str(REPO_BIN / "semble-session")
# The cosine the pinned static model gives this pair (measured with the pinned build).
PAIR = ("open the file", "read a file from disk")
PAIR_COSINE = 0.655308


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tools = tmp_path_factory.mktemp("tools")
    manifest = build(SPEC.build, "semble", tools)
    assert manifest["status"] == BUILT, manifest["reason"]
    return tools / "semble"


def python_of(built: Path) -> str:
    return str(built / "bin" / "python")


def test_the_pin_is_exact_and_checked() -> None:
    check_pin("semble", SPEC.build)
    venv, install = build_argv(SPEC.build, Path("/r"), 2)
    assert venv[-1] == "/r" and install[0] == "/r/bin/python"
    assert install[-2:] == ["semble==0.7.0", "tokenlearn-static-model==0.1.1"]
    assert "--only-binary=:all:" in install
    with pytest.raises(BenchError, match="pins `data` exactly with `data_sha256`"):
        check_pin("x", {k: v for k, v in SPEC.build.items() if k != "data_sha256"})


@pytest.mark.slow
def test_the_model_embeds_a_fixed_pair_to_its_known_cosine(built: Path) -> None:
    out = subprocess.run(
        [python_of(built), SESSION, "--cosine", *PAIR], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert abs(float(out.stdout) - PAIR_COSINE) < 1e-5
    version = subprocess.run([python_of(built), SESSION, "--version"], capture_output=True)
    assert version.stdout.startswith(b"semble 0.7.0 (model: tokenlearn-static-model 0.1.1")


@pytest.mark.slow
def test_weights_that_differ_from_the_pin_fail_the_build(tmp_path: Path) -> None:
    pin = {**SPEC.build, "data_sha256": {**SPEC.build["data_sha256"], "config.json": "0" * 64}}
    manifest = build(pin, "semble", tmp_path)
    assert manifest["status"] == FAILED
    assert manifest["reason"] == (
        "static_model/model/config.json: sha256 differs from the pin (weights not as pinned)"
    )


def start_session(built: Path, root: Path, socket_path: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            python_of(built),
            SESSION,
            "--serve",
            str(socket_path),
            "--top-k",
            "10",
            "--content",
            "code",
            "docs",
        ],  # fmt: skip
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("ready "), line
    return proc


def ask(socket_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([SESSION, "--connect", str(socket_path), *args], capture_output=True)


@pytest.mark.slow
def test_a_session_ranks_the_defining_file_first(built: Path, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "parse.py").write_text(
        "def parse_header(line):\n    return line.split(':', 1)\n"
    )
    (root / "pkg" / "uses.py").write_text(
        "from pkg.parse import parse_header\n\nprint(parse_header('a: b'))\n"
    )
    (root / "README.md").write_text("# Usage\n\nCall the parser on each header line.\n")
    socket_path = tmp_path / "s.sock"
    proc = start_session(built, root, socket_path)
    try:
        start = time.monotonic()
        answer = ask(socket_path, "--timeout", "30", "--query", "parse_header")
        assert answer.returncode == 0, answer.stderr
        hits = parse_output("grep-null", answer.stdout)
        files = list(dict.fromkeys(hit.path for hit in hits))
        assert files[0] == b"pkg/parse.py"
        assert set(files) <= {b"pkg/parse.py", b"pkg/uses.py", b"README.md"}
        assert hits[0].line == 1 and time.monotonic() - start < 10
        # a query that looks like an option is still the query
        dash = ask(socket_path, "--timeout", "30", "--query", "-rf")
        assert dash.returncode in (0, 1) and not dash.stderr
    finally:
        stop = ask(socket_path, "--stop")
        assert proc.wait(timeout=30) == 0 and stop.returncode == 0
    assert not socket_path.exists()


@pytest.mark.slow
def test_an_index_not_ready_in_time_reads_not_ready_and_answers_errors(
    built: Path, tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    pass\n")
    socket_path = tmp_path / "s.sock"
    proc = subprocess.Popen(
        [python_of(built), SESSION, "--serve", str(socket_path), "--ready-timeout", "0"],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("not-ready ")
    answer = ask(socket_path, "--timeout", "5", "--query", "f")
    assert answer.returncode == 2 and b"index not built within 0 s" in answer.stderr
    ask(socket_path, "--stop")
    assert proc.wait(timeout=30) == 0


def test_chunks_print_as_grep_null_lines_in_order() -> None:
    class Chunk:
        def __init__(self, path: str, start: int, content: str) -> None:
            self.file_path, self.start_line, self.content = path, start, content

    class Result:
        def __init__(self, chunk: Chunk) -> None:
            self.chunk = chunk

    lines = grep_null_lines([Result(Chunk("b.py", 3, "x\ny")), Result(Chunk("a.py", 1, "z"))])
    assert lines == [b"b.py\x003:x\n", b"b.py\x004:y\n", b"a.py\x001:z\n"]
    assert parse(["--connect", "s", "--query", "--stop"])["query"] == "--stop"
