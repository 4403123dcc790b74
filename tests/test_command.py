"""One command object (issue 35): a tool's spec becomes a Command for one query in one place."""

from __future__ import annotations

import sys

from searchbench.command import Command, SearchSetup, search_command
from searchbench.fastpath import fast_command
from searchbench.runner import run_search
from searchbench.statuses import NO_MATCH
from searchbench.tools import ResolvedTool, ToolSpec


def _tool(**spec) -> ResolvedTool:
    fields = {
        "name": "fake",
        "description": "fake",
        "binary": "fake",
        "argv": ["{binary}", "-n", "{word}", "{query}", "./"],
        "output": "grep-null",
        "word_argv": ["-w"],
        "env": {"FAKE_ROOT": "{root}", "FAKE_INDEX": "{index}/db"},
        "no_match_exit": [1, 3],
    }
    fields.update(spec)
    return ResolvedTool(
        spec=ToolSpec(**fields),
        binary_path="/bin/fake",
        version="1",
        sha256="",
        index_binary_path=None,
        index_sha256="",
        available=True,
        skipped_reason="",
    )


def test_the_command_of_one_query_has_everything_the_runner_needs(tmp_path):
    setup = SearchSetup(_tool(), str(tmp_path), 30, index="/idx", word=True)
    command = search_command(setup, "ring_push")
    assert command == Command(
        argv=("/bin/fake", "-n", "-w", "ring_push", "./"),
        cwd=str(tmp_path),
        timeout=30,
        env={"FAKE_ROOT": str(tmp_path.resolve()), "FAKE_INDEX": "/idx/db"},
        parse_format="grep-null",
        no_match_exit=(1, 3),
    )
    assert command.reported_argv == list(command.argv)


def test_the_fast_path_narrows_a_command_that_still_reports_the_plain_argv(tmp_path):
    tool = _tool(env={}, fast_path=True)
    plain = search_command(SearchSetup(tool, str(tmp_path), 30), "q", plain=True)
    fast = fast_command(tool, plain, [b"a.c", b"b/c.c"])
    assert fast is not None
    assert fast.argv == ("/bin/fake", "-n", "q", "./a.c", "./b/c.c")
    assert fast.reported_argv == list(plain.argv)
    assert (fast.cwd, fast.timeout, fast.env, fast.parse_format) == (
        plain.cwd,
        plain.timeout,
        plain.env,
        plain.parse_format,
    )


def test_run_search_runs_the_command_and_reports_its_argv(tmp_path):
    script = "import sys; sys.stdout.write('a.c\\x001:x\\n')"
    command = Command([sys.executable, "-c", script], str(tmp_path), 10, None, "grep-null")
    result = run_search(command)
    assert result.argv == [sys.executable, "-c", script]
    assert result.files == [b"a.c"] and result.status == "ok"
    narrowed = run_search(command.narrowed([sys.executable, "-c", "pass"]))
    assert narrowed.argv == [sys.executable, "-c", script] and narrowed.status == NO_MATCH
