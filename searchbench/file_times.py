"""Deterministic, meaningful file times for a corpus checkout (issue 32 item 3).

Agent harnesses (Codex, OpenCode) run ripgrep with `--sortr=modified`: newest file first. To
measure that order the checkout's file times must mean something and be the same on every
run and machine. Each regular file gets a recorded time, by source kind:

- git (local): the time of the last commit that changed the file (`git log`);
- git (remote, fetched shallow at one commit): that commit's time, for every file;
- deb, npm, pypi: the time the archive records for the member (tar mtime, zip date_time read
  as UTC);
- local folder: the source file's own modification time.

Equal recorded times would leave the order to the file system's directory order (ext4 hashes
names with a per-file-system seed), so `settle_times` makes every time distinct: whole seconds
of the recorded time plus the file's index in byte-wise path order, in nanoseconds. Newest
first then lists equal-time files in reverse path order, as a fresh checkout, which writes
files in path order, does. An agent's working tree differs: the files it just edited are newest.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path

NS = 1_000_000_000
# What a corpus's file times mean, per source kind (recorded in corpus.json, said in the report).
MEANINGS = {
    "git": "the pinned commit's time for every file (a shallow fetch has no history)",
    "local-git": "each file's last commit time (git log)",
    "local": "each source file's own modification time",
    "deb": "each member's time as the package's archives record it",
    "npm": "each member's time as the package tarball records it",
    "pypi": "each member's time as the sdist records it (zip times read as UTC)",
}
TIE_RULE = "equal times ordered by path (the later path is newer by 1 ns per file)"


def regular_files(root: Path) -> list[bytes]:
    """Every regular file under root (links never followed), as root-relative byte paths in
    byte-wise order, the order `settle_times` numbers them in."""
    top = os.fsencode(root)
    found = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        for name in filenames:
            full = os.path.join(dirpath, name)
            if stat.S_ISREG(os.lstat(full).st_mode):
                found.append(os.path.relpath(full, top))
    return sorted(found)


def set_seconds(path: Path | bytes, seconds: int) -> None:
    os.utime(path, ns=(seconds * NS, seconds * NS), follow_symlinks=False)


def settle_times(root: Path) -> str:
    """Make every regular file's time distinct and deterministic (see the module doc) and
    return the sha256 of the `path TAB mtime_ns` lines, which two fetches of the same pin
    must share."""
    digest = hashlib.sha256()
    top = os.fsencode(root)
    for index, rel in enumerate(regular_files(root)):
        full = os.path.join(top, rel)
        ns = os.lstat(full).st_mtime_ns // NS * NS + index
        os.utime(full, ns=(ns, ns), follow_symlinks=False)
        digest.update(rel + b"\t" + str(ns).encode() + b"\n")
    return digest.hexdigest()


def parse_git_log(out: bytes) -> dict[bytes, int]:
    """`git log --format=%x01%ct --name-only -z` output (newest commit first) as each path's
    newest commit time: the first time a path appears. Each commit is `\x01SECONDS\0`, then
    its names, each ending in NUL, the first after one newline."""
    times: dict[bytes, int] = {}
    seconds, after_header = 0, False
    for field in out.split(b"\0"):
        if after_header and field.startswith(b"\n"):
            field = field[1:]
        after_header = False
        if field[:1] == b"\x01" and field[1:].isdigit():
            seconds, after_header = int(field[1:]), True
        elif field and field not in times:
            times[field] = seconds
    return times


def git_last_change_times(git_dir: Path, commit: str) -> dict[bytes, int]:
    """Each path's last commit time at commit, from the repository's full history."""
    out = subprocess.run(
        [
            "git",
            "--git-dir",
            str(git_dir),
            "log",
            "--format=%x01%ct",
            "--name-only",
            "-z",
            "--no-renames",
            commit,
            "--",
        ],  # fmt: skip
        capture_output=True,
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"},
    ).stdout
    return parse_git_log(out)


def apply_times(root: Path, times: dict[bytes, int]) -> int:
    """Set each listed regular file's time (a path no longer there is skipped); how many."""
    top = os.fsencode(root)
    done = 0
    for rel in regular_files(root):
        if rel in times:
            set_seconds(os.path.join(top, rel), times[rel])
            done += 1
    return done
