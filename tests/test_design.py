"""The statistical design (searchbench/design.py): read once from the validated configuration,
with the schema's defaults, and each track's primary metric as searchbench.measures declares."""

import re
from pathlib import Path

import pytest
import yaml
from design_fixture import SCHEMA, schema_config

from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.measures import TRACK_PRIMARY_METRIC, TRACKS, primary_metric_of

RULES = Path(__file__).resolve().parent.parent / "rules"


def schema_default(*keys: str) -> object:
    node = yaml.safe_load(SCHEMA.read_text())
    for key in keys:
        node = node["properties"][key]
    return node["default"]


def test_the_default_configuration_s_design_holds_the_schema_s_defaults():
    design = Design.from_config(schema_config(), "code")
    assert design.baseline == schema_default("baseline")
    assert design.seed == schema_default("seed")
    assert design.alpha == schema_default("alpha")
    assert design.resamples == schema_default("resamples")
    assert design.min_queries == schema_default("min_queries")
    assert design.simulations == schema_default("calibration", "simulations")
    assert design.calibration_resamples == schema_default("calibration", "resamples")
    # the declared families are the track's own, given by the rule (track_params)
    assert (design.primary, dict(design.ablations)) == ((), {})


@pytest.mark.parametrize("track", TRACKS)
def test_each_track_s_primary_metric_is_the_one_measures_declares(track):
    design = Design.from_config(schema_config(), track)
    assert design.primary_metric == primary_metric_of(track)
    assert design.primary_metric == TRACK_PRIMARY_METRIC.get(track, "rr")


def test_the_many_answer_tracks_are_read_on_ndcg():
    # code, docs and words have one right file a query; usage and behaviour many
    assert [primary_metric_of(t) for t in TRACKS] == ["rr", "rr", "rr", "ndcg10", "ndcg10"]


def test_a_rule_s_params_give_back_the_same_design():
    design = Design.from_config(
        schema_config(alpha=0.01, seed=3), "usage", ["hay"], {"hay-no-kw": "hay"}
    )
    params = design.as_params()
    assert params["primary"] == ["hay"] and params["track"] == "usage"
    assert Design.from_params(params) == design


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"alpha": 1.0}, r"^alpha = 1.0 must lie strictly between 0 and 1$"),
        ({"alpha": 0.0}, r"^alpha = 0.0 must lie strictly between 0 and 1$"),
        ({"resamples": 0}, r"^resamples = 0 must be a positive integer$"),
        ({"calibration": {"simulations": 0, "resamples": 5}}, r"^calibration simulations = 0"),
        ({"calibration": {"simulations": 5, "resamples": 0}}, r"^calibration resamples = 0"),
    ],
)
def test_a_bad_value_is_one_line_once(values, message):
    with pytest.raises(BenchError, match=message):
        Design.from_config(schema_config(**values), "code")


def test_the_rules_read_the_statistics_only_through_the_design():
    """alpha, resamples, min_queries and the calibration's values reach a job only as the
    design (rules/common.smk track_design), never as params of their own."""
    pattern = re.compile(r'config\[\s*"(alpha|resamples|min_queries|calibration)"\s*\]')
    found = {p.name: pattern.findall(p.read_text()) for p in sorted(RULES.glob("*.smk"))}
    assert {name: hits for name, hits in found.items() if hits} == {}
