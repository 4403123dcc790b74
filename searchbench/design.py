"""The statistical design of one track's analysis, as one object (issue 35 item 2).

The baseline, seed, alpha, resamples, min_queries, the calibration's simulations and resamples,
the track (whose primary metric it names: searchbench.measures.TRACK_PRIMARY_METRIC) and the
declared families (primary tools, ablation variants) are read from the configuration once, by
``Design.from_config``, and passed whole to the inference, calibration, power, by-language and
pooled analyses and to the report.

Defaults are the schema's (config/schema/config.schema.yaml), filled in by Snakemake's
validation before any rule runs: a key missing here is a bug, not a default to re-apply.
The rules pass a design as a plain dict (``as_params``), so that Snakemake sees a change of
any of its values and reruns the job; the scripts rebuild it with ``from_params``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from searchbench.errors import BenchError
from searchbench.measures import METRICS, primary_metric_of


def check_alpha(alpha: float) -> None:
    """The one check of a significance level."""
    if not 0.0 < alpha < 1.0:
        raise BenchError(f"alpha = {alpha} must lie strictly between 0 and 1")


def check_positive(value: int, name: str) -> None:
    if value < 1:
        raise BenchError(f"{name} = {value} must be a positive integer")


@dataclass(frozen=True)
class Design:
    """What a track's statistics are: checked once, on construction."""

    track: str
    baseline: str
    seed: int
    alpha: float
    resamples: int  # the inference's bootstrap resamples and sign flips
    min_queries: int  # under this many queries no verdict is a claim
    simulations: int  # the calibration's A/A simulations
    calibration_resamples: int  # the calibration's, fewer than the inference's
    primary: tuple[str, ...] = ()  # the declared questions' tools, each vs the baseline
    ablations: Mapping[str, str] = field(default_factory=dict)  # variant -> full tool

    def __post_init__(self) -> None:
        check_alpha(self.alpha)
        check_positive(self.resamples, "resamples")
        check_positive(self.simulations, "calibration simulations")
        check_positive(self.calibration_resamples, "calibration resamples")
        if self.primary_metric not in METRICS:
            raise BenchError(
                f"primary metric {self.primary_metric!r} is not one of {', '.join(METRICS)}"
            )

    @property
    def primary_metric(self) -> str:
        """The metric the track's verdicts are read on (searchbench.measures)."""
        return primary_metric_of(self.track)

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        track: str,
        primary: Sequence[str] = (),
        ablations: Mapping[str, str] | None = None,
    ) -> Design:
        """The design of ``track`` from a validated configuration (its defaults filled in).
        ``primary`` and ``ablations`` are the track's own (rules/common.smk track_params:
        the configured ones among the tools that run on it)."""
        return cls(
            track=str(track),
            baseline=str(config["baseline"]),
            seed=int(config["seed"]),
            alpha=float(config["alpha"]),
            resamples=int(config["resamples"]),
            min_queries=int(config["min_queries"]),
            simulations=int(config["calibration"]["simulations"]),
            calibration_resamples=int(config["calibration"]["resamples"]),
            primary=tuple(primary),
            ablations=dict(ablations or {}),
        )

    def as_params(self) -> dict[str, Any]:
        """A rule's params value: plain data Snakemake records to rerun on a change."""
        return {**asdict(self), "primary": list(self.primary), "ablations": dict(self.ablations)}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Design:
        """The design a rule passed (as_params)."""
        return cls(
            **{
                **params,
                "primary": tuple(params["primary"]),
                "ablations": dict(params["ablations"]),
            }
        )
