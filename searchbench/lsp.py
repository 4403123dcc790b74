"""A small Language Server Protocol client: JSON-RPC over a server's stdin/stdout.

bin/lsp-symbol runs one `workspace/symbol` request per process with it (config/tools.yaml,
family language-server). Why not a library: pygls's client is asyncio-based and brings pygls,
lsprotocol and cattrs; multilspy downloads its servers at run time. What is needed is the base
protocol (Content-Length framed JSON), a request/response loop with deadlines, answers to the
few requests servers send the client, and progress tracking to know when a server is ready.
"""

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote_to_bytes, urlparse

READ_SIZE = 1 << 16


class LspError(Exception):
    """The server died, broke the protocol, answered with an error or ran out of time."""


class LspTimeout(LspError):
    pass


def encode(message: dict[str, Any]) -> bytes:
    """One base-protocol frame: `Content-Length: N\\r\\n\\r\\n` and N bytes of UTF-8 JSON."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class FrameReader:
    """Splits a byte stream into JSON messages (headers other than Content-Length ignored)."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self.buffer += data
        messages = []
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return messages
            length = None
            for line in self.buffer[:end].split(b"\r\n"):
                key, _, value = line.partition(b":")
                if key.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length is None:
                raise LspError(f"frame without Content-Length: {self.buffer[:end]!r}")
            start = end + 4
            if len(self.buffer) < start + length:
                return messages
            body = self.buffer[start : start + length]
            self.buffer = self.buffer[start + length :]
            try:
                messages.append(json.loads(body))
            except ValueError as err:
                raise LspError(f"body is not JSON: {body[:200]!r}") from err


def path_to_uri(path: str | os.PathLike) -> str:
    """A file: URI of the path's bytes: a name that is not UTF-8 (a str with surrogate
    escapes) is percent-encoded byte by byte (quote of the str raised UnicodeEncodeError)."""
    return "file://" + quote(os.fsencode(os.path.realpath(path)))


def uri_to_path(uri: str) -> str | None:
    """The local path a file: URI names (its bytes, surrogate-escaped where not UTF-8),
    None for any other scheme."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    raw = unquote_to_bytes(parsed.path)
    # tsserver reads our `caf%E9.ts` (not UTF-8 once decoded) as a literal name and sends it
    # back encoded again (`caf%25E9.ts`): the file is the one the second decoding names.
    if not os.path.lexists(raw) and b"%" in raw and os.path.lexists(unquote_to_bytes(raw)):
        raw = unquote_to_bytes(raw)
    return os.fsdecode(raw)


class Client:
    """A language server started as a child process (in our process group, so a kill of the
    group by the runner takes it along), spoken to over its stdin/stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str,
        env: dict[str, str] | None = None,
        stderr: Any = subprocess.DEVNULL,
    ) -> None:
        try:
            self.proc = subprocess.Popen(
                list(argv), cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr,
            )  # fmt: skip
        except OSError as err:
            raise LspError(f"cannot start {argv[0]}: {err.strerror}") from err
        self.reader = FrameReader()
        self.pending: list[dict[str, Any]] = []
        self.next_id = 0
        self.progress_active: set[Any] = set()
        self.opened: set[str] = set()
        self.progress_seen = 0
        self.last_activity = time.monotonic()
        # answers to requests the server sends us: method -> params -> result
        self.handlers: dict[str, Callable[[Any], Any]] = {
            "window/workDoneProgress/create": lambda params: None,
            "client/registerCapability": lambda params: None,
            "client/unregisterCapability": lambda params: None,
            "window/showMessageRequest": lambda params: None,
            "workspace/configuration": lambda params: [None] * len(params.get("items", [])),
            "workspace/workspaceFolders": lambda params: None,
        }

    # -- sending ---------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", **message}
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(encode(message))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as err:
            raise LspError(f"server closed its input ({self._exit_note()})") from err

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"method": method, **({} if params is None else {"params": params})})

    def request(self, method: str, params: Any, deadline: float) -> Any:
        """Send a request and return its result, serving the server's own requests meanwhile."""
        self.next_id += 1
        ident = self.next_id
        self._send({"id": ident, "method": method, "params": params})
        while True:
            for i, message in enumerate(self.pending):
                if message.get("id") == ident and "method" not in message:
                    del self.pending[i]
                    if "error" in message:
                        err = message["error"]
                        raise LspError(f"{method}: error {err.get('code')}: {err.get('message')}")
                    return message.get("result")
            self._pump(deadline, what=method)

    # -- receiving -------------------------------------------------------------------------
    def _exit_note(self) -> str:
        code = self.proc.poll()
        return "still running" if code is None else f"exit {code}"

    def _pump(self, deadline: float, what: str) -> bool:
        """Read what the server sends until deadline; handle it. False on timeout."""
        assert self.proc.stdout is not None
        left = deadline - time.monotonic()
        if left <= 0:
            raise LspTimeout(f"{what}: no answer in time")
        ready, _, _ = select.select([self.proc.stdout], [], [], left)
        if not ready:
            raise LspTimeout(f"{what}: no answer in time")
        data = os.read(self.proc.stdout.fileno(), READ_SIZE)
        if not data:
            self.proc.wait()
            raise LspError(f"{what}: server closed its output ({self._exit_note()})")
        for message in self.reader.feed(data):
            self._handle(message)
        return True

    def _handle(self, message: dict[str, Any]) -> None:
        self.last_activity = time.monotonic()
        method = message.get("method")
        if method is None:
            self.pending.append(message)  # a response
            return
        if "id" in message:  # a request from the server
            handler = self.handlers.get(method)
            if handler is None:
                self._send(
                    {"id": message["id"], "error": {"code": -32601, "message": "not supported"}}
                )
            else:
                self._send({"id": message["id"], "result": handler(message.get("params") or {})})
            return
        if method == "$/progress":
            params = message.get("params") or {}
            kind = (params.get("value") or {}).get("kind")
            if kind == "begin":
                self.progress_active.add(params.get("token"))
                self.progress_seen += 1
            elif kind == "end":
                self.progress_active.discard(params.get("token"))

    def wait_ready(self, deadline: float, quiet: float, first: float) -> bool:
        """Wait until every work-done progress the server began has ended and it has been
        silent for `quiet` seconds; a server that began none gets `first` seconds to begin
        one. False when the deadline came first (the caller then asks anyway)."""
        start = time.monotonic()
        while True:
            now = time.monotonic()
            settled = not self.progress_active and now - self.last_activity >= quiet
            if settled and (self.progress_seen or now - start >= first):
                return True
            if now >= deadline:
                return False
            wake = min(deadline, self.last_activity + quiet, start + first)
            if self.progress_active or wake <= now:
                wake = min(deadline, now + quiet)
            try:
                self._pump(wake, what="waiting for the server")
            except LspTimeout:
                continue

    # -- lifecycle -------------------------------------------------------------------------
    def initialize(
        self, root: str, deadline: float, options: Any = None, name: str = "searchbench"
    ) -> Any:
        uri = path_to_uri(root)
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": name},
            "rootUri": uri,
            "rootPath": os.path.realpath(root),
            "workspaceFolders": [{"uri": uri, "name": Path(root).resolve().name}],
            "capabilities": {
                "window": {"workDoneProgress": True},
                "workspace": {
                    "symbol": {"dynamicRegistration": False},
                    "workspaceFolders": True,
                    "configuration": True,
                },
                "textDocument": {"synchronization": {"dynamicRegistration": False}},
            },
        }
        if options is not None:
            params["initializationOptions"] = options
        result = self.request("initialize", params, deadline)
        self.notify("initialized", {})
        return result

    def open(self, path: str, language: str) -> None:
        """textDocument/didOpen, once per file (a second open is a protocol error)."""
        if path in self.opened:
            return
        self.opened.add(path)
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        doc = {"uri": path_to_uri(path), "languageId": language, "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": doc})

    def shutdown(self, grace: float = 5.0) -> int | None:
        """shutdown, exit, then wait; past `grace` the server and its children are killed."""
        deadline = time.monotonic() + grace
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, deadline)
                self.notify("exit")
        except LspError:
            pass
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self) -> None:
        """Kill the server and every descendant it left (tsserver's node children)."""
        for pid in [self.proc.pid, *descendants(self.proc.pid)]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait()


def descendants(pid: int) -> list[int]:
    """Every live descendant of pid, from /proc (no psutil: bin/lsp-symbol runs without the
    venv's site-packages, as bin/hay does)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        parents.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def symbol_location(symbol: dict[str, Any]) -> tuple[str | None, int]:
    """(path, 1-based line) of a SymbolInformation or WorkspaceSymbol (line 1 when a
    WorkspaceSymbol carries no range)."""
    location = symbol.get("location") or {}
    path = uri_to_path(location.get("uri", ""))
    start = (location.get("range") or {}).get("start") or {}
    return path, int(start.get("line", 0)) + 1


# How a server names a symbol (--qualified, --declaration-names; default exact).
EXACT, QUALIFIED, DECLARATIONS = "exact", "qualified", "declarations"
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:::[A-Za-z_$][\w$]*)*")
_POINTER_NAME = re.compile(r"\(\s*\*+\s*([A-Za-z_$][\w$]*)\s*\)\s*\(")


def declared_name(declaration: str) -> str:
    """The name a whole declaration declares (ccls names a symbol by its declaration: `static
    int f(struct s *r)`, `struct s {}`, `int s::field`, `typedef long word_t`): the last
    identifier before the parameter list, array bounds or body, its last `::` part; for a
    function pointer `int (*f)(int)`, the pointer's name."""
    pointer = _POINTER_NAME.search(declaration)
    if pointer:
        return pointer.group(1)
    head = re.split(r"[([{=]", declaration, maxsplit=1)[0]
    names = _IDENTIFIER.findall(head)
    return names[-1].rsplit("::", 1)[-1] if names else declaration


def name_matches(name: str, query: str, names: str = EXACT) -> bool:
    """The server's name is the query exactly; QUALIFIED also takes `X.query` (gopls names
    methods and fields Type.Name and, by symbolStyle, prefixes a package); DECLARATIONS
    reads the name a whole declaration declares (declared_name)."""
    if names == DECLARATIONS:
        return declared_name(name) == query
    return name == query or (names == QUALIFIED and name.endswith("." + query))


def result_lines(
    symbols: list[dict[str, Any]] | None, query: str, root: str, names: str = EXACT
) -> tuple[list[bytes], int, int]:
    """grep-null lines (path NUL line ":" name) of the symbols named exactly `query`, in the
    server's order, paths relative to root; with the counts of symbols dropped because
    another name matched fuzzily and because they lie outside root (system headers,
    dependencies, bundled library stubs)."""
    real_root = os.path.realpath(root)
    lines: list[bytes] = []
    other_name = outside = 0
    for symbol in symbols or []:
        if not name_matches(str(symbol.get("name", "")), query, names):
            other_name += 1
            continue
        path, line = symbol_location(symbol)
        rel = relative_to_root(path, root, real_root) if path else None
        if rel is None:
            outside += 1
            continue
        name = str(symbol["name"]).replace("\n", " ")
        lines.append(os.fsencode(rel) + b"\0" + str(line).encode() + b":" + name.encode() + b"\n")
    return lines, other_name, outside


def relative_to_root(path: str, root: str, real_root: str) -> str | None:
    """path relative to the corpus root (as given, or its real path), None when outside."""
    for candidate, base in (
        (path, os.path.abspath(root)),
        (path, real_root),
        (os.path.realpath(path), real_root),
    ):
        rel = os.path.relpath(candidate, base)
        if rel != ".." and not rel.startswith("../"):
            return rel
    return None


# -- a build database clangd can have: every C/C++ file with default flags ------------------
C_SOURCES = (".c",)
CPP_SOURCES = (".cc", ".cpp", ".cxx", ".c++", ".C")
C_HEADERS = (".h",)
CPP_HEADERS = (".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tcc", ".inl")
INCLUDE_DIR_NAMES = ("include", "inc")


def corpus_files(root: str) -> list[str]:
    """Regular files under root, relative, sorted; symlinks not followed, .git skipped."""
    found = []
    for base, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in names:
            full = os.path.join(base, name)
            if os.path.isfile(full) and not os.path.islink(full):
                found.append(os.path.relpath(full, root))
    return sorted(found)


def compile_commands(root: str) -> list[dict[str, Any]]:
    """compile_commands.json entries for every C/C++ file under root (headers included, so
    clangd's background index, which indexes the database's entries, sees a header no source
    includes): `-xc`/`-xc++` (headers `-xc-header`/`-xc++-header`; a `.h` is C++ only in a
    tree with C++ sources and no C source), `-I` the root and every directory named include
    or inc. No configure step, no generated headers, no -D: clangd's fallback in all but
    name, on a database we can have for any tree."""
    real_root = os.path.realpath(root)
    files = corpus_files(real_root)
    suffixes = {os.path.splitext(f)[1] for f in files}
    cpp_tree = bool(suffixes & set(CPP_SOURCES)) and ".c" not in suffixes
    includes = [real_root] + [
        os.path.join(real_root, os.path.dirname(f))
        for f in files
        if os.path.basename(os.path.dirname(f)) in INCLUDE_DIR_NAMES
    ]
    flags = [f"-I{d}" for d in dict.fromkeys(includes)]
    entries = []
    for rel in files:
        suffix = os.path.splitext(rel)[1]
        if suffix in C_SOURCES:
            lang = "c"
        elif suffix in CPP_SOURCES:
            lang = "c++"
        elif suffix in C_HEADERS:
            lang = "c++-header" if cpp_tree else "c-header"
        elif suffix in CPP_HEADERS:
            lang = "c++-header"
        else:
            continue
        path = os.path.join(real_root, rel)
        entries.append(
            {
                "directory": real_root,
                "file": path,
                "arguments": ["clang", f"-x{lang}", *flags, "-fsyntax-only", path],
            }
        )
    return entries


# -- bin/lsp-symbol ------------------------------------------------------------------------
USAGE = """\
usage: lsp-symbol [options] --query NAME -- SERVER [ARG...]
       lsp-symbol [options] --index DIR -- SERVER [ARG...]
       lsp-symbol [options] --serve SOCKET -- SERVER [ARG...]
       lsp-symbol --connect SOCKET [--timeout S] --query NAME
       lsp-symbol --version -- COMMAND [ARG...]

Starts the language server SERVER in the working directory (the corpus root, its rootUri),
waits until it is ready, asks `workspace/symbol` for NAME and prints, in the server's order,
one line per symbol named exactly NAME inside the root: path NUL line ":" name (grep-null).
Exit 0 when a line was printed, 1 when none, 2 on a failure (server crash, protocol error,
timeout). The value after --query is the query whatever it looks like.

--index DIR       build mode: no query; wait until the server's work (its background index,
                  kept in DIR by the server's own arguments) ends, then shut it down
--compile-commands DIR  first write DIR/compile_commands.json for the C/C++ files of the root
--open-cdb-first DIR    open the first file of DIR/compile_commands.json (clangd loads its
                  database, and so its index, when a file is opened)
--open-first SUFFIX     open the first file (path order) with this suffix (tsserver answers
                  only for the projects of open files)
--open-all SUFFIX open every file with this suffix, in path order (a tree without a project
                  file: tsserver infers a project from the open files and their imports)
--language-id ID  languageId of the opened file (default from its suffix)
--init-options JSON     initializationOptions
--qualified       also keep names ending in `.NAME` (gopls qualifies methods and fields)
--declaration-names     the server names a symbol by its whole declaration (ccls: `static
                  int NAME(int x)`): keep those that declare NAME
--ccls-info       ready when ccls's $ccls/info says every file it enqueued is indexed (ccls
                  reports no progress)
--references      print where NAME is used instead: textDocument/references (declaration
                  excluded) at the first symbol named NAME inside the root
--ready-timeout S longest wait for the server to be ready (default 60); then it is asked
--quiet S         silence that counts as ready once its progress ended (default 0.5)
--first S         time a server that reports no progress gets to begin some (default 1)
--timeout S       the whole run's budget (default 120); with --serve and --connect, one
                  question's budget
--server-log FILE the server's stderr (default: discarded, so it never reads as our error)
--serve SOCKET    session mode: start the server once, print `ready S` (or `not-ready S`)
                  when it is ready, then answer each question a client sends to the Unix
                  socket SOCKET, one at a time, until a client asks it to stop. A question
                  the server fails or times out is answered as a failure and the server is
                  restarted for the next one.
--connect SOCKET  ask the session at SOCKET for NAME; print and exit as --query does
--stop            with --connect and no --query: ask the session to shut down
"""

LANGUAGE_IDS = {
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".py": "python",
    ".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".go": "go",
}  # fmt: skip


class UsageError(Exception):
    pass


def parse_args(argv: list[str]) -> dict[str, Any]:
    """The options (no argparse: `--query -rf` must read -rf as the query)."""
    opts: dict[str, Any] = {
        "query": None, "index": None, "compile_commands": None, "open_cdb_first": None,
        "open_first": None, "open_all": None, "language_id": None, "init_options": None,
        "qualified": False, "declaration_names": False, "ccls_info": False,
        "ready_timeout": 60.0, "quiet": 0.5, "first": 1.0, "timeout": 120.0,
        "server_log": None, "version": False, "server": [], "serve": None, "connect": None,
        "stop": False, "references": False,
    }  # fmt: skip
    valued = {
        "--query", "--index", "--compile-commands", "--open-cdb-first", "--open-first",
        "--open-all", "--language-id", "--init-options", "--ready-timeout", "--quiet", "--first",
        "--timeout", "--server-log", "--serve", "--connect",
    }  # fmt: skip
    floats = {"ready_timeout", "quiet", "first", "timeout"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            opts["server"] = argv[i + 1 :]
            break
        key = arg[2:].replace("-", "_")
        if arg in valued:
            if i + 1 >= len(argv):
                raise UsageError(f"{arg} needs a value")
            value: Any = argv[i + 1]
            if key in floats:
                value = float(value)
            elif key == "init_options":
                value = json.loads(value)
            opts[key] = value
            i += 2
        elif arg in (
            "--qualified", "--declaration-names", "--ccls-info", "--version", "--stop",
            "--references",
        ):  # fmt: skip
            opts[key] = True
            i += 1
        else:
            raise UsageError(f"unknown argument {arg!r}")
    return _checked(opts)


def _checked(opts: dict[str, Any]) -> dict[str, Any]:
    if opts["connect"] is not None:
        if opts["server"]:
            raise UsageError("--connect takes no server command: the session has it")
        if (opts["query"] is None) == (not opts["stop"]):
            raise UsageError("--connect needs exactly one of --query and --stop")
        return opts
    if not opts["server"]:
        raise UsageError("no server command after --")
    modes = [opts[key] is not None for key in ("query", "index", "serve")]
    if not opts["version"] and sum(modes) != 1:
        raise UsageError("give exactly one of --query, --index and --serve")
    return opts


def code_hash() -> str:
    """A hash of this module: a change to the client is a change of every LSP tool's version
    line (results/tools.json), as hay's version carries its ranking code's hash."""
    import hashlib

    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def version_line(command: list[str]) -> str:
    """`<the command's first output line> (lsp-symbol <hash>)`."""
    try:
        proc = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, timeout=30
        )  # fmt: skip
        out = (proc.stdout + b"\n" + proc.stderr).decode("utf-8", "replace")
        first = next((line.strip() for line in out.splitlines() if line.strip()), "unknown")
    except (OSError, subprocess.TimeoutExpired) as err:
        first = f"unknown ({type(err).__name__})"
    program = os.path.basename(command[0]) if command else "?"
    named = first if program in first else f"{program} {first}"
    return f"{named} (lsp-symbol {code_hash()})"


def first_with_suffix(root: str, suffix: str) -> str | None:
    for rel in corpus_files(root):
        if rel.endswith(suffix) and "node_modules/" not in rel:
            return os.path.join(root, rel)
    return None


def files_to_open(opts: dict[str, Any], root: str) -> list[str]:
    """The files a server must have open before it answers (clangd, tsserver); writes the
    fallback compile_commands.json first when asked."""
    if opts["open_all"]:
        return [
            os.path.join(root, rel)
            for rel in corpus_files(root)
            if rel.endswith(opts["open_all"]) and "node_modules/" not in rel
        ]
    first = file_to_open(opts, root)
    return [first] if first else []


def file_to_open(opts: dict[str, Any], root: str) -> str | None:
    """The one file a server must have open before it answers, or None."""
    if opts["compile_commands"]:
        cdb = Path(opts["compile_commands"]) / "compile_commands.json"
        cdb.parent.mkdir(parents=True, exist_ok=True)
        cdb.write_text(json.dumps(compile_commands(root), indent=1) + "\n", encoding="utf-8")
    if opts["open_cdb_first"]:
        cdb_path = Path(opts["open_cdb_first"]) / "compile_commands.json"
        if not cdb_path.is_file():
            # The index build wrote none (over its budget, failed): a server started anyway
            # would answer "nothing" to every query, a silent miss instead of an error.
            raise LspError(f"{cdb_path}: no compilation database; build the index first")
        entries = json.loads(cdb_path.read_text(encoding="utf-8"))
        sources = [e["file"] for e in entries if not e["arguments"][1].endswith("-header")]
        return (sources or [e["file"] for e in entries] or [None])[0]
    if opts["open_first"]:
        return first_with_suffix(root, opts["open_first"])
    return None


def start_server(opts: dict[str, Any], root: str, log: Any, deadline: float) -> tuple[Client, bool]:
    """A server initialized in root, its file opened, waited for until ready or deadline;
    (client, ready). The caller shuts it down."""
    to_open = files_to_open(opts, root)
    client = Client(opts["server"], root, stderr=log)
    try:
        client.initialize(root, deadline, opts["init_options"])
        for path in to_open:
            language = opts["language_id"] or LANGUAGE_IDS.get(Path(path).suffix, "plaintext")
            client.open(path, language)
        ready_by = min(deadline, time.monotonic() + opts["ready_timeout"])
        # An empty compilation database (a corpus without C or C++): clangd has nothing to
        # index and never begins progress, so waiting `first` for it is waiting for nothing
        # (300 s of an idle job slot per build, on every such corpus).
        first = 0.0 if opts["open_cdb_first"] and not to_open else opts["first"]
        if opts["ccls_info"]:
            return client, wait_ccls_indexed(client, ready_by)
        return client, client.wait_ready(ready_by, opts["quiet"], first)
    except BaseException:
        client.kill()
        raise


CCLS_POLL_SECONDS = 0.2


def ccls_indexed(info: Any) -> bool:
    """$ccls/info says the index is complete: every file it enqueued is done (and it enqueued
    some, unless its project has no entry: nothing to index)."""
    if not isinstance(info, dict):
        return False
    pipeline, project = info.get("pipeline"), info.get("project")
    if not isinstance(pipeline, dict) or not isinstance(project, dict):
        return False  # not the reply of a ccls that knows its project
    enqueued, completed = int(pipeline.get("enqueued", 0)), int(pipeline.get("completed", 0))
    return completed >= enqueued and (enqueued > 0 or int(project.get("entries", 0)) == 0)


def wait_ccls_indexed(client: Client, deadline: float) -> bool:
    """Ask $ccls/info until it says the index is complete; False when the deadline came."""
    while time.monotonic() < deadline:
        if ccls_indexed(client.request("$ccls/info", {}, deadline)):
            return True
        time.sleep(min(CCLS_POLL_SECONDS, max(0.0, deadline - time.monotonic())))
    return False


def ask(client: Client, query: str, root: str, names: str, deadline: float) -> list[bytes]:
    """The grep-null lines of one workspace/symbol question."""
    symbols = client.request("workspace/symbol", {"query": query}, deadline)
    return result_lines(symbols, query, root, names)[0]


def name_position(path: str, line: int, name: str, look: int = 50) -> tuple[int, int] | None:
    """(0-based line, UTF-16 column) of the first whole-word `name` at or below `line` (a
    SymbolInformation's range starts at its declaration, `def` or `class` included)."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    word = re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")
    for number in range(line, min(len(lines), line + look)):
        found = word.search(lines[number])
        if found:
            return number, len(lines[number][: found.start()].encode("utf-16-le")) // 2
    return None


def ask_references(
    client: Client, query: str, root: str, names: str, deadline: float
) -> list[bytes]:
    """Where `query` is used, as an LSP toolkit finds it from a name alone: the first symbol
    named `query` inside the root (workspace/symbol, the server's order), then
    textDocument/references at its name, declaration excluded; grep-null lines in the
    server's order. Nothing when the server lists no such symbol."""
    symbols = client.request("workspace/symbol", {"query": query}, deadline) or []
    real_root = os.path.realpath(root)
    for symbol in symbols:
        path, line = symbol_location(symbol)
        if not name_matches(str(symbol.get("name", "")), query, names) or path is None:
            continue
        if relative_to_root(path, root, real_root) is None:
            continue
        position = name_position(path, line - 1, query)
        if position is None:
            continue
        client.open(path, LANGUAGE_IDS.get(Path(path).suffix, "plaintext"))
        params = {
            "textDocument": {"uri": path_to_uri(path)},
            "position": {"line": position[0], "character": position[1]},
            "context": {"includeDeclaration": False},
        }
        locations = client.request("textDocument/references", params, deadline) or []
        return location_lines(locations, query, root, real_root)
    return []


def location_lines(
    locations: list[dict[str, Any]], name: str, root: str, real_root: str
) -> list[bytes]:
    """grep-null lines of Locations inside the root, in the order given."""
    lines = []
    for location in locations:
        path = uri_to_path(location.get("uri", ""))
        rel = relative_to_root(path, root, real_root) if path else None
        if rel is None:
            continue
        line = int(((location.get("range") or {}).get("start") or {}).get("line", 0)) + 1
        lines.append(os.fsencode(rel) + b"\0" + str(line).encode() + b":" + name.encode() + b"\n")
    return lines


def question(
    client: Client, opts: dict[str, Any], query: str, root: str, deadline: float
) -> list[bytes]:
    """One query's grep-null lines: its symbols, or with --references its uses."""
    asker = ask_references if opts["references"] else ask
    return asker(client, query, root, name_rule(opts), deadline)


def name_rule(opts: dict[str, Any]) -> str:
    if opts["declaration_names"]:
        return DECLARATIONS
    return QUALIFIED if opts["qualified"] else EXACT


def run(opts: dict[str, Any], root: str, out: Any, err: Any) -> int:
    start = time.monotonic()
    deadline = start + opts["timeout"]
    log = open(opts["server_log"], "ab") if opts["server_log"] else subprocess.DEVNULL  # noqa: SIM115
    try:
        client, ready = start_server(opts, root, log, deadline)
        try:
            if opts["index"] is not None:
                waited = time.monotonic() - start
                note = "ready" if ready else f"not ready after {opts['ready_timeout']:g} s"
                err.write(f"lsp-symbol: {note} ({waited:.2f} s)\n")
                return 0 if ready else 2
            lines = question(client, opts, opts["query"], root, deadline)
            for line in lines:
                out.write(line)
            out.flush()
            return 0 if lines else 1
        finally:
            client.shutdown(grace=max(1.0, min(5.0, deadline - time.monotonic())))
    finally:
        if log is not subprocess.DEVNULL:
            log.close()


# -- session mode: one server answers every question of a search job ----------------------
# A question and its answer are one JSON line each over a Unix socket, one connection per
# question. Paths travel as str with surrogate escapes, so a non-UTF-8 name survives.


def _recv_line(conn: socket.socket, limit: int = 1 << 26) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(READ_SIZE)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise LspError("message too long")
    return data


def _send_json(conn: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the runner may have killed a client past its time
        conn.sendall(json.dumps(message).encode("ascii") + b"\n")


class Server:
    """The session's language server, restarted after a failed question."""

    def __init__(self, opts: dict[str, Any], root: str, log: Any) -> None:
        self.opts, self.root, self.log = opts, root, log
        self.client: Client | None = None
        self.restarts = 0

    def start(self) -> bool:
        deadline = time.monotonic() + self.opts["ready_timeout"] + 30
        self.client, ready = start_server(self.opts, self.root, self.log, deadline)
        return ready

    def answer(self, query: str, budget: float) -> dict[str, Any]:
        budget = min(budget, self.opts["timeout"])
        try:
            if self.client is None:  # the last restart failed: try again, on this budget
                self.restarts += 1
                self.start()
            assert self.client is not None
            deadline = time.monotonic() + budget
            lines = question(self.client, self.opts, query, self.root, deadline)
        except LspError as problem:
            self.restart()
            return {"exit": 2, "error": str(problem)}
        text = b"".join(lines).decode("utf-8", "surrogateescape")
        return {"exit": 0 if lines else 1, "out": text}

    def restart(self) -> None:
        if self.client is not None:
            self.client.kill()
        self.client = None
        self.restarts += 1
        with contextlib.suppress(LspError):
            self.start()

    def stop(self) -> None:
        if self.client is not None:
            self.client.shutdown()


def serve(opts: dict[str, Any], root: str, out: Any, err: Any) -> int:
    """Start the server, say when it is ready, answer questions until told to stop."""
    log = open(opts["server_log"], "ab") if opts["server_log"] else subprocess.DEVNULL  # noqa: SIM115
    try:
        return serve_on(opts["serve"], Server(opts, root, log), out, err, "lsp-symbol")
    finally:
        if log is not subprocess.DEVNULL:
            log.close()


def serve_on(socket_path: str, server: Any, out: Any, err: Any, name: str) -> int:
    """The session loop any session server shares (lsp-symbol, semble-session): start it,
    print `ready S` or `not-ready S`, then answer one question a connection until a client
    asks to stop. server: start() -> bool, answer(query, budget) -> reply, stop(), restarts."""
    start = time.monotonic()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(4)
    try:
        try:
            ready = server.start()
        except LspError as problem:
            err.write(f"{name}: {problem}\n")
            ready = False
        out.write(f"{'ready' if ready else 'not-ready'} {time.monotonic() - start:.3f}\n")
        out.flush()
        while True:
            conn, _ = listener.accept()
            with conn:
                request = json.loads(_recv_line(conn) or b"{}")
                if request.get("stop"):
                    _send_json(conn, {"exit": 0, "restarts": server.restarts})
                    return 0
                reply = server.answer(str(request["query"]), float(request["budget"]))
                _send_json(conn, reply)
    finally:
        server.stop()
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(socket_path)


def connect(opts: dict[str, Any], out: Any, err: Any) -> int:
    """One question to a session (or, with --stop, its end); the session's answer printed."""
    request: dict[str, Any] = (
        {"stop": True} if opts["stop"] else {"query": opts["query"], "budget": opts["timeout"]}
    )
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(opts["connect"])
            conn.sendall(json.dumps(request).encode("ascii") + b"\n")
            reply = json.loads(_recv_line(conn) or b"{}")
    except (OSError, ValueError) as problem:
        raise LspError(f"no answer from the session at {opts['connect']}: {problem}") from problem
    if "exit" not in reply:
        raise LspError(f"the session at {opts['connect']} closed without an answer")
    out.write(reply.get("out", "").encode("utf-8", "surrogateescape"))
    out.flush()
    if reply.get("error"):
        err.write(f"lsp-symbol: {reply['error']}\n")
    return int(reply["exit"])


def main(argv: list[str] | None = None) -> int:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
    except (UsageError, ValueError) as problem:
        sys.stderr.write(f"lsp-symbol: {problem}\n{USAGE}")
        return 2
    if opts["version"]:
        print(version_line(opts["server"]))
        return 0
    try:
        if opts["connect"] is not None:
            return connect(opts, sys.stdout.buffer, sys.stderr)
        if opts["serve"] is not None:
            return serve(opts, os.getcwd(), sys.stdout, sys.stderr)
        return run(opts, os.getcwd(), sys.stdout.buffer, sys.stderr)
    except LspError as problem:
        sys.stderr.write(f"lsp-symbol: {problem}\n")
        return 2
