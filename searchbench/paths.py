"""Reversible encoding of corpus-relative paths for TSV fields and TREC docids.

TREC run and qrels fields cannot contain white space, and a TSV field cannot contain a tab
or a newline, but real corpora have such file names. We percent-encode exactly the bytes
that would break a field (white space, control characters, '%' itself, and bytes of names
that are not valid UTF-8), so ordinary paths stay readable and every path round-trips.
"""

import os
import re

_UNSAFE_ASCII = frozenset(range(0x21)) | {ord("%"), 0x7F}
_ESCAPE = re.compile(rb"%([0-9A-F]{2})")


def _to_bytes(path: str | bytes) -> bytes:
    return path if isinstance(path, bytes) else os.fsencode(path)


def encode_path(path: str | bytes) -> str:
    """Encode a relative path (str with surrogateescape, or raw bytes) into a safe token."""
    raw = _to_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"%{b:02X}" if b in _UNSAFE_ASCII or b >= 0x80 else chr(b) for b in raw)
    # Unicode white space (e.g. U+00A0) also splits fields in Python readers.
    return "".join(
        "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
        if ch == "%" or ch.isspace() or not ch.isprintable()
        else ch
        for ch in text
    )


def decode_path(token: str) -> str:
    """Invert encode_path; os.fsencode of the result gives the original bytes."""
    raw = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), token.encode("utf-8"))
    return os.fsdecode(raw)


def strip_dot_slash(path: bytes) -> bytes:
    """Tools print './a/b' or 'a/b' for the same file; docids use the latter."""
    while path.startswith(b"./"):
        path = path[2:]
    return path
