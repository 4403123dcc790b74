"""The transcript miner on fixtures in the three formats (tests/fixtures/transcripts)."""

import json
from collections import Counter
from pathlib import Path

import pytest

from searchbench import transcripts as tr
from searchbench.errors import BenchError
from searchbench.transcripts import MinedSearch

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
LOGS = FIXTURES / "logs"
COMMIT = "4f1c2b3a5d6e7f8091a2b3c4d5e6f708192a3b4c"
URL = "https://example.org/team/proj.git"
PROJ = "/home/dev/proj"
PINS = {PROJ: COMMIT}

CLAUDE = "claude/-home-dev-proj/5b1c9e2a-7d40-4c1e-9a43-2f0d6b8e1c77.jsonl"
UNPINNED = "claude/-home-dev-other/9d3e4f50-1a2b-4c3d-8e9f-0a1b2c3d4e5f.jsonl"
CODEX = "codex/2025/10/01/rollout-2025-10-01T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
PLAIN = "plain/other-agent.jsonl"

EXPECTED_COUNTS = {
    CLAUDE: {
        "kept": 6,
        "not-a-search": 20,
        "regex": 1,
        "case-insensitive": 1,
        "failed": 1,
        "too-short": 1,
        "no-answer": 1,
        "malformed-line": 1,
        "opened-outside-repository": 1,
    },
    UNPINNED: {"kept": 0, "not-a-search": 1, "unpinned-revision": 1},
    CODEX: {
        "kept": 2,
        "not-a-search": 5,
        "case-insensitive": 1,
        "regex": 1,
        "failed": 1,
        "no-answer": 1,
        "opened-outside-repository": 1,
    },
    PLAIN: {
        "kept": 6,
        "too-short": 1,
        "unpinned-revision": 1,
        "no-answer": 1,
        "malformed-line": 1,
        "opened-outside-repository": 2,
    },
}

C = tr.source_id(CLAUDE)
X = tr.source_id(CODEX)
P = tr.source_id(PLAIN)
EXPECTED_ROWS = [
    MinedSearch(PROJ, COMMIT, "$(rm -rf) | tee", ("src/cli.py",), C),
    MinedSearch(PROJ, COMMIT, "--dry-run", ("docs/guide.md", "src/cli.py"), C),
    MinedSearch(PROJ, COMMIT, "ConfigError", ("src/config.py", "src/loader.py"), C),
    MinedSearch(PROJ, COMMIT, "DEFAULT_TIMEOUT", ("tests/config_cases.py", "src/config.py"), C),
    MinedSearch(PROJ, COMMIT, "parse_config", ("src/loader.py", "README.md"), P),
    MinedSearch(PROJ, COMMIT, "parse_config", ("src/config.py", "docs/guide.md"), C),
    MinedSearch(PROJ, COMMIT, "slugify(", ("src/util/strings.py",), C),
    MinedSearch(
        "https://example.org/team/elsewhere.git", COMMIT, "parse_config", ("src/config.py",), P
    ),
    MinedSearch(URL, "0" * 40, "parse_config", ("src/config.py",), P),
    MinedSearch(URL, COMMIT, "--dry-run first; never paste $(rm -rf)", ("src/cli.py",), P),
    MinedSearch(URL, COMMIT, "ConfigError", ("src/config.py",), X),
    MinedSearch(URL, COMMIT, "load_plugin_names", ("README.md",), P),
    MinedSearch(URL, COMMIT, "load_plugins", ("src/loader.py", "src/config.py"), X),
    MinedSearch(URL, COMMIT, "load_plugins", ("src/loader.py", "tests/config_cases.py"), P),
]


def mined():
    return tr.mine(LOGS, pins=PINS)


def test_counts_per_file_and_reason_are_exact():
    _, report = mined()
    assert {f: dict(c) for f, c in report.per_file.items()} == EXPECTED_COUNTS


def test_mined_rows_are_exact_and_sorted():
    rows, _ = mined()
    assert rows == EXPECTED_ROWS


def test_every_call_and_line_is_counted_once():
    """kept plus the per-call reasons is every tool call of a transcript (every line of a
    plain file)."""
    _, report = mined()
    per_call = lambda f: sum(  # noqa: E731
        n for r, n in report.per_file[f].items() if r in tr.CALL_REASONS
    )
    text = (LOGS / CLAUDE).read_text()
    assert per_call(CLAUDE) == text.count('"type": "tool_use"') == 31
    text = (LOGS / CODEX).read_text()
    calls = sum(
        text.count(f'"type": "{kind}"')
        for kind in ("function_call", "custom_tool_call", "local_shell_call")
    )
    assert per_call(CODEX) == calls == 11
    lines = (LOGS / PLAIN).read_text().splitlines()
    assert per_call(PLAIN) + report.per_file[PLAIN]["malformed-line"] == len(lines) == 10


def test_outputs_are_byte_identical_twice(tmp_path):
    for run in ("a", "b"):
        rows, report = mined()
        tr.write_mined(rows, tmp_path / f"{run}.tsv")
        tr.write_mine_report(report, tmp_path / f"{run}.report.tsv")
    assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes()
    assert (tmp_path / "a.report.tsv").read_bytes() == (tmp_path / "b.report.tsv").read_bytes()
    report = (tmp_path / "a.report.tsv").read_text().splitlines()
    assert report[0] == "file\treason\tcount"
    assert f"{PLAIN}\ttoo-short\t1" in report
    assert report[1:] == sorted(report[1:], key=lambda line: line.split("\t")[:2])


def test_mined_tsv_round_trips_hostile_queries_and_paths(tmp_path):
    rows = [
        MinedSearch(PROJ, COMMIT, "-e", ("a b/c%d.py",), "0123456789ab"),
        MinedSearch(PROJ, COMMIT, "--; rm -rf / `x` $(y) | z > w", ("-n.py",), "0123456789ab"),
    ]
    tr.write_mined(rows, tmp_path / "mined.tsv")
    text = (tmp_path / "mined.tsv").read_text()
    assert "a%20b/c%25d.py" in text
    assert tr.read_mined(tmp_path / "mined.tsv") == sorted(rows, key=tr._sort_key)


def test_no_transcript_text_leaves_the_miner(tmp_path):
    rows, report = mined()
    tr.write_mined(rows, tmp_path / "m.tsv")
    tr.write_mine_report(report, tmp_path / "r.tsv")
    out = (tmp_path / "m.tsv").read_text() + (tmp_path / "r.tsv").read_text()
    for secret in (
        "empty key",
        "Plugin loading fix",
        "ConfigError is raised",
        "toolu_",
        "gAAAA",
        "Why do plugins",
    ):
        assert secret not in out


def test_sources_are_hashes_of_relative_paths():
    assert __import__("hashlib").sha256(CLAUDE.encode()).hexdigest()[:12] == C
    assert len({C, X, P}) == 3


def test_unpinned_claude_transcript_is_kept_once_pinned():
    rows, report = tr.mine(LOGS, pins={**PINS, "/home/dev/other": "abc123"})
    assert report.per_file[UNPINNED]["kept"] == 1
    assert (
        MinedSearch(
            "/home/dev/other", "abc123", "parse_config", ("src/config.py",), tr.source_id(UNPINNED)
        )
        in rows
    )


def test_window_limits_the_answers():
    rows, report = tr.mine(LOGS, window=1, pins=PINS)
    by_query = {(r.query, r.source): r.opened for r in rows}
    assert ("DEFAULT_TIMEOUT", C) not in by_query
    assert by_query[("parse_config", C)] == ("src/config.py",)
    # DEFAULT_TIMEOUT, `$(rm -rf) | tee` (its next call failed) and load_plugins
    assert report.per_file[CLAUDE]["no-answer"] == 3


def test_min_length_is_configurable():
    _, report = tr.mine(LOGS, min_length=12, pins=PINS)
    # `abc`, `--dry-run`, `ConfigError`, `slugify(`; parse_config has 12 characters
    assert report.per_file[CLAUDE]["too-short"] == 4


@pytest.mark.parametrize(
    ("pattern", "dialect", "literal"),
    [
        ("parse_config", "ere", "parse_config"),
        (r"parse\.config", "ere", "parse.config"),
        ("parse.config", "ere", None),
        ("slugify(", "bre", "slugify("),
        ("slugify(", "ere", None),
        (r"a\(b", "bre", None),
        (r"a\(b", "ere", "a(b"),
        ("a|b", "bre", "a|b"),
        ("a|b", "ere", None),
        (r"\bword", "ere", None),
        (r"\<word", "ere", None),
        (r"timeout\s*=", "ere", None),
        ("a.b*[c]", "fixed", "a.b*[c]"),
        ("two\nlines", "fixed", None),
        ("trailing\\", "ere", None),
        ("$HOME", "bre", None),
        ("-e", "ere", "-e"),
    ],
)
def test_literal_rule(pattern, dialect, literal):
    assert tr.literal_of(pattern, dialect) == literal


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ("rg -n parse_config", "kept"),
        ("rg -i parse_config", "case-insensitive"),
        ("rg -i 12345", "kept"),  # nothing to fold: the same search
        ("rg -S Parse_config", "kept"),  # smart case with an upper-case letter: sensitive
        ("rg -S parse_config", "case-insensitive"),
        ("rg -i -s parse_config", "kept"),  # the last case option wins
        ("ag parse_config", "case-insensitive"),  # ag is smart-case by default
        ("ag -s parse_config", "kept"),
        ("ag -Q 'parse.config('", "case-insensitive"),
        ("ag -s -Q 'parse.config('", "kept"),
        ("grep -rn parse_config .", "kept"),
        ("grep parse_config", "not-a-search"),  # reads standard input
        ("cat x | grep parse_config", "not-a-search"),  # a filter, not a search
        ("grep -rv parse_config .", "not-a-search"),
        ("grep -rE 'parse_config|load' .", "regex"),
        ("egrep -r 'slugify(' .", "regex"),
        ("fgrep -r 'slugify(' .", "kept"),
        ("git grep -e parse_config -e load_plugins", "regex"),
        ("git -C /home/dev/proj --no-pager grep -F 'a.b(c'", "kept"),
        ("git grep -f patterns.txt", "unparsed-command"),
        ("rg --files | rg parse_config", "not-a-search"),
        ("rg -g '*.py' -t py -A3 -C 2 --max-count=4 parse_config src", "kept"),
        ("bash -lc \"rg -n 'parse_config' src | head\"", "kept"),
        ("rg 'unbalanced", "unparsed-command"),
        ("ugrep -r -j parse_config .", "case-insensitive"),
        ("ls; rg -- -dry-run", "kept"),
        (r"rg -e '\t'", "regex"),
        ("rg -e 'tab\there'", "control-character"),
        ("rg -F \"$(printf 'a\\tb')\"", "unparsed-command"),  # the shell would expand it
        ('rg -F "$HOME"', "unparsed-command"),
        ("rg -F '$HOME'", "kept"),
        ("echo rg parse_config", "not-a-search"),
        ("FOO=1 timeout 10 rg parse_config", "kept"),
    ],
)
def test_shell_search_rules(script, reason):
    parsed = tr.parse_shell(script, PROJ)
    call = tr.Call(parsed.search, parsed.searched, parsed.unparsed, parsed.opened)
    if not call.searched and not call.unparsed:
        assert reason == "not-a-search"
        return
    assert tr._classify(call, False, 4)[0] == reason


def test_readers_and_patches_open_files_relative_to_the_command_directory():
    parsed = tr.parse_shell(
        "cd src && sed -n '1,20p' cli.py; head -n 5 ../README.md 2>/dev/null | nl -ba; "
        "cat util/strings.py > /tmp/out; tail -20 config.py",
        PROJ,
    )
    assert parsed.opened == [
        f"{PROJ}/src/cli.py",
        f"{PROJ}/README.md",
        f"{PROJ}/src/util/strings.py",
        f"{PROJ}/src/config.py",
    ]
    patch = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
        "*** Add File: docs/b.md\n+z\n*** End Patch\nEOF\n"
    )
    assert tr.parse_shell(patch, PROJ).opened == [f"{PROJ}/src/a.py", f"{PROJ}/docs/b.md"]


def test_heredoc_bodies_and_comments_are_not_commands():
    parsed = tr.parse_shell("cat > notes.md <<'EOF'\nrg parse_config\nEOF\n# rg x\n", PROJ)
    assert not parsed.searched
    assert parsed.opened == []  # `cat > notes.md` writes, it opens nothing


def test_relative_to_keeps_paths_inside_the_root():
    assert tr.relative_to(PROJ, f"{PROJ}/src/a.py") == "src/a.py"
    assert tr.relative_to(PROJ, f"{PROJ}-other/a.py") is None
    assert tr.relative_to(PROJ, "/etc/hosts") is None
    assert tr.relative_to(PROJ, PROJ) is None
    assert tr.relative_to(PROJ, "~/a.py") is None


def write(path: Path, lines: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )


def test_a_file_of_no_known_format_is_one_line_naming_it(tmp_path):
    write(tmp_path / "logs" / "x" / "odd.jsonl", [{"hello": "world"}, "not json"])
    with pytest.raises(BenchError) as err:
        tr.mine(tmp_path / "logs")
    message = str(err.value)
    assert "\n" not in message
    assert "x/odd.jsonl" in message
    assert "hello" not in message and "world" not in message


def test_bad_arguments_are_one_line_errors(tmp_path):
    for call in (
        lambda: tr.mine(tmp_path / "missing"),
        lambda: tr.mine(LOGS, window=0),
        lambda: tr.mine(LOGS, min_length=0),
    ):
        with pytest.raises(BenchError) as err:
            call()
        assert "\n" not in str(err.value)


def test_a_damaged_mined_tsv_is_a_one_line_error(tmp_path):
    (tmp_path / "m.tsv").write_text("repository\trevision\tquery\n")
    with pytest.raises(BenchError) as err:
        tr.read_mined(tmp_path / "m.tsv")
    assert "\n" not in str(err.value)


def test_empty_files_and_other_files_are_listed_or_ignored(tmp_path):
    write(tmp_path / "logs" / "empty.jsonl", [])
    (tmp_path / "logs" / "notes.txt").write_text("not a transcript")
    rows, report = tr.mine(tmp_path / "logs")
    assert rows == []
    assert report.per_file == {"empty.jsonl": Counter({"kept": 0})}


def test_codex_exit_codes_in_each_output_shape():
    assert tr._codex_exit('{"output":"x","metadata":{"exit_code":2,"duration_seconds":0}}') == 2
    assert tr._codex_exit("Exit code: 1\nWall time: 0 seconds\nOutput:\n") == 1
    assert tr._codex_exit("Chunk ID: 9\nWall time: 0.0 seconds\nProcess exited with code 0\n") == 0
    assert tr._codex_exit("plain output, no header") is None
    assert tr._codex_exit([{"type": "input_text", "text": "Exit code: 3"}]) == 3


def test_claude_sub_agents_are_their_own_sequences(tmp_path):
    """A sub-agent's Read between the main agent's Grep and its next call is not an answer
    of that Grep, and the sub-agent's Grep sees only the sub-agent's calls."""
    base = {
        "cwd": PROJ,
        "sessionId": "s",
        "version": "2.1.12",
        "gitBranch": "main",
        "userType": "external",
    }

    def use(i, name, tool_input, agent=None):
        line = {
            **base,
            "type": "assistant",
            "isSidechain": agent is not None,
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": tool_input}],
            },
        }
        return line | ({"agentId": agent} if agent else {})

    write(
        tmp_path / "logs" / "s.jsonl",
        [
            use(1, "Grep", {"pattern": "parse_config"}),
            use(2, "Grep", {"pattern": "load_plugins"}, "a1"),
            use(3, "Read", {"file_path": f"{PROJ}/src/loader.py"}, "a1"),
            use(4, "Read", {"file_path": f"{PROJ}/src/config.py"}),
        ],
    )
    rows, _ = tr.mine(tmp_path / "logs", pins=PINS)
    assert [(r.query, r.opened) for r in rows] == [
        ("load_plugins", ("src/loader.py",)),
        ("parse_config", ("src/config.py",)),
    ]
