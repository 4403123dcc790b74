"""Every Snakemake script's one entry: the rule's log, and a BenchError as one line."""

import json
import logging
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from searchbench import artifacts
from searchbench.errors import BenchError
from searchbench.scriptmain import run_script


def test_a_bench_error_is_one_line_in_the_log_and_exit_status_1(tmp_path):
    log = tmp_path / "rule.log"

    def main(smk):
        logging.info("started %s", smk.rule)
        raise BenchError("corpus x: sha256 mismatch; fix the pin")

    smk = SimpleNamespace(rule="fetch_corpus", log=[str(log)])
    with pytest.raises(SystemExit) as exit_info:
        run_script(main, smk)
    assert str(exit_info.value) == "fetch_corpus: corpus x: sha256 mismatch; fix the pin"
    assert log.read_text().splitlines() == [
        "started fetch_corpus",
        "fetch_corpus: corpus x: sha256 mismatch; fix the pin",
    ]


def test_a_bug_keeps_its_traceback_and_a_rule_without_log_writes_nothing(tmp_path):
    def main(smk):
        logging.info("nowhere")
        raise KeyError("bug")

    with pytest.raises(KeyError):
        run_script(main, SimpleNamespace())
    assert list(tmp_path.iterdir()) == []


def test_the_log_is_rewritten_per_run(tmp_path):
    log = tmp_path / "rule.log"
    for word in ("first", "second"):
        run_script(lambda smk, w=word: logging.info(w), SimpleNamespace(rule="r", log=[str(log)]))
    assert log.read_text() == "second\n"


def test_an_input_edited_since_written_stops_the_job_before_main(tmp_path, monkeypatch):
    """Every input is checked, however main would read it (a raw record, a run file)."""
    monkeypatch.chdir(tmp_path)
    raw = "results/c/code/raw/rg.jsonl"

    def search(smk):
        artifacts.write_text(smk.output[0], '{"qid": "q1"}\n')

    run_script(search, SimpleNamespace(rule="search", input=[], output=[raw]))
    Path(raw).write_text('{"qid": "q2"}\n')
    ran = []
    with pytest.raises(SystemExit) as exit_info:
        run_script(ran.append, SimpleNamespace(rule="score", input=[[raw]], output=[]))
    assert ran == []
    assert str(exit_info.value).startswith(
        f"score: {raw} was changed after rule search wrote it (sha256 "
    )
    assert str(exit_info.value).endswith(f"regenerate it: snakemake --force {raw}")


def test_outputs_written_outside_the_writers_are_recorded_once_main_succeeds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = Path("results/c/files.tsv")

    def fetch(smk):  # a staged rename, as fetch_corpus does
        out.parent.mkdir(parents=True)
        Path("staged").write_text("path\n")
        os.replace("staged", out)

    run_script(fetch, SimpleNamespace(rule="fetch_corpus", input=[], output=[str(out)]))
    record = json.loads(Path("results/.written/c/files.tsv.json").read_text())
    assert record["rule"] == "fetch_corpus" and record["size"] == 5
    out.write_text("path\nx\n")
    with pytest.raises(SystemExit, match="results/c/files.tsv was changed after rule fetch_corpus"):
        run_script(lambda smk: None, SimpleNamespace(rule="symbols", input=[str(out)]))


def test_a_job_killed_between_its_output_and_the_record_leaves_no_false_alarm(
    tmp_path, monkeypatch
):
    """SIGKILL, then a resume: the interrupted job's output is rewritten, its record is not;
    the start check must not call that an edit (Snakemake reruns the job)."""
    monkeypatch.chdir(tmp_path)
    out = "results/c/files.tsv"

    def fetch(text, smk):
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path("staged").write_text(text)
        os.replace("staged", out)

    run_script(lambda smk: fetch("path\n", smk), SimpleNamespace(rule="fetch_corpus", output=[out]))

    def killed(smk):
        fetch("path\nnew\n", smk)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_script(killed, SimpleNamespace(rule="fetch_corpus", output=[out]))
    assert artifacts.changed_artifacts() == []
    run_script(
        lambda smk: fetch("path\nnew\n", smk), SimpleNamespace(rule="fetch_corpus", output=[out])
    )
    assert json.loads(Path("results/.written/c/files.tsv.json").read_text())["size"] == 9
