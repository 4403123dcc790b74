"""The one way a Snakemake `script:` runs (every scripts/*.py the rules call ends with it).

`run_script(main, snakemake)` sends the `logging` module's records to the rule's log (one
message a line, the file rewritten per run; nowhere when the rule has no log), calls
`main(snakemake)`, and turns a BenchError — bad input, a missing tool, a hanging tool — into
one line, `<rule>: <message>`, in the log and on stderr, with exit status 1. Any other
exception is a bug and keeps its traceback.

It also keeps the job's artifacts honest (searchbench.artifacts, docs/artifacts.md "Checked
intermediates"): every input file is checked against the record made when it was written
before `main` runs, whichever way main reads it; the records of its outputs are dropped (a
job killed halfway leaves unchecked files, not false alarms); the artifact writers record
under the job's rule; and once main has succeeded, every output file written some other way
(a staged rename, a merge) is recorded too.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

from searchbench import artifacts
from searchbench.errors import BenchError


def _files(items: Any) -> list[str]:
    """The paths of a Snakemake input or output list (a flat list of names; named entries
    may be lists, and a test's stand-in may be a namespace)."""
    if items is None:
        return []
    if isinstance(items, str | os.PathLike):
        return [str(items)]
    if not isinstance(items, Iterable):
        items = vars(items).values()
    return [path for item in items for path in _files(item)]


def run_script(main: Callable[[Any], None], smk: Any) -> None:
    rule = str(getattr(smk, "rule", None) or "script")
    logs = list(getattr(smk, "log", None) or [])
    handler: logging.Handler = (
        logging.FileHandler(str(logs[0]), mode="w", encoding="utf-8")
        if logs
        else logging.NullHandler()
    )
    handler.setFormatter(logging.Formatter("%(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    artifacts.set_writing_rule(getattr(smk, "rule", None))
    try:
        for path in _files(getattr(smk, "input", None)):
            if os.path.isfile(path):
                artifacts.check_written(path)
        outputs = _files(getattr(smk, "output", None))
        for path in outputs:
            artifacts.forget_written(path)
        main(smk)
        # Directories (a checkout, an index, the report's charts) are not checked.
        for path in outputs:
            if os.path.isfile(path):
                artifacts.record_unless_recorded(path)
    except BenchError as err:
        logging.error("%s: %s", rule, err)
        sys.exit(f"{rule}: {err}")
    finally:
        artifacts.set_writing_rule(None)
        handler.close()


def search_setup_of_job(smk, timeout: float):
    """The search set-up of a job with inputs `tool`, `root` and `index` (a list, empty for a
    tool without one) and param `word_match`: the one place a search script reads them."""
    from searchbench.command import SearchSetup

    return SearchSetup.from_files(
        smk.input.tool,
        smk.input.root,
        timeout,
        index=smk.input.index[0] if smk.input.index else None,
        word=smk.params.word_match,
    )
