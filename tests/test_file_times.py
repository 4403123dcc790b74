"""Issue 32 item 3: a checkout's file times are meaningful (last commit, archive record) and
byte-identical across fetches, so `rg --sortr=modified` (the order agent harnesses print) is
measured deterministically."""

import io
import json
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_corpora import fetch, git

from searchbench.file_times import NS, parse_git_log, settle_times


def tar_timed(path: Path, members: list[tuple[str, int]]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, mtime in members:
            data = f"{name}\n".encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), mtime
            archive.addfile(info, io.BytesIO(data))
    return path


def mtimes(root: Path) -> dict[str, int]:
    return {
        str(p.relative_to(root)): os.lstat(p).st_mtime_ns
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_git_log_parse_takes_each_paths_newest_commit() -> None:
    out = b"\x01300\x00\nb.c\x00\x01200\x00\na.c\x00b.c\x00\x01100\x00\na.c\x00c\nd\x00"
    assert parse_git_log(out) == {b"b.c": 300, b"a.c": 200, b"c\nd": 100}


def test_equal_times_are_ordered_by_path_and_distinct(tmp_path: Path) -> None:
    for name in ("b", "a", "d/c"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(name)
        os.utime(tmp_path / name, ns=(5 * NS + 123, 5 * NS + 123))
    os.symlink("a", tmp_path / "link")
    digest = settle_times(tmp_path)
    assert mtimes(tmp_path) == {"a": 5 * NS, "b": 5 * NS + 1, "d/c": 5 * NS + 2}
    assert settle_times(tmp_path) == digest  # settling twice changes nothing


def test_a_local_git_corpus_has_each_files_last_commit_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    git(src, "init", "--quiet", "--initial-branch=main")
    for name in ("old.py", "new.py"):
        (src / name).write_text("x = 1\n")
    git(src, "add", "-A")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "@1000000000 +0000")
    git(src, "commit", "--quiet", "-m", "one")
    (src / "new.py").write_text("x = 2\n")
    git(src, "add", "-A")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "@1500000000 +0000")
    git(src, "commit", "--quiet", "-m", "two")
    manifest = fetch(tmp_path, {"source": {"kind": "local", "path": str(src)}})
    got = mtimes(tmp_path / "corpora" / "c")
    assert got == {"new.py": 1_500_000_000 * NS + 0, "old.py": 1_000_000_000 * NS + 1}
    assert manifest["file_times"]["meaning"] == "each file's last commit time (git log)"
    # newest first, as an agent harness runs ripgrep
    rg = shutil.which("rg")  # the project's own ripgrep (conftest puts the venv first)
    assert rg is not None
    printed = subprocess.run(
        [rg, "--no-config", "--sortr=modified", "-l", "x", "./"],
        cwd=tmp_path / "corpora" / "c",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert printed == ["./new.py", "./old.py"]


def test_an_archive_corpus_keeps_its_recorded_times_identically_on_refetch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from searchbench import corpora

    tgz = tar_timed(tmp_path / "p.tgz", [("package/z.js", 300), ("package/a.js", 300),
                                         ("package/m.js", 900)])  # fmt: skip

    def run_tool(argv, what, hint, cwd=None):
        (Path(cwd) / "p-1.0.0.tgz").write_bytes(tgz.read_bytes())
        return json.dumps([{"filename": "p-1.0.0.tgz", "version": "1.0.0"}])

    monkeypatch.setattr(corpora, "run_tool", run_tool)
    spec = {"source": {"kind": "npm", "package": "p", "version": "1.0.0"}, "subdir": "package"}
    first = fetch(tmp_path, spec)
    root = tmp_path / "corpora" / "c"
    assert mtimes(root) == {"a.js": 300 * NS + 0, "m.js": 900 * NS + 1, "z.js": 300 * NS + 2}
    again = fetch(tmp_path, spec)
    assert first["file_times"] == again["file_times"]
    assert first["file_times"]["meaning"].startswith("each member's time as the package tarball")


def test_zip_times_are_read_as_utc(tmp_path: Path) -> None:
    from searchbench.corpora import extract_archive

    path = tmp_path / "s.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo("a.py", date_time=(2001, 9, 9, 1, 46, 40)), "x")
    (tmp_path / "out").mkdir()
    extract_archive(path, tmp_path / "out", "s.zip")
    assert os.lstat(tmp_path / "out" / "a.py").st_mtime_ns == 1_000_000_000 * NS
