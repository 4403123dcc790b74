"""Read and write TREC qrels and runs, the formats trec_eval, ir_measures and ranx read.

qrels: ``qid 0 docid relevance``, sorted by (qid, docid).
run:   ``qid Q0 docid rank score tag``, sorted by (qid, rank); rank counts from 1 in the order
       the tool first printed each file and score = -rank, so evaluators that sort by score
       (and break ties by docid, as trec_eval does) see exactly our order.

A qrels mapping is ``{qid: {docid: relevance}}``; a run mapping is ``{qid: [docid, ...]}`` in
rank order. Fields must not contain white space (docids are written with
``searchbench.paths.encode_path``); anything else raises a one-line BenchError naming the
file and the line.
"""

import os
import re
from collections.abc import Iterable, Mapping, Sequence

from searchbench.artifacts import write_text
from searchbench.errors import BenchError

_WHITE = re.compile(r"\s")

Qrels = dict[str, dict[str, int]]
Run = dict[str, list[str]]


def _check_field(value: str, what: str, where: str) -> None:
    if not isinstance(value, str) or not value or _WHITE.search(value):
        raise BenchError(
            f"{where}: {what} {value!r} is empty or contains white space; "
            "encode paths with searchbench.paths.encode_path and use names without spaces"
        )


def _write_atomic(path: str | os.PathLike, lines: Iterable[str]) -> None:
    write_text(path, "".join(lines))


def qrels_lines(qrels: Mapping[str, Mapping[str, int]], path: str = "<qrels>") -> list[str]:
    """The lines of a qrels file, sorted by (qid, docid); validates every field."""
    lines = []
    for qid in sorted(qrels):
        for docid in sorted(qrels[qid]):
            where = f"{path}: qid {qid!r}, docid {docid!r}"
            _check_field(qid, "qid", where)
            _check_field(docid, "docid", where)
            rel = qrels[qid][docid]
            if isinstance(rel, bool) or not isinstance(rel, int):
                raise BenchError(f"{where}: relevance {rel!r} is not an integer")
            lines.append(f"{qid} 0 {docid} {rel}\n")
    return lines


def write_qrels(path: str | os.PathLike, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """Write qrels atomically in TREC format, sorted by (qid, docid)."""
    _write_atomic(path, qrels_lines(qrels, str(path)))


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file into {qid: {docid: relevance}}."""
    qrels: Qrels = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            where = f"{path}:{lineno}"
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise BenchError(
                    f"{where}: expected 4 fields 'qid 0 docid relevance', got {len(fields)}"
                )
            qid, _iteration, docid, rel = fields
            try:
                value = int(rel)
            except ValueError:
                raise BenchError(f"{where}: relevance {rel!r} is not an integer") from None
            docs = qrels.setdefault(qid, {})
            if docid in docs:
                raise BenchError(f"{where}: docid {docid!r} appears twice for qid {qid!r}")
            docs[docid] = value
    return qrels


def run_lines(run: Mapping[str, Sequence[str]], tag: str, path: str = "<run>") -> list[str]:
    """The lines of a run file, sorted by (qid, rank), score = -rank; validates every field."""
    _check_field(tag, "tag", f"{path}: tag")
    lines = []
    for qid in sorted(run):
        seen: set[str] = set()
        for rank, docid in enumerate(run[qid], start=1):
            where = f"{path}: qid {qid!r}, rank {rank}"
            _check_field(qid, "qid", where)
            _check_field(docid, "docid", where)
            if docid in seen:
                raise BenchError(
                    f"{where}: docid {docid!r} appears twice; keep each file's first occurrence"
                )
            seen.add(docid)
            lines.append(f"{qid} Q0 {docid} {rank} {-rank} {tag}\n")
    return lines


def write_run(path: str | os.PathLike, run: Mapping[str, Sequence[str]], tag: str) -> None:
    """Write a run atomically in TREC format, sorted by (qid, rank), score = -rank."""
    _write_atomic(path, run_lines(run, tag, str(path)))


def read_run(path: str | os.PathLike) -> Run:
    """Read a TREC run into {qid: [docid, ...]} in rank order.

    Ranks must be strict: 1, 2, 3, ... within each query, each docid once.
    """
    rows: dict[str, list[tuple[int, int, str]]] = {}
    seen: dict[str, set[str]] = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            where = f"{path}:{lineno}"
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 6:
                raise BenchError(
                    f"{where}: expected 6 fields 'qid Q0 docid rank score tag', got {len(fields)}"
                )
            qid, _q0, docid, rank_text, score_text, _tag = fields
            try:
                rank = int(rank_text)
                float(score_text)
            except ValueError:
                raise BenchError(f"{where}: rank or score is not a number") from None
            if docid in seen.setdefault(qid, set()):
                raise BenchError(f"{where}: docid {docid!r} appears twice for qid {qid!r}")
            seen[qid].add(docid)
            rows.setdefault(qid, []).append((rank, lineno, docid))
    run: Run = {}
    for qid, ranked in rows.items():
        ranked.sort()
        for expected, (rank, lineno, _docid) in enumerate(ranked, start=1):
            if rank != expected:
                raise BenchError(
                    f"{path}:{lineno}: qid {qid!r} has rank {rank} where rank {expected} was "
                    "expected; ranks must be 1, 2, 3, ... without gaps or repeats"
                )
        run[qid] = [docid for _, _, docid in ranked]
    return run
