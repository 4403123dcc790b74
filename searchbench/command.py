"""One command: what a tool's spec becomes for one query, built in one place.

`search_command` fills the tool's argv and env templates (searchbench/tools.py) for a query
and a set-up; runner.run_search runs a Command; the fast path (searchbench/fastpath.py)
narrows one to the files that contain the literal (`Command.narrowed`).
"""

import os
from dataclasses import dataclass, replace

from searchbench.errors import BenchError
from searchbench.tools import QUERY_SYNTAXES, ResolvedTool, expand_argv, expand_env


@dataclass(frozen=True)
class Command:
    """A process to run as one search: argv in cwd with a clean env plus `env` (runner.clean_env),
    killed after `timeout` seconds; its stdout read as `parse_format` (searchbench/parsers.py);
    an exit in `no_match_exit` with nothing printed means no match. `stands_for` is the argv a
    result reports when it differs from the one run (a narrowed command reports the plain one).
    """

    argv: tuple[str, ...]
    cwd: str
    timeout: float
    env: dict[str, str] | None = None
    parse_format: str = "grep"
    no_match_exit: tuple[int, ...] = (1,)
    stands_for: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(self.argv))
        object.__setattr__(self, "no_match_exit", tuple(self.no_match_exit))

    @property
    def reported_argv(self) -> list[str]:
        return list(self.argv if self.stands_for is None else self.stands_for)

    def narrowed(self, argv: list[str]) -> "Command":
        """The same search with another argv (the fast path's file list); it reports this one's."""
        return replace(self, argv=tuple(argv), stands_for=tuple(self.reported_argv))


@dataclass(frozen=True)
class SearchSetup:
    """What every search of one tool on one corpus shares: the tool, the corpus tree, the
    timeout and the invocation's mode (its index, whole-word matching)."""

    tool: ResolvedTool
    root: str
    timeout: float
    index: str | None = None
    word: bool = False
    session: str | None = None  # the socket of the tool's session (searchbench/session.py)

    @classmethod
    def from_files(
        cls, tool: str, root: str, timeout: float, index: str | None = None, word: bool = False
    ) -> "SearchSetup":
        """The set-up from the tool's resolved JSON, the corpus's root (its marker or tree) and
        the tool's index directory, if it has one."""
        from searchbench.corpora import corpus_tree
        from searchbench.tools import read_tool_json

        return cls(
            tool=read_tool_json(tool),
            root=str(corpus_tree(root)),
            timeout=timeout,
            index=os.path.abspath(index) if index else None,
            word=bool(word),
        )


def search_argv(
    tool: ResolvedTool,
    query: str,
    index: str | None = None,
    word: bool = False,
    session: str | None = None,
    timeout: float | None = None,
) -> list[str]:
    """The concrete argv of one search by a resolved tool."""
    if not tool.available or tool.binary_path is None:
        raise BenchError(f"tool {tool.spec.name} is not available: {tool.skipped_reason}")
    query = QUERY_SYNTAXES[tool.spec.query_syntax](query)
    return expand_argv(
        tool.spec.argv,
        tool.binary_path,
        query,
        index=index,
        word=word,
        word_argv=tool.spec.word_argv,
        index_binary=tool.index_binary_path,
        session=session,
        timeout=timeout,
    )


def search_command(setup: SearchSetup, query: str, *, plain: bool = False) -> Command:
    """The command of one search: the tool's argv for the query, its env, output format and
    no-match exits, in the corpus root. `plain`: the fast path's base, without the session
    and the `{timeout}` budget (a session's tool is never narrowed) and with the env's
    `{index}` left unfilled, as it always was."""
    tool = setup.tool
    argv = search_argv(
        tool,
        query,
        index=setup.index,
        word=setup.word,
        session=None if plain else setup.session,
        timeout=None if plain else setup.timeout,
    )
    return Command(
        argv=tuple(argv),
        cwd=setup.root,
        timeout=setup.timeout,
        env=expand_env(tool.spec.env, setup.root, None if plain else setup.index),
        parse_format=tool.spec.output,
        no_match_exit=tuple(tool.spec.no_match_exit),
    )
