"""The published run and its comparison (issue 15 item 8): run-file provenance sidecars,
evidence/RUN_NAME/ and the comparison of two result sets."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from searchbench.compare import compare, load, render, summary_path
from searchbench.errors import BenchError
from searchbench.evidence import (
    copy_summary,
    linked_charts,
    linked_folders,
    machine_paths_relative,
    pooled_tsv,
    primary_rows,
    provenance,
    readme,
    write_evidence,
)
from searchbench.report.summary_csv import CSV_COLUMNS
from searchbench.run_metadata import metadata_text, os_release, run_metadata
from searchbench.trec import read_run

ROOT = Path(__file__).parent.parent


def summary(rows: list[dict]) -> str:
    """A summary.csv with the report's columns; unnamed cells empty."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: row.get(c, "") for c in CSV_COLUMNS})
    return buf.getvalue()


def row(corpus: str, tool: str, mean: float, verdict: str, family: str = "primary", **kw):
    return {"corpus": corpus, "track": "code", "subset": "all", "tool": tool, "baseline": "rg",
            "family": family, "metric": "rr", "queries": "30", "mean": repr(mean),
            "mean_base": "0.8", "diff": repr(mean - 0.8), "ci_low": "0.01", "ci_high": "0.2",
            "p_randomization": "0.01", "p_holm": "0.01", "verdict": verdict, **kw}  # fmt: skip


# --- run metadata ---------------------------------------------------------------------------


def test_run_metadata_names_tool_version_argv_corpus_revision_and_the_run(tmp_path):
    run = tmp_path / "rg.run"
    run.write_text("q1 Q0 a.c 1 -1 rg\n")
    tool = {"name": "rg", "version": "ripgrep 14.1.0", "argv": ["{binary}", "-F", "{query}"],
            "binary": "/usr/bin/rg", "binary_target": "/usr/bin/rg", "sha256": "ab" * 32,
            "description": "the baseline", "order": "path"}  # fmt: skip
    corpus = {"corpus": "click", "source": {"kind": "pypi", "version": "8.1.7"},
              "resolved_revision": "8.1.7"}  # fmt: skip
    record = run_metadata(corpus=corpus, track="code", tool=tool, run_path=run,
                          queries_path="q.tsv", qrels_path="qrels.txt", commit="abc123",
                          word_match=False)  # fmt: skip
    back = yaml.safe_load(metadata_text(record))
    assert back["schema-version"] == "0.1" and back["tag"] == "rg"
    assert back["implementation"]["executable"]["cmd"] == "{binary} -F {query}"
    assert back["implementation"]["source"]["commit"] == "abc123"
    assert back["platform"]["software"]["retrieval toolkit"] == ["rg: ripgrep 14.1.0"]
    assert back["data"]["test collection"]["revision"] == "8.1.7"
    assert back["data"]["test collection"]["name"] == "click/code"
    assert back["x-searchbench"]["binary_sha256"] == "ab" * 32
    assert len(back["x-searchbench"]["run_sha256"]) == 64
    assert back["platform"]["hardware"]["cpu"]["number of cores"] >= 1
    assert metadata_text(record) == metadata_text(run_metadata(
        corpus=corpus, track="code", tool=tool, run_path=run, queries_path="q.tsv",
        qrels_path="qrels.txt", commit="abc123", word_match=False))  # fmt: skip


def test_a_header_in_the_run_file_would_break_its_readers_hence_the_sidecar(tmp_path):
    # trec_eval's format has no comment lines; our reader, like it, refuses one
    run = tmp_path / "rg.run"
    run.write_text("# ir_metadata.start\nq1 Q0 a.c 1 -1 rg\n")
    with pytest.raises(BenchError, match="expected 6 fields"):
        read_run(run)


def test_os_release_reads_the_pretty_name():
    assert os_release('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n') == (
        "Debian GNU/Linux 12 (bookworm)"
    )
    assert os_release("") == "unknown"


# --- evidence -------------------------------------------------------------------------------


def test_evidence_holds_results_languages_provenance_and_a_readme(tmp_path):
    text = summary([row("click", "hay", 0.95, "detected better"),
                    row("click", "ag", 0.82, "not detected", family="secondary")])  # fmt: skip
    assert [r["tool"] for r in primary_rows(text)] == ["hay"]
    record = provenance(
        run_name="default", commit="abc123", config={"seed": 1}, config_hash="h",
        command="snakemake --cores 8", corpora=[{"corpus": "click", "resolved_revision": "8.1.7"}],
        tools=[{"name": "rg", "version": "ripgrep 14.1.0", "sha256": "s"}],
        hosts={"click": {"cpu_model": "x", "cores": 2}},
    )  # fmt: skip
    outputs = {n: tmp_path / f"{n}.out" for n in ("results", "by_language", "provenance", "readme")}
    pooled = {"docs": "language\tfamily\npython\tprimary\n",
              "code": "language\tfamily\nc\tprimary\nrust\tprimary\n"}  # fmt: skip
    write_evidence(outputs, summary_csv=text, pooled=pooled, record=record)
    assert outputs["results"].read_text() == text
    assert outputs["by_language"].read_text().splitlines() == [
        "track\tlanguage\tfamily", "code\tc\tprimary", "code\trust\tprimary",
        "docs\tpython\tprimary"]  # fmt: skip
    prov = json.loads(outputs["provenance"].read_text())
    assert prov["code_commit"] == "abc123" and prov["corpora"][0]["resolved_revision"] == "8.1.7"
    assert prov["tools"][0]["version"] == "ripgrep 14.1.0" and prov["hosts"]["click"]["cores"] == 2
    md = outputs["readme"].read_text()
    assert "| click | code | hay | rg | 30 | 0.950 | 0.800 | +0.150 [+0.010, +0.200]" in md
    assert "detected better" in md and "| ag |" not in md
    assert "./bench compare evidence/default results" in md
    assert "[summary.md](summary.md)" in md
    assert pooled_tsv({}) == ""
    assert readme("k", "c", "cmd", summary([])).count("\n| ") == 1  # header row only


def test_a_binary_in_a_linked_venv_is_published_by_the_link_s_name(tmp_path):
    # a checkout whose .venv links to another checkout's: its tools resolve outside it
    shared = tmp_path / "elsewhere" / "venv"
    (shared / "bin").mkdir(parents=True)
    repository = tmp_path / "checkout"
    repository.mkdir()
    (repository / ".venv").symlink_to(shared)
    (repository / "data").mkdir()
    linked = linked_folders(repository)
    assert linked == {str(shared.resolve()): ".venv"}
    record = {"binary": f"{shared.resolve()}/bin/ast-grep", "version": "x (rg /usr/bin/rg)"}
    out = machine_paths_relative(record, [str(repository)], "/root", linked)
    assert out == {"binary": ".venv/bin/ast-grep", "version": "x (rg /usr/bin/rg)"}


def test_published_records_name_no_folder_of_the_machine():
    record = {
        "command": "snakemake --cores 8",
        "tools": [
            {"name": "ast-grep", "binary": "/work/ck/.venv/bin/ast-grep"},
            {"name": "hay", "version": "hay 0.1.0 (rg /work/ck/.venv/bin/rg)"},
            {"name": "srgn", "binary": "/root/.cargo/bin/srgn"},
            {"name": "ack", "binary": "/usr/bin/ack", "argv": ("{binary}", "/work/ckother/x")},
        ],
        "cores": 2,
    }
    out = machine_paths_relative(record, ["/work/ck/"], "/root")
    assert out["tools"][0]["binary"] == ".venv/bin/ast-grep"
    assert out["tools"][1]["version"] == "hay 0.1.0 (rg .venv/bin/rg)"
    assert out["tools"][2]["binary"] == "~/.cargo/bin/srgn"
    # a system path stays; a sibling folder whose name starts like the repository's is not it
    assert out["tools"][3] == {"name": "ack", "binary": "/usr/bin/ack",
                               "argv": ["{binary}", "/work/ckother/x"]}  # fmt: skip
    assert out["cores"] == 2
    assert machine_paths_relative("/a/b", ["/work/ck"], "/") == "/a/b"  # home / is no prefix
    # the run's own directory (a --configfile beside it), inside or outside the repository
    command = "snakemake --configfile /tmp/run/config.yaml -d /work/ck/runs/a x /work/ck/y"
    out = machine_paths_relative(command, ["/work/ck", "/tmp/run", "/work/ck/runs/a"], "/root")
    assert out == "snakemake --configfile config.yaml -d runs/a x y"


def test_the_summary_is_published_with_the_charts_it_links_only(tmp_path):
    charts = tmp_path / "report" / "charts"
    for name in ("pooled/code/quality_cost.svg", "pooled/code/forest.svg", "click/code/x.svg"):
        (charts / name).parent.mkdir(parents=True, exist_ok=True)
        (charts / name).write_text(f"<svg>{name}</svg>")
    md = tmp_path / "report" / "summary.md"
    md.write_text("# Leaderboard\n![cost](charts/pooled/code/quality_cost.svg)\n"
                  "![forest](charts/pooled/code/forest.svg) and again "
                  "![cost](charts/pooled/code/quality_cost.svg)\n")  # fmt: skip
    assert linked_charts(md.read_text()) == [
        "charts/pooled/code/forest.svg", "charts/pooled/code/quality_cost.svg"]  # fmt: skip
    out = tmp_path / "evidence"
    (out / "charts" / "stale").mkdir(parents=True)
    copy_summary(md, charts, out / "summary.md", out / "charts", rewrite=str.upper)
    assert (out / "summary.md").read_text() == md.read_text().upper()
    published = sorted(str(p.relative_to(out)) for p in out.rglob("*.svg"))
    assert published == ["charts/pooled/code/forest.svg", "charts/pooled/code/quality_cost.svg"]
    assert not (out / "charts" / "stale").exists()
    md.write_text("![gone](charts/pooled/docs/missing.svg)\n")
    with pytest.raises(BenchError, match="links charts/pooled/docs/missing.svg"):
        copy_summary(md, charts, out / "summary.md", out / "charts")


# --- compare --------------------------------------------------------------------------------


def test_compare_lists_each_tool_s_change_and_flags_a_verdict_that_moved(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "report").mkdir(parents=True)
    (tmp_path / "a" / "results.csv").write_text(summary([
        row("click", "hay", 0.95, "detected better"), row("click", "ag", 0.82, "not detected"),
        row("rxjs", "hay", 0.90, "detected better")]))  # fmt: skip
    (tmp_path / "b" / "report" / "summary.csv").write_text(summary([
        row("click", "hay", 0.90, "tests disagree"), row("click", "ag", 0.82, "not detected"),
        row("go-net", "hay", 0.97, "not evidence")]))  # fmt: skip
    assert summary_path(tmp_path / "b") == tmp_path / "b" / "report" / "summary.csv"
    found = compare(load(tmp_path / "a", "rr", "all"), load(tmp_path / "b", "rr", "all"))
    changes = {(c.corpus, c.tool): c for c in found}
    hay = changes[("click", "hay")]
    assert hay.delta == pytest.approx(-0.05) and hay.verdict_changed
    assert not changes[("click", "ag")].verdict_changed and changes[("click", "ag")].delta == 0
    assert changes[("rxjs", "hay")].verdict_b == "absent" and changes[("rxjs", "hay")].delta is None
    assert changes[("go-net", "hay")].verdict_a == "absent"
    text = render(list(changes.values()), "A", "B", only_changed=True)
    assert "tests disagree *" in text and "  ag  " not in text
    assert text.splitlines()[-1] == "3 rows; 3 verdicts changed (*)"
    # the script: a folder that holds no result set is one line and exit 2
    proc = subprocess.run([sys.executable, str(ROOT / "devtools" / "compare_runs.py"),
                           str(tmp_path / "a"), str(tmp_path / "nothing")],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "no result set here" in proc.stderr
    ok = subprocess.run([sys.executable, str(ROOT / "devtools" / "compare_runs.py"),
                         str(tmp_path / "a"), str(tmp_path / "b"), "--tsv"],
                        capture_output=True, text=True, check=True)  # fmt: skip
    assert ok.stdout.splitlines()[1].split("\t")[:3] == ["code", "click", "ag"]


def test_each_track_s_primary_questions_are_read_on_its_primary_metric():
    """The usage track's primary metric is nDCG@10 (searchbench.measures): the README's
    primary questions show its nDCG@10 row, not its MRR row, and say which metric each is."""
    code, usage = row("click", "hay", 0.95, "detected better"), {
        **row("click", "hay", 0.7, "detected better"), "track": "usage"}  # fmt: skip
    usage_ndcg = {**usage, "metric": "ndcg10", "mean": "0.6"}
    text = summary([code, usage, usage_ndcg])
    assert [(r["track"], r["metric"]) for r in primary_rows(text)] == [
        ("code", "rr"), ("usage", "ndcg10")]  # fmt: skip
    md = readme("k", "c", "cmd", text)
    assert "| click | usage (nDCG@10) | hay | rg | 30 | 0.600 |" in md
    assert "| click | code (MRR) | hay | rg | 30 | 0.950 |" in md
    assert "## Primary questions (each track's primary metric, all queries)" in md
    # a run whose tracks are all read on MRR keeps its table as it was
    assert "## Primary questions (MRR, all queries)" in readme("k", "c", "cmd", summary([code]))


def test_the_readme_opens_on_the_leaderboards_of_the_summary():
    """Issue 33 item 1: the README of a published run holds each track's leaderboard."""
    from searchbench.evidence import leaderboards, readme

    summary = (
        "# Search-ranking benchmark: summary\n\nContext.\n\n- A finding.\n\n"
        "## Leaderboard, code track: where is this name declared?\n\n| # | tool |\n|---|---|\n"
        "| 1 | hay |\n\n![code](charts/pooled/code/quality_cost.svg)\n\n"
        "## Leaderboard, docs track: which document?\n\n| 1 | rg |\n\n"
        "## Pooled verdicts\n\n| hay − rg | … |\n"
    )
    board = leaderboards(summary)
    assert board[0] == "## Leaderboard, code track: where is this name declared?"
    assert "| 1 | hay |" in board and "| 1 | rg |" in board
    assert "![code](charts/pooled/code/quality_cost.svg)" in board
    assert not [line for line in board if "Pooled verdicts" in line or "finding" in line]
    text = readme("default", "abc", "snakemake --cores 8", "", summary)
    assert text.index("## Leaderboard, code track") < text.index("- `results.csv`")
    assert leaderboards("# no leaderboard\n") == []
