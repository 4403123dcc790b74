"""The one way a Snakemake `script:` runs (every scripts/*.py the rules call ends with it).

`run_script(main, snakemake)` sends the `logging` module's records to the rule's log (one
message a line, the file rewritten per run; nowhere when the rule has no log), calls
`main(snakemake)`, and turns a BenchError — bad input, a missing tool, a hanging tool — into
one line, `<rule>: <message>`, in the log and on stderr, with exit status 1. Any other
exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from searchbench.errors import BenchError


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
    try:
        main(smk)
    except BenchError as err:
        logging.error("%s: %s", rule, err)
        sys.exit(f"{rule}: {err}")
    finally:
        handler.close()
