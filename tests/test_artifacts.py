"""The artifact file layer: what it refuses, and that what it writes reads back field for field."""

import json
import math
import os

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


# ---------------------------------------------------------------- checked intermediates


def _scores(workdir):
    """An artifact as a job writes it: under results/ of the working directory, by a rule."""
    path = workdir / "results" / "c" / "code" / "scores.tsv"
    artifacts.set_writing_rule("score")
    try:
        artifacts.write_text(path, artifacts.tsv_text(["qid", "rr"], [("q1", 1.0), ("q2", 0.5)]))
    finally:
        artifacts.set_writing_rule(None)
    return path


def test_an_edited_artifact_is_refused_with_its_name_and_regenerate_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _scores(tmp_path)
    record = artifacts.read_json(
        tmp_path / "results" / ".written" / "c" / "code" / "scores.tsv.json"
    )
    assert record["rule"] == "score" and record["path"] == "results/c/code/scores.tsv"
    assert artifacts.read_tsv(path, ["qid", "rr"])[1] == {"qid": "q2", "rr": "0.5"}
    # One value changed, the size kept: only the hash can tell.
    path.write_text(path.read_text().replace("0.5", "0.9"))
    message = (
        r"^results/c/code/scores.tsv was changed after rule score wrote it \(sha256 "
        r"[0-9a-f]{12}… when written, [0-9a-f]{12}… now\); "
        r"regenerate it: snakemake --force results/c/code/scores.tsv$"
    )
    with pytest.raises(BenchError, match=message):
        artifacts.read_tsv(path, ["qid", "rr"])
    with pytest.raises(BenchError, match=message):
        artifacts.read_tsv_frame(str(path), ["qid", "rr"])  # any spelling of the path
    assert [c[0] for c in artifacts.changed_artifacts()] == ["results/c/code/scores.tsv"]
    # Rewritten by the writer: read as written.
    _scores(tmp_path)
    assert artifacts.read_tsv(path, ["qid", "rr"])[1]["rr"] == "0.5"
    assert artifacts.changed_artifacts() == []


def test_an_untouched_or_only_touched_artifact_reads_and_its_record_is_refreshed(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    path = _scores(tmp_path)
    json_path = tmp_path / "results" / "c" / "code" / "inference.json"
    artifacts.write_json(json_path, {"a": 1})
    assert artifacts.read_json(json_path) == {"a": 1}
    # Snakemake touches every output after its job: same bytes, new mtime.
    os.utime(path, ns=(1, 1))
    assert artifacts.changed_artifacts() == []
    record = tmp_path / "results" / ".written" / "c" / "code" / "scores.tsv.json"
    assert json.loads(record.read_text())["mtime_ns"] == 1  # next time: a stat, no hash
    assert artifacts.read_tsv(path, ["qid", "rr"])[0]["rr"] == "1.0"
    # Deleted (Snakemake does so before it reruns a job): nothing to check.
    path.unlink()
    assert artifacts.changed_artifacts() == []


def test_records_stay_out_of_outputs_and_outside_results(tmp_path, monkeypatch):
    """Byte-identical outputs: the record is beside the results, never in a file; files outside
    ./results (resources/, a test's folder) get none."""
    monkeypatch.chdir(tmp_path)
    path = _scores(tmp_path)
    assert path.read_text() == "qid\trr\nq1\t1.0\nq2\t0.5\n"
    artifacts.write_text(tmp_path / "resources" / "x.txt", "x\n")
    artifacts.write_text(tmp_path / "other" / "results" / "y.txt", "y\n")
    records = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json"))
    assert records == ["results/.written/c/code/scores.tsv.json"]


def test_several_changed_files_are_one_line_and_one_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    artifacts.set_writing_rule("queries")
    artifacts.write_text("results/c/code/queries.tsv", "qid\n1\n")
    artifacts.set_writing_rule(None)
    path = _scores(tmp_path)
    path.write_text("edited\n")
    (tmp_path / "results/c/code/queries.tsv").write_text("qid\n2\n")
    changes = artifacts.changed_artifacts()
    line = artifacts.changed_line(changes, ["my.yaml"])
    assert "\n" not in line
    assert line.startswith("results/c/code/queries.tsv was changed after rule queries wrote it")
    assert line.endswith(
        "and 1 more file(s) too: results/c/code/scores.tsv; regenerate them: snakemake --force "
        "results/c/code/queries.tsv results/c/code/scores.tsv --configfile my.yaml"
    )


def test_the_regenerate_command_and_forced_rules_pass_the_start_check():
    exempt = artifacts.forced_by(["--force", "results/c/code/scores.tsv", "--cores", "2"])
    assert exempt("results/c/code/scores.tsv", "score")
    assert not exempt("results/c/code/queries.tsv", "queries")
    assert artifacts.forced_by(["-R", "score"])("results/c/code/scores.tsv", "score")
    assert artifacts.forced_by(["--forcerun=score"])("results/c/code/scores.tsv", "score")
    assert artifacts.forced_by(["-F"])("results/c/code/queries.tsv", "queries")
    # A target alone forces nothing: the edit would be read.
    assert not artifacts.forced_by(["results/c/code/scores.tsv"])(
        "results/c/code/scores.tsv", "score"
    )
