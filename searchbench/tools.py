"""Search tools as data: load config/tools.yaml, resolve each binary once, expand argv templates.

docs/method.md §8 trap 1 ("grep may not be grep"): every binary is resolved once to an absolute
path, its version line and sha256 are recorded in results/tools.json, and every search runs that
exact file with an argv list (never a shell string).
"""

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from searchbench.artifacts import file_sha256, read_json, tsv_text, write_json, write_text
from searchbench.build import (
    BUILT,
    PENDING,
    TOOLS_DIR,
    binary_path,
    build_name,
    build_state,
    check_built_binary,
    check_pin,
    read_manifest,
)
from searchbench.errors import BenchError
from searchbench.parsers import FORMATS

# Elements after which a query can never be read as an option: grep-family `-e`/`--regexp`,
# the end-of-options marker `--`, and readtags' own end-of-options marker `-`. An entry may add
# its own option that takes the next element as its value (`query_guard`, cscope's `-1`).
QUERY_GUARDS = ("-e", "--regexp", "--", "-")
# An element that embeds the query as an option's value, e.g. ast-grep's `--pattern={query}`
# (what follows the query in that element stays part of the value: `--pattern={query}($$$)`).
QUERY_PREFIXES = ("--pattern=", "--regexp=")
PLACEHOLDERS = (
    "{binary}", "{query}", "{index}", "{index_binary}", "{session}", "{timeout}",
)  # fmt: skip
# This repository's own programs (hay, lsp-symbol).
REPO_BIN = Path(__file__).resolve().parents[1] / "bin"
# Placeholders an `env` value may hold: the index directory and the corpus root (real path).
ENV_PLACEHOLDERS = ("{index}", "{root}")
# What a query is escaped against when the tool reads it as a regular expression and has no
# literal mode (`query_syntax: regex`): Go's regexp.QuoteMeta set, which is also every POSIX
# ERE metacharacter, so `a.b` cannot match `a_b` in csearch (RE2) or cscope (ERE).
_REGEX_META = re.compile(r"([\\.+*?()|\[\]{}^$])")
# What kind of search tool an entry is; the report names the best of each family.
TOOL_FAMILIES = (
    "grep",
    "structural",
    "tag-index",
    "trigram-index",
    "token-index",
    "language-server",
    "agent-tool",
    "agent-harness",
    "embedding",
    "ranker-under-test",
)


@dataclass(frozen=True)
class ToolSpec:
    """One entry of config/tools.yaml."""

    name: str
    description: str
    binary: str
    argv: list[str]
    output: str
    word_argv: list[str] = field(default_factory=list)
    list_files_argv: list[str] | None = None
    index_binary: str | None = None
    index_argv: list[str] | None = None
    optional: bool = False
    env: dict[str, str] = field(default_factory=dict)
    install_hint: str = ""
    no_match_exit: list[int] = field(default_factory=lambda: [1])
    version_argv: list[str] = field(default_factory=lambda: ["{binary}", "--version"])
    fast_path: bool = False
    fast_path_pad: bool = False
    fast_path_bare_names: bool = False
    # Whether the tool's own walk enters symbolic links. One that does not never prints a
    # file reached through one, so its fast path need not probe such files (the kernel's
    # dt-bindings headers: 26 of 1,000 docs queries ran plain at ~105 s each for ast-grep).
    walk_follows_links: bool = True
    # Files the tool searches that list_files_argv misses and in which it may print lines
    # without the literal (ast-grep: Markdown), listed by this command; merged into the
    # listing in the walk order (searchbench.fastpath.tool_listing), and named in every
    # fast-path run when their name matches one of fast_path_always.
    list_files_unbound_argv: list[str] | None = None
    fast_path_always: list[str] = field(default_factory=list)
    # A regular expression a query must match in full to take the fast path; others run plain.
    # A structural matcher finds `py.path.local` written across lines, in a file that does not
    # hold the literal: only a single name is sure to be in every file it matches.
    fast_path_queries: str | None = None
    # A query fast_path_queries leaves out but this regex takes in full goes fast over the
    # files holding its longest identifier part (one more byte search): every file such a
    # pattern matches holds each of its names (`py.path .local` holds `local`).
    fast_path_by_part: str | None = None
    order: str = "unstated"
    # The parsed languages (config/languages.yaml) whose declarations the tool can find; None:
    # every language (a text search reads every file). The report qualifies scores on others.
    languages: list[str] | None = None
    # A regular expression the first version line must match (re.search): a `grep` that is
    # ugrep, or an `rg` that is a wrapper script, stops the run instead of being measured.
    version_match: str | None = None
    family: str = "grep"  # one of TOOL_FAMILIES
    # The full tool this entry varies with a signal off: the inference compares the two (the
    # ablation family). It says how results are read, not what runs: not in tool_identity.
    ablation_of: str | None = None
    # An option of this tool that reads the next element as its value whatever it looks like
    # (cscope's `-1 NAME`); `{query}` may follow it as it may follow `--`.
    query_guard: str | None = None
    # How the runner writes the literal query for the tool (QUERY_SYNTAXES): as it is, as a
    # regular expression matching exactly it (a tool with no literal mode), or as a Zoekt
    # query.
    query_syntax: str = "literal"
    # Built from a pinned version into resources/tools/ (searchbench/build.py): `binary` and
    # `index_binary` then name files of that build, never a PATH lookup.
    build: dict | None = None
    # Why this tool cannot be built or run here: it is listed as skipped with this reason.
    unavailable: str | None = None
    # A process that answers every query of a search job (searchbench/session.py), started
    # once per job in the corpus root; `argv` then reaches it through `{session}` (a socket
    # path), and `session_stop_argv` asks it to end.
    session_argv: list[str] | None = None
    session_stop_argv: list[str] | None = None
    # The tracks (searchbench.measures.TRACKS) this tool runs on; None: every track. A tool
    # with a reference mode (cscope -L -0) answers only "where is NAME used?" (usage).
    tracks: list[str] | None = None
    # Another tool whose per-corpus index this one searches (the same index_binary,
    # index_argv and env, checked by configcheck.index_of_problem): built once, by that tool.
    index_of: str | None = None


@dataclass(frozen=True)
class ResolvedTool:
    """A tool with its binary resolved to an absolute path, as written to results/tools.json."""

    spec: ToolSpec
    binary_path: str | None
    version: str
    sha256: str
    index_binary_path: str | None
    index_sha256: str
    available: bool
    skipped_reason: str
    binary_target: str = ""  # the file the binary path finally names (symlinks resolved)
    built: str = (
        ""  # a built tool: how ("built by the workflow", "built outside the workflow: ...")
    )


def covers(spec: ToolSpec, language: str) -> bool:
    """Whether a tool is asked about a query in this language: a tool with `languages` (a
    language server) only about those; the others about every query."""
    return spec.languages is None or language in spec.languages


def escape_regex(query: str) -> str:
    """The query as a regular expression matching exactly its text (RE2 and POSIX ERE)."""
    return _REGEX_META.sub(r"\\\1", query)


def zoekt_query(query: str) -> str:
    r"""The query as a case-sensitive Zoekt content search for exactly its text: a bare `-rf`
    is a negation to Zoekt, spaces an AND, lower case case-insensitive and a match in a file
    name prints as `path:0:path`; inside the quotes Q is a regular expression in which `\`
    and `"` are escaped once more."""
    quoted = escape_regex(query).replace("\\", "\\\\").replace('"', '\\"')
    return f'case:yes content:"{quoted}"'


QUERY_SYNTAXES: dict[str, Callable[[str], str]] = {
    "literal": lambda query: query,
    "regex": escape_regex,
    "zoekt": zoekt_query,
}


def validate_query_template(name: str, argv: list[str], guard: str | None = None) -> None:
    """Reject a template in which the query could be read as an option or a file name."""
    guards = (*QUERY_GUARDS, guard) if guard else QUERY_GUARDS
    count = 0
    for i, element in enumerate(argv):
        if "{query}" not in element:
            continue
        count += element.count("{query}")
        if element == "{query}":
            if i == 0 or argv[i - 1] not in guards:
                raise BenchError(
                    f"tool {name}: `{{query}}` at argv[{i}] is a bare element; put it after "
                    f"one of {', '.join(guards)} so a query like `-rf` is never an option"
                )
        elif not element.startswith(tuple(p + "{query}" for p in QUERY_PREFIXES)):
            raise BenchError(
                f"tool {name}: `{{query}}` inside argv[{i}] ({element!r}); embed it only as "
                f"{' or '.join(p + '{query}' for p in QUERY_PREFIXES)} (a suffix may follow), or "
                "as its own element"
            )
    if count != 1:
        raise BenchError(f"tool {name}: argv must contain `{{query}}` exactly once, found {count}")


def _check_patterns(spec: ToolSpec) -> None:
    """The entry's regular expressions compile: one line naming the key otherwise."""
    for key in ("version_match", "fast_path_queries", "fast_path_by_part"):
        pattern = getattr(spec, key)
        if pattern is None:
            continue
        try:
            re.compile(pattern)
        except re.error as err:
            raise BenchError(f"tool {spec.name}: {key} is not a valid regex ({err})") from err


def _spec_from_entry(name: str, entry: dict) -> ToolSpec:
    known = set(ToolSpec.__dataclass_fields__) - {"name"}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise BenchError(f"tool {name}: unknown key(s) {', '.join(unknown)} in tools file")
    for key in ("binary", "argv", "output"):
        if key not in entry:
            raise BenchError(f"tool {name}: missing required key `{key}` in tools file")
    if entry["output"] not in FORMATS:
        raise BenchError(
            f"tool {name}: output {entry['output']!r} is not one of {', '.join(FORMATS)}"
        )
    if "family" not in entry:
        raise BenchError(
            f"tool {name}: missing `family` in tools file; one of {', '.join(TOOL_FAMILIES)}"
        )
    if entry["family"] not in TOOL_FAMILIES:
        raise BenchError(
            f"tool {name}: family {entry['family']!r} is not one of {', '.join(TOOL_FAMILIES)}"
        )
    values = {k: v for k, v in entry.items() if v is not None}
    values.setdefault("description", name)
    values["env"] = {str(k): str(v) for k, v in (values.get("env") or {}).items()}
    spec = ToolSpec(name=name, **values)
    _check_runnable(spec)
    _check_patterns(spec)
    _check_session(spec)
    if spec.query_syntax not in QUERY_SYNTAXES:
        raise BenchError(
            f"tool {name}: query_syntax {spec.query_syntax!r} is not one of "
            f"{', '.join(QUERY_SYNTAXES)}"
        )
    uses_index = "{index}" in " ".join([*spec.argv, *spec.env.values()])
    if uses_index and not spec.index_argv:
        raise BenchError(f"tool {name}: argv or env uses {{index}} but no index_argv builds it")
    return spec


def _check_session(spec: ToolSpec) -> None:
    if ("{session}" in " ".join(spec.argv)) != (spec.session_argv is not None):
        raise BenchError(
            f"tool {spec.name}: argv uses {{session}} exactly when session_argv starts one; "
            "give both or neither"
        )


def _check_runnable(spec: ToolSpec) -> None:
    """Its query template, its env and its build pin. An `unavailable` entry never runs: its
    argv records what was tried and may have no safe place for the query (srgn: `--` starts
    its replacement, not the end of its options)."""
    if spec.unavailable is None:
        validate_query_template(spec.name, spec.argv, spec.query_guard)
    _check_env(spec)
    if spec.build is not None:
        check_pin(spec.name, spec.build)


def _check_env(spec: ToolSpec) -> None:
    for key, value in spec.env.items():
        for placeholder in re.findall(r"{[a-z_]+}", value):
            if placeholder not in ENV_PLACEHOLDERS:
                raise BenchError(
                    f"tool {spec.name}: env {key} holds {placeholder}; an env value may hold "
                    f"only {' and '.join(ENV_PLACEHOLDERS)}"
                )


def load_tools(path: str | os.PathLike) -> dict[str, ToolSpec]:
    """Read the tools file (a mapping under `tools:`) into ToolSpecs, sorted by name."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    tools = data.get("tools")
    if not isinstance(tools, dict) or not tools:
        raise BenchError(f"{path}: expected a non-empty mapping under `tools:`")
    return {name: _spec_from_entry(name, tools[name] or {}) for name in sorted(tools)}


def _which(binary: str, path_env: str | None) -> str | None:
    if os.path.isabs(binary):
        ok = os.path.isfile(binary) and os.access(binary, os.X_OK)
        return binary if ok else None
    found = shutil.which(binary, path=path_env)
    return os.path.abspath(found) if found else None


def first_version_line(argv: list[str]) -> str:
    """First non-empty line a version command prints (stdout, else stderr); never raises.

    rg/ugrep/ag/git/grep/ctags answer `--version`; busybox answers `--version` with an error but
    prints a `BusyBox v1.35.0 ...` banner when run bare (version_argv: ["{binary}"]); readtags has
    no version flag, so its entry asks the ctags binary of the same package.
    """
    try:
        proc = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({type(exc).__name__})"
    for stream in (proc.stdout, proc.stderr):
        for line in stream.decode("utf-8", "replace").splitlines():
            if line.strip():
                return line.strip()
    return f"unknown (exit {proc.returncode}, no output)"


def version_lines(argvs: list[tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    """first_version_line of each distinct command, run side by side: every Snakemake start
    resolves the tools (Slurm jobs and dry runs too), and the slowest version commands
    start a Python language server (1.2 s each); hay's five variants ask one binary."""
    distinct = sorted(set(argvs))
    if not distinct:
        return {}
    with ThreadPoolExecutor(max_workers=min(len(distinct), os.cpu_count() or 1)) as pool:
        lines = pool.map(lambda argv: first_version_line(list(argv)), distinct)
        return dict(zip(distinct, lines, strict=True))


def _built(
    spec: ToolSpec, tools_dir: Path, path_env: str | None
) -> tuple[str | None, str | None, str, str]:
    """A built tool's binary and index binary (the build's files), or why it is skipped."""
    assert spec.build is not None
    state = build_state({"build": spec.build, "unavailable": spec.unavailable}, tools_dir, path_env)
    if state.status not in (BUILT, PENDING):
        return None, None, state.reason, ""
    binary = binary_path(tools_dir, spec.build, spec.binary)
    # An index_binary in this repository's bin/ (lsp-symbol, the language servers' client:
    # gopls is built) is ours, never a file of the build.
    own = _which(spec.index_binary, str(REPO_BIN)) if spec.index_binary else None
    index_binary = own or (
        binary_path(tools_dir, spec.build, spec.index_binary) if spec.index_binary else None
    )
    if state.status == BUILT:
        manifest = read_manifest(tools_dir / build_name(spec.build) / "manifest.json") or {}
        for path in filter(None, (binary, None if own else index_binary)):
            problem = check_built_binary(path, manifest)
            if problem:
                return None, None, f"built binary: {problem}", ""
    return binary, index_binary, state.status, state.note or "built by the workflow"


def resolve_tools(
    specs: dict[str, ToolSpec],
    path_env: str | None = None,
    tools_dir: Path = TOOLS_DIR,
    build_peers: bool = False,
) -> dict[str, ResolvedTool]:
    """Resolve every binary once; a missing required tool is a BenchError naming its fix.

    A built tool (`build:`) is skipped, never an error, unless build_peers (the
    configuration's `build_peers`) is on; also when its toolchain is missing, its build failed
    or its entry is `unavailable`; before its build it is `pending`: available,
    with its binary's path but no version or sha256 yet (tool_identity does not use them)."""
    resolved: dict[str, ResolvedTool] = {}
    asked: list[tuple[str, str, str | None, str, tuple[str, ...]]] = []
    for name in sorted(specs):
        spec = specs[name]
        if spec.unavailable is not None or spec.build is not None:
            if spec.build is None or (spec.unavailable is None and not build_peers):
                why = spec.unavailable or "not built: build_peers is off in this configuration"
                resolved[name] = ResolvedTool(spec, None, "", "", None, "", False, why)
                continue
            binary, index_binary, state, built = _built(spec, tools_dir, path_env)
            if binary is None:
                resolved[name] = ResolvedTool(spec, None, "", "", None, "", False, state)
                continue
            if state == PENDING:
                resolved[name] = ResolvedTool(spec, binary, "", "", index_binary, "", True, "")
                continue
        else:
            binary = _which(spec.binary, path_env)
            index_binary = _which(spec.index_binary, path_env) if spec.index_binary else None
            built = ""
        missing = spec.binary if binary is None else None
        if missing is None and spec.index_binary and index_binary is None:
            missing = spec.index_binary
        if missing is not None:
            where = f"at {missing}" if os.sep in missing else "on PATH"
            if not spec.optional:
                raise BenchError(
                    f"tool {name}: binary `{missing}` not found {where}; install it "
                    f"({spec.install_hint or 'see config/tools.yaml'}) or remove the tool"
                )
            resolved[name] = ResolvedTool(
                spec, binary, "", "", index_binary, "", False, f"`{missing}` not found {where}"
            )
            continue
        version_argv = [
            a.replace("{binary}", binary).replace("{index_binary}", index_binary or "")
            for a in spec.version_argv
        ]
        asked.append((name, binary, index_binary, built, tuple(version_argv)))
    lines = version_lines([argv for *_, argv in asked])
    for name, binary, index_binary, built, argv in asked:
        resolved[name] = _identified(specs[name], binary, index_binary, built, lines[argv])
    return dict(sorted(resolved.items()))


# The variable in which a run's own Snakemake leaves its resolution for the Snakemake each
# Slurm job starts (twice a job, `sbatch --export=ALL`): resolving there again reruns every
# version command and hashes every binary (about 2.0 CPU-s a start on the default tools with
# the peers built), and the job is to run the tool the run planned with anyway.
RESOLUTION_ENV = "SEARCHBENCH_TOOL_RESOLUTION"
_RESOLVED_FIELDS = tuple(f for f in ResolvedTool.__dataclass_fields__ if f != "spec")


def resolution_key(
    tools: dict, path_env: str | None, build_peers: bool, tools_dir: Path = TOOLS_DIR
) -> str:
    """What a resolution depends on: the tools mapping, the search path, whether peers are
    built and where (a job whose key differs resolves anew)."""
    inputs = [tools, path_env, build_peers, os.path.abspath(tools_dir)]
    text = json.dumps(inputs, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def resolution_text(resolved: dict[str, ResolvedTool], key: str) -> str:
    """A resolution as one line of JSON (the spec is left out: the job has the same mapping)."""
    tools = {
        name: {f: getattr(tool, f) for f in _RESOLVED_FIELDS} for name, tool in resolved.items()
    }
    return json.dumps({"key": key, "tools": tools}, sort_keys=True)


def resolution_from_text(
    text: str, specs: dict[str, ToolSpec], key: str
) -> dict[str, ResolvedTool] | None:
    """The resolution resolution_text wrote for these specs under this key; None when there is
    none, it is unreadable, or it was made for other tools, another path or another folder."""
    try:
        found = json.loads(text)
        if found["key"] != key or set(found["tools"]) != set(specs):
            return None
        return {
            name: ResolvedTool(
                spec=specs[name], **{f: found["tools"][name][f] for f in _RESOLVED_FIELDS}
            )
            for name in sorted(specs)
        }
    except (ValueError, KeyError, TypeError):
        return None


def _identified(
    spec: ToolSpec, binary: str, index_binary: str | None, built: str, version: str
) -> ResolvedTool:
    """A found binary with its version line; one that is not the program meant is an error
    unless the tool is optional or built."""
    target = os.path.realpath(binary)
    wrong = identity_problem(spec, binary, target, version)
    if wrong and not spec.optional and spec.build is None:
        raise BenchError(wrong)
    return ResolvedTool(
        spec=spec,
        binary_path=binary,
        version=version,
        sha256=file_sha256(binary),
        index_binary_path=index_binary,
        index_sha256=file_sha256(index_binary) if index_binary else "",
        available=not wrong,
        skipped_reason=wrong,
        binary_target=target,
        built=built,
    )


def identity_problem(spec: ToolSpec, binary: str, target: str, version: str) -> str:
    """Why the binary found is not the program the entry means ("" when it is)."""
    if spec.version_match is None or re.search(spec.version_match, version):
        return ""
    named = binary if target == binary else f"{binary} (-> {target})"
    return (
        f"tool {spec.name}: {named} says {version!r}, which does not match version_match "
        f"{spec.version_match!r}; it is another program: put the right one first on PATH or "
        "set `binary` in the tools file"
    )


# Spec fields a record carries as configured; `binary` and `index_binary` hold the resolved
# paths instead, so every spec key reaches the jobs (a key missing here was silently reset to
# its default in every search: ugrep's fast_path_bare_names, ag's fast_path_pad).
_SPEC_FIELDS = tuple(
    f for f in ToolSpec.__dataclass_fields__ if f not in ("name", "binary", "index_binary")
)


def tool_record(tool: ResolvedTool) -> dict:
    """The results/tools.json entry of one tool: every spec field, and what it resolved to."""
    spec = asdict(tool.spec)
    return {
        **{key: spec[key] for key in _SPEC_FIELDS},
        "name": tool.spec.name,
        "binary": tool.binary_path,
        "version": tool.version,
        "sha256": tool.sha256,
        "index_binary": tool.index_binary_path,
        "index_sha256": tool.index_sha256,
        "available": tool.available,
        "skipped_reason": tool.skipped_reason,
        "binary_target": tool.binary_target,
        "built": tool.built,
    }


def write_tools_json(tools: dict[str, ResolvedTool], path: str | os.PathLike) -> None:
    """Write results/tools.json (keys sorted, atomically)."""
    payload = {name: tool_record(tools[name]) for name in sorted(tools)}
    write_json(path, payload)


def tool_from_record(name: str, rec: dict) -> ResolvedTool:
    """One record of results/tools.json (or results/tools/{tool}.json) as a ResolvedTool."""
    spec = ToolSpec(
        name=name,
        binary=rec["binary"] or "",
        index_binary=rec["index_binary"],
        **{key: rec[key] for key in _SPEC_FIELDS if key in rec},
    )
    return ResolvedTool(
        spec=spec,
        binary_path=rec["binary"],
        version=rec["version"],
        sha256=rec["sha256"],
        index_binary_path=rec["index_binary"],
        index_sha256=rec["index_sha256"],
        available=rec["available"],
        skipped_reason=rec["skipped_reason"],
        binary_target=rec.get("binary_target", ""),
        built=rec.get("built", ""),
    )


def read_tools_json(path: str | os.PathLike) -> dict[str, ResolvedTool]:
    """Read results/tools.json back into ResolvedTools."""
    data = read_json(path)
    return {name: tool_from_record(name, data[name]) for name in sorted(data)}


def write_tool_json(tool: ResolvedTool, path: str | os.PathLike) -> None:
    """Write one tool's record (results/tools/{tool}.json), keys sorted, atomically."""
    write_json(path, tool_record(tool))


def read_tool_json(path: str | os.PathLike) -> ResolvedTool:
    """Read one tool's record (results/tools/{tool}.json)."""
    rec = read_json(path)
    return tool_from_record(rec["name"], rec)


def combine_tool_records(
    paths: list[str | os.PathLike],
    path: str | os.PathLike,
    skipped_path: str | os.PathLike | None = None,
) -> None:
    """Write results/tools.json, every tool's record keyed by name, from the per-tool files,
    and results/tools_skipped.tsv: `tool reason` of each one not available, sorted by tool."""
    records = [read_json(p) for p in paths]
    payload = {rec["name"]: rec for rec in records}
    write_json(path, payload)
    if skipped_path is not None:
        rows = [
            (name, " ".join(str(rec.get("skipped_reason") or "").split()))
            for name, rec in sorted(payload.items())
            if not rec.get("available", True)
        ]
        write_text(skipped_path, tsv_text(SKIPPED_COLUMNS, rows))


SKIPPED_COLUMNS = ("tool", "reason")


# Spec fields that change how results are read or which jobs exist, never what a run does:
# editing one reruns no search (the inference and report, which read them, rerun on their own
# params and inputs; `tracks` only adds or drops a track's jobs).
READING_ONLY = frozenset({"ablation_of", "tracks"})


def tool_identity(tool: ResolvedTool, build_peers: bool = True) -> dict:
    """What a tool is, for deciding whether its runs are out of date: its spec, the real file
    of each binary (a symlink or another PATH order naming the same file is the same tool), their
    sha256 and the version line (hay's carries a hash of its ranking code)."""

    def real(path: str | None) -> str | None:
        return os.path.realpath(path) if path else None

    spec = {k: v for k, v in asdict(tool.spec).items() if k not in READING_ONLY}
    if tool.spec.build is not None:
        # A built tool is its pin (in spec) and where it is built: the same before the build
        # (pending, nothing to hash yet) and after, so the build reruns none of its jobs. The
        # manifest records the sha256 and resolve_tool checks the binary against it.
        # Its path as built, links not followed: a pip build's bin/python is a link to the
        # base interpreter that exists only after the build.
        return {
            "spec": spec,
            "binary": os.path.abspath(tool.binary_path) if tool.binary_path else None,
            "index_binary": real(tool.index_binary_path),
            "available": tool.available,
            "build_peers": build_peers,
        }
    return {
        "spec": spec,
        "binary": real(tool.binary_path),
        "sha256": tool.sha256,
        "index_binary": real(tool.index_binary_path),
        "index_sha256": tool.index_sha256,
        "version": tool.version,
        "available": tool.available,
    }


def expand_argv(
    template: list[str],
    binary: str,
    query: str | None = None,
    index: str | None = None,
    word: bool = False,
    word_argv: list[str] | tuple[str, ...] = (),
    index_binary: str | None = None,
    session: str | None = None,
    timeout: float | None = None,
) -> list[str]:
    """Fill a template. `{word}` is a whole element: word_argv when word=True, else dropped.
    `{timeout}` is the search's timeout less a tenth, in seconds: a session's own budget for a
    question ends before the runner's does.

    Each placeholder is replaced in one pass per element, so a query containing `{index}` or
    `{binary}` stays literal.
    """
    values = {
        "{binary}": binary,
        "{query}": query,
        "{index}": index,
        "{index_binary}": index_binary,
        "{session}": session,
        "{timeout}": None if timeout is None else f"{timeout * 0.9:.3f}",
    }
    out: list[str] = []
    for element in template:
        if element == "{word}":
            if word:
                out.extend(word_argv)
            continue
        out.append(_fill(element, values))
    return out


@functools.lru_cache(maxsize=64)
def _placeholders(keys: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, keys)))


def _fill(element: str, values: dict[str, str | None]) -> str:
    """Every placeholder of the element replaced in one left-to-right pass (a filled value is
    never scanned again). A regular expression, not a loop over characters: argv is filled
    for every search, 16 elements a query."""
    if "{" not in element:
        return element

    def value_of(match: re.Match[str]) -> str:
        value = values[match.group()]
        if value is None:
            raise BenchError(f"argv element {element!r} needs {match.group()} but none was given")
        return value

    return _placeholders(tuple(values)).sub(value_of, element)


def expand_env(env: dict[str, str], root: str, index: str | None = None) -> dict[str, str]:
    """A tool's `env` with `{root}` (the corpus root's real path: GNU Global wants it absolute)
    and `{index}` (the index directory) filled, each in one pass."""
    values = {"{index}": index, "{root}": os.path.realpath(root)}
    return {key: _fill(value, values) for key, value in env.items()}


def tool_search_path(repo_bin: str | os.PathLike, path_env: str | None = None) -> str:
    """Where binaries are looked up: the repository's bin/ (hay's launcher), then the folder
    of the running interpreter (the venv's rg and ast-grep, even when the venv is not on
    PATH, as with `.venv/bin/snakemake`), then PATH."""
    rest = os.environ.get("PATH", "") if path_env is None else path_env
    return os.pathsep.join([os.fspath(repo_bin), os.path.dirname(sys.executable), rest])


def specs_from_mapping(tools: dict) -> dict[str, ToolSpec]:
    """ToolSpecs from the `tools` mapping of a loaded configuration, sorted by name."""
    return {name: _spec_from_entry(name, tools[name] or {}) for name in sorted(tools)}
