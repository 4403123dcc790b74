"""Cost to an agent (issue: bytes and lines read before the answer, per tool, beside MRR): real
scores.tsv and raw/{tool}.jsonl files in tmp_path, figures worked out by hand."""

import json
import math
import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest
from scipy.stats import t as student_t

from searchbench.agent_cost import COLUMNS, agent_cost_tsv, cost_rows, spearman
from searchbench.artifacts import read_tsv
from searchbench.errors import BenchError
from searchbench.metrics import SCORE_COLUMNS, read_raw_records, read_scores

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "agent_cost.py"
TOOLS = ("a", "b", "c")

# Per tool and qid: (status, rank, lines_before, bytes_before, lines, bytes, stdout_bytes).
# Tool a: found at rank 1 and 2; q3 prints 4 wrong lines (12,000 bytes) and fails; q4 prints
# nothing. Tool b: found everywhere, q3 at rank 3. Tool c: every answer on top.
QUERIES = {
    "a": {
        "q1": ("ok", 1, 0, 0, 3, 90, 100),
        "q2": ("ok", 2, 2, 60, 5, 150, 160),
        "q3": ("ok", 0, 4, 12000, 4, 12000, 12100),
        "q4": ("no-match", 0, 0, 0, 0, 0, 0),
    },
    "b": {
        "q1": ("ok", 1, 0, 0, 1, 40, 40),
        "q2": ("ok", 1, 0, 0, 1, 40, 40),
        "q3": ("ok", 3, 4, 200, 6, 300, 300),
        "q4": ("ok", 1, 0, 0, 1, 40, 40),
    },
    "c": {q: ("ok", 1, 0, 0, 1, 30, 30) for q in ("q1", "q2", "q3", "q4")},
}


def score_line(tool: str, qid: str, spec: tuple) -> str:
    status, rank, lines_before, bytes_before = spec[:4]
    found = rank > 0
    cells = {
        "qid": qid,
        "tool": tool,
        "status": status,
        "rank": rank,
        "rr": 1 / rank if found else 0.0,
        "success10": 1.0 if found else 0.0,
        "ndcg10": 1 / math.log2(rank + 1) if found else 0.0,
        "recall10": 1.0 if found else 0.0,
        "returned": max(rank, 1) if status == "ok" else 0,
        # scores.tsv leaves the cost empty when the answer was not printed (metrics.py)
        "lines_before": lines_before if found else "",
        "bytes_before": bytes_before if found else "",
        "line_rank": 1 if found else 0,
        "files_containing": 2,
        "trivial": "false",
        "language": "python",
    }
    return "\t".join(str(cells[c]) for c in SCORE_COLUMNS)


def raw_record(qid: str, spec: tuple) -> dict:
    status, rank, lines_before, bytes_before, lines, size, stdout = spec
    return {
        "qid": qid,
        "status": status,
        "lines": lines,
        "bytes": size,
        # the runner's own rule: all lines when the answer never appears
        "lines_before_answer": lines_before if rank else lines,
        "bytes_before_answer": bytes_before if rank else size,
        "stdout_lines": lines,
        "stdout_bytes": stdout,
        "first_right_line": lines_before if rank else None,
    }


def write_inputs(root: Path, queries: dict = QUERIES, reverse: bool = False) -> Path:
    """scores.tsv and raw/{tool}.jsonl under root; reverse writes every row in the other
    order (the output must not depend on it)."""
    lines = [score_line(t, q, s) for t, per in queries.items() for q, s in per.items()]
    root.mkdir(parents=True, exist_ok=True)
    body = lines[::-1] if reverse else lines
    (root / "scores.tsv").write_text("\t".join(SCORE_COLUMNS) + "\n" + "\n".join(body) + "\n")
    (root / "raw").mkdir(exist_ok=True)
    for tool, per in queries.items():
        records = [json.dumps(raw_record(q, s)) for q, s in per.items()]
        records = records[::-1] if reverse else records
        (root / "raw" / f"{tool}.jsonl").write_text("\n".join(records) + "\n")
    return root


def rows_of(root: Path, tools=TOOLS, **options) -> list[dict]:
    raw = {t: read_raw_records(root / "raw" / f"{t}.jsonl") for t in tools}
    return cost_rows(read_scores(root / "scores.tsv"), raw, corpus="k", track="code", **options)


def by_tool(rows: list[dict]) -> dict[str, dict]:
    return {r["tool"]: r for r in rows}


def p_of(rho: float, n: int) -> float:
    """The two-sided p of Spearman's rho by its t approximation (what scipy uses)."""
    t = rho * math.sqrt((n - 2) / (1 - rho**2))
    return 2 * student_t.sf(abs(t), n - 2)


def test_figures_match_the_hand_computation(tmp_path):
    rows = by_tool(rows_of(write_inputs(tmp_path)))
    a = rows["a"]
    # bytes read: q1 0 (on top), q2 60 (before rank 2), q3 12,000 (all, failed), q4 0 (nothing)
    assert (a["n"], a["found"], a["not_found"]) == (4, 2, 2)
    assert a["mrr"] == pytest.approx((1 + 0.5) / 4)
    assert (a["median_bytes_before"], a["mean_bytes_before"]) == (30, 30)
    assert (a["median_lines_before"], a["mean_lines_before"]) == (1, 1)
    assert (a["median_bytes_read"], a["mean_bytes_read"]) == (30, 12060 / 4)
    assert a["mean_lines_read"] == (0 + 2 + 4 + 0) / 4
    assert a["mean_output_bytes"] == (90 + 150 + 12000 + 0) / 4
    assert a["mean_stdout_bytes"] == (100 + 160 + 12100 + 0) / 4
    assert (a["budget_bytes"], a["share_over_budget"]) == (10_000, 0.25)
    # ranks of rr [4, 3, 1.5, 1.5] against bytes [1.5, 3, 4, 1.5]: -1.75 / 4.5
    assert a["rho_rr_bytes"] == pytest.approx(-7 / 18)
    assert a["p_rr_bytes"] == pytest.approx(p_of(-7 / 18, 4))
    b = rows["b"]
    assert (b["found"], b["mean_bytes_before"], b["median_bytes_before"]) == (4, 50, 0)
    assert b["rho_rr_bytes"] == pytest.approx(-1) and b["p_rr_bytes"] == pytest.approx(0)
    # across tools: MRR a < b < c, mean bytes read a > b > c: a perfect inverse order
    assert {r["tools_n"] for r in rows.values()} == {3}
    assert a["tools_rho_mrr_bytes"] == pytest.approx(-1)
    assert [r["corpus"] for r in rows.values()] == ["k"] * 3


def test_a_constant_side_leaves_the_correlation_empty(tmp_path):
    rows = by_tool(rows_of(write_inputs(tmp_path)))
    c = rows["c"]  # every query at rank 1 with 0 bytes: rank and cost are both constant
    assert (c["mrr"], c["mean_bytes_read"], c["share_over_budget"]) == (1, 0, 0)
    assert c["rho_rr_bytes"] is None and c["p_rr_bytes"] is None
    line = agent_cost_tsv([c]).splitlines()[1].split("\t")
    assert line[COLUMNS.index("rho_rr_bytes")] == "" and line[COLUMNS.index("p_rr_bytes")] == ""
    assert spearman([1.0, 2.0], [2.0, 1.0]) == (None, None)  # two pairs say nothing


def test_not_found_costs_the_whole_output_in_the_same_rendering(tmp_path):
    # q3 of a: an ast-grep-like tool prints 3x more as JSON than its normalized lines; the
    # cost stays the normalized bytes, the printed size is reported apart
    queries = {**QUERIES, "a": {**QUERIES["a"], "q3": ("ok", 0, 4, 12000, 4, 12000, 36000)}}
    a = by_tool(rows_of(write_inputs(tmp_path, queries)))["a"]
    assert a["mean_bytes_read"] == 12060 / 4
    assert a["mean_output_bytes"] == (90 + 150 + 12000) / 4
    assert a["mean_stdout_bytes"] == (100 + 160 + 36000) / 4
    # a timeout that had printed the answer still scores 0: the agent read all it printed
    queries["a"]["q2"] = ("timeout", 0, 2, 60, 5, 150, 160)
    a = by_tool(rows_of(write_inputs(tmp_path / "t", queries)))["a"]
    assert (a["found"], a["mean_bytes_read"]) == (1, (150 + 12000) / 4)


def test_ablation_variants_stay_out_of_the_across_tools_correlation(tmp_path):
    rows = rows_of(write_inputs(tmp_path), variants=["c"])
    assert len(rows) == 3 and {r["tools_n"] for r in rows} == {2}
    assert {r["tools_rho_mrr_bytes"] for r in rows} == {None}


def run(root: Path, out: Path, raw_tools=TOOLS, corpus: str = "k") -> None:
    snakemake = SimpleNamespace(
        input=SimpleNamespace(
            scores=str(root / "scores.tsv"),
            raw=[str(root / "raw" / f"{t}.jsonl") for t in raw_tools],
        ),
        output=SimpleNamespace(tsv=str(out)),
        params=SimpleNamespace(tools=list(TOOLS), corpus=corpus, track="code", ablations={}),
        wildcards=SimpleNamespace(corpus=corpus, track="code"),
        log=[],
        rule="agent_cost",
    )
    runpy.run_path(str(SCRIPT), init_globals={"snakemake": snakemake})


def test_the_script_writes_the_same_bytes_for_the_same_inputs(tmp_path):
    run(write_inputs(tmp_path / "one"), tmp_path / "one.tsv")
    run(write_inputs(tmp_path / "two", reverse=True), tmp_path / "two.tsv")
    text = (tmp_path / "one.tsv").read_bytes()
    assert text == (tmp_path / "two.tsv").read_bytes()
    rows = read_tsv(tmp_path / "one.tsv", COLUMNS)
    assert [r["tool"] for r in rows] == list(TOOLS)
    assert rows[0]["mrr"] == "0.375" and rows[0]["mean_bytes_read"] == "3015"
    assert float(rows[0]["rho_rr_bytes"]) == pytest.approx(-7 / 18)


def test_bad_input_is_one_clear_error(tmp_path):
    root = write_inputs(tmp_path / "in")
    with pytest.raises(SystemExit, match="do not follow params.tools"):
        run(root, tmp_path / "x.tsv", raw_tools=("b", "a", "c"))
    scores = read_scores(root / "scores.tsv")
    raw = {t: read_raw_records(root / "raw" / f"{t}.jsonl") for t in TOOLS}
    place = {"corpus": "k", "track": "code"}
    with pytest.raises(BenchError, match="no raw record"):
        cost_rows(scores, {**raw, "a": {q: r for q, r in raw["a"].items() if q != "q2"}}, **place)
    with pytest.raises(BenchError, match="'d' has no rows"):
        cost_rows(scores, {**raw, "d": raw["a"]}, **place)
    broken = {**raw["a"], "q1": {**raw["a"]["q1"], "bytes": "90"}}
    with pytest.raises(BenchError, match=r"raw bytes = '90' is not a non-negative integer"):
        cost_rows(scores, {**raw, "a": broken}, **place)
    stale = {**raw["a"], "q2": {**raw["a"]["q2"], "bytes_before_answer": 61}}
    with pytest.raises(BenchError, match="rerun the score rule"):
        cost_rows(scores, {**raw, "a": stale}, **place)
    stale = {**raw["a"], "q4": {**raw["a"]["q4"], "status": "error"}}
    with pytest.raises(BenchError, match="raw status 'error' but scored 'no-match'"):
        cost_rows(scores, {**raw, "a": stale}, **place)
    empty = scores.copy()
    empty.loc[(empty["tool"] == "a") & (empty["qid"] == "q2"), "bytes_before"] = None
    with pytest.raises(BenchError, match="found at rank 2 but bytes_before is empty"):
        cost_rows(empty, raw, **place)
    with pytest.raises(BenchError, match=r"pair \('q1', 'a'\) twice"):
        cost_rows(scores.iloc[[0, *range(len(scores))]], raw, **place)
    with pytest.raises(BenchError, match="budget_bytes = 0"):
        cost_rows(scores, raw, budget_bytes=0, **place)
    (root / "raw" / "c.jsonl").write_text("{not json\n")
    with pytest.raises(SystemExit, match="c.jsonl:1: not a JSON object"):
        run(root, tmp_path / "x.tsv")
    assert not (tmp_path / "x.tsv").exists()


def test_the_report_shows_the_cost_table(tmp_path):
    from report_paths import fixture_model

    from searchbench.report.charts import Page
    from searchbench.report.sections import agent_cost as section

    path = tmp_path / "results" / "alpha" / "code" / "agent_cost.tsv"
    run(write_inputs(tmp_path / "in"), path, corpus="alpha")
    model = fixture_model(seed=1, agent_cost=[str(path)])
    html = "\n".join(section.html(Page(model, {})))
    assert 'id="agent-cost"' in html and "proxy for tokens" in html
    # tool a: 2 of 4 found, MRR 0.375, mean bytes read 3015, a quarter over 10,000 bytes
    cells = ["2 / 4", "0.375", "30", "30", "3015", f"{12360 / 12240:.2f}×", "25.0%"]
    assert "".join(f"<td>{c}</td>" for c in cells) in html
    assert f"<td>{-7 / 18:.3f} [1]</td>" in html and "–" in html  # c: no correlation
    text = "\n".join(section.markdown(model))
    assert text.startswith("## Cost to an agent") and "| alpha | code | 3 | -1.000 |" in text
    # a file whose rows name another corpus than its key is miswired: one clear error
    run(write_inputs(tmp_path / "in"), path, corpus="beta")
    with pytest.raises(BenchError, match="names corpus and track"):
        section.markdown(model)
