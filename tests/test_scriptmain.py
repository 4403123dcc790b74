"""Every Snakemake script's one entry: the rule's log, and a BenchError as one line."""

import logging
from types import SimpleNamespace

import pytest

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
