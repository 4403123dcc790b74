"""Reading a track's queries.tsv, shared by the search, timing and scoring steps."""

import os
from dataclasses import dataclass
from pathlib import Path

from searchbench.artifacts import read_tsv
from searchbench.paths import decode_path
from searchbench.sampling import QUERY_COLUMNS


@dataclass(frozen=True)
class Query:
    qid: str
    query: str
    path: str  # encoded, relative to the corpus root
    line: int
    language: str = ""  # of the declaration (code, usage), heading (docs) or answer (behaviour)

    @property
    def decl_line(self) -> tuple[bytes, int]:
        """The declaration as the runner sees printed lines: raw path bytes and line."""
        return os.fsencode(decode_path(self.path)), self.line


def read_queries(path: Path) -> list[Query]:
    rows = read_tsv(path, QUERY_COLUMNS)
    return sorted(
        (Query(r["qid"], r["query"], r["path"], int(r["line"]), r["language"]) for r in rows),
        key=lambda q: q.qid,
    )


def right_paths(docids: dict[str, int]) -> set[bytes]:
    """Relevant docids of one query as the raw path bytes a tool prints."""
    return {os.fsencode(decode_path(docid)) for docid, rel in docids.items() if rel > 0}
