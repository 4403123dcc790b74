"""Mine coding-agent transcripts for the behavioural track (docs/behaviour.md).

A question is a literal search an agent ran (Claude Code's Grep tool, or rg, grep, git grep,
ag or ugrep in a shell command); its answers are the files the agent opened within the next
`window` tool calls of the same sequence, in order of first opening, relative to the
repository root. Three formats are read, each detected from a file's content: Claude Code
session JSONL, Codex CLI rollout JSONL, and a plain JSONL of our own (one search a line).

Privacy by construction: only (repository, revision, query, opened paths) and a hash of the
transcript's relative path leave this module, never transcript text. Every tool call, every
plain line and every malformed line is counted under exactly one reason per file.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
import string
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchbench.artifacts import tsv_rows, tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.paths import decode_path, encode_path

MINED_COLUMNS = ("repository", "revision", "query", "opened", "source")
REPORT_COLUMNS = ("file", "reason", "count")

# Per tool call (or plain line), exactly one of these, checked in this order.
KEPT = "kept"
NOT_A_SEARCH = "not-a-search"
UNPARSED = "unparsed-command"
FAILED = "failed"
CASE_INSENSITIVE = "case-insensitive"
REGEX = "regex"
CONTROL = "control-character"
TOO_SHORT = "too-short"
NO_ANSWER = "no-answer"
UNPINNED = "unpinned-revision"
# Not per call: a line that is not a JSON object of its file's format, and an opened path
# outside the repository (counted per path, for searches that reached the answer step).
MALFORMED = "malformed-line"
OUTSIDE = "opened-outside-repository"

CALL_REASONS = (
    NOT_A_SEARCH,
    UNPARSED,
    FAILED,
    CASE_INSENSITIVE,
    REGEX,
    CONTROL,
    TOO_SHORT,
    NO_ANSWER,
    UNPINNED,
    KEPT,
)

CLAUDE_TYPES = frozenset(
    {
        "user",
        "assistant",
        "summary",
        "system",
        "queue-operation",
        "file-history-snapshot",
        "progress",
        "attachment",
    }
)
CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


@dataclass(frozen=True)
class MinedSearch:
    repository: str
    revision: str
    query: str
    opened: tuple[str, ...]
    source: str  # sha256[:12] of the transcript file's path relative to the logs folder


@dataclass
class MineReport:
    per_file: dict[str, Counter] = field(default_factory=dict)


# ---------------------------------------------------------------- literal patterns

_PUNCT = frozenset(string.punctuation)
_ERE_SPECIAL = frozenset(".^$*+?()[]{}|")
_BRE_SPECIAL = frozenset(".*[]^$")
# After a backslash: GNU word/buffer anchors in every dialect, and BRE's \( \) \{ \} \| \+ \?.
_ERE_ESCAPE_NOT_LITERAL = frozenset("<>`'")
_BRE_ESCAPE_NOT_LITERAL = frozenset("<>`'(){}|+?")


def literal_of(pattern: str, dialect: str) -> str | None:
    """The literal string a pattern matches, or None when it is a regex.

    dialect: `fixed` (-F and the like: the pattern is the literal), `bre` (grep, git grep
    without -E/-P), `ere` (ripgrep, grep -E/-P, ag, ugrep, Claude Code's Grep). A backslash
    before ASCII punctuation is that character (`\\.` is `.`), except the escapes that are
    operators (`\\<`, and BRE's `\\(`, `\\|`, ...); a backslash before anything else (`\\d`,
    `\\s`, `\\t`) and any unescaped operator of the dialect make the pattern a regex. A
    pattern holding a newline is several patterns, so a regex too."""
    if "\n" in pattern or "\r" in pattern:
        return None
    if dialect == "fixed":
        return pattern
    special = _BRE_SPECIAL if dialect == "bre" else _ERE_SPECIAL
    not_literal = _BRE_ESCAPE_NOT_LITERAL if dialect == "bre" else _ERE_ESCAPE_NOT_LITERAL
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern):
                return None
            nxt = pattern[i + 1]
            if nxt not in _PUNCT or nxt in not_literal:
                return None
            out.append(nxt)
            i += 2
            continue
        if ch in special:
            return None
        out.append(ch)
        i += 1
    return "".join(out)


def caseless(text: str) -> bool:
    """True when case-insensitive matching cannot change what the literal matches."""
    return text.lower() == text and text.upper() == text


# ---------------------------------------------------------------- shell commands


@dataclass
class SearchCall:
    """What one search command asks: its pattern(s), dialect, and case mode."""

    patterns: list[str]
    dialect: str
    case: str  # sensitive, insensitive, smart
    from_file: bool = False


@dataclass
class ShellParse:
    search: SearchCall | None = None
    searched: bool = False  # a content-search command was found (even an unreadable one)
    unparsed: bool = False
    opened: list[str] = field(default_factory=list)  # paths as written, already joined to cwd


def _strip_script(script: str) -> str:  # noqa: C901 - one pass of a quote-state machine
    """Unquoted newlines become `;`, line continuations and comments go, so shlex sees one
    line of simple commands. Heredoc bodies are cut (after the `<<` line)."""
    out: list[str] = []
    quote = ""
    i = 0
    heredoc = False
    while i < len(script):
        ch = script[i]
        if quote:
            if ch == "\\" and quote == '"' and i + 1 < len(script):
                out.append(script[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = ""
            out.append(ch)
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "\\" and i + 1 < len(script):
            if script[i + 1] != "\n":
                out.append(script[i : i + 2])
            i += 2
            continue
        elif ch == "#" and (not out or out[-1][-1:] in " \t\n;&|()"):
            while i < len(script) and script[i] != "\n":
                i += 1
            continue
        elif ch == "\n":
            if heredoc:
                break
            out.append(" ; ")
        else:
            if ch == "<" and script[i : i + 2] == "<<" and script[i : i + 3] != "<<<":
                heredoc = True
            out.append(ch)
        i += 1
    return "".join(out)


_SEPARATORS = frozenset({";", "&&", "||", "&", "|", "|&", "(", ")", ";;", "{", "}"})
_PIPES = frozenset({"|", "|&"})
_WRAPPER_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_PREFIX_COMMANDS = frozenset({"command", "builtin", "exec", "time", "nice", "noglob", "sudo"})


def _is_redirect(token: str) -> bool:
    return bool(token) and set(token) <= set("<>&|0123456789") and ("<" in token or ">" in token)


def simple_commands(script: str) -> list[tuple[list[str], bool]] | None:
    """The simple commands of a shell script as (argv, pipeline head?), in order; None when
    the script does not split (unbalanced quotes).

    The standard library's shlex, not bashlex: bashlex is GPLv3+ and raises on the parts of
    bash it has not ported, where this split still finds the commands around them."""
    text = _strip_script(script)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    commands: list[tuple[list[str], bool]] = []
    current: list[str] = []
    head = True
    skip_next = False
    for index, token in enumerate(tokens):
        if skip_next:
            skip_next = False
            continue
        if token in _SEPARATORS:
            if current:
                commands.append((current, head))
            current = []
            head = token not in _PIPES
            continue
        if _is_redirect(token):
            if current and current[-1].isdigit():
                current.pop()  # the fd of `2>/dev/null`
            skip_next = not token.endswith(("&-",)) and index + 1 < len(tokens)
            continue
        current.append(token)
    if current:
        commands.append((current, head))
    return commands


def _unwrap(argv: list[str]) -> list[str]:
    """Drop env assignments and prefix commands (`env`, `timeout 10`, `sudo`, ...)."""
    argv = list(argv)
    while argv:
        word = argv[0]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            argv.pop(0)
        elif word == "env":
            argv.pop(0)
            while argv and (argv[0].startswith("-") or "=" in argv[0]):
                argv.pop(0)
        elif word == "timeout":
            argv.pop(0)
            while argv and argv[0].startswith("-"):
                argv.pop(0)
            if argv:
                argv.pop(0)  # the duration
        elif posixpath.basename(word) in _PREFIX_COMMANDS:
            argv.pop(0)
        else:
            break
    return argv


def _shell_script_of(argv: list[str]) -> str | None:
    """`bash -lc SCRIPT` and the like: the script."""
    if not argv or posixpath.basename(argv[0]) not in _WRAPPER_SHELLS:
        return None
    for i, word in enumerate(argv[1:], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return argv[i + 1] if i + 1 < len(argv) else None
        if not word.startswith("-"):
            return None
    return None


# Options that take a value, per search tool (short letters, long names).
_VALUE_SHORT = {
    "rg": set("efgtTABCmMdjEr"),
    "grep": set("efABCmdD"),
    "git-grep": set("efABCm"),
    "ag": set("ABCGgmp"),
    "ugrep": set("efABCmdDgKJMNOt"),
}
_VALUE_LONG = {
    "rg": {
        "regexp",
        "file",
        "glob",
        "iglob",
        "type",
        "type-not",
        "type-add",
        "type-clear",
        "after-context",
        "before-context",
        "context",
        "max-count",
        "max-columns",
        "max-depth",
        "maxdepth",
        "threads",
        "encoding",
        "replace",
        "sort",
        "sortr",
        "color",
        "colors",
        "context-separator",
        "field-context-separator",
        "field-match-separator",
        "path-separator",
        "max-filesize",
        "pre",
        "pre-glob",
        "engine",
        "dfa-size-limit",
        "regex-size-limit",
        "ignore-file",
        "hyperlink-format",
        "generate",
    },
    "grep": {
        "regexp",
        "file",
        "after-context",
        "before-context",
        "context",
        "max-count",
        "directories",
        "devices",
        "include",
        "exclude",
        "exclude-dir",
        "exclude-from",
        "label",
        "binary-files",
    },
    "git-grep": {
        "regexp",
        "file",
        "after-context",
        "before-context",
        "context",
        "max-count",
        "max-depth",
        "threads",
    },
    "ag": {
        "after",
        "before",
        "context",
        "file-search-regex",
        "ignore",
        "ignore-dir",
        "max-count",
        "path-to-ignore",
        "depth",
        "pager",
        "workers",
        "color-line-number",
        "color-match",
        "color-path",
    },
    "ugrep": {
        "regexp",
        "file",
        "after-context",
        "before-context",
        "context",
        "max-count",
        "directories",
        "devices",
        "glob",
        "iglob",
        "file-type",
        "file-extension",
        "file-magic",
        "include",
        "exclude",
        "include-dir",
        "exclude-dir",
        "range",
        "jobs",
        "depth",
        "label",
        "binary-files",
        "color",
        "colors",
        "encoding",
    },
}
_DEFAULT_DIALECT = {"rg": "ere", "grep": "bre", "git-grep": "bre", "ag": "ere", "ugrep": "ere"}
_DEFAULT_CASE = {
    "rg": "sensitive",
    "grep": "sensitive",
    "git-grep": "sensitive",
    "ag": "smart",
    "ugrep": "sensitive",
}
# The options GNU grep, git grep and ugrep share, with the same effects.
_GREP_FAMILY: dict[str, tuple[str, ...]] = {
    "-F": ("dialect", "fixed"),
    "--fixed-strings": ("dialect", "fixed"),
    "-E": ("dialect", "ere"),
    "--extended-regexp": ("dialect", "ere"),
    "-P": ("dialect", "ere"),
    "--perl-regexp": ("dialect", "ere"),
    "-G": ("dialect", "bre"),
    "--basic-regexp": ("dialect", "bre"),
    "-i": ("case", "insensitive"),
    "--ignore-case": ("case", "insensitive"),
    "-v": ("invert",),
    "--invert-match": ("invert",),
    "-L": ("invert",),
    "--files-without-match": ("invert",),
    "-e": ("pattern",),
    "-f": ("pattern-file",),
}
# ... and those GNU grep and ugrep add (git grep searches its tree recursively anyway).
_RECURSIVE_GREP: dict[str, tuple[str, ...]] = {
    "-r": ("recursive",),
    "-R": ("recursive",),
    "--recursive": ("recursive",),
    "--dereference-recursive": ("recursive",),
    "--regexp": ("pattern",),
    "--file": ("pattern-file",),
}
# option -> effect, per tool: ("dialect", x), ("case", x), ("files-mode",), ("invert",),
# ("recursive",), ("pattern",), ("pattern-file",)
_EFFECTS: dict[str, dict[str, tuple[str, ...]]] = {
    "rg": {
        "-F": ("dialect", "fixed"),
        "--fixed-strings": ("dialect", "fixed"),
        "--no-fixed-strings": ("dialect", "ere"),
        "-P": ("dialect", "ere"),
        "--pcre2": ("dialect", "ere"),
        "-i": ("case", "insensitive"),
        "--ignore-case": ("case", "insensitive"),
        "-s": ("case", "sensitive"),
        "--case-sensitive": ("case", "sensitive"),
        "-S": ("case", "smart"),
        "--smart-case": ("case", "smart"),
        "-v": ("invert",),
        "--invert-match": ("invert",),
        "--files": ("files-mode",),
        "--files-without-match": ("invert",),
        "--type-list": ("files-mode",),
        "-e": ("pattern",),
        "--regexp": ("pattern",),
        "-f": ("pattern-file",),
        "--file": ("pattern-file",),
    },
    "grep": {
        **_GREP_FAMILY,
        **_RECURSIVE_GREP,
        "-y": ("case", "insensitive"),
        "--no-ignore-case": ("case", "sensitive"),
    },
    "git-grep": _GREP_FAMILY,
    "ag": {
        "-Q": ("dialect", "fixed"),
        "--literal": ("dialect", "fixed"),
        "-i": ("case", "insensitive"),
        "--ignore-case": ("case", "insensitive"),
        "-s": ("case", "sensitive"),
        "--case-sensitive": ("case", "sensitive"),
        "-S": ("case", "smart"),
        "--smart-case": ("case", "smart"),
        "-v": ("invert",),
        "--invert-match": ("invert",),
        "-L": ("invert",),
        "--files-without-matches": ("invert",),
        "-g": ("files-mode",),
        "-l": (),
        "--list-file-types": ("files-mode",),
    },
    "ugrep": {
        **_GREP_FAMILY,
        **_RECURSIVE_GREP,
        "-j": ("case", "smart"),
        "--smart-case": ("case", "smart"),
    },
}
_SEARCH_TOOLS = {
    "rg": "rg",
    "grep": "grep",
    "egrep": "grep",
    "fgrep": "grep",
    "ag": "ag",
    "ugrep": "ugrep",
    "ug": "ugrep",
}
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def _search_tool(argv: list[str]) -> tuple[str, list[str]] | None:
    """(tool key, its arguments) when argv runs a content-search tool."""
    if not argv:
        return None
    name = posixpath.basename(argv[0])
    if name in _SEARCH_TOOLS:
        args = list(argv[1:])
        if name == "egrep":
            args.insert(0, "-E")
        elif name == "fgrep":
            args.insert(0, "-F")
        return _SEARCH_TOOLS[name], args
    if name == "git":
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if argv[i] in _GIT_VALUE_OPTIONS else 1
        if i < len(argv) and argv[i] == "grep":
            return "git-grep", list(argv[i + 1 :])
    return None


def walk_options(
    args: list[str], value_short: Collection[str], value_long: Collection[str]
) -> Iterator[tuple[str | None, str | None]]:
    """(option, value) for each option, (None, word) for each operand, getopt style:
    bundled short options (`-rnA3`), `--long=value`, `--long value`, `--` ends options,
    and `-NUM` (head -20, grep -5) is an option without a value."""
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            yield from ((None, rest) for rest in args[i:])
            return
        if word.startswith("--") and len(word) > 2:
            name, eq, inline = word.partition("=")
            value = inline if eq else None
            if value is None and name[2:] in value_long:
                value, i = (args[i] if i < len(args) else ""), i + 1
            yield name, value
        elif word.startswith("-") and len(word) > 1:
            for k, letter in enumerate(word[1:], start=1):
                if letter in value_short:
                    value = word[k + 1 :]
                    if not value:
                        value, i = (args[i] if i < len(args) else ""), i + 1
                    yield "-" + letter, value
                    break
                yield "-" + letter, None
        else:
            yield None, word


@dataclass
class _SearchState:
    dialect: str
    case: str
    patterns: list[str] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)
    recursive: bool = False
    from_file: bool = False

    def apply(self, effect: tuple[str, ...], value: str | None) -> bool:
        """Apply one option's effect; False when the command is not a content search."""
        kind = effect[0] if effect else ""
        if kind == "dialect":
            self.dialect = effect[1]
        elif kind == "case":
            self.case = effect[1]
        elif kind in ("files-mode", "invert"):
            return False
        elif kind == "recursive":
            self.recursive = True
        elif kind == "pattern":
            self.patterns.append(value or "")
        elif kind == "pattern-file":
            self.from_file = True
        return True


def parse_search(tool: str, args: list[str]) -> SearchCall | None:
    """Options and operands of one search command; None when it does not search file
    contents for its pattern (file listing, inverted match, stdin filter)."""
    effects = _EFFECTS[tool]
    state = _SearchState(_DEFAULT_DIALECT[tool], _DEFAULT_CASE[tool])
    for option, value in walk_options(args, _VALUE_SHORT[tool], _VALUE_LONG[tool]):
        if option is None:
            state.positionals.append(value or "")
        elif option in ("-d", "--directories") and tool in ("grep", "ugrep"):
            state.recursive = state.recursive or value == "recurse"
        elif not state.apply(effects.get(option, ()), value):
            return None
    if not state.patterns and not state.from_file:
        if not state.positionals:
            return SearchCall([], state.dialect, state.case, from_file=True)  # no pattern
        state.patterns.append(state.positionals.pop(0))
    if tool in ("grep", "ugrep") and not state.recursive and not state.positionals:
        return None  # reads standard input: not a search of the repository
    return SearchCall(state.patterns, state.dialect, state.case, from_file=state.from_file)


_READERS = {
    "cat": (set(), set()),
    "bat": (
        set("lrHm"),
        {
            "language",
            "line-range",
            "highlight-line",
            "style",
            "theme",
            "map-syntax",
            "tabs",
            "wrap",
            "color",
            "paging",
            "file-name",
        },
    ),
    "batcat": (
        set("lrHm"),
        {
            "language",
            "line-range",
            "highlight-line",
            "style",
            "theme",
            "map-syntax",
            "tabs",
            "wrap",
            "color",
            "paging",
            "file-name",
        },
    ),
    "head": (set("nc"), {"lines", "bytes"}),
    "tail": (set("ncs"), {"lines", "bytes", "sleep-interval", "pid"}),
    "nl": (
        set("bdfhilnsvw"),
        {
            "body-numbering",
            "section-delimiter",
            "footer-numbering",
            "header-numbering",
            "line-increment",
            "join-blank-lines",
            "number-format",
            "number-separator",
            "starting-line-number",
            "number-width",
        },
    ),
    "less": (set("bhjkopPtTxyz"), set()),
    "more": (set("n"), {"lines"}),
    "sed": (set("efl"), {"expression", "file", "line-length"}),
}


def _reader_operands(name: str, args: list[str]) -> list[str]:
    value_short, value_long = _READERS[name]
    operands: list[str] = []
    script_given = False
    for option, value in walk_options(args, value_short, value_long):
        if option is None:
            operands.append(value or "")
        elif option in ("-e", "-f", "--expression", "--file"):
            script_given = True
    if name == "sed" and not script_given and operands:
        operands.pop(0)  # the script
    return [op for op in operands if op != "-"]


_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (.+?)\s*$", re.MULTILINE)


def patch_paths(patch: str) -> list[str]:
    """Files an apply_patch envelope updates or adds, in order."""
    return [m.group(1) for m in _PATCH_FILE.finditer(patch)]


def parse_shell(script: str, cwd: str, depth: int = 0) -> ShellParse:
    """The first content search at a pipeline head, and every file a reader opens."""
    result = ShellParse()
    if "*** Begin Patch" in script and re.search(r"(^|[\s;&|(])apply_patch\b", script):
        result.opened.extend(_join(cwd, p) for p in patch_paths(script))
        return result
    commands = simple_commands(script)
    if commands is None:
        result.unparsed = True
        return result
    here = cwd
    for argv, head in commands:
        here = _shell_command(_unwrap(argv), head, here, script, depth, result)
    return result


def _shell_command(
    argv: list[str], head: bool, here: str, script: str, depth: int, result: ShellParse
) -> str:
    """Add one simple command's search or openings to result; return the directory the
    next command runs in."""
    if not argv:
        return here
    inner = _shell_script_of(argv)
    if inner is not None and depth < 3:
        sub = parse_shell(inner, here, depth + 1)
        if not result.searched and (sub.searched or sub.unparsed):
            result.search, result.searched, result.unparsed = sub.search, sub.searched, sub.unparsed
        result.opened.extend(sub.opened)
        return here
    name = posixpath.basename(argv[0])
    if name == "cd":
        return _join(here, argv[1]) if len(argv) > 1 and argv[1] != "-" else here
    if name == "apply_patch" and len(argv) > 1:
        result.opened.extend(_join(here, p) for p in patch_paths(argv[1]))
    elif name in _READERS:
        result.opened.extend(_join(here, p) for p in _reader_operands(name, argv[1:]))
    found = _search_tool(argv)
    if found is None or not head or result.searched:
        return here
    search = parse_search(*found)
    if search is not None:
        result.search, result.searched = search, True
        if any("$" in p or "`" in p for p in search.patterns) and _expands(script):
            result.unparsed = True  # the shell substitutes it: the literal is unknown
    return here


def _expands(script: str) -> bool:
    """A `$` or backquote outside single quotes: the shell would substitute something."""
    quote = ""
    escaped = False
    for ch in script:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "'" and not quote:
            quote = "'"
        elif ch == '"':
            quote = "" if quote == '"' else '"'
        elif ch in "$`":
            return True
    return False


def _join(cwd: str, path: str) -> str:
    if path.startswith("~"):
        return path  # home-relative: never inside the repository
    return posixpath.normpath(posixpath.join(cwd, path)) if cwd else posixpath.normpath(path)


def relative_to(root: str, path: str) -> str | None:
    """path (absolute, or already joined to the cwd) relative to root; None outside it."""
    if not root or not path.startswith("/"):
        return None
    root = posixpath.normpath(root)
    full = posixpath.normpath(path)
    if root == "/":
        rel = full.lstrip("/")
    elif full.startswith(root + "/"):
        rel = full[len(root) + 1 :]
    else:
        return None
    return rel or None


# ---------------------------------------------------------------- tool calls


@dataclass
class Call:
    """One tool call of a sequence, reduced to what the miner needs."""

    search: SearchCall | None = None
    searched: bool = False
    unparsed: bool = False
    opened: list[str] = field(default_factory=list)  # absolute (joined) paths
    result_id: str | None = None
    kind: str = "other"  # grep-tool, shell, open, other


@dataclass
class Sequence:
    calls: list[Call] = field(default_factory=list)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(item.get("text", "")) for item in content if isinstance(item, dict))
    return ""


def _grep_tool_call(tool_input: dict) -> Call:
    pattern = tool_input.get("pattern")
    call = Call(kind="grep-tool", searched=True)
    if not isinstance(pattern, str):
        call.unparsed = True
        return call
    case = "insensitive" if tool_input.get("-i") is True else "sensitive"
    call.search = SearchCall([pattern], "ere", case)
    return call


_OPEN_TOOLS = {
    "Read": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "Write": "file_path",
    "NotebookEdit": "notebook_path",
    "NotebookRead": "notebook_path",
}


def _claude_sequences(lines: list[dict]) -> tuple[str | None, dict[str, Sequence], dict]:
    """Claude Code: (session cwd, sequences by agent, tool results by tool_use_id)."""
    root: str | None = None
    sequences: dict[str, Sequence] = {}
    results: dict[str, tuple[bool, str]] = {}
    for line in lines:
        cwd = line.get("cwd")
        if root is None and isinstance(cwd, str) and cwd:
            root = cwd
        message = line.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        if line.get("type") == "user":
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = (
                        block.get("is_error") is True,
                        _text_of(block.get("content")),
                    )
            continue
        if line.get("type") != "assistant":
            continue
        agent = line.get("agentId")
        key = str(agent) if agent else ("sidechain" if line.get("isSidechain") else "main")
        here = cwd if isinstance(cwd, str) else (root or "")
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call = _claude_call(block, here)
                sequences.setdefault(key, Sequence()).calls.append(call)
    return root, sequences, {k: _claude_failed(v) for k, v in results.items()}


def _claude_call(block: dict, here: str) -> Call:
    name = block.get("name")
    tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
    if name == "Grep":
        call = _grep_tool_call(tool_input)
    elif name == "Bash" and isinstance(tool_input.get("command"), str):
        call = _script_call(tool_input["command"], here)
    elif name in _OPEN_TOOLS and isinstance(tool_input.get(_OPEN_TOOLS[name]), str):
        call = Call(opened=[_join(here, tool_input[_OPEN_TOOLS[name]])], kind="open")
    else:
        call = Call()
    call.result_id = str(block.get("id"))
    return call


def _claude_failed(result: tuple[bool, str]) -> bool:
    is_error, text = result
    return is_error or text.startswith(("No files found", "No matches found"))


_EXIT_TEXT = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)", re.MULTILINE)


def _codex_exit(output: Any) -> int | None:
    """The exit code a function_call_output reports: the JSON envelope of the `shell` tool
    (`{"output": ..., "metadata": {"exit_code": N}}`), or the `Exit code: N` /
    `Process exited with code N` header of the newer tools; None when it says none."""
    text = _text_of(output)
    if text.startswith("{"):
        try:
            envelope = json.loads(text)
        except ValueError:
            envelope = None
        if isinstance(envelope, dict) and isinstance(envelope.get("metadata"), dict):
            code = envelope["metadata"].get("exit_code")
            return code if isinstance(code, int) else None
    match = _EXIT_TEXT.search(text[:400])
    return int(match.group(1)) if match else None


def _codex_call(payload: dict, cwd: str) -> Call:
    kind = payload.get("type")
    if kind == "local_shell_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        command = action.get("command")
        workdir = action.get("working_directory") or cwd
        return _argv_call(command, str(workdir))
    if kind == "custom_tool_call":
        if payload.get("name") == "apply_patch" and isinstance(payload.get("input"), str):
            return Call(opened=[_join(cwd, p) for p in patch_paths(payload["input"])], kind="open")
        return Call()
    name = payload.get("name")
    try:
        arguments = json.loads(payload.get("arguments") or "{}")
    except (TypeError, ValueError):
        arguments = None
    if not isinstance(arguments, dict):
        return Call(
            unparsed=name in ("shell", "container.exec", "shell_command", "exec_command"),
            kind="shell",
        )
    workdir = str(arguments.get("workdir") or cwd)
    if name in ("shell", "container.exec"):
        return _argv_call(arguments.get("command"), workdir)
    if name == "shell_command" and isinstance(arguments.get("command"), str):
        return _script_call(arguments["command"], workdir)
    if name == "exec_command" and isinstance(arguments.get("cmd"), str):
        return _script_call(arguments["cmd"], workdir)
    if name == "apply_patch" and isinstance(arguments.get("input"), str):
        return Call(opened=[_join(cwd, p) for p in patch_paths(arguments["input"])], kind="open")
    return Call()


def _script_call(script: str, cwd: str) -> Call:
    parsed = parse_shell(script, cwd)
    return Call(parsed.search, parsed.searched, parsed.unparsed, parsed.opened, kind="shell")


def _argv_call(command: Any, cwd: str) -> Call:
    if not isinstance(command, list) or not all(isinstance(w, str) for w in command):
        return Call(unparsed=True, kind="shell")
    return _script_call(shlex.join(command), cwd)


def _codex_sequences(lines: list[dict]) -> tuple[dict, Sequence, dict[str, bool]]:
    """Codex: (session_meta payload, the one sequence, failed by call_id)."""
    meta: dict = {}
    sequence = Sequence()
    exits: dict[str, int | None] = {}
    ended: dict[str, int] = {}
    cwd = ""
    for line in lines:
        payload = line.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = line.get("type")
        if kind == "session_meta" and not meta:
            meta = payload
            cwd = str(payload.get("cwd") or "")
        elif kind == "turn_context" and isinstance(payload.get("cwd"), str):
            cwd = payload["cwd"]
        elif kind == "event_msg" and payload.get("type") == "exec_command_end":
            if isinstance(payload.get("exit_code"), int):
                ended[str(payload.get("call_id"))] = payload["exit_code"]
        elif kind == "response_item":
            item = payload.get("type")
            if item in ("function_call", "custom_tool_call", "local_shell_call"):
                call = _codex_call(payload, cwd)
                call.result_id = str(payload.get("call_id") or payload.get("id"))
                sequence.calls.append(call)
            elif item in ("function_call_output", "custom_tool_call_output"):
                exits[str(payload.get("call_id"))] = _codex_exit(payload.get("output"))
    codes = {**{k: v for k, v in exits.items() if v is not None}, **ended}
    return meta, sequence, {k: v != 0 for k, v in codes.items()}


# ---------------------------------------------------------------- mining


def _classify(call: Call, failed: bool, min_length: int) -> tuple[str, str | None]:
    """(reason, literal) for a search call, before the answer and revision steps."""
    if call.unparsed or (call.search is not None and call.search.from_file):
        return UNPARSED, None
    if failed:
        return FAILED, None
    search = call.search
    assert search is not None
    if len(search.patterns) != 1:
        return REGEX, None  # several patterns: an alternation
    literal = literal_of(search.patterns[0], search.dialect)
    insensitive = search.case == "insensitive" or (
        search.case == "smart"
        and (literal or search.patterns[0]).lower() == (literal or search.patterns[0])
    )
    if insensitive and not caseless(literal if literal is not None else search.patterns[0]):
        return CASE_INSENSITIVE, None
    if literal is None:
        return REGEX, None
    if any(ch in literal for ch in "\t\r\n\x00") or not literal.isprintable():
        return CONTROL, None
    if len(literal) < min_length:
        return TOO_SHORT, None
    return KEPT, literal


def _mine_sequence(
    sequence: Sequence,
    failed_ids: Mapping[str, bool],
    root: str,
    window: int,
    min_length: int,
    counts: Counter,
) -> list[tuple[str, tuple[str, ...]]]:
    """(literal, opened) of each search that reached the answer step with an answer; the
    other calls are counted in `counts`. The revision step is the caller's."""
    found: list[tuple[str, tuple[str, ...]]] = []
    calls = sequence.calls
    for index, call in enumerate(calls):
        if not call.searched and not call.unparsed:
            counts[NOT_A_SEARCH] += 1
            continue
        failed = bool(call.result_id is not None and failed_ids.get(call.result_id, False))
        reason, literal = _classify(call, failed, min_length)
        if reason != KEPT or literal is None:
            counts[reason] += 1
            continue
        opened = _answers(calls[index + 1 : index + 1 + window], failed_ids, root, counts)
        if not opened:
            counts[NO_ANSWER] += 1
            continue
        found.append((literal, tuple(opened)))
    return found


def _answers(
    following: list[Call], failed_ids: Mapping[str, bool], root: str, counts: Counter
) -> list[str]:
    """Files opened by the calls after a search, up to the next search, in order of first
    opening, relative to root; paths outside it are counted."""
    opened: list[str] = []
    for later in following:
        if later.searched or later.unparsed:
            break  # what is opened after the next search answers that search
        if later.result_id is not None and failed_ids.get(later.result_id, False):
            continue  # a call that failed opened nothing
        for path in later.opened:
            rel = relative_to(root, path)
            if rel is None:
                counts[OUTSIDE] += 1
            elif rel not in opened:
                opened.append(rel)
    return opened


def _read_lines(path: Path, rel: str, counts: Counter) -> list[dict]:
    rows: list[dict] = []
    try:
        data = path.read_bytes()
    except OSError as err:
        raise BenchError(f"cannot read transcript {rel}: {err.strerror}") from err
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            counts[MALFORMED] += 1
            continue
        if not isinstance(value, dict):
            counts[MALFORMED] += 1
            continue
        rows.append(value)
    return rows


def detect_format(lines: Iterable[dict]) -> str | None:
    """claude, codex or plain, from the first line that has one format's fields."""
    for line in lines:
        kind = line.get("type")
        if kind in CODEX_TYPES and "payload" in line:
            return "codex"
        if kind in CLAUDE_TYPES and (
            "sessionId" in line or "message" in line or "leafUuid" in line
        ):
            return "claude"
        if "query" in line and "opened" in line and "repository" in line:
            return "plain"
    return None


def _revision(keys: Iterable[str], pins: Mapping[str, str]) -> str | None:
    for key in keys:
        if key and pins.get(key):
            return str(pins[key])
    return None


def _mine_plain(
    lines: list[dict], source: str, min_length: int, pins: Mapping[str, str], counts: Counter
) -> list[MinedSearch]:
    rows: list[MinedSearch] = []
    for line in lines:
        repository, query, opened = line.get("repository"), line.get("query"), line.get("opened")
        revision = line.get("revision", "")
        if not (
            isinstance(repository, str)
            and repository
            and isinstance(query, str)
            and isinstance(opened, list)
            and all(isinstance(p, str) for p in opened)
            and isinstance(revision, str)
        ):
            counts[MALFORMED] += 1
            continue
        if any(ch in query for ch in "\t\r\n\x00") or not query.isprintable():
            counts[CONTROL] += 1
            continue
        if len(query) < min_length:
            counts[TOO_SHORT] += 1
            continue
        answers: list[str] = []
        for path in opened:
            rel = plain_relative(path)
            if rel is None:
                counts[OUTSIDE] += 1
            elif rel not in answers:
                answers.append(rel)
        if not answers:
            counts[NO_ANSWER] += 1
            continue
        pinned = revision or _revision([repository], pins)
        if not pinned:
            counts[UNPINNED] += 1
            continue
        counts[KEPT] += 1
        rows.append(MinedSearch(repository, pinned, query, tuple(answers), source))
    return rows


def plain_relative(path: str) -> str | None:
    """A plain-format path: relative to the repository root, never leaving it."""
    if not path or path.startswith(("/", "~")):
        return None
    norm = posixpath.normpath(path)
    if norm in (".", "..") or norm.startswith("../"):
        return None
    return norm


def source_id(rel: str) -> str:
    return hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def transcript_files(logs_dir: Path) -> list[tuple[str, Path]]:
    """Every *.jsonl file under logs_dir, as (relative path, path), sorted by relative path."""
    base = Path(logs_dir)
    if not base.is_dir():
        raise BenchError(f"transcript folder {logs_dir} does not exist or is not a folder")
    found = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in filenames:
            if name.endswith(".jsonl"):
                full = Path(dirpath) / name
                found.append((full.relative_to(base).as_posix(), full))
    return sorted(found, key=lambda item: item[0].encode("utf-8", "surrogateescape"))


def mine_file(
    path: Path, rel: str, window: int, min_length: int, pins: Mapping[str, str]
) -> tuple[list[MinedSearch], Counter]:
    counts: Counter = Counter({KEPT: 0})
    lines = _read_lines(path, rel, counts)
    if not lines and not counts[MALFORMED]:
        return [], counts  # an empty file
    kind = detect_format(lines)
    if kind is None:
        raise BenchError(
            f"transcript {rel} is neither a Claude Code session, a Codex CLI rollout nor the "
            "plain search format (docs/behaviour.md): no line has their fields"
        )
    source = source_id(rel)
    if kind == "plain":
        return _mine_plain(lines, source, min_length, pins, counts), counts
    if kind == "claude":
        root, sequences, failed = _claude_sequences(lines)
        repository = root or ""
        revision = _revision([repository], pins)
        ordered = [sequences[k] for k in sorted(sequences, key=lambda k: (k != "main", k))]
    else:
        meta, sequence, failed = _codex_sequences(lines)
        root = str(meta.get("cwd") or "")
        git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
        url = git.get("repository_url") if isinstance(git.get("repository_url"), str) else ""
        repository = url or root
        commit = git.get("commit_hash") if isinstance(git.get("commit_hash"), str) else ""
        revision = commit or _revision([url, root], pins)
        ordered = [sequence]
    rows: list[MinedSearch] = []
    for sequence in ordered:
        for literal, opened in _mine_sequence(
            sequence, failed, root or "", window, min_length, counts
        ):
            if not revision or not repository:
                counts[UNPINNED] += 1
                continue
            counts[KEPT] += 1
            rows.append(MinedSearch(repository, revision, literal, opened, source))
    return rows, counts


def _sort_key(row: MinedSearch) -> tuple:
    enc = lambda s: s.encode("utf-8", "surrogateescape")  # noqa: E731
    return (
        enc(row.repository),
        enc(row.revision),
        enc(row.query),
        row.source,
        tuple(enc(p) for p in row.opened),
    )


def mine(
    logs_dir: Path, window: int = 5, min_length: int = 4, pins: Mapping[str, str] = {}
) -> tuple[list[MinedSearch], MineReport]:
    """Every literal search with its answers, from every *.jsonl transcript under logs_dir,
    sorted by (repository, revision, query, source, opened); and the per-file counts."""
    if not isinstance(window, int) or window < 1:
        raise BenchError(f"behaviour window is {window!r}; set it to a positive integer")
    if not isinstance(min_length, int) or min_length < 1:
        raise BenchError(f"behaviour min_length is {min_length!r}; set it to a positive integer")
    rows: list[MinedSearch] = []
    report = MineReport()
    for rel, path in transcript_files(Path(logs_dir)):
        found, counts = mine_file(path, rel, window, min_length, pins)
        rows.extend(found)
        report.per_file[rel] = counts
    rows.sort(key=_sort_key)
    return rows, report


# ---------------------------------------------------------------- artifacts


def mined_text(rows: Iterable[MinedSearch]) -> str:
    ordered = sorted(rows, key=_sort_key)
    return tsv_text(
        MINED_COLUMNS,
        (
            (
                r.repository,
                r.revision,
                r.query,
                " ".join(encode_path(p) for p in r.opened),
                r.source,
            )
            for r in ordered
        ),
    )


def write_mined(rows: Iterable[MinedSearch], path: str | os.PathLike) -> None:
    """mined.tsv: `repository revision query opened source`; opened = space-separated
    encoded paths in order of first opening; sorted like mine()'s rows."""
    write_text(path, mined_text(rows))


def read_mined(path: str | os.PathLike) -> list[MinedSearch]:
    rows = []
    for number, fields in tsv_rows(path, MINED_COLUMNS):
        repository, revision, query, opened, source = fields
        if not (repository and revision and query and opened and source):
            raise BenchError(f"{path} line {number} has an empty field; rerun the miner")
        rows.append(
            MinedSearch(
                repository,
                revision,
                query,
                tuple(decode_path(p) for p in opened.split(" ")),
                source,
            )
        )
    return rows


def report_rows(report: MineReport) -> Iterator[tuple[str, str, int]]:
    for rel in sorted(report.per_file, key=lambda r: r.encode("utf-8", "surrogateescape")):
        counts = report.per_file[rel]
        for reason in sorted(counts):
            yield encode_path(rel), reason, int(counts[reason])


def write_mine_report(report: MineReport, path: str | os.PathLike) -> None:
    """mine_report.tsv: `file reason count`, sorted by file then reason; file encoded."""
    write_text(path, tsv_text(REPORT_COLUMNS, report_rows(report)))
