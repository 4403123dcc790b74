"""Read what a search tool prints into ordered match records (path, line, text), as a stream.

Formats (the `output` key of config/tools.yaml):
  grep-null     path NUL line ":" text   (rg --null, grep -Z, ugrep --null, hay --null)
  git-null      path NUL line NUL text   (git grep -n -z)
  grep          path ":" line ":" text   (busybox grep, ag: ag's --null only affects -l); a path
                may itself contain ":", so the split is resolved against the known corpus paths
  astgrep-json  one JSON object a line (ast-grep --json=stream); `file`, 0-based
                `range.start.line` (made 1-based here), `lines`
  ctags         readtags -e lines: name TAB path TAB pattern [TAB field...]; line from `line:`
  cscope        cscope -L lines: path SP function SP line SP text; the path may contain a
                space (a known path is preferred, as for `grep`), the function field holds the
                query itself when cscope read it as a regular expression
  probe-json    probe search --format json (probe-code 0.6.0): three header lines, then one
                pretty-printed JSON document, a block a result in ranked order; each block's
                `"file": "PATH",` line, then the first number of its `"lines": [START, END]`
                (the block's first line, not the match's): read by a small state machine
                (ProbeJson), since no single line holds both

A line that starts with the corpus root's absolute path (csearch prints the absolute paths its
index holds) is read with that prefix removed, so every tool's paths are relative to the root.

Binary-file notices, one rule for every tool: a notice that a binary file matches is not a
result. GNU grep writes it to stderr ("grep: X: binary file matches"), where it is never parsed;
ugrep, busybox and ag write "Binary file X matches" (ag adds a ".") to stdout, where it is
recognised and dropped: it is counted in `notices`, never as a match line, and its file never
enters the file list. Binary files are also kept out of every tool's file set by flags
(-I, rg's default) where the tool has such a flag (busybox has none).

File names that a line-based output cannot carry as they are, read back against the known
corpus paths (the file set, when the caller gives it):
- a name holding a newline is printed raw by every grep-style tool, so it arrives as lines
  that do not parse followed by one whose path is not in the corpus (`two` then
  `lines.c:1:x`); when rejoining the last such lines with "\n" gives a line whose path is
  known, that is the match and those lines are not counted as unparsed;
- ast-grep and probe (Rust, `to_string_lossy`) print a name that is not UTF-8 with U+FFFD in
  place of each bad byte; such a path that is not in the corpus is the one known path that
  prints alike (two that print alike stay as printed: they cannot be told apart).
Without known paths, or when neither applies, the path is kept as printed. The symbol pass
lists such files as unseen (`newline-in-name`, `name-not-utf8`), so none is ever an answer.
"""

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from searchbench.paths import strip_dot_slash

# A printed line longer than this is parsed from its first MAX_LINE bytes (memory stays bounded
# even for a single 1 GB line); its full length is still counted.
MAX_LINE = 1 << 20
_BINARY_NOTICE = re.compile(rb"^Binary file .* matches\.?$")
# Unparsed lines kept to rejoin a name holding newlines: at most this many, each at most
# PATH_MAX bytes (a longer line is not a piece of a path).
HELD_LINES = 8
HELD_BYTES = 4096
_REPLACEMENT = "\ufffd".encode()


class Match(NamedTuple):
    path: bytes
    line: int
    text: bytes


def is_binary_notice(line: bytes) -> bool:
    return _BINARY_NOTICE.match(line) is not None


def normalized_size(match: Match) -> int:
    """Bytes of the match as `path:line:text\\n`, the same rendering for every tool."""
    return len(match.path) + len(str(match.line)) + len(match.text) + 3


def _parse_null(line: bytes, sep: bytes) -> Match | None:
    path, nul, rest = line.partition(b"\0")
    if not nul:
        return None
    number, found, text = rest.partition(sep)
    if not found or not number.isdigit():
        return None
    return Match(strip_dot_slash(path), int(number), text)


def _parse_colon(line: bytes, known_paths: frozenset[bytes] | set[bytes] | None) -> Match | None:
    """Split at the first `:digits:` whose left side is a known path (else the first such)."""
    first: Match | None = None
    i = line.find(b":")
    while i >= 0:
        number, found, text = line[i + 1 :].partition(b":")
        if found and number.isdigit():
            candidate = Match(strip_dot_slash(line[:i]), int(number), text)
            if known_paths is None or candidate.path in known_paths:
                return candidate
            first = first or candidate
        i = line.find(b":", i + 1)
    return first


def _astgrep_head(line: bytes) -> dict:
    """The JSON object, or, for a record cut at MAX_LINE, its keys before `lines`.

    ast-grep prints text, range and file before the (possibly huge) source line, and the
    unescaped quotes of `,"lines":` can only occur between keys, never inside a string."""
    try:
        return json.loads(line)
    except ValueError:
        cut = line.find(b',"lines":')
        if cut < 0:
            raise
        return json.loads(line[:cut] + b"}")


def _parse_astgrep(line: bytes) -> Match | None:
    try:
        obj = _astgrep_head(line)
        path = obj["file"]
        number = int(obj["range"]["start"]["line"]) + 1
    except (ValueError, KeyError, TypeError):
        return None
    text = obj.get("lines", obj.get("text", ""))
    text = text.split("\n", 1)[0]
    return Match(
        strip_dot_slash(path.encode("utf-8", "surrogateescape")),
        number,
        text.encode("utf-8", "surrogateescape"),
    )


_CTAGS_ESCAPE = re.compile(rb"\\(x[0-9A-Fa-f]{2}|.)", re.DOTALL)
_CTAGS_CHARS = {
    b"t": b"\t",
    b"n": b"\n",
    b"r": b"\r",
    b"\\": b"\\",
    b"a": b"\a",
    b"b": b"\b",
    b"f": b"\f",
    b"v": b"\v",
}


def unescape_ctags(field: bytes) -> bytes:
    """Undo u-ctags' escapes in a tag-file field (\\t, \\n, \\r, \\\\, \\xHH, ...)."""

    def one(m: re.Match[bytes]) -> bytes:
        code = m.group(1)
        if len(code) == 3:
            return bytes([int(code[1:], 16)])
        return _CTAGS_CHARS.get(code, code)

    return _CTAGS_ESCAPE.sub(one, field)


def _parse_ctags(line: bytes) -> Match | None:
    fields = line.split(b"\t")
    if len(fields) < 3 or line.startswith(b"!_TAG_"):
        return None
    pattern = fields[2]
    number = 0
    for extra in fields[3:]:
        if extra.startswith(b"line:") and extra[5:].isdigit():
            number = int(extra[5:])
    if pattern.endswith(b';"'):
        pattern = pattern[:-2]
    if pattern.isdigit():
        number = number or int(pattern)
    elif pattern.startswith(b"/^") and pattern.endswith(b"$/"):
        pattern = pattern[2:-2]
    elif pattern.startswith(b"/^") and pattern.endswith(b"/"):
        pattern = pattern[2:-1]
    return Match(strip_dot_slash(unescape_ctags(fields[1])), number, pattern)


def _parse_cscope(line: bytes, known_paths: frozenset[bytes] | set[bytes] | None) -> Match | None:
    """`path function line text`: the path is the longest known path followed by a space
    (else the first field); the line number is the first all-digit field after the function."""
    starts = []
    i = line.find(b" ")
    while i >= 0:
        starts.append(i)
        i = line.find(b" ", i + 1)
    if not starts:
        return None
    cut = starts[0]
    if known_paths is not None:
        known = [i for i in starts if strip_dot_slash(line[:i]) in known_paths]
        cut = known[-1] if known else cut
    fields = line[cut + 1 :].split(b" ")
    for k in range(1, len(fields)):
        if fields[k].isdigit():
            return Match(strip_dot_slash(line[:cut]), int(fields[k]), b" ".join(fields[k + 1 :]))
    return None


class ProbeJson:
    """probe's pretty-printed JSON, read line by line: a block's path from its `"file"` line,
    its line from the number after the `"lines": [` line that follows. Its keys are printed
    sorted (`code`, `file`, ..., `lines`) and every string stays on one line (JSON escapes
    newlines), so no other line can be taken for these."""

    def __init__(self) -> None:
        self.path: bytes | None = None
        self.in_lines = False

    def step(self, line: bytes) -> Match | None:
        stripped = line.strip()
        if stripped.startswith(b'"file": "'):
            try:
                path = json.loads(stripped[len(b'"file": ') :].rstrip(b","))
            except ValueError:
                self.path = None
                return None
            self.path = strip_dot_slash(path.encode("utf-8", "surrogateescape"))
            self.in_lines = False
        elif stripped == b'"lines": [' and self.path is not None:
            self.in_lines = True
        elif self.in_lines and self.path is not None:
            number = stripped.rstrip(b",")
            path, self.path, self.in_lines = self.path, None, False
            if number.isdigit():
                return Match(path, int(number), b"")
        return None


# Formats whose records span lines: StreamParser reads them with a state machine; a single
# line alone (parse_line) never is a match.
STATEFUL = {"probe-json": ProbeJson}


# The one list of output formats: the tools config, its loader and the runner read it here.
LINE_PARSERS: dict[str, Callable[[bytes, frozenset[bytes] | set[bytes] | None], Match | None]] = {
    "grep-null": lambda line, _: _parse_null(line, b":"),
    "git-null": lambda line, _: _parse_null(line, b"\0"),
    "grep": _parse_colon,
    "astgrep-json": lambda line, _: _parse_astgrep(line),
    "ctags": lambda line, _: _parse_ctags(line),
    "cscope": _parse_cscope,
    "probe-json": lambda line, _: None,  # stateful: ProbeJson, through StreamParser
}
FORMATS = tuple(LINE_PARSERS)


def unknown_format(fmt: str) -> ValueError:
    return ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")


def parse_line(
    fmt: str, line: bytes, known_paths: frozenset[bytes] | set[bytes] | None = None
) -> Match | None:
    """One printed line (without its "\\n") -> a Match, or None if it is not a result."""
    if fmt not in LINE_PARSERS:
        raise unknown_format(fmt)
    return LINE_PARSERS[fmt](line, known_paths)


class StreamParser:
    """Feed raw stdout chunks; yields Matches in printed order with bounded memory.

    ast-grep prints one JSON object per match, so consecutive objects for the same (path, line)
    are one printed line; every other format prints each line once, and each counts.
    """

    def __init__(
        self, fmt: str, known_paths: Iterable[bytes] | None = None, root_prefix: bytes = b""
    ) -> None:
        if fmt not in FORMATS:
            raise unknown_format(fmt)
        self.fmt = fmt
        self.root_prefix = root_prefix
        self.known_paths = frozenset(known_paths) if known_paths is not None else None
        self.stdout_lines = 0
        self.stdout_bytes = 0
        self.notices = 0
        self.unparsed = 0
        self._pending = b""
        self._pending_len = 0
        self.last_size = 0
        self._last: tuple[bytes, int] | None = None
        self._state = STATEFUL[fmt]() if fmt in STATEFUL else None
        self._held: list[bytes] = []  # the unparsed lines just before (pieces of a name?)
        self._lossy: dict[bytes, bytes] | None = None  # printed alike -> known name

    def feed(self, chunk: bytes) -> Iterator[Match]:
        """Yield the Matches completed by this chunk; after each, `last_size` is its size."""
        self.stdout_bytes += len(chunk)
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            piece = chunk[start:end]
            if self._pending or self._pending_len:
                raw_len = self._pending_len + len(piece)
                line = (self._pending + piece)[:MAX_LINE]
                self._pending, self._pending_len = b"", 0
            else:
                raw_len, line = len(piece), piece[:MAX_LINE]
            yield from self._line(line, raw_len)
            start = end + 1
        rest = chunk[start:]
        if rest:
            room = MAX_LINE - len(self._pending)
            if room > 0:
                self._pending += rest[:room]
            self._pending_len += len(rest)

    def close(self) -> Iterator[Match]:
        if self._pending_len:
            line, raw_len = self._pending, self._pending_len
            self._pending, self._pending_len = b"", 0
            yield from self._line(line, raw_len)

    def _line(self, line: bytes, raw_len: int) -> Iterator[Match]:
        self.stdout_lines += 1
        if line.endswith(b"\r"):
            line = line[:-1]
        if self.root_prefix and line.startswith(self.root_prefix):
            line = line[len(self.root_prefix) :]
        if self._state is not None:
            # structure lines (headers, braces, other keys) are neither matches nor unparsed
            match = self._state.step(line)
            if match is None:
                return
        else:
            match = parse_line(self.fmt, line, self.known_paths)
        match = self._read_back(line, match)
        if match is None:
            if is_binary_notice(line):
                self.notices += 1
            elif line:
                self.unparsed += 1
                self._hold(line)
            return
        if self.fmt == "astgrep-json":
            key = (match.path, match.line)
            if key == self._last:
                return
            self._last = key
        # A line cut at MAX_LINE still counts with its full length.
        self.last_size = normalized_size(match) + max(0, raw_len - MAX_LINE)
        yield match

    def _hold(self, line: bytes) -> None:
        if len(line) > HELD_BYTES:
            self._held.clear()
            return
        self._held.append(line)
        del self._held[:-HELD_LINES]

    def _read_back(self, line: bytes, match: Match | None) -> Match | None:
        """The match with a path outside the known ones read back (module doc), else as
        printed; a match ends the run of held pieces."""
        if match is None:
            return None
        if self.known_paths is not None and match.path not in self.known_paths:
            match = self._recovered(line, match)
        self._held.clear()
        return match

    def _recovered(self, line: bytes, match: Match) -> Match:
        assert self.known_paths is not None
        for k in range(1, len(self._held) + 1):
            joined = parse_line(self.fmt, b"\n".join([*self._held[-k:], line]), self.known_paths)
            if joined is not None and joined.path in self.known_paths:
                self.unparsed -= k
                return joined
        if _REPLACEMENT in match.path:
            if self._lossy is None:
                self._lossy = lossy_names(self.known_paths)
            return match._replace(path=self._lossy.get(match.path, match.path))
        return match


def read_back_names(names: Iterable[bytes], known: frozenset[bytes] | set[bytes]) -> list[bytes]:
    """A file listing split at newlines, with the names read back as match paths are (module
    doc): consecutive pieces of a name holding a newline rejoined, a lossy name mapped to the
    one known name printing alike; any other name kept as listed, in order."""
    out: list[bytes] = []
    run = 0  # how many names at the end of `out` are unknown (pieces of a longer name?)
    lossy: dict[bytes, bytes] | None = None
    for name in names:
        if name in known:
            out.append(name)
            run = 0
            continue
        for k in range(1, min(run, HELD_LINES) + 1):
            joined = b"\n".join([*out[-k:], name])
            if joined in known:
                del out[-k:]
                out.append(joined)
                run = 0
                break
        else:
            if _REPLACEMENT in name:
                lossy = lossy_names(known) if lossy is None else lossy
                name = lossy.get(name, name)
            out.append(name)
            run = 0 if name in known else run + 1
    return out


def lossy_names(paths: Iterable[bytes]) -> dict[bytes, bytes]:
    """How Rust's to_string_lossy prints each path that is not UTF-8 -> that path, for the
    printed forms only one path has."""
    by_printed: dict[bytes, list[bytes]] = {}
    for path in paths:
        try:
            path.decode("utf-8")
        except UnicodeDecodeError:
            printed = path.decode("utf-8", "replace").encode("utf-8")
            by_printed.setdefault(printed, []).append(path)
    return {printed: names[0] for printed, names in by_printed.items() if len(names) == 1}


def parse_output(
    fmt: str, data: bytes, known_paths: Iterable[bytes] | None = None, root_prefix: bytes = b""
) -> list[Match]:
    """Parse a whole output at once (tests, small outputs)."""
    parser = StreamParser(fmt, known_paths, root_prefix)
    return [*parser.feed(data), *parser.close()]
