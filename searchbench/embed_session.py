"""semble-session: semble (PyPI `semble`, hybrid BM25 + static-embedding code search for
agents) as a session tool: the index is built once per search job, then each query is one
`--connect` client, as the language servers are (searchbench/session.py, lsp.serve_on).

A semble CLI call loads the model and re-reads its index on every query: 6 s a query on the
click corpus, hours for a default run; an agent keeps semble running (its MCP server), so
one process a job is also what an agent gets. Run by the interpreter of semble's own build
(resources/tools/semble, rule build_tool): --serve, --version and --cosine import semble and
its model; --connect needs only the standard library.

    semble-session --serve SOCKET [--top-k K] [--content TYPE ...] [--ready-timeout S]
    semble-session --connect SOCKET --timeout S --query Q | --stop
    semble-session --version
    semble-session --cosine A B      the model's cosine of two sentences (weights check)

Answers are grep-null lines, one per line of each returned chunk, best chunk first: what an
agent reads, in its order. The model is the Model2Vec static model shipped inside the PyPI
package `tokenlearn-static-model` (semble's default model is fetched from a model hub at run
time, which a benchmark run cannot rely on); its files are pinned by sha256 in the build.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from typing import Any

DEFAULT_TOP_K = 10  # semble's Python API default (its MCP tool and CLI print 5)
USAGE = __doc__.split("\n\n")[2]


def model_dir() -> str:
    """The static model's folder inside the installed `tokenlearn-static-model` package."""
    import static_model

    return os.path.join(os.path.dirname(static_model.__file__), "model")


def version_line() -> str:
    from importlib.metadata import version

    return (
        f"semble {version('semble')} (model: tokenlearn-static-model "
        f"{version('tokenlearn-static-model')}, model2vec {version('model2vec')})"
    )


def cosine(a: str, b: str) -> float:
    """The model's cosine similarity of two sentences: a fixed pair's value pins the weights."""
    import numpy as np
    from model2vec import StaticModel

    vectors = StaticModel.from_pretrained(model_dir()).encode([a, b])
    left, right = vectors[0], vectors[1]
    return float(np.dot(left, right) / (np.linalg.norm(left) * np.linalg.norm(right)))


def grep_null_lines(results: list[Any]) -> list[bytes]:
    """Each chunk's lines as `path NUL line ":" text`, chunks in semble's order."""
    out = []
    for result in results:
        chunk = result.chunk
        path = os.fsencode(chunk.file_path)
        for offset, text in enumerate(chunk.content.split("\n")):
            line = f"{chunk.start_line + offset}:{text}\n".encode("utf-8", "surrogateescape")
            out.append(path + b"\0" + line)
    return out


class SembleServer:
    """The session's index, built in a thread so that a corpus too big for the ready budget
    reads `not-ready` (and every question an error) instead of stalling the job."""

    def __init__(self, root: str, top_k: int, content: list[str], ready_timeout: float) -> None:
        self.root, self.top_k, self.content = root, top_k, content
        self.ready_timeout = ready_timeout
        self.index: Any = None
        self.problem = ""
        self.restarts = 0

    def _build(self) -> None:
        try:
            from semble import ContentType, SembleIndex

            kinds = [ContentType(c) for c in self.content]
            self.index = SembleIndex.from_path(self.root, content=kinds, model_path=model_dir())
        except Exception as problem:  # noqa: BLE001 - any failure is the tool's, reported
            self.problem = f"{type(problem).__name__}: {problem}"

    def start(self) -> bool:
        worker = threading.Thread(target=self._build, daemon=True)
        worker.start()
        worker.join(self.ready_timeout)
        if worker.is_alive():
            self.problem = f"index not built within {self.ready_timeout:g} s"
        return self.index is not None

    def answer(self, query: str, budget: float) -> dict[str, Any]:
        if self.index is None:
            return {"exit": 2, "error": self.problem or "no index"}
        lines = grep_null_lines(self.index.search(query, top_k=self.top_k))
        text = b"".join(lines).decode("utf-8", "surrogateescape")
        return {"exit": 0 if lines else 1, "out": text}

    def stop(self) -> None:
        pass


def parse(argv: list[str]) -> dict[str, Any]:
    """Options by hand, as lsp-symbol's: `--query -rf` must read -rf as the query."""
    opts: dict[str, Any] = {"top_k": DEFAULT_TOP_K, "content": ["code"], "ready_timeout": 1800.0}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--version", "--stop"):
            opts[arg[2:]] = True
            i += 1
        elif arg == "--cosine" and i + 2 < len(argv):
            opts["cosine"] = argv[i + 1 : i + 3]
            i += 3
        elif arg == "--content":
            opts["content"] = []
            while i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                opts["content"].append(argv[i + 1])
                i += 1
            i += 1
        elif arg in ("--serve", "--connect", "--query", "--timeout", "--top-k", "--ready-timeout"):
            if i + 1 >= len(argv):
                raise ValueError(f"{arg} needs a value")
            opts[arg[2:].replace("-", "_")] = argv[i + 1]
            i += 2
        else:
            raise ValueError(f"unknown argument {arg!r}")
    return opts


def main(argv: list[str] | None = None) -> int:
    from searchbench import lsp

    args = sys.argv[1:] if argv is None else argv
    try:
        opts = parse(args)
    except ValueError as problem:
        sys.stderr.write(f"semble-session: {problem}\n{USAGE}\n")
        return 2
    if opts.get("version"):
        print(version_line())
        return 0
    if "cosine" in opts:
        print(f"{cosine(*opts['cosine']):.6f}")
        return 0
    if "connect" in opts:
        request = {"connect": opts["connect"], "stop": bool(opts.get("stop"))}
        request.update(query=opts.get("query"), timeout=float(opts.get("timeout", 120)))
        try:
            return lsp.connect(request, sys.stdout.buffer, sys.stderr)
        except lsp.LspError as problem:
            sys.stderr.write(f"semble-session: {problem}\n")
            return 2
    if "serve" not in opts:
        sys.stderr.write(f"semble-session: give --serve, --connect or --version\n{USAGE}\n")
        return 2
    # semble writes usage statistics into its cache folder: a temporary one, never $HOME
    cache = tempfile.mkdtemp(prefix="semble-cache-")
    os.environ["SEMBLE_CACHE_LOCATION"] = cache
    server = SembleServer(
        os.getcwd(), int(opts["top_k"]), opts["content"], float(opts["ready_timeout"])
    )
    try:
        return lsp.serve_on(opts["serve"], server, sys.stdout, sys.stderr, "semble-session")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
