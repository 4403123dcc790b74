"""Read ripgrep's JSON stream, score every matching line, rank files by their best line.

hay ranks, it does not filter (docs/method.md §7): every line ripgrep reports is printed, grouped by
file, files in descending order of their best line score, ties by path bytes; lines within
a file in line order.

Speed: a `match` message is taken apart with one regex instead of a full JSON decode (its
keys come in a fixed order), and a JSON string is unescaped only when it holds an escape.
Anything the regex does not recognise falls back to `json.loads`.
"""

import re
from collections.abc import Iterable, Iterator

from searchbench.hay.signals import FileContext, Scorer, file_context

_MATCH = b'{"type":"match"'
_HEAD = b'{"type":"match","data":{"path":{"text":"'
_MID = b'"},"lines":{"text":"'
_TAIL = b'"},"line_number":'
_HEAD_LEN, _MID_LEN, _TAIL_LEN = len(_HEAD), len(_MID), len(_TAIL)
_STR = rb'"([^"\\]*(?:\\.[^"\\]*)*)"'
_RECORD_PATTERN = (
    rb'\{"type":"match","data":\{"path":\{"(text|bytes)":'
    + _STR
    + rb'\},"lines":\{"(text|bytes)":'
    + _STR
    + rb'\},"line_number":(\d+),'
)


class FileHits:
    """One file's matching lines: (line number, text without its `\\n`, score, signals)."""

    __slots__ = ("path", "best", "lines", "ctx")

    def __init__(self, path: bytes, ctx: FileContext):
        self.path, self.ctx = path, ctx
        self.best = -(10**9)
        self.lines: list[tuple[int, bytes, int, tuple[str, ...]]] = []


def _unescape(raw: bytes) -> bytes:
    """The bytes of a JSON string body as rg wrote it (rg writes UTF-8 as is and escapes
    only control characters, `"` and `\\`)."""
    if b"\\" not in raw:
        return raw
    if b"\\\\" not in raw:
        # Without an escaped backslash every backslash starts an escape: do the usual ones.
        raw2 = raw.replace(b"\\t", b"\t")
        if b"\\" not in raw2:
            return raw2
        raw2 = raw2.replace(b"\\n", b"\n").replace(b'\\"', b'"')
        if b"\\" not in raw2:
            return raw2
    import json

    return json.loads(b'"' + raw + b'"').encode("utf-8", "surrogatepass")


def _line_body(raw: bytes) -> bytes:
    """A matched line without its `\\n` line end (rg's JSON includes it, escaped)."""
    # the final `\\n` is an escape unless its backslash is itself escaped
    if raw.endswith(b"\\n") and (
        raw[-3:-2] != b"\\" or (len(raw) - 1 - len(raw[:-1].rstrip(b"\\"))) % 2
    ):
        raw = raw[:-2]
    return _unescape(raw)


def _field(kind: bytes, raw: bytes) -> bytes:
    if kind == b"text":
        return _unescape(raw)
    from base64 import b64decode

    return b64decode(raw)


def _parse(raw: bytes) -> tuple[bytes, bytes, int]:
    """(path, line text, line number) of one rg `match` message."""
    m = re.match(_RECORD_PATTERN, raw)  # compiled only when a line leaves the fast path
    if m is not None:
        pk, pv, lk, lv, num = m.groups()
        return _field(pk, pv), _field(lk, lv), int(num)
    import json
    from base64 import b64decode

    data = json.loads(raw)["data"]

    def get(obj: dict) -> bytes:
        if obj.get("text") is not None:
            return obj["text"].encode("utf-8", "surrogatepass")
        return b64decode(obj["bytes"])

    return get(data["path"]), get(data["lines"]), int(data["line_number"])


_SUMMARY_END = b'"type":"summary"}'


def collect(
    stream: Iterable[bytes], scorer: Scorer, keep_signals: bool = False
) -> dict[bytes, FileHits]:
    """Consume rg --json lines; keep, per file, each matching line and its score."""
    return collect_stream(stream, scorer, keep_signals)[0]


def collect_stream(
    stream: Iterable[bytes], scorer: Scorer, keep_signals: bool = False
) -> tuple[dict[bytes, FileHits], bool]:
    """collect, and whether the stream ended with rg's `summary` message (ripgrep always
    writes one last, match or not: a stream without it did not come from a working rg).

    Only `match` messages are read; `begin`/`end`/`summary` are skipped by prefix."""
    files: dict[bytes, FileHits] = {}
    current: FileHits | None = None
    last_raw_path = None
    other = b""  # the last message that is not a match
    switches = scorer.switches
    score = scorer.score
    for raw in stream:
        if not raw.startswith(_MATCH):
            other = raw
            continue
        # Fast path: `{"type":"match","data":{"path":{"text":"P"},"lines":{"text":"T"},
        # "line_number":N,...`. Inside P and T every `"` is escaped, so the markers below
        # cannot occur there.
        j = raw.find(_MID, _HEAD_LEN) if raw.startswith(_HEAD) else -1
        e = raw.find(_TAIL, j) if j >= 0 else -1
        if e >= 0:
            raw_path = raw[_HEAD_LEN:j]
            text = _line_body(raw[j + _MID_LEN : e])
            number = int(raw[e + _TAIL_LEN : raw.find(b",", e + _TAIL_LEN)])
            path = None
        else:
            path, text, number = _parse(raw)
            if text.endswith(b"\n"):
                text = text[:-1]
            raw_path = b"\0" + path  # never equal to a raw JSON path
        if raw_path != last_raw_path or current is None:
            if path is None:
                path = _unescape(raw_path)
            current = files.get(path)
            if current is None:
                current = files[path] = FileHits(path, file_context(path, switches))
            last_raw_path = raw_path
        s, fired = score(text.rstrip(b"\r"), current.ctx)
        if s > current.best:
            current.best = s
        current.lines.append((number, text, s, fired if keep_signals else ()))
        other = b""
    return files, other.rstrip().endswith(_SUMMARY_END)


def ranked(files: dict[bytes, FileHits]) -> list[FileHits]:
    """Files by best score (descending), then path bytes; lines by line number."""
    order = sorted(files.values(), key=lambda f: (-f.best, f.path))
    for f in order:
        f.lines.sort(key=lambda t: t[0])
    return order


def format_grep(order: list[FileHits], null: bool) -> Iterator[bytes]:
    """`path:line:text` (or `path\\0line:text`), one chunk per file."""
    sep = b"\0" if null else b":"
    for f in order:
        head = f.path + sep
        chunk = []
        for number, text, _score, _fired in f.lines:
            chunk.append(b"%s%d:%s\n" % (head, number, text))
        yield b"".join(chunk)


def format_json(order: list[FileHits]) -> Iterator[bytes]:
    """One JSON object per line, keys sorted: line, path, path_encoded, score, signals, text.

    `path` is the path as rg printed it when it is UTF-8; otherwise it is percent-encoded
    with searchbench.paths.encode_path and `path_encoded` is true. `text` is the line
    without its line end (invalid UTF-8 replaced by U+FFFD)."""
    import json

    from searchbench.paths import encode_path

    for f in order:
        try:
            path, encoded = f.path.decode("utf-8"), False
        except UnicodeDecodeError:
            path, encoded = encode_path(f.path), True
        for number, text, score, fired in f.lines:
            obj = {
                "line": number,
                "path": path,
                "path_encoded": encoded,
                "score": score,
                "signals": list(fired),
                "text": text.rstrip(b"\r").decode("utf-8", "replace"),
            }
            yield json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\n"
