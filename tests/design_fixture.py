"""The statistical design a test runs with (searchbench/design.py): built as the workflow
builds it, from a configuration whose defaults Snakemake's validation filled in from the
schema, with the test's own values on top."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from snakemake.utils import validate

from searchbench.design import Design

SCHEMA = Path(__file__).resolve().parent.parent / "config" / "schema" / "config.schema.yaml"


# A workflow-running test's statistics: its runs check wiring, artifacts and determinism,
# which fewer simulations check as well; the simulations' precision at the defaults is
# tests/test_calibration.py's and tests/test_power.py's. Power's cost does not shrink with a
# fixture corpus (its plan simulates up to 3,000 queries): 17 s a job at the defaults.
FIXTURE_STATISTICS: dict[str, Any] = {
    "calibration": {"simulations": 20, "resamples": 200},
    "power": {"simulations": 50, "bootstrap_resamples": 100, "flip_resamples": 200},
}


@lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    # a placeholder corpus, as the schema asks for one; taken out again after validation
    config: dict[str, Any] = {"corpora": {"mini": {"source": {"kind": "local", "path": "."}}}}
    validate(config, str(SCHEMA), set_default=True)
    del config["corpora"]
    return config


def schema_config(**values: Any) -> dict[str, Any]:
    """A configuration of the schema's defaults (no corpora), with ``values`` set."""
    return {**copy.deepcopy(_defaults()), **values}


def design(
    track: str = "code",
    primary: Sequence[str] = (),
    ablations: Mapping[str, str] | None = None,
    **values: Any,
) -> Design:
    """The default configuration's design of ``track``, no declared questions unless given,
    with ``values`` (baseline, seed, alpha, resamples, min_queries, simulations,
    calibration_resamples) replaced."""
    return replace(Design.from_config(schema_config(), track, primary, ablations), **values)
