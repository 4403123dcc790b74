"""Why tools tie: per pair of tools, identical order and rank, and the cause of each differing
rank, from real run, qrels, scores and file-set files written in tmp_path."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from searchbench.artifacts import read_tsv, tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.measures import METRICS, first_rank
from searchbench.metrics import SCORE_COLUMNS
from searchbench.ties import CAUSES, COLUMNS, ties_from_files, ties_text, write_ties
from searchbench.trec import write_qrels, write_run

ANSWER = "src/answer.py"
# Per query: what alpha and beta print (beta "!" = beta timed out), and what gamma prints.
# alpha and beta list what they search; gamma, like ctags, cannot.
CASES = {
    "q01": ([ANSWER], [ANSWER]),  # identical order
    "q02": (["x.py", "y.py", ANSWER], ["y.py", "x.py", ANSWER]),  # same rank, other order
    "q03": ([ANSWER, "x.py"], ["x.py", ANSWER]),  # order
    "q04": ([".hidden.py", ANSWER], [ANSWER]),  # beta never searches .hidden.py
    "q05": (["x.py", ANSWER], [ANSWER]),  # beta searches x.py, prints nothing there
    "q06": ([".hidden.py", "x.py", ANSWER], [ANSWER]),  # skip and match rule: skip wins
    "q07": ([ANSWER], ["!", ANSWER]),  # beta timed out: scored not found
    "q08": ([], []),  # neither finds it
    "q09": ([], ["big.bin"]),  # the answer is binary: alpha never searches it
    "q10": ([ANSWER], ["y.py"]),  # beta searches the answer, does not print it
    "q11": (["y.py", ANSWER], ["x.py", ANSWER]),  # same rank, different files before
}
ANSWERS = {"q09": "big.bin"}  # every other query's answer is ANSWER
GAMMA = {"q05": [ANSWER], "q10": ["y.py", ANSWER]}
FILESETS = {
    "alpha": [".hidden.py", "x.py", "y.py", ANSWER],
    "beta": ["x.py", "y.py", ANSWER, "big.bin"],
}


def lists() -> dict[str, dict[str, list[str]]]:
    alpha = {qid: a for qid, (a, _) in CASES.items() if a}
    beta = {qid: [d for d in b if d != "!"] for qid, (_, b) in CASES.items() if b}
    return {"alpha": alpha, "beta": beta, "gamma": GAMMA}


def answer(qid: str) -> str:
    return ANSWERS.get(qid, ANSWER)


def status(tool: str, qid: str, ranked: list[str]) -> str:
    if tool == "beta" and "!" in CASES[qid][1]:
        return "timeout"
    return "ok" if ranked else "no-match"


def write_inputs(root: Path, runs: dict[str, dict[str, list[str]]]) -> dict:
    """The artifacts of one corpus and track, as the workflow lays them out."""
    write_qrels(root / "qrels.txt", {qid: {answer(qid): 1} for qid in CASES})
    paths = {}
    score_rows = []
    for tool, run in sorted(runs.items()):
        paths[tool] = root / "runs" / f"{tool}.run"
        write_run(paths[tool], run, tool)
        for qid in CASES:
            ranked = run.get(qid, [])
            state = status(tool, qid, ranked)
            rank = 0 if state == "timeout" else first_rank(ranked, {answer(qid)})
            zeros = ["0"] * len(METRICS)
            score_rows.append([qid, tool, state, rank, *zeros, len(ranked)] + ["", ""]
                              + [0, 1, "false", "python"])  # fmt: skip
    write_text(root / "scores.tsv", tsv_text(SCORE_COLUMNS, score_rows))
    listings = {}
    for tool, files in FILESETS.items():
        listings[tool] = root / "filesets" / f"{tool}.txt"
        write_text(listings[tool], "".join(f"{f}\n" for f in files))
    return {"runs": paths, "qrels": root / "qrels.txt", "scores": root / "scores.tsv",
            "listings": listings}  # fmt: skip


def compute(inputs: dict, tools: list[str] | None = None) -> list[list[str]]:
    runs = inputs["runs"] if tools is None else {t: inputs["runs"][t] for t in tools}
    return ties_from_files(
        "demo", "code", runs, inputs["qrels"], inputs["scores"], inputs["listings"]
    )


def by_pair(rows: list[list[str]]) -> dict[tuple[str, str], dict[str, str]]:
    named = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
    return {(r["tool_a"], r["tool_b"]): r for r in named}


def test_each_cause_is_counted_with_its_first_query(tmp_path):
    rows = by_pair(compute(write_inputs(tmp_path, lists())))
    assert sorted(rows) == [("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]
    pair = rows["alpha", "beta"]
    assert pair["queries"] == "11"
    assert pair["identical_order"] == "3"  # q01, q07 (same lists, beta failed), q08
    assert pair["identical_rank"] == "4"  # q01, q02, q08, q11
    counts = {cause: int(pair[cause]) for cause in CAUSES}
    assert counts == {"tool_failed": 1, "file_skipped": 3, "match_rule": 2, "other": 0,
                      "order": 1}  # fmt: skip
    assert sum(counts.values()) + int(pair["identical_rank"]) == 11
    examples = {cause: pair[f"example_{cause}"] for cause in CAUSES}
    assert examples == {"tool_failed": "q07", "file_skipped": "q04", "match_rule": "q05",
                        "other": "-", "order": "q03"}  # fmt: skip


def test_a_tool_that_cannot_list_its_files_gives_other_not_a_guess(tmp_path):
    pair = by_pair(compute(write_inputs(tmp_path, lists())))["alpha", "gamma"]
    # gamma prints only for q05 and q10. A file alpha has before its answer and gamma lacks
    # is "other" (q05's x.py too): gamma's listing would be needed to tell skip from match.
    # In q10 gamma's y.py is absent from alpha's output though alpha searches it.
    assert pair["other"] == "8" and pair["example_other"] == "q01"
    assert pair["match_rule"] == "1" and pair["example_match_rule"] == "q10"
    assert pair["identical_rank"] == "2"  # q08 and q09: neither finds the answer
    assert pair["file_skipped"] == pair["order"] == pair["tool_failed"] == "0"


def test_the_table_is_sorted_and_byte_identical_whatever_the_tool_order(tmp_path):
    inputs = write_inputs(tmp_path, lists())
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    write_ties(compute(inputs), first)
    write_ties(compute(inputs, ["gamma", "beta", "alpha"]), second)
    assert first.read_bytes() == second.read_bytes()
    text = first.read_text()
    assert text == ties_text(compute(inputs))
    assert text.splitlines()[0].split("\t") == list(COLUMNS)
    assert [r["tool_a"] + r["tool_b"] for r in read_tsv(first, COLUMNS)] == sorted(
        r["tool_a"] + r["tool_b"] for r in read_tsv(first, COLUMNS)
    )


def test_a_malformed_run_file_names_the_file_and_line(tmp_path):
    inputs = write_inputs(tmp_path, lists())
    bad = inputs["runs"]["beta"]
    bad.write_text(bad.read_text() + "q01 Q0 extra.py 2\n")
    with pytest.raises(BenchError, match=r"beta\.run:\d+: expected 6 fields"):
        compute(inputs)


def test_scores_from_another_run_are_refused(tmp_path):
    runs = lists()
    inputs = write_inputs(tmp_path, runs)
    runs["alpha"]["q03"] = ["x.py", ANSWER]  # the run changed, scores.tsv did not
    write_run(inputs["runs"]["alpha"], runs["alpha"], "alpha")
    with pytest.raises(BenchError, match="different runs"):
        compute(inputs)


def test_the_report_sums_the_corpora_of_a_track(tmp_path):
    from searchbench.report.sections import ties

    inputs = write_inputs(tmp_path, lists())
    paths = {}
    for corpus in ("one", "two"):
        paths[corpus, "code"] = tmp_path / corpus / "ties.tsv"
        rows = [[corpus, *row[1:]] for row in compute(inputs)]
        write_ties(rows, paths[corpus, "code"])
    model = SimpleNamespace(sources=SimpleNamespace(keyed=lambda name: paths))
    text = "".join(ties.markdown(model))
    assert "## Why tools tie" in text
    line = next(x for x in text.splitlines() if "alpha · beta" in x)
    # twice 11 queries; columns: same order, same rank, then every cause in precedence order
    assert line.split(" | ")[2:] == ["22", "27.3%", "36.4%", "9.1%", "27.3%", "18.2%", "0.0%",
                                     "9.1% |"]  # fmt: skip
    html = "".join(ties.html(SimpleNamespace(model=model)))
    assert 'id="ties"' in html and "alpha · beta" in html
    empty = SimpleNamespace(sources=SimpleNamespace(keyed=lambda name: {}))
    assert ties.markdown(empty) == [] and ties.html(SimpleNamespace(model=empty)) == []
