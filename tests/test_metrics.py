"""TREC I/O, per-query metrics and scores.tsv, checked by hand and against ir_measures."""

import math
import runpy
from pathlib import Path
from types import SimpleNamespace

import ir_measures
import pandas as pd
import pytest
from design_fixture import design
from ir_measures import RR, R, Success, nDCG

from searchbench.errors import BenchError
from searchbench.measures import MEASURES
from searchbench.metrics import (
    SCORE_COLUMNS,
    files_containing,
    first_rank,
    ndcg_at,
    read_raw_records,
    read_scores,
    recall_at,
    reciprocal_rank,
    score_tools,
    scores_text,
    success_at,
    write_scores,
)
from searchbench.trec import read_qrels, read_run, write_qrels, write_run

FIXTURES = Path(__file__).parent / "fixtures" / "metrics"
ROOT = Path(__file__).parent.parent
TOOLS = ("gg", "hay", "rg")


def _qids() -> list[str]:
    lines = (FIXTURES / "queries.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[0] for line in lines]


def _languages() -> dict[str, str]:
    lines = (FIXTURES / "queries.tsv").read_text(encoding="utf-8").splitlines()
    column = lines[0].split("\t").index("language")
    return {line.split("\t")[0]: line.split("\t")[column] for line in lines[1:]}


def _fixture_scores():
    return score_tools(
        _qids(),
        read_qrels(FIXTURES / "qrels.txt"),
        {tool: read_run(FIXTURES / "runs" / f"{tool}.run") for tool in TOOLS},
        {tool: read_raw_records(FIXTURES / "raw" / f"{tool}.jsonl") for tool in TOOLS},
        baseline="rg",
        languages=_languages(),
    )


# --- metric functions on hand-computed cases -------------------------------------------


def test_answer_absent_scores_zero():
    ranked, relevant = ["a", "b", "c"], {"z"}
    assert first_rank(ranked, relevant) == 0
    assert reciprocal_rank(ranked, relevant) == 0.0
    assert success_at(ranked, relevant, 10) == 0.0
    assert ndcg_at(ranked, relevant, 10) == 0.0
    assert recall_at(ranked, relevant, 10) == 0.0
    assert reciprocal_rank([], relevant) == 0.0


def test_answer_at_one_scores_one():
    ranked, relevant = ["a", "b"], {"a"}
    assert first_rank(ranked, relevant) == 1
    assert reciprocal_rank(ranked, relevant) == 1.0
    assert success_at(ranked, relevant, 10) == 1.0
    assert ndcg_at(ranked, relevant, 10) == 1.0
    assert recall_at(ranked, relevant, 10) == 1.0


def test_answer_at_eleven_misses_the_first_page():
    ranked = [f"d{i}" for i in range(1, 13)]
    relevant = {"d11"}
    assert first_rank(ranked, relevant) == 11
    assert reciprocal_rank(ranked, relevant) == pytest.approx(1 / 11, abs=1e-15)
    assert success_at(ranked, relevant, 10) == 0.0
    assert ndcg_at(ranked, relevant, 10) == 0.0
    assert recall_at(ranked, relevant, 10) == 0.0
    assert success_at(ranked, {"d10"}, 10) == 1.0
    assert recall_at(ranked, {"d10"}, 10) == 1.0


def test_several_right_files_all_credited_by_ndcg():
    ranked, relevant = ["x", "a", "y", "b"], {"a", "b", "c"}
    # rr sees only the first right file; ndcg credits a at 2 and b at 4,
    # against the ideal a, b, c at 1, 2, 3.
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert reciprocal_rank(ranked, relevant) == 0.5
    assert ndcg_at(ranked, relevant, 10) == pytest.approx(expected, abs=1e-15)
    assert round(expected, 5) == 0.49819
    # a page holding every right file first is perfect, whatever follows
    assert ndcg_at(["c", "b", "a", "x"], relevant, 10) == pytest.approx(1.0, abs=1e-15)
    # more right files than fit on the page: the ideal is capped at k
    many = {f"r{i}" for i in range(15)}
    assert ndcg_at(sorted(many), many, 10) == pytest.approx(1.0, abs=1e-15)


def test_recall_counts_the_right_files_of_the_first_page():
    relevant = {"a", "b", "c"}
    # a at 2 and b at 4 of three right files; c is not returned
    assert recall_at(["x", "a", "y", "b"], relevant, 10) == pytest.approx(2 / 3, abs=1e-15)
    # unlike nDCG, the order within the page does not matter
    assert recall_at(["a", "b", "x"], relevant, 10) == recall_at(["x", "b", "a"], relevant, 10)
    # a right file at 11 is not on the page; a repeated file takes no second place on it
    page = [f"d{i}" for i in range(1, 11)]
    assert recall_at([*page, "a"], relevant, 10) == 0.0
    assert recall_at(["a", "a", *page[:8], "b"], relevant, 10) == pytest.approx(2 / 3, abs=1e-15)
    # more right files than fit on the page: recall cannot reach 1 (trec_eval's recall_10)
    many = {f"r{i:02d}" for i in range(15)}
    assert recall_at(sorted(many), many, 10) == pytest.approx(10 / 15, abs=1e-15)
    with pytest.raises(ValueError, match="without a right file"):
        recall_at(["a"], set(), 10)


def test_files_containing_counts_distinct_files():
    assert files_containing({"q1": ["a", "b"], "q2": ["a"], "q3": []}) == {
        "q1": 2,
        "q2": 1,
        "q3": 0,
    }


# --- equality with ir_measures --------------------------------------------------------------


# Every measure's oracle: a measure added to searchbench.measures without one fails below.
ORACLES = {"rr": RR, "success10": Success @ 10, "ndcg10": nDCG @ 10, "recall10": R @ 10}


def test_every_measure_has_an_oracle():
    assert set(ORACLES) == {m.name for m in MEASURES}


def test_metrics_equal_ir_measures_on_fixture_runs():
    qrels = read_qrels(FIXTURES / "qrels.txt")
    # ir_measures reads our files directly: the format is standard TREC.
    ir_qrels = list(ir_measures.read_trec_qrels(str(FIXTURES / "qrels.txt")))
    compared = 0
    for tool in TOOLS:
        run = read_run(FIXTURES / "runs" / f"{tool}.run")
        ir_run = list(ir_measures.read_trec_run(str(FIXTURES / "runs" / f"{tool}.run")))
        theirs = {
            (m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(list(ORACLES.values()), ir_qrels, ir_run)
        }
        for qid in _qids():
            ranked = run.get(qid, [])
            relevant = {d for d, rel in qrels[qid].items() if rel > 0}
            for measure in MEASURES:
                value = measure.score(ranked, relevant)
                # queries absent from a run are reported by ir_measures as 0, like ours
                oracle = str(ORACLES[measure.name])
                assert abs(theirs[(qid, oracle)] - value) < 1e-9, (tool, qid, measure.name)
                compared += 1
    assert compared == len(TOOLS) * 6 * len(MEASURES)
    assert "fx-code-0001" not in read_run(FIXTURES / "runs" / "gg.run")


def test_strict_scores_make_ir_measures_follow_our_order():
    # With tied scores trec_eval re-sorts by docid (descending); score = -rank keeps the
    # order the tool printed.
    qrels = [ir_measures.Qrel("q", "a.rs", 1)]
    printed = ["a.rs", "z.rs"]
    strict = [ir_measures.ScoredDoc("q", d, -r) for r, d in enumerate(printed, 1)]
    tied = [ir_measures.ScoredDoc("q", d, 0.0) for d in printed]
    assert ir_measures.calc_aggregate([RR], qrels, strict)[RR] == 1.0
    assert ir_measures.calc_aggregate([RR], qrels, tied)[RR] == 0.5
    assert reciprocal_rank(printed, {"a.rs"}) == 1.0


# --- scores.tsv -----------------------------------------------------------------------------


def test_score_tools_on_fixture():
    scores = _fixture_scores()
    assert tuple(scores.columns) == SCORE_COLUMNS
    assert list(zip(scores["tool"], scores["qid"], strict=True)) == sorted(
        (t, q) for t in TOOLS for q in _qids()
    )
    row = scores.set_index(["tool", "qid"]).loc
    # baseline: answer at 11 of 12 files
    assert row[("rg", "fx-code-0002")][["rank", "success10", "ndcg10", "returned"]].tolist() == [
        11,
        0.0,
        0.0,
        12,
    ]
    assert row[("rg", "fx-code-0002")]["rr"] == 1 / 11
    # several right files
    assert row[("rg", "fx-code-0003")]["rank"] == 2
    assert row[("hay", "fx-code-0003")]["ndcg10"] == pytest.approx(1.0, abs=1e-15)
    # recall@10 of its three right files: hay lists all three, rg two (at 2 and 4), gg one
    recall = {t: row[(t, "fx-code-0003")]["recall10"] for t in TOOLS}
    assert recall == pytest.approx({"hay": 1.0, "rg": 2 / 3, "gg": 1 / 3}, abs=1e-15)
    # timed out with the answer printed first: still 0, status kept
    timeout = row[("gg", "fx-code-0002")]
    assert (timeout["status"], timeout["rank"], timeout["rr"], timeout["returned"]) == (
        "timeout",
        0,
        0.0,
        1,
    )
    assert timeout["recall10"] == 0.0
    assert timeout["line_rank"] == 0 and timeout["lines_before"] is pd.NA
    error = row[("gg", "fx-code-0005")]
    assert (error["status"], error["rank"], error["ndcg10"]) == ("error", 0, 0.0)
    assert row[("gg", "fx-code-0001")]["status"] == "no-match"
    # absent answer: no lines-before figure, line_rank 0
    absent = row[("hay", "fx-code-0005")]
    assert absent["rank"] == 0 and absent["lines_before"] is pd.NA
    assert row[("rg", "fx-code-0001")][["lines_before", "bytes_before", "line_rank"]].tolist() == [
        1,
        40,
        2,
    ]
    # files_containing comes from the baseline's run, for every tool alike
    counts = scores[scores["tool"] == "gg"].set_index("qid")["files_containing"].to_dict()
    assert counts == {
        "fx-code-0001": 2,
        "fx-code-0002": 12,
        "fx-code-0003": 4,
        "fx-code-0004": 1,
        "fx-code-0005": 2,
        "fx-code-0006": 2,
    }
    trivial = scores[scores["trivial"]]
    assert set(trivial["qid"]) == {"fx-code-0004"}


def test_scores_tsv_format_round_trip_and_determinism(tmp_path):
    scores = _fixture_scores()
    first, second = tmp_path / "a" / "scores.tsv", tmp_path / "b" / "scores.tsv"
    write_scores(scores, first)
    write_scores(_fixture_scores(), second)
    assert first.read_bytes() == second.read_bytes()
    lines = first.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "\t".join(SCORE_COLUMNS)
    assert lines[-1] == ""
    rg_q2 = next(line for line in lines if line.startswith("fx-code-0002\trg\t"))
    assert rg_q2.split("\t") == [
        "fx-code-0002",
        "rg",
        "ok",
        "11",
        "0.090909090909090912",
        "0",
        "0",
        "0",
        "12",
        "10",
        "400",
        "11",
        "12",
        "false",
        "rust",
    ]
    gg_q5 = next(line for line in lines if line.startswith("fx-code-0005\tgg\t"))
    assert gg_q5.split("\t")[2:4] == ["error", "0"]
    assert gg_q5.split("\t")[9:11] == ["", ""]
    back = read_scores(first)
    assert scores_text(back) == first.read_text(encoding="utf-8")
    assert back["trivial"].dtype == bool and back["rr"].dtype == float


def test_missing_raw_record_is_named(tmp_path):
    raw = read_raw_records(FIXTURES / "raw" / "hay.jsonl")
    del raw["fx-code-0003"]
    with pytest.raises(BenchError, match="tool 'hay', qid 'fx-code-0003': no raw record"):
        score_tools(
            _qids(),
            read_qrels(FIXTURES / "qrels.txt"),
            {"hay": read_run(FIXTURES / "runs" / "hay.run")},
            {"hay": raw},
            baseline="hay",
            languages=_languages(),
        )


def test_a_query_without_a_right_file_is_refused():
    # recall@10 divides by the number of right files: qrels without one for a query are broken
    qrels = read_qrels(FIXTURES / "qrels.txt")
    qrels["fx-code-0003"] = {docid: 0 for docid in qrels["fx-code-0003"]}
    with pytest.raises(BenchError, match="tool 'gg', qid 'fx-code-0003': qrels name no right file"):
        score_tools(
            _qids(),
            qrels,
            {tool: read_run(FIXTURES / "runs" / f"{tool}.run") for tool in TOOLS},
            {tool: read_raw_records(FIXTURES / "raw" / f"{tool}.jsonl") for tool in TOOLS},
            baseline="rg",
            languages=_languages(),
        )


# --- TREC files -----------------------------------------------------------------------------


def test_run_and_qrels_round_trip_sorted(tmp_path):
    run = {"q2": ["b", "a"], "q1": ["c"]}
    write_run(tmp_path / "t.run", run, "tool")
    assert (tmp_path / "t.run").read_text() == (
        "q1 Q0 c 1 -1 tool\nq2 Q0 b 1 -1 tool\nq2 Q0 a 2 -2 tool\n"
    )
    assert read_run(tmp_path / "t.run") == {"q1": ["c"], "q2": ["b", "a"]}
    write_qrels(tmp_path / "q.txt", {"q2": {"b": 1, "a": 1}, "q1": {"c": 1}})
    assert (tmp_path / "q.txt").read_text() == "q1 0 c 1\nq2 0 a 1\nq2 0 b 1\n"
    assert read_qrels(tmp_path / "q.txt") == {"q1": {"c": 1}, "q2": {"a": 1, "b": 1}}


@pytest.mark.parametrize(
    ("run", "tag", "message"),
    [
        ({"q1": ["my file.c"]}, "rg", r"t\.run: qid 'q1', rank 1: docid 'my file\.c'"),
        ({"q1": ["a.c"]}, "rg sorted", r"t\.run: tag: tag 'rg sorted'"),
        ({"q1": ["a.c", "a.c"]}, "rg", r"t\.run: qid 'q1', rank 2: docid 'a\.c' appears twice"),
    ],
)
def test_write_run_rejects_bad_fields(tmp_path, run, tag, message):
    with pytest.raises(BenchError, match=message):
        write_run(tmp_path / "t.run", run, tag)
    assert not (tmp_path / "t.run").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 a 1 -1 rg\nq1 Q0 b 2 -2\n", r"bad\.run:2: expected 6 fields"),
        ("q1 Q0 a 1 -1 rg\nq1 Q0 b 3 -3 rg\n", r"bad\.run:2: qid 'q1' has rank 3 where rank 2"),
        ("q1 Q0 a 1 -1 rg\nq1 Q0 a 2 -2 rg\n", r"bad\.run:2: docid 'a' appears twice"),
        ("q1 Q0 a one -1 rg\n", r"bad\.run:1: rank or score is not a number"),
    ],
)
def test_read_run_names_file_and_line(tmp_path, text, message):
    (tmp_path / "bad.run").write_text(text)
    with pytest.raises(BenchError, match=message):
        read_run(tmp_path / "bad.run")


def test_write_qrels_rejects_white_space(tmp_path):
    with pytest.raises(BenchError, match=r"q\.txt: qid 'q1', docid 'a b'"):
        write_qrels(tmp_path / "q.txt", {"q1": {"a b": 1}})


# --- the script ------------------------------------------------------------------------------


def _run_score_script(output: Path, tools=TOOLS, raw_tools=TOOLS):
    snakemake = SimpleNamespace(
        input=SimpleNamespace(
            queries=str(FIXTURES / "queries.tsv"),
            qrels=str(FIXTURES / "qrels.txt"),
            runs=[str(FIXTURES / "runs" / f"{t}.run") for t in tools],
            raw=[str(FIXTURES / "raw" / f"{t}.jsonl") for t in raw_tools],
        ),
        params=SimpleNamespace(baseline="rg", tool_health={}),
        output=SimpleNamespace(scores=str(output), health=str(output.parent / "health.tsv")),
    )
    runpy.run_path(str(ROOT / "scripts" / "score.py"), init_globals={"snakemake": snakemake})


def test_score_script_writes_scores(tmp_path):
    _run_score_script(tmp_path / "scores.tsv")
    assert (tmp_path / "scores.tsv").read_text(encoding="utf-8") == scores_text(_fixture_scores())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["health.tsv", "scores.tsv"]


def test_score_script_rejects_misordered_inputs(tmp_path):
    # one line, through scripts' one entry (searchbench.scriptmain), and exit status 1
    with pytest.raises(SystemExit, match=r"^script: runs .* name different tools"):
        _run_score_script(tmp_path / "scores.tsv", raw_tools=("hay", "gg", "rg"))
    assert not (tmp_path / "scores.tsv").exists()


# Issue 37 item 7: a cut scores.tsv said "set 'baseline'" (the wrong fix) or passed.
def _cut(text: str) -> dict[str, str]:
    """The ways a copy or an editor cuts scores.tsv (rows are sorted by tool: gg, hay, rg)."""
    lines = text.splitlines(keepends=True)
    without_rg = "".join(line for line in lines if "\trg\t" not in line)
    last_rg = "".join(lines[:-1])
    return {
        "empty": "",
        "mid-line": text[: len(text) // 2],
        "header only": lines[0],
        "no baseline rows": without_rg,
        "a tool short": last_rg,
    }


@pytest.mark.parametrize(
    ("cut", "what"),
    [
        ("empty", "it is empty"),
        ("mid-line", "its last line is cut short"),
        ("header only", "it has a header and no rows"),
        ("a tool short", "tool rg has 5 of the 6 queries"),
    ],
)
def test_a_cut_scores_file_is_named_with_how_to_remake_it(tmp_path, cut, what):
    whole = tmp_path / "whole.tsv"
    write_scores(_fixture_scores(), whole)
    path = tmp_path / "scores.tsv"
    path.write_text(_cut(whole.read_text(encoding="utf-8"))[cut], encoding="utf-8")
    with pytest.raises(BenchError) as err:
        read_scores(path)
    assert str(err.value) == (
        f"{path} is truncated or damaged ({what}); delete it and rerun snakemake, which "
        "rewrites it (rule score)"
    )
    assert len(read_scores(whole)) == 18  # the whole file reads


def test_inference_names_a_scores_file_cut_before_the_baseline_rows(tmp_path):
    """Cut at a row boundary after gg and hay: the file is well-formed, and inference said
    "baseline tool 'rg' has no scores; set 'baseline'"; it must name the file instead."""
    whole = tmp_path / "whole.tsv"
    write_scores(_fixture_scores(), whole)
    path = tmp_path / "scores.tsv"
    path.write_text(_cut(whole.read_text(encoding="utf-8"))["no baseline rows"], encoding="utf-8")
    smk = SimpleNamespace(
        rule="inference",
        input=SimpleNamespace(scores=str(path)),
        params=SimpleNamespace(
            tools=list(TOOLS),
            design=design(
                baseline="rg", seed=1, resamples=1000, min_queries=5, primary=["hay"]
            ).as_params(),
        ),
        output=SimpleNamespace(json=str(tmp_path / "i.json"), tsv=str(tmp_path / "i.tsv")),
        wildcards={"corpus": "fx", "track": "code"},
        log=[],
    )
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(ROOT / "scripts" / "inference.py"), init_globals={"snakemake": smk})
    assert str(exit_.value) == (
        f"inference: {path} is truncated or damaged (no rows of rg); delete it and rerun "
        "snakemake, which rewrites it (rule score)"
    )
    assert not (tmp_path / "i.json").exists()
