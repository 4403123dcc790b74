"""Reading a track's queries.tsv: the one reader of the file, for every step that reads it
(search, timing, scoring, filter-or-rank, the ground-truth audit)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from searchbench.artifacts import read_tsv
from searchbench.paths import decode_path

if TYPE_CHECKING:
    import pandas as pd

# Declared here, beside the file's one reader, not in sampling (its writer), which imports
# pandas: most of a run's jobs read queries and nothing else of sampling.
CANDIDATE_COLUMNS = ["query", "language", "kind", "path", "line", "eligibility"]
QUERY_COLUMNS = ["qid", *CANDIDATE_COLUMNS]


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


def query_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """queries.tsv as written: rows of text in file order, checked against QUERY_COLUMNS."""
    return read_tsv(path, QUERY_COLUMNS)


def query_frame(path: str | os.PathLike) -> pd.DataFrame:
    """queries.tsv as a pandas DataFrame of strings, in file order."""
    # imported here: the search, fast-path and timing jobs (most of a run's jobs) read
    # queries without pandas, and importing it was most of their own start (0.45 of 0.6 s)
    import pandas as pd

    return pd.DataFrame(query_rows(path), columns=QUERY_COLUMNS, dtype=str)


def read_queries(path: str | os.PathLike) -> list[Query]:
    """queries.tsv as Query records, in qid order."""
    rows = query_rows(path)
    return sorted(
        (Query(r["qid"], r["query"], r["path"], int(r["line"]), r["language"]) for r in rows),
        key=lambda q: q.qid,
    )


def right_paths(docids: dict[str, int]) -> set[bytes]:
    """Relevant docids of one query as the raw path bytes a tool prints."""
    return {os.fsencode(decode_path(docid)) for docid, rel in docids.items() if rel > 0}
