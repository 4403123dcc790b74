"""The artifact file layer: what it refuses, and that what it writes reads back field for field."""

import math

import pytest

from searchbench import artifacts
from searchbench.errors import BenchError


def test_tsv_round_trip_and_header_check(tmp_path):
    path = tmp_path / "t.tsv"
    artifacts.write_text(path, artifacts.tsv_text(["a", "b"], [("x", 1), ("", "y")]))
    assert path.read_text() == "a\tb\nx\t1\n\ty\n"
    assert artifacts.read_tsv(path, ["a", "b"]) == [{"a": "x", "b": "1"}, {"a": "", "b": "y"}]
    with pytest.raises(BenchError, match=r"header is \['a', 'b'\], expected \['b', 'a'\]"):
        artifacts.read_tsv(path, ["b", "a"])


def test_tsv_refuses_tabs_newlines_and_short_rows(tmp_path):
    with pytest.raises(BenchError, match="tab or newline"):
        artifacts.tsv_text(["a"], [("x\ty",)])
    with pytest.raises(BenchError, match="has 1 fields"):
        artifacts.tsv_text(["a", "b"], [("x",)])
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\nx\n")
    with pytest.raises(BenchError, match="line 2 has 1 fields, expected 2"):
        artifacts.read_tsv(path, ["a", "b"])


def test_json_refuses_nan_and_failed_write_leaves_nothing(tmp_path):
    path = tmp_path / "x.json"
    with pytest.raises(ValueError):
        artifacts.write_json(path, {"v": math.nan})
    assert list(tmp_path.iterdir()) == []
    artifacts.write_json(path, {"b": 1, "a": [2]})
    assert path.read_text() == '{\n  "a": [\n    2\n  ],\n  "b": 1\n}\n'
    assert artifacts.read_json(path) == {"a": [2], "b": 1}
