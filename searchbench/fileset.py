"""The file list of a corpus (files.tsv): every file and symlink, its size, kind and language.

kind is `text`, `binary` (a NUL byte within the first 8192 bytes, as git decides) or
`symlink` (listed, never followed). language comes from the file name's last dot-suffix via
config/languages.yaml: a parsed language, `unparsed-source`, or `-`. It is a property of the
name, so a binary file or a symlink named `x.c` is still `c`; users of the list filter on kind.
Where the name says nothing, a text file starting with `#!` (a script: bin/tool, configure)
is `unparsed-source`: it may declare names the parser never sees.
"""

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import yaml

from searchbench.artifacts import tsv_rows, tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.paths import decode_path, encode_path

FILES_HEADER = ("path", "bytes", "kind", "language")
KINDS = ("text", "binary", "symlink")
UNPARSED = "unparsed-source"
NO_LANGUAGE = "-"
BINARY_SNIFF_BYTES = 8192


@dataclass(frozen=True, order=True)
class FileEntry:
    """One corpus entry. path is relative, '/'-separated, str with surrogateescape."""

    path: str
    bytes: int
    kind: str
    language: str


def load_languages(path: Path) -> dict:
    """Read config/languages.yaml (`parsed` map and `unparsed_source_extensions` list)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as exc:
        raise BenchError(f"cannot read languages file {path}: {exc.strerror}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("parsed"), dict):
        raise BenchError(f"languages file {path} has no `parsed` mapping of languages")
    return data


def extension_map(languages: dict) -> dict[str, str]:
    """Map each extension (without dot) to its language; parsed languages win."""
    mapping = {ext: UNPARSED for ext in languages.get("unparsed_source_extensions") or []}
    for language in sorted(languages.get("parsed") or {}):
        for ext in languages["parsed"][language].get("extensions") or []:
            mapping[str(ext)] = language
    return {str(ext): lang for ext, lang in mapping.items()}


def extension_of(name: str) -> str:
    """The last dot-suffix of the last path component ('' for none or a leading dot only)."""
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot + 1 :] if dot > 0 else ""


def language_of(relpath: str | bytes, languages: dict) -> str:
    """The language of a corpus path by its extension (case-sensitive)."""
    name = os.fsdecode(relpath)
    return extension_map(languages).get(extension_of(name), NO_LANGUAGE)


def _head(path: bytes) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(BINARY_SNIFF_BYTES)


def content_language(name_language: str, kind: str, head: bytes) -> str:
    """A text file the name gives no language but whose first line is a shebang is a script."""
    if name_language == NO_LANGUAGE and kind == "text" and head.startswith(b"#!"):
        return UNPARSED
    return name_language


def tree_names(root: str | os.PathLike) -> frozenset[bytes]:
    """The relative paths of the regular files and symlinks under root (links not followed),
    as scan_files lists them, without reading any file."""
    top = os.fsencode(root)
    names = set()
    for dirpath, _dirnames, filenames in os.walk(top, followlinks=False):
        for name in filenames:
            full = os.path.join(dirpath, name)
            mode = os.lstat(full).st_mode
            if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                names.add(os.path.relpath(full, top))
    return frozenset(names)


def scan_files(root: Path, languages: dict) -> list[FileEntry]:
    """List regular files and symlinks under root (links not followed), sorted by raw path."""
    extmap = extension_map(languages)
    top = os.fsencode(root)
    found: list[tuple[bytes, FileEntry]] = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                kind = "symlink"
            elif stat.S_ISREG(info.st_mode):
                head = _head(full)
                kind = "binary" if b"\0" in head else "text"
            else:
                continue  # directories are walked; fifos, sockets and devices are not files
            rel = os.path.relpath(full, top)
            rel_str = os.fsdecode(rel)
            language = extmap.get(extension_of(rel_str), NO_LANGUAGE)
            if kind == "text":
                language = content_language(language, kind, head)
            found.append((rel, FileEntry(rel_str, info.st_size, kind, language)))
    found.sort(key=lambda item: item[0])
    return [entry for _, entry in found]


def format_files_tsv(entries: list[FileEntry]) -> str:
    """files.tsv text: header, then one encoded row per entry, sorted by raw path bytes."""
    ordered = sorted(entries, key=lambda e: os.fsencode(e.path))
    rows = ((encode_path(e.path), e.bytes, e.kind, e.language) for e in ordered)
    return tsv_text(FILES_HEADER, rows)


def write_files_tsv(entries: list[FileEntry], path: Path) -> None:
    """Write files.tsv atomically (temp file in the same folder, then rename)."""
    write_text(path, format_files_tsv(entries))


def read_files_tsv(path: Path) -> list[FileEntry]:
    """Read files.tsv back; paths are decoded (os.fsencode gives the original bytes)."""
    entries = []
    for number, fields in tsv_rows(path, FILES_HEADER):
        if fields[2] not in KINDS or not fields[1].isdigit():
            raise BenchError(f"{path} line {number} is malformed: {fields!r}")
        entries.append(FileEntry(decode_path(fields[0]), int(fields[1]), fields[2], fields[3]))
    return entries
