"""Fetch a corpus at a pinned revision into a plain directory, safely and atomically.

Source kinds (config/schema/config.schema.yaml): git, deb, npm, pypi, local. Everything is
built in a temporary folder next to the destination and renamed into place at the end, so
a failure leaves no partial corpus, manifest or file list. Archives are unpacked by our own
member filter (`extract_tar`, `extract_zip`): absolute names, `..`, device files, links whose
target leaves the tree and writes through links are refused. Then every kind's tree goes
through `check_links`: a link that loops or resolves outside the corpus is refused.
"""

import calendar
import datetime
import errno
import hashlib
import html.parser
import json
import logging
import os
import posixpath
import re
import shutil
import ssl
import stat
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from searchbench.artifacts import json_text, stage_bytes
from searchbench.errors import BenchError
from searchbench.file_times import (
    MEANINGS,
    TIE_RULE,
    apply_times,
    git_last_change_times,
    set_seconds,
    settle_times,
)
from searchbench.fileset import FileEntry, format_files_tsv, scan_files

log = logging.getLogger(__name__)

FULL_SHA = re.compile(r"^[0-9a-fA-F]{40}$")
# Highest-precedence attributes for `git archive`: export the blobs exactly as committed
# (no export-ignore, no export-subst, no eol/ident/filter conversion).
RAW_EXPORT_ATTRIBUTES = (
    "* -export-ignore -export-subst -text -eol -ident -filter -working-tree-encoding\n"
)
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
CHUNK = 1 << 20


# ---------------------------------------------------------------------------- commands


def _last_message(text: str) -> str:
    """The most telling line of a tool's stderr: its last error line, else its last line."""
    noise = ("unsandboxed as root", "complete log of this run", "In most cases", "npm error code")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not any(word in line for word in noise)]
    starts = ("E:", "error", "fatal:", "npm error", "ERROR:")
    errors = [line for line in lines if line.startswith(starts)]
    chosen = errors[-1] if errors else (lines[-1] if lines else "no message")
    return chosen[:300]


def run_tool(argv: list[str], what: str, hint: str, cwd: Path | None = None) -> str:
    """Run a command without a shell; return stdout, or raise a one-line BenchError."""
    env = {**os.environ, **GIT_ENV} if argv[0] == "git" else None
    log.info("run: %s", " ".join(argv))
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
    except FileNotFoundError as exc:
        raise BenchError(f"{what}: `{argv[0]}` is not installed; {hint}") from exc
    if proc.stderr.strip():
        log.info("%s stderr: %s", argv[0], proc.stderr.strip())
    if proc.returncode != 0:
        raise BenchError(
            f"{what} failed (exit {proc.returncode}: {_last_message(proc.stderr)}); {hint}"
        )
    return proc.stdout


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def archive_record(path: Path, label: str | None = None) -> dict:
    return {"file": label or path.name, "sha256": sha256_of(path), "bytes": path.stat().st_size}


def check_sha256(path: Path, expected: str | None, what: str) -> None:
    if not expected:
        return
    got = sha256_of(path)
    if got != expected.lower():
        raise BenchError(
            f"sha256 mismatch for {what} ({path.name}): expected {expected.lower()}, got {got}; "
            "the registry serves different bytes than pinned: check the pin or the source"
        )


# ---------------------------------------------------------------------------- safe extraction


def member_parts(name: str, archive: str) -> list[str]:
    """Split an archive member name into safe components; refuse absolute names and `..`."""
    if name.startswith("/"):
        raise BenchError(f"unsafe archive {archive}: member {name!r} has an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise BenchError(f"unsafe archive {archive}: member {name!r} contains '..'")
    return parts


def link_target_inside(link_parts: list[str], target: str) -> bool:
    """Whether a symlink at link_parts pointing to target stays inside the tree (lexically)."""
    if not target or target.startswith("/"):
        return False
    joined = posixpath.normpath(posixpath.join("/".join(link_parts[:-1]) or ".", target))
    return joined != ".." and not joined.startswith("../")


def _prepare_parent(root: Path, parts: list[str], archive: str, name: str) -> Path:
    """Create the parent folders of a member, refusing to pass through a link or a file."""
    current = root
    for part in parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            os.mkdir(current, 0o755)
            continue
        if stat.S_ISLNK(mode):
            raise BenchError(
                f"unsafe archive {archive}: member {name!r} would be written through a symlink"
            )
        if not stat.S_ISDIR(mode):
            raise BenchError(
                f"bad archive {archive}: member {name!r} needs a folder where a file is"
            )
    return current / parts[-1]


def _clear_target(path: Path, archive: str, name: str) -> None:
    """Remove an earlier non-folder at path (a later member wins, as in tar)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise BenchError(f"bad archive {archive}: member {name!r} would replace a folder")
    os.unlink(path)


def _write_stream(path: Path, source, executable: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(path, flags, 0o755 if executable else 0o644)
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(source, out, CHUNK)


def _add_dir(root: Path, parts: list[str], archive: str, name: str) -> None:
    if not parts:
        return
    path = _prepare_parent(root, parts, archive, name)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        os.mkdir(path, 0o755)
        return
    if not stat.S_ISDIR(mode):
        raise BenchError(f"bad archive {archive}: folder member {name!r} collides with a file")


def _add_file(
    root: Path,
    parts: list[str],
    source,
    executable: bool,
    archive: str,
    name: str,
    mtime: int | None = None,
):
    """A regular file member, with the time the archive records for it (file_times.py)."""
    if not parts:
        raise BenchError(f"bad archive {archive}: file member {name!r} has no name")
    path = _prepare_parent(root, parts, archive, name)
    _clear_target(path, archive, name)
    _write_stream(path, source, executable)
    if mtime is not None:
        set_seconds(path, mtime)


def _add_symlink(root: Path, parts: list[str], target: str, archive: str, name: str) -> None:
    if not parts:
        raise BenchError(f"bad archive {archive}: symlink member {name!r} has no name")
    if not link_target_inside(parts, target):
        raise BenchError(
            f"unsafe archive {archive}: symlink {name!r} -> {target!r} points outside the corpus"
        )
    path = _prepare_parent(root, parts, archive, name)
    _clear_target(path, archive, name)
    os.symlink(target, path)


def _add_hardlink(
    root: Path, parts: list[str], target: str, archive: str, name: str, mtime: int | None = None
) -> None:
    source_parts = member_parts(target, archive)
    source = root.joinpath(*source_parts) if source_parts else root
    try:
        mode = os.lstat(source).st_mode
    except FileNotFoundError:
        mode = 0
    inside = _is_inside(os.path.realpath(source), os.path.realpath(root))
    if not stat.S_ISREG(mode) or not inside:
        raise BenchError(
            f"bad archive {archive}: hard link {name!r} -> {target!r} names no earlier regular file"
        )
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        _add_file(root, parts, handle, bool(mode & 0o111), archive, name, mtime)


def extract_tar(path: Path, root: Path, label: str) -> None:
    """Unpack a (possibly compressed) tar into root with the safe member filter.

    Not tarfile's `filter="data"`: zips need the same refusals and zipfile has no filter, so
    one filter (member_parts, _add_*) serves both, with the same messages and file modes."""
    try:
        with tarfile.open(path, "r:*") as archive:
            for member in archive:
                name = member.name
                parts = member_parts(name, label)
                if member.isdir():
                    _add_dir(root, parts, label, name)
                elif member.issym():
                    _add_symlink(root, parts, member.linkname, label, name)
                elif member.islnk():
                    _add_hardlink(root, parts, member.linkname, label, name, int(member.mtime))
                elif member.isreg():
                    source = archive.extractfile(member)
                    executable = bool(member.mode & 0o111)
                    _add_file(root, parts, source, executable, label, name, int(member.mtime))
                else:
                    raise BenchError(
                        f"unsafe archive {label}: member {name!r} is a device or special file"
                    )
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise BenchError(f"cannot unpack {label}: {exc}; the download may be damaged") from exc


def extract_zip(path: Path, root: Path, label: str) -> None:
    """Unpack a zip into root with the safe member filter (unix symlinks honoured)."""
    special = {stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = info.filename
                parts = member_parts(name, label)
                mode = (info.external_attr >> 16) if info.create_system == 3 else 0
                if stat.S_IFMT(mode) in special:
                    raise BenchError(
                        f"unsafe archive {label}: member {name!r} is a device or special file"
                    )
                if info.is_dir() or stat.S_ISDIR(mode):
                    _add_dir(root, parts, label, name)
                elif stat.S_ISLNK(mode):
                    target = archive.read(info).decode("utf-8", "surrogateescape")
                    _add_symlink(root, parts, target, label, name)
                else:
                    # a zip's date_time has no zone: read as UTC, so every machine agrees
                    mtime = calendar.timegm((*info.date_time, 0, 0, 0))
                    with archive.open(info) as source:
                        _add_file(root, parts, source, bool(mode & 0o111), label, name, mtime)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise BenchError(f"cannot unpack {label}: {exc}; the download may be damaged") from exc


def extract_archive(path: Path, root: Path, label: str) -> None:
    """Unpack a zip or tar (gz, bz2, xz or plain) by its leading bytes."""
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic in (b"PK\x03\x04", b"PK\x05\x06"):
        extract_zip(path, root, label)
    else:
        extract_tar(path, root, label)


LINK_FIX = "remove the link from the source or set `subdir` to a folder without it"


class _Folders:
    """The real folders under a root (links never followed) as a graph: each folder's child
    folders, plus, for a folder link, an edge from the link's folder to its target."""

    def __init__(self, root: str) -> None:
        self.top = os.path.realpath(root)
        self.edges: dict[str, list[str]] = {self.top: []}
        self.entries: dict[str, int] = {}
        self.links: list[str] = []
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            here = self.real(dirpath, root)
            self.entries[here] = len(dirnames) + len(filenames)
            for name in dirnames:  # a folder link is listed here but not walked into
                full = os.path.join(dirpath, name)
                if os.path.islink(full):
                    self.links.append(full)
                else:
                    child = os.path.join(here, name)
                    self.edges[here].append(child)
                    self.edges[child] = []
            self.links.extend(
                full
                for full in (os.path.join(dirpath, name) for name in filenames)
                if os.path.islink(full)
            )
        self.links.sort()

    def real(self, path: str, root: str) -> str:
        """A walked folder's real path, without a system call (nothing walked is a link)."""
        rel = os.path.relpath(path, root)
        return self.top if rel == "." else os.path.join(self.top, rel)

    def reaches(self, start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            current = todo.pop()
            if current == goal:
                return True
            for nxt in self.edges[current]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    def walk_counts(self) -> dict[str, int] | None:
        """How many times a walk following links enters each folder; None if it never ends."""
        incoming = dict.fromkeys(self.edges, 0)
        for targets in self.edges.values():
            for target in targets:
                incoming[target] += 1
        counts = dict.fromkeys(self.edges, 0)
        counts[self.top] = 1
        ready = [node for node, n in incoming.items() if n == 0]
        done = 0
        while ready:  # Kahn's order: a folder after every folder that leads to it
            node = ready.pop()
            done += 1
            for target in self.edges[node]:
                counts[target] += counts[node]
                incoming[target] -= 1
                if incoming[target] == 0:
                    ready.append(target)
        return counts if done == len(self.edges) else None


def check_links(root: Path) -> int:
    """Refuse a symlink that leaves the corpus, never resolves, loops or multiplies a walk.

    Refused, not dropped: the corpus measured is exactly the pinned source, and `subdir`
    narrows a source whose links cannot be changed. A loop is a folder link from which its own
    folder can be reached again (`up -> ..`, `self -> .`, `a -> b` with `b/c -> ../a`): a tool
    that follows links would walk it forever. Links into folders holding more folder links can
    also make such a walk exponential (two links per level); it may see each entry at most
    once more per folder link. Checked on the real folder graph, never by following a link;
    links to files or folders inside the corpus stay. Returns the number of links."""
    folders = _Folders(str(root))
    link_edges = []
    for full in folders.links:
        rel, target = os.path.relpath(full, root), os.readlink(full)
        resolved = os.path.realpath(full)
        if not _is_inside(resolved, folders.top):
            raise BenchError(
                f"symlink {rel!r} -> {target!r} resolves outside the corpus "
                "root; widen `subdir` or drop the link from the source"
            )
        try:
            info = os.stat(full)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                continue  # dangling inside the corpus: no tool reads anything through it
            raise BenchError(
                f"symlink {rel!r} -> {target!r} never resolves (a loop of links); {LINK_FIX}"
            ) from None
        if stat.S_ISDIR(info.st_mode) and resolved in folders.edges:
            parent = folders.real(os.path.dirname(full), str(root))
            folders.edges[parent].append(resolved)
            link_edges.append((rel, target, parent, resolved))
    counts = folders.walk_counts()
    if counts is None:  # a loop: name the first link (in path order) that closes one
        for rel, target, parent, resolved in link_edges:
            if folders.reaches(resolved, parent):
                raise BenchError(
                    f"symlink {rel!r} -> {target!r} leads back to its own folder, a loop "
                    f"(a tool following links would never finish); {LINK_FIX}"
                )
        raise BenchError(f"the folder links under {root} form a loop; {LINK_FIX}")
    seen = sum(counts[node] * n for node, n in folders.entries.items())
    limit = (1 + len(link_edges)) * sum(folders.entries.values())
    if seen > limit:
        rel, target, _, resolved = max(link_edges, key=lambda edge: (counts[edge[3]], edge[0]))
        raise BenchError(
            f"symlink {rel!r} -> {target!r} leads into a folder a tool following links would "
            f"enter {counts[resolved]} times ({seen} entries seen for "
            f"{sum(folders.entries.values())} in the corpus: folder links into folders with more "
            f"folder links); {LINK_FIX}"
        )
    return len(folders.links)


def _is_inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


# ---------------------------------------------------------------------------- source kinds


def _git_export(repo: Path, commit: str, tree: Path, work: Path, label: str) -> None:
    tar_path = work / "export.tar"
    run_tool(
        ["git", "--git-dir", str(repo), "archive", "--format=tar", "-o", str(tar_path), commit],
        f"git archive of {label}",
        "check that the commit's objects are present",
    )
    extract_tar(tar_path, tree, f"git archive of {label}")
    tar_path.unlink()


def _new_bare_repo(work: Path) -> Path:
    repo = work / "repo.git"
    run_tool(["git", "init", "--quiet", "--bare", str(repo)], "git init", "check git")
    (repo / "info").mkdir(exist_ok=True)
    (repo / "info" / "attributes").write_text(RAW_EXPORT_ATTRIBUTES, encoding="utf-8")
    return repo


def _git_location(url: str, workdir: Path) -> str:
    """A URL as given, or a local repository path made absolute against workdir."""
    if "://" in url or re.match(r"^[\w.-]+@[\w.-]+:", url):
        return url
    candidate = workdir / url
    return str(candidate.resolve()) if candidate.exists() else url


def fetch_git(name: str, source: dict, tree: Path, work: Path, workdir: Path) -> dict:
    url, revision = source["url"], str(source["revision"])
    location = _git_location(url, workdir)
    repo = _new_bare_repo(work)
    hint = f"check that {url} is reachable and has revision {revision!r}"
    git = ["git", "--git-dir", str(repo)]
    try:  # the cheap way: only the pinned revision
        run_tool(
            [*git, "fetch", "--quiet", "--no-tags", "--depth", "1", location, revision],
            f"git fetch of {url}",
            hint,
        )
        target = "FETCH_HEAD"
    except BenchError as shallow_error:  # a short SHA or a server refusing SHA wants
        log.info("shallow fetch failed (%s); fetching all branches and tags", shallow_error)
        run_tool(
            [*git, "fetch", "--quiet", "--tags", location, "+refs/heads/*:refs/heads/*"],
            f"git fetch of {url}",
            hint,
        )
        target = revision
    commit = run_tool(
        [*git, "rev-parse", "--verify", "--quiet", f"{target}^{{commit}}"],
        f"resolving revision {revision!r} of {url}",
        f"check that {revision!r} names a commit, tag or branch of {url}",
    ).strip()
    if FULL_SHA.match(revision) and commit != revision.lower():
        raise BenchError(
            f"git pin mismatch for {url}: revision {revision} resolves to commit {commit} "
            f"(is it a tag object?); pin the commit SHA {commit}"
        )
    _git_export(repo, commit, tree, work, f"{url}@{commit}")
    return {
        "pinned_revision": revision,
        "resolved_revision": commit,
        "resolved_commit": commit,
        "url": url,
        "archives": [],
    }


def fetch_local_git(path: Path, tree: Path, work: Path) -> dict:
    hint = f"check that {path} is a git repository with at least one commit"
    common = run_tool(
        ["git", "-C", str(path), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        f"reading git repository {path}",
        hint,
    ).strip()
    head = run_tool(
        ["git", "-C", str(path), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
        f"resolving HEAD of {path}",
        f"{path} has no commit yet: commit first (its HEAD is what is measured)",
    ).strip()
    status = run_tool(
        ["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"],
        f"git status of {path}",
        hint,
    )
    repo = _new_bare_repo(work)
    # Borrow the objects instead of copying them; our own info/attributes governs the export.
    alternates = repo / "objects" / "info" / "alternates"
    alternates.write_text(str(Path(common) / "objects") + "\n", encoding="utf-8")
    _git_export(repo, head, tree, work, f"{path}@{head}")
    apply_times(tree, git_last_change_times(repo, head))
    return {
        "resolved_revision": head,
        "resolved_commit": head,
        "dirty": bool(status.strip()),
        "archives": [],
        "file_times": MEANINGS["local-git"],
    }


def copy_local_dir(source: Path, tree: Path) -> None:
    """Copy regular files and symlinks (never followed); skip .git folders and special files."""
    top = os.fsencode(source)
    dest_top = os.fsencode(tree)
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        rel_dir = os.path.relpath(dirpath, top)
        out_dir = dest_top if rel_dir == b"." else os.path.join(dest_top, rel_dir)
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(dirpath, name)
            if os.path.islink(full):
                os.symlink(os.readlink(full), os.path.join(out_dir, name))
            elif name != b".git":
                os.mkdir(os.path.join(out_dir, name), 0o755)
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(full), os.path.join(out_dir, name))
            elif stat.S_ISREG(mode) and name != b".git":
                dest = os.path.join(out_dir, name)
                shutil.copyfile(full, dest, follow_symlinks=False)
                if mode & 0o111:
                    os.chmod(dest, 0o755)
                source_ns = os.lstat(full).st_mtime_ns
                os.utime(dest, ns=(source_ns, source_ns))


def _link(path: bytes) -> str:
    return os.fsdecode(os.readlink(path))


def directory_manifest(top: Path) -> list[tuple[bytes, str, int, str]]:
    """What copy_local_dir would copy, as (path, kind, size, sha256 or link target), sorted.

    A content hash, not mtimes: an edit that keeps size and mtime (a restored backup, a
    coarse-clock file system) still changes it."""
    top_b = os.fsencode(top)
    entries = []
    for dirpath, dirnames, filenames in os.walk(top_b, followlinks=False):
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(dirpath, name)
            if os.path.islink(full):
                entries.append((os.path.relpath(full, top_b), "link", 0, _link(full)))
            elif name != b".git":
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, top_b)
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                entries.append((rel, "link", 0, _link(full)))
            elif stat.S_ISREG(mode) and name != b".git":
                kind = "exec" if mode & 0o111 else "file"
                digest = sha256_of(Path(os.fsdecode(full)))
                entries.append((rel, kind, os.path.getsize(full), digest))
    return sorted(entries)


def directory_revision(top: Path) -> str:
    """A local directory corpus's revision: the sha256 of its manifest (directory_manifest)."""
    digest = hashlib.sha256()
    for rel, kind, size, content in directory_manifest(top):
        digest.update(b"\0".join([rel, kind.encode(), str(size).encode(), content.encode()]))
        digest.update(b"\n")
    return f"manifest-sha256:{digest.hexdigest()}"


def is_local_git(path: Path) -> bool:
    """A local corpus is a git repository (measured at HEAD) when `.git` is at its top."""
    return (path / ".git").exists()


def fetch_local(name: str, source: dict, tree: Path, work: Path, workdir: Path) -> dict:
    path = (workdir / source["path"]).resolve()
    if not path.is_dir():
        raise BenchError(f"local corpus {name}: {path} is not a directory; check `source.path`")
    if is_local_git(path):
        result = fetch_local_git(path, tree, work)
    else:
        copy_local_dir(path, tree)
        # Of the copy, so the revision names exactly what was measured.
        result = {"resolved_revision": directory_revision(tree), "archives": []}
    return {"pinned_revision": source["path"], **result}


def _package_path(name: str) -> str:
    """A package member name without leading './' or '/', normalized."""
    return posixpath.normpath("/" + name).lstrip("/") or "."


def _find_tar_member(archive: tarfile.TarFile, wanted: str) -> tarfile.TarInfo | None:
    """The member at a package path, following in-package symlinks (a few hops)."""
    members = {_package_path(m.name): m for m in archive.getmembers()}
    key = _package_path(wanted)
    for _ in range(8):
        member = members.get(key)
        if member is None or not member.issym():
            return member
        target = member.linkname
        base = "" if target.startswith("/") else posixpath.dirname(key)
        key = _package_path(posixpath.join(base, target))
    return None


def _unpack_deb(deb: Path, package: dict, tree: Path, work: Path, archives: list) -> None:
    fsys = work / "fsys.tar"
    with open(fsys, "wb") as out:
        try:
            proc = subprocess.run(
                ["dpkg-deb", "--fsys-tarfile", str(deb)],
                stdout=out,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except FileNotFoundError as exc:
            raise BenchError("dpkg-deb is not installed; install the `dpkg` package") from exc
    if proc.returncode != 0:
        message = _last_message(proc.stderr.decode("utf-8", "replace"))
        raise BenchError(f"dpkg-deb could not read {deb.name} ({message}); the download may be bad")
    inner = package.get("inner_archive")
    if not inner:
        extract_tar(fsys, tree, deb.name)
    else:
        inner_path = work / "inner-archive"
        with tarfile.open(fsys) as archive:
            member = _find_tar_member(archive, inner)
            if member is None or not member.isreg():
                raise BenchError(
                    f"inner_archive {inner} is not a file in package {package['name']} "
                    f"({deb.name}); `dpkg-deb -c` lists what the package holds"
                )
            source = archive.extractfile(member)
            _write_stream(inner_path, source, False)
        archives.append(archive_record(inner_path, f"{deb.name}:{_package_path(inner)}"))
        extract_archive(inner_path, tree, f"{inner} from {deb.name}")
        inner_path.unlink()
    fsys.unlink()


def fetch_deb(name: str, source: dict, tree: Path, work: Path, workdir: Path) -> dict:
    archives: list[dict] = []
    packages = []
    for index, package in enumerate(source["packages"]):
        pkg, version = package["name"], str(package["version"])
        folder = work / f"deb-{index}"
        folder.mkdir()
        run_tool(
            ["apt-get", "download", f"{pkg}={version}"],
            f"apt-get download {pkg}={version}",
            f"check that Debian package {pkg} version {version} is in the apt sources "
            f"(run `apt-get update`; `apt-cache policy {pkg}` lists the versions on offer)",
            cwd=folder,
        )
        debs = sorted(folder.glob("*.deb"))
        if len(debs) != 1:
            raise BenchError(f"apt-get download {pkg}={version} left {len(debs)} .deb files")
        deb = debs[0]
        check_sha256(deb, package.get("sha256"), f"Debian package {pkg}={version}")
        archives.append(archive_record(deb))
        fields = run_tool(
            ["dpkg-deb", "--field", str(deb), "Package", "Version"],
            f"reading the control fields of {deb.name}",
            "the download may be damaged",
        )
        control = dict(line.split(": ", 1) for line in fields.splitlines() if ": " in line)
        packages.append(
            {"name": pkg, "version": version, "resolved_version": control.get("Version")}
        )
        _unpack_deb(deb, package, tree, work, archives)
        deb.unlink()
    return {
        "pinned_revision": " ".join(f"{p['name']}={p['version']}" for p in packages),
        "resolved_revision": " ".join(f"{p['name']}={p['resolved_version']}" for p in packages),
        "packages": packages,
        "archives": archives,
    }


def fetch_npm(name: str, source: dict, tree: Path, work: Path, workdir: Path) -> dict:
    pkg, version = source["package"], str(source["version"])
    folder = work / "npm"
    folder.mkdir()
    out = run_tool(
        ["npm", "pack", "--json", "--ignore-scripts", f"{pkg}@{version}"],
        f"npm pack {pkg}@{version}",
        f"check that npm package {pkg} has version {version} (`npm view {pkg} versions`)",
        cwd=folder,
    )
    try:
        info = json.loads(out)[0]
    except (ValueError, IndexError, KeyError) as exc:
        raise BenchError(f"npm pack {pkg}@{version} printed no JSON package record") from exc
    tgz = folder / info["filename"]
    check_sha256(tgz, source.get("sha256"), f"npm package {pkg}@{version}")
    record = archive_record(tgz)
    extract_tar(tgz, tree, tgz.name)
    return {
        "pinned_revision": version,
        "resolved_revision": info.get("version"),
        "archives": [record],
    }


SDIST_SUFFIXES = (".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar")
# pip's precedence: the environment, then the download command's section, then global.
INDEX_KEYS = (":env:.index-url", "download.index-url", "global.index-url")
SIMPLE_ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"


def _sdist_version(filename: str, package: str) -> str | None:
    stem = re.sub(r"\.(tar\.gz|tar\.bz2|tar\.xz|tgz|zip|tar)$", "", filename)
    return stem.rsplit("-", 1)[1] if "-" in stem else None


def canonical_name(name: str) -> str:
    """PEP 503 normalisation of a project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pip_config(text: str) -> dict[str, str]:
    """`pip config list` lines (`section.key='value'`) as a mapping."""
    values = {}
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            values[key.strip()] = value.strip().strip("'\"")
    return values


def pip_settings() -> tuple[str, str | None]:
    """The index URL pip is configured with (else pip's own default) and its CA bundle.

    Read from pip so no registry host is written here; a mirror set up for pip is used too."""
    out = run_tool(
        [sys.executable, "-m", "pip", "config", "list"],
        "pip config list",
        "install pip in the workflow's Python",
    )
    values = parse_pip_config(out)
    index = next((values[k] for k in INDEX_KEYS if values.get(k)), None)
    if index is None:
        from pip._internal.models.index import PyPI  # pip's default index, not ours

        index = PyPI.simple_url
    cert = next((values[k] for k in (":env:.cert", "global.cert") if values.get(k)), None)
    return index, cert


def _http_get(url: str, cert: str | None, accept: str = "*/*") -> tuple[bytes, str]:
    """Body and content type of url (http(s) or file)."""
    context = ssl.create_default_context(cafile=cert) if url.startswith("https:") else None
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=120, context=context) as response:
            return response.read(), response.headers.get("Content-Type", "")
    except (OSError, ValueError) as exc:  # URLError and HTTPError are OSErrors
        raise BenchError(
            f"cannot fetch {url}: {exc}; check the index pip is configured with"
        ) from None


class _Links(html.parser.HTMLParser):
    """The anchors of a PEP 503 project page: (text, href)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href, self._text = dict(attrs).get("href") or "", ""

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._text.strip(), self._href))
            self._href = None


def project_files(body: bytes, content_type: str, page: str) -> list[tuple[str, str, str]]:
    """(filename, absolute url, sha256 or '') of every file a simple-API page lists."""
    found = []
    if "json" in content_type:
        for item in json.loads(body).get("files", []):
            url = urllib.parse.urljoin(page, item["url"])
            found.append((item["filename"], url, item.get("hashes", {}).get("sha256", "")))
        return found
    parser = _Links()
    parser.feed(body.decode("utf-8", "replace"))
    for text, href in parser.links:
        url, _, fragment = urllib.parse.urljoin(page, href).partition("#")
        digest = fragment[len("sha256=") :] if fragment.startswith("sha256=") else ""
        found.append((text or posixpath.basename(url), url, digest))
    return found


def pick_sdist(
    files: list[tuple[str, str, str]], package: str, version: str
) -> tuple[str, str, str] | None:
    """The sdist of package==version (a .tar.gz before other archive kinds), or None."""
    wanted = canonical_name(package)
    for suffix in SDIST_SUFFIXES:
        for filename, url, digest in sorted(files):
            if not filename.endswith(suffix):
                continue
            name, _, got = filename[: -len(suffix)].rpartition("-")
            if canonical_name(name) == wanted and got == version:
                return filename, url, digest
    return None


def fetch_pypi(name: str, source: dict, tree: Path, work: Path, workdir: Path) -> dict:
    """The sdist's bytes from pip's index, hash-checked, then unpacked: nothing in it runs
    (`pip download` would call the sdist's build backend to read its metadata)."""
    pkg, version = source["package"], str(source["version"])
    index, cert = pip_settings()
    page = index.rstrip("/") + "/" + canonical_name(pkg) + "/"
    body, content_type = _http_get(page, cert, SIMPLE_ACCEPT)
    chosen = pick_sdist(project_files(body, content_type, page), pkg, version)
    if chosen is None:
        raise BenchError(
            f"PyPI project {pkg} has no source distribution of version {version} on {index}; "
            "check the version (`pip index versions " + pkg + "`)"
        )
    filename, url, digest = chosen
    if "/" in filename or filename in ("", ".", ".."):
        raise BenchError(f"the index lists an unsafe file name {filename!r} for {pkg}")
    sdist = work / filename
    sdist.write_bytes(_http_get(url, cert)[0])
    check_sha256(sdist, source.get("sha256"), f"PyPI sdist {pkg}=={version}")
    check_sha256(sdist, digest or None, f"PyPI sdist {pkg}=={version} (the index's own hash)")
    record = archive_record(sdist)
    extract_archive(sdist, tree, sdist.name)
    return {
        "pinned_revision": version,
        "resolved_revision": _sdist_version(sdist.name, pkg),
        "archives": [record],
    }


FETCHERS: dict[str, Callable[[str, dict, Path, Path, Path], dict]] = {
    "git": fetch_git,
    "deb": fetch_deb,
    "npm": fetch_npm,
    "pypi": fetch_pypi,
    "local": fetch_local,
}


# ---------------------------------------------------------------------------- assembly


def select_subdir(tree: Path, subdir: str | None, name: str) -> Path:
    """The folder that becomes the corpus root; a clear error when it is missing."""
    if not subdir:
        return tree
    parts = member_parts(subdir, f"`subdir` of corpus {name}")
    deepest, found = tree, []
    for part in parts:
        candidate = deepest / part
        if candidate.is_symlink() or not candidate.is_dir():
            break
        deepest = candidate
        found.append(part)
    if len(found) == len(parts):
        return deepest
    entries = sorted(os.listdir(deepest))
    shown = ", ".join(entries[:20]) + (
        f", ... ({len(entries)} entries)" if len(entries) > 20 else ""
    )
    where = "/".join(found) or "the top level"
    raise BenchError(
        f"subdir {subdir!r} not found in corpus {name}: {where} holds [{shown or 'nothing'}]; "
        "fix `subdir` in the config"
    )


def summarize(entries: list[FileEntry]) -> dict:
    """File, byte, language, binary and symlink counts of a corpus file list."""
    regular = [e for e in entries if e.kind != "symlink"]
    return {
        "files": len(regular),
        "bytes": sum(e.bytes for e in regular),
        "files_per_language": dict(sorted(Counter(e.language for e in regular).items())),
        "binary_files": sum(1 for e in regular if e.kind == "binary"),
        "symlinks": len(entries) - len(regular),
    }


def build_manifest(name: str, spec: dict, fetched: dict, entries: list[FileEntry]) -> dict:
    source = spec["source"]
    manifest = {
        "corpus": name,
        "description": spec.get("description", ""),
        "source": source,
        "kind": source["kind"],
        "subdir": spec.get("subdir"),
        "fetched_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **fetched,
        **summarize(entries),
    }
    return manifest


def fetch_corpus(
    name: str,
    spec: dict,
    dest_root: Path,
    manifest_path: Path,
    files_path: Path,
    languages: dict,
    workdir: Path,
    checkout_path: Path | None = None,
) -> dict:
    """Fetch corpus `name` per its config entry; write root, corpus.json and files.tsv.

    Everything is built next to dest_root and moved into place at the end; on failure
    nothing new is left behind (earlier outputs stay as they were): the last good checkout
    is kept by this swap, not by Snakemake. checkout_path (the rule's output, see
    checkout_record) is written last. Returns the manifest.
    """
    dest_root, manifest_path, files_path = Path(dest_root), Path(manifest_path), Path(files_path)
    kind = spec["source"]["kind"]
    if kind not in FETCHERS:
        raise BenchError(
            f"corpus {name}: unknown source kind {kind!r}; use one of {list(FETCHERS)}"
        )
    dest_root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest_root.name}.fetch-", dir=dest_root.parent))
    temps: list[Path] = []
    try:
        tree, work = staging / "tree", staging / "work"
        tree.mkdir()
        work.mkdir()
        log.info("fetching corpus %s (%s)", name, kind)
        fetched = FETCHERS[kind](name, spec["source"], tree, work, Path(workdir))
        root = select_subdir(tree, spec.get("subdir"), name)
        check_links(root)
        times_sha256 = settle_times(root)
        entries = scan_files(root, languages)
        if not any(e.kind != "symlink" for e in entries):
            raise BenchError(f"corpus {name} has no files; check its source and `subdir`")
        fetched["file_times"] = {
            "meaning": fetched.get("file_times", MEANINGS[kind]),
            "ties": TIE_RULE,
            "sha256": times_sha256,
        }
        manifest = build_manifest(name, spec, fetched, entries)
        # Staged beside their targets, renamed only once the tree is in place.
        temps.append(stage_bytes(files_path, format_files_tsv(entries).encode("utf-8")))
        temps.append(stage_bytes(manifest_path, json_text(manifest).encode("utf-8")))
        if checkout_path is not None:
            record = json_text(checkout_record(manifest)).encode("utf-8")
            temps.append(stage_bytes(checkout_path, record))
        previous = staging / "previous"
        if os.path.lexists(dest_root):
            os.rename(dest_root, previous)
        try:
            os.rename(root, dest_root)
        except OSError:
            if os.path.lexists(previous):
                os.rename(previous, dest_root)
            raise
        os.replace(temps[0], files_path)
        os.replace(temps[1], manifest_path)
        if checkout_path is not None:
            os.replace(temps[2], checkout_path)
        log.info("corpus %s: %d files, %d bytes", name, manifest["files"], manifest["bytes"])
        return manifest
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        shutil.rmtree(staging, ignore_errors=True)


def checkout_record(manifest: dict) -> dict:
    """What resources/corpora/{corpus}/checkout.json says: the checkout beside it, no timestamp
    (so the same source gives the same bytes)."""
    keys = ("corpus", "kind", "resolved_revision", "files", "bytes", "symlinks")
    return {"tree": TREE, **{key: manifest.get(key) for key in keys}}


# The rule's output is the small file checkout.json, written after the tree beside it is in
# place; the tree itself is no Snakemake output. Snakemake backs up an update() directory
# output with a copy that follows links (a link loop filled the disk) and copies the whole
# corpus on each refetch; the fetch's own atomic swap keeps the last good checkout instead.
TREE = "tree"


def corpus_tree(checkout: str | Path, check: bool = True) -> Path:
    """The corpus root beside a `resources/corpora/{corpus}/checkout.json` rule input."""
    tree = Path(checkout).parent / TREE
    if check and Path(checkout).exists() and not tree.is_dir():
        raise BenchError(
            f"the checkout {tree} is missing; delete {checkout} and run again to fetch it"
        )
    return tree
