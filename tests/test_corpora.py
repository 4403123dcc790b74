"""Fetching corpora: every source kind for real, safe extraction, files.tsv round trips.

The network tests use only the package registries (apt-get download, npm pack, pip's index).
"""

import io
import json
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from searchbench import corpora
from searchbench.corpora import extract_archive, fetch_corpus
from searchbench.errors import BenchError
from searchbench.fileset import (
    FileEntry,
    language_of,
    load_languages,
    read_files_tsv,
    scan_files,
    write_files_tsv,
)

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = load_languages(ROOT / "config" / "languages.yaml")


def fetch(tmp_path: Path, spec: dict, name: str = "c", workdir: Path | None = None) -> dict:
    return fetch_corpus(
        name,
        spec,
        tmp_path / "corpora" / name,
        tmp_path / "results" / name / "corpus.json",
        tmp_path / "results" / name / "files.tsv",
        LANGUAGES,
        workdir or tmp_path,
    )


def outputs(tmp_path: Path, name: str = "c") -> list[Path]:
    return [
        tmp_path / "corpora" / name,
        tmp_path / "results" / name / "corpus.json",
        tmp_path / "results" / name / "files.tsv",
    ]


def assert_nothing_left(tmp_path: Path, name: str = "c") -> None:
    for path in outputs(tmp_path, name):
        assert not os.path.lexists(path), path
    leftovers = [p.name for p in (tmp_path / "corpora").iterdir() if p.name.startswith(".")]
    assert leftovers == [], leftovers
    results = tmp_path / "results" / name
    assert not results.exists() or list(results.iterdir()) == []


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
    }
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return result.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> dict:
    """A git repository with two commits, an annotated tag and export attributes."""
    path = tmp_path / "src-repo"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    (path / "lib.rs").write_text("fn old() {}\n")
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "one")
    first = git(path, "rev-parse", "HEAD")
    (path / "lib.rs").write_text("fn new_version() {}\n")
    (path / "skipme.py").write_text("def hidden(): pass\n")
    (path / "ver.txt").write_text("$Format:%H$\n")
    (path / ".gitattributes").write_text("skipme.py export-ignore\nver.txt export-subst\n")
    os.symlink("lib.rs", path / "alias.rs")
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "two")
    second = git(path, "rev-parse", "HEAD")
    git(path, "tag", "-a", "v2", "-m", "release two")
    tag_object = git(path, "rev-parse", "v2")
    return {"path": path, "first": first, "second": second, "tag_object": tag_object}


# ---------------------------------------------------------------------------- git


def test_git_tag_resolves_to_commit_and_exports_raw_tracked_files(tmp_path, repo):
    manifest = fetch(tmp_path, {"source": {"kind": "git", "url": "src-repo", "revision": "v2"}})
    root = tmp_path / "corpora" / "c"
    assert manifest["resolved_commit"] == repo["second"]
    assert manifest["resolved_revision"] == repo["second"]
    assert manifest["pinned_revision"] == "v2"
    assert not (root / ".git").exists()
    assert (root / "lib.rs").read_text() == "fn new_version() {}\n"
    # export-ignore and export-subst do not apply: the corpus is the commit as stored
    assert (root / "skipme.py").read_text() == "def hidden(): pass\n"
    assert (root / "ver.txt").read_text() == "$Format:%H$\n"
    assert os.readlink(root / "alias.rs") == "lib.rs"
    assert manifest["files"] == 4 and manifest["symlinks"] == 1
    assert manifest["files_per_language"] == {"-": 2, "python": 1, "rust": 1}
    rows = (tmp_path / "results" / "c" / "files.tsv").read_text().splitlines()
    assert rows[0] == "path\tbytes\tkind\tlanguage"
    assert rows[1:] == [
        ".gitattributes\t45\ttext\t-",
        "alias.rs\t6\tsymlink\trust",
        "lib.rs\t20\ttext\trust",
        "skipme.py\t19\ttext\tpython",
        "ver.txt\t12\ttext\t-",
    ]


def test_git_older_full_sha_and_short_sha(tmp_path, repo):
    manifest = fetch(
        tmp_path, {"source": {"kind": "git", "url": "src-repo", "revision": repo["first"]}}
    )
    assert manifest["resolved_commit"] == repo["first"]
    assert (tmp_path / "corpora" / "c" / "lib.rs").read_text() == "fn old() {}\n"
    short = fetch(
        tmp_path, {"source": {"kind": "git", "url": "src-repo", "revision": repo["first"][:10]}}
    )
    assert short["resolved_commit"] == repo["first"]


def test_git_pin_mismatch_is_refused_and_leaves_nothing(tmp_path, repo):
    spec = {"source": {"kind": "git", "url": "src-repo", "revision": repo["tag_object"]}}
    with pytest.raises(BenchError, match=f"resolves to commit {repo['second']}"):
        fetch(tmp_path, spec)
    assert_nothing_left(tmp_path)


def test_git_unknown_revision_names_url(tmp_path, repo):
    with pytest.raises(BenchError, match="src-repo"):
        fetch(tmp_path, {"source": {"kind": "git", "url": "src-repo", "revision": "nope"}})
    assert_nothing_left(tmp_path)


# ---------------------------------------------------------------------------- local


def test_local_git_takes_head_and_records_dirty(tmp_path, repo):
    path = repo["path"]
    (path / "lib.rs").write_text("fn uncommitted() {}\n")
    (path / "untracked.c").write_text("int x;\n")
    manifest = fetch(tmp_path, {"source": {"kind": "local", "path": "src-repo"}})
    root = tmp_path / "corpora" / "c"
    assert manifest["resolved_commit"] == repo["second"]
    assert manifest["dirty"] is True
    assert (root / "lib.rs").read_text() == "fn new_version() {}\n"
    assert not (root / "untracked.c").exists() and not (root / ".git").exists()
    git(path, "checkout", "--quiet", "--", "lib.rs")
    assert fetch(tmp_path, {"source": {"kind": "local", "path": "src-repo"}})["dirty"] is False


def test_local_git_without_commit_says_commit_first(tmp_path):
    (tmp_path / "empty").mkdir()
    git(tmp_path / "empty", "init", "--quiet")
    with pytest.raises(BenchError, match="no commit yet"):
        fetch(tmp_path, {"source": {"kind": "local", "path": "empty"}})
    assert_nothing_left(tmp_path)


def make_odd_tree(path: Path) -> None:
    (path / "sub dir").mkdir(parents=True)
    (path / "sub dir" / "with space.py").write_text("def f(): pass\n")
    (path / os.fsdecode(b"caf\xe9.c")).write_bytes(b"int caf;\n")
    (path / "blob.bin").write_bytes(b"abc\0def")
    (path / "nested" / ".git").mkdir(parents=True)
    (path / "nested" / ".git" / "HEAD").write_text("ref: x\n")
    (path / "nested" / "ok.go").write_text("package x\n")
    os.symlink("sub dir", path / "dirlink")
    os.symlink("nested/ok.go", path / "filelink.go")
    os.mkfifo(path / "pipe")


def test_local_dir_copies_files_and_links_and_odd_names_round_trip(tmp_path):
    make_odd_tree(tmp_path / "plain")
    manifest = fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    root = tmp_path / "corpora" / "c"
    assert manifest["pinned_revision"] == "plain"
    # A directory's revision is its content manifest; the copy has the source's.
    assert manifest["resolved_revision"] == corpora.directory_revision(tmp_path / "plain")
    assert manifest["resolved_revision"].startswith("manifest-sha256:")
    assert (root / os.fsdecode(b"caf\xe9.c")).read_bytes() == b"int caf;\n"
    assert os.readlink(root / "dirlink") == "sub dir"
    assert not (root / "nested" / ".git").exists() and not (root / "pipe").exists()
    assert (manifest["files"], manifest["symlinks"], manifest["binary_files"]) == (4, 2, 1)
    files_tsv = tmp_path / "results" / "c" / "files.tsv"
    text = files_tsv.read_text(encoding="utf-8")
    assert "caf%E9.c\t9\ttext\tc\n" in text
    assert "sub%20dir/with%20space.py\t14\ttext\tpython\n" in text
    assert "blob.bin\t7\tbinary\t-\n" in text
    assert all(len(line.split("\t")) == 4 for line in text.splitlines())
    entries = read_files_tsv(files_tsv)
    assert entries == scan_files(root, LANGUAGES)
    assert b"caf\xe9.c" in [os.fsencode(e.path) for e in entries]
    assert [os.fsencode(e.path) for e in entries] == sorted(os.fsencode(e.path) for e in entries)


def test_directory_revision_changes_with_any_content_edit_only(tmp_path):
    top = tmp_path / "plain"
    make_odd_tree(top)
    before = corpora.directory_revision(top)
    target = top / "sub dir" / "with space.py"
    stat_before = target.stat()
    # Same size, same mtime: only the content says it changed.
    target.write_text("def g(): pass\n")
    os.utime(target, ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns))
    edited = corpora.directory_revision(top)
    assert edited != before
    target.write_text("def f(): pass\n")
    assert corpora.directory_revision(top) == before
    # What is not copied does not count; a link's target and an executable bit do.
    (top / "nested" / ".git" / "HEAD").write_text("ref: y\n")
    assert corpora.directory_revision(top) == before
    os.remove(top / "dirlink")
    os.symlink("nested", top / "dirlink")
    assert corpora.directory_revision(top) != before
    os.remove(top / "dirlink")
    os.symlink("sub dir", top / "dirlink")
    (top / "blob.bin").chmod(0o755)
    assert corpora.directory_revision(top) != before


def test_refetch_replaces_destination_and_is_deterministic(tmp_path):
    make_odd_tree(tmp_path / "plain")
    first = fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    files_tsv = tmp_path / "results" / "c" / "files.tsv"
    before = files_tsv.read_bytes()
    (tmp_path / "corpora" / "c" / "stale.txt").write_text("old\n")
    second = fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    assert not (tmp_path / "corpora" / "c" / "stale.txt").exists()
    assert files_tsv.read_bytes() == before
    first.pop("fetched_at"), second.pop("fetched_at")
    assert first == second
    assert sorted(p.name for p in (tmp_path / "corpora").iterdir()) == ["c"]


def test_local_link_leaving_the_corpus_is_refused(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a.c").write_text("int a;\n")
    os.symlink("../outside", tmp_path / "plain" / "up")
    with pytest.raises(BenchError, match="'up'.*outside the corpus"):
        fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    assert_nothing_left(tmp_path)


# Links a tool following them would walk forever, or out of the corpus: (link, target, error).
HOSTILE_LINKS = [
    ("selfloop", ".", r"'selfloop' -> '\.' leads back to its own folder, a loop"),
    ("loopdir/up", "..", r"'loopdir/up' -> '\.\.' leads back to its own folder, a loop"),
    ("loopself", "loopself", r"'loopself' -> 'loopself' never resolves \(a loop of links\)"),
    ("etc", "/etc", r"'etc' -> '/etc' resolves outside the corpus"),
    ("loopdir/out", "../..", r"'loopdir/out' -> '\.\./\.\.' resolves outside the corpus"),
]
LOOP_FIX = "remove the link from the source or set `subdir` to a folder without it"


def hostile_tree(path: Path, links: list[tuple[str, str]]) -> Path:
    """A small corpus (src/a.c, loopdir/b.txt) with the given links, built at test time."""
    (path / "src").mkdir(parents=True)
    (path / "loopdir").mkdir()
    (path / "src" / "a.c").write_text("int a;\n")
    (path / "loopdir" / "b.txt").write_text("b\n")
    for link, target in links:
        os.symlink(target, path / link)
    return path


@pytest.mark.parametrize(("link", "target", "error"), HOSTILE_LINKS)
def test_local_dir_with_a_loop_or_an_outside_link_is_refused_in_one_line(
    tmp_path, link, target, error
):
    hostile_tree(tmp_path / "plain", [(link, target)])
    with pytest.raises(BenchError, match=error) as caught:
        fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    message = str(caught.value)
    assert "\n" not in message
    assert LOOP_FIX in message or "widen `subdir` or drop the link" in message
    assert_nothing_left(tmp_path)


def test_a_cycle_through_two_links_is_a_loop(tmp_path):
    hostile_tree(tmp_path / "plain", [])
    (tmp_path / "plain" / "x").mkdir()
    os.symlink("../x", tmp_path / "plain" / "loopdir" / "tox")
    os.symlink("../loopdir", tmp_path / "plain" / "x" / "back")
    with pytest.raises(BenchError, match=r"'loopdir/tox' -> '\.\./x' leads back to its own"):
        fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    assert_nothing_left(tmp_path)


def test_links_inside_the_corpus_that_do_not_loop_stay(tmp_path):
    links = [("lib", "src"), ("src/alias.c", "a.c"), ("gone", "missing"), ("loopdir/s", "../src")]
    hostile_tree(tmp_path / "plain", links)
    manifest = fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    assert manifest["symlinks"] == 4 and manifest["files"] == 2
    root = tmp_path / "corpora" / "c"
    assert {link: os.readlink(root / link) for link, _ in links} == dict(links)


def test_folder_links_that_multiply_a_walk_are_refused_but_a_chain_stays(tmp_path):
    # d{k}/a and d{k}/b -> ../d{k-1} (d1's -> src): no loop, but a walk following links
    # enters src 8,191 times (rg --follow on 16 such levels had not finished after 60 s).
    plain = hostile_tree(tmp_path / "plain", [])
    for level in range(1, 13):
        (plain / f"d{level}").mkdir()
        for name in ("a", "b"):
            os.symlink(f"../d{level - 1}" if level > 1 else "../src", plain / f"d{level}" / name)
    with pytest.raises(BenchError, match=r"'d1/b' -> '\.\./src' leads into a folder .* 8191 times"):
        fetch(tmp_path, {"source": {"kind": "local", "path": "plain"}})
    assert_nothing_left(tmp_path)
    # One link into a folder holding another link: each entry is seen at most three times.
    chain = hostile_tree(tmp_path / "chain", [("lib", "loopdir"), ("loopdir/s", "../src")])
    assert fetch(tmp_path, {"source": {"kind": "local", "path": chain.name}})["symlinks"] == 2


def test_a_subdir_without_the_loop_is_fetched(tmp_path):
    hostile_tree(tmp_path / "plain", [("selfloop", ".")])
    spec = {"source": {"kind": "local", "path": "plain"}, "subdir": "src"}
    assert fetch(tmp_path, spec)["files"] == 1


def test_every_source_kind_refuses_a_loop(tmp_path, repo, fake_npm):
    """git (by URL), a local git repository and an archive go through the same check."""
    os.symlink(".", repo["path"] / "selfloop")
    git(repo["path"], "add", "-A")
    git(repo["path"], "commit", "--quiet", "-m", "loop")
    error = r"'selfloop' -> '\.' leads back to its own folder"
    for spec in (
        {"source": {"kind": "git", "url": "src-repo", "revision": "main"}},
        {"source": {"kind": "local", "path": "src-repo"}},
        {"source": {"kind": "npm", "package": "evil", "version": "1.0.0"}},
    ):
        members = [("file", "package/a.js", "1"), ("sym", "package/selfloop", ".")]
        fake_npm(tar_with(tmp_path / "t.tgz", members))
        spec["subdir"] = "package" if spec["source"]["kind"] == "npm" else None
        with pytest.raises(BenchError, match=error):
            fetch(tmp_path, spec)
        assert_nothing_left(tmp_path)


def test_a_refused_refetch_keeps_the_last_good_checkout_and_its_record(tmp_path):
    hostile_tree(tmp_path / "plain", [])
    checkout = tmp_path / "corpora" / "checkout.json"

    def fetch_with_record() -> dict:
        return fetch_corpus(
            "c",
            {"source": {"kind": "local", "path": "plain"}},
            corpora.corpus_tree(checkout, check=False),
            tmp_path / "results" / "corpus.json",
            tmp_path / "results" / "files.tsv",
            LANGUAGES,
            tmp_path,
            checkout_path=checkout,
        )

    manifest = fetch_with_record()
    record = json.loads(checkout.read_text())
    assert record["tree"] == "tree" and record["resolved_revision"] == manifest["resolved_revision"]
    assert corpora.corpus_tree(checkout) == tmp_path / "corpora" / "tree"
    before = {p: p.read_bytes() for p in sorted((tmp_path / "corpora").rglob("*")) if p.is_file()}
    before |= {p: p.read_bytes() for p in (tmp_path / "results").iterdir()}
    (tmp_path / "plain" / "src" / "a.c").write_text("int edited;\n")
    os.symlink("..", tmp_path / "plain" / "loopdir" / "up")
    with pytest.raises(BenchError, match="'loopdir/up'"):
        fetch_with_record()
    after = {p: p.read_bytes() for p in sorted((tmp_path / "corpora").rglob("*")) if p.is_file()}
    after |= {p: p.read_bytes() for p in (tmp_path / "results").iterdir()}
    assert after == before
    # Same source, same record bytes (no timestamp in it).
    os.unlink(tmp_path / "plain" / "loopdir" / "up")
    (tmp_path / "plain" / "src" / "a.c").write_text("int a;\n")
    fetch_with_record()
    assert checkout.read_bytes() == before[checkout]


def test_a_missing_checkout_beside_its_record_says_how_to_refetch(tmp_path):
    checkout = tmp_path / "corpora" / "c" / "checkout.json"
    checkout.parent.mkdir(parents=True)
    checkout.write_text("{}\n")
    with pytest.raises(BenchError, match=r"checkout .*tree is missing; delete .*checkout\.json"):
        corpora.corpus_tree(checkout)


def test_missing_subdir_names_it_and_lists_entries(tmp_path):
    (tmp_path / "plain" / "pkg" / "src").mkdir(parents=True)
    (tmp_path / "plain" / "pkg" / "src" / "a.c").write_text("int a;\n")
    spec = {"source": {"kind": "local", "path": "plain"}, "subdir": "pkg/lib"}
    with pytest.raises(BenchError, match=r"subdir 'pkg/lib' not found.*pkg holds \[src\]"):
        fetch(tmp_path, spec)
    assert_nothing_left(tmp_path)
    spec["subdir"] = "pkg/src"
    assert fetch(tmp_path, spec)["files"] == 1
    assert (tmp_path / "corpora" / "c" / "a.c").is_file()


# ---------------------------------------------------------------------------- safe extraction


def tar_with(path: Path, members: list[tuple[str, str, str | bytes]]) -> Path:
    """members: (type, name, data or link target); type in file, sym, hard, chr."""
    with tarfile.open(path, "w:gz") as archive:
        for kind, name, payload in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                data = payload.encode() if isinstance(payload, str) else payload
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
                continue
            info.type = {"sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE, "chr": tarfile.CHRTYPE}[
                kind
            ]
            info.linkname = payload if kind != "chr" else ""
            archive.addfile(info)
    return path


def zip_with(path: Path, members: list[tuple[str, str, str]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for kind, name, payload in members:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (0o120777 if kind == "sym" else 0o100644) << 16
            archive.writestr(info, payload)
    return path


EVIL_CASES = [
    ([("file", "../evil", "x")], "'..'"),
    ([("file", "/abs", "x")], "absolute"),
    ([("sym", "link", "/etc"), ("file", "link/passwd", "x")], "points outside"),
    ([("sym", "link", "../../etc"), ("file", "link/passwd", "x")], "points outside"),
    ([("file", "d/x", "x"), ("sym", "in", "d"), ("file", "in/y", "y")], "through a symlink"),
]


@pytest.mark.parametrize("fmt", ["tar", "zip"])
@pytest.mark.parametrize(("members", "reason"), EVIL_CASES)
def test_unsafe_members_are_refused(tmp_path, fmt, members, reason):
    root = tmp_path / "box" / "root"
    root.mkdir(parents=True)
    maker = tar_with if fmt == "tar" else zip_with
    archive = maker(tmp_path / f"evil.{fmt}", members)
    with pytest.raises(BenchError, match=rf"evil\.{fmt}.*{reason}"):
        extract_archive(archive, root, archive.name)
    assert sorted(os.listdir(tmp_path / "box")) == ["root"]
    assert not (tmp_path / "evil").exists() and not Path("/abs").exists()


def test_tar_device_and_outside_hard_link_are_refused(tmp_path):
    for members, reason in [
        ([("chr", "dev", "")], "device"),
        ([("hard", "h", "../../etc/passwd")], "'..'"),
        ([("hard", "h", "missing")], "no earlier regular file"),
    ]:
        root = tmp_path / "root"
        root.mkdir()
        archive = tar_with(tmp_path / "evil.tar", members)
        with pytest.raises(BenchError, match=reason):
            extract_archive(archive, root, "evil.tar")
        assert os.listdir(root) == []
        root.rmdir()


def test_safe_archive_unpacks_links_and_hard_links(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    members = [("file", "./a/x.c", "int x;"), ("sym", "a/y.c", "x.c"), ("hard", "b.c", "a/x.c")]
    extract_archive(tar_with(tmp_path / "ok.tar", members), root, "ok.tar")
    assert os.readlink(root / "a" / "y.c") == "x.c"
    assert (root / "b.c").read_text() == "int x;"


@pytest.fixture
def fake_npm(monkeypatch):
    """Make `npm pack` hand over a given tarball, to drive fetch_corpus with hostile input."""

    def install(tgz: Path):
        real = corpora.run_tool

        def run_tool(argv, what, hint, cwd=None):
            if argv[0] != "npm":
                return real(argv, what, hint, cwd)
            (Path(cwd) / "evil-1.0.0.tgz").write_bytes(tgz.read_bytes())
            return json.dumps([{"filename": "evil-1.0.0.tgz", "version": "1.0.0"}])

        monkeypatch.setattr(corpora, "run_tool", run_tool)

    return install


def test_fetch_with_traversal_leaves_no_destination(tmp_path, fake_npm):
    fake_npm(tar_with(tmp_path / "t.tgz", [("file", "package/a.js", "1"), ("file", "../x", "")]))
    with pytest.raises(BenchError, match="evil-1.0.0.tgz.*'..'"):
        fetch(tmp_path, {"source": {"kind": "npm", "package": "evil", "version": "1.0.0"}})
    assert_nothing_left(tmp_path)
    assert not (tmp_path / "x").exists() and not (tmp_path / "corpora" / "x").exists()


def test_link_chain_escaping_through_another_link_is_refused(tmp_path, fake_npm):
    # each link looks inside on its own; together e -> s/.. -> parent of the root
    members = [("file", "a.js", "1"), ("sym", "s", "."), ("sym", "e", "s/..")]
    fake_npm(tar_with(tmp_path / "t.tgz", members))
    with pytest.raises(BenchError, match="'e'.*outside the corpus"):
        fetch(tmp_path, {"source": {"kind": "npm", "package": "evil", "version": "1.0.0"}})
    assert_nothing_left(tmp_path)


# ---------------------------------------------------------------------------- registries


@pytest.mark.slow
def test_deb_package_with_subdir(tmp_path):
    spec = {
        "source": {
            "kind": "deb",
            "packages": [{"name": "libxcrypt-source", "version": "1:4.4.33-2"}],
        },
        "subdir": "usr/src/libxcrypt",
    }
    manifest = fetch(tmp_path, spec)
    root = tmp_path / "corpora" / "c"
    assert (root / "lib" / "crypt.c").is_file()
    assert manifest["resolved_revision"] == "libxcrypt-source=1:4.4.33-2"
    assert manifest["packages"][0]["resolved_version"] == "1:4.4.33-2"
    assert (manifest["files"], manifest["symlinks"]) == (153, 2)
    assert manifest["files_per_language"]["c"] == 82
    (archive,) = manifest["archives"]
    assert archive["file"] == "libxcrypt-source_1%3a4.4.33-2_all.deb" and archive["bytes"] > 0
    assert len(read_files_tsv(tmp_path / "results" / "c" / "files.tsv")) == 155

    spec["source"]["packages"][0]["sha256"] = "0" * 64
    with pytest.raises(BenchError, match=f"expected {'0' * 64}, got {archive['sha256']}"):
        fetch(tmp_path, spec, name="bad")
    assert_nothing_left(tmp_path, "bad")


@pytest.mark.slow
def test_deb_unknown_version_names_package(tmp_path):
    spec = {
        "source": {"kind": "deb", "packages": [{"name": "libxcrypt-source", "version": "0.0-9"}]}
    }
    with pytest.raises(BenchError, match="libxcrypt-source=0.0-9.*apt-cache policy"):
        fetch(tmp_path, spec)
    assert_nothing_left(tmp_path)


@pytest.mark.slow
def test_npm_package(tmp_path):
    spec = {
        "source": {"kind": "npm", "package": "is-number", "version": "7.0.0"},
        "subdir": "package",
    }
    manifest = fetch(tmp_path, spec)
    assert manifest["resolved_revision"] == "7.0.0"
    assert sorted(os.listdir(tmp_path / "corpora" / "c")) == [
        "LICENSE",
        "README.md",
        "index.js",
        "package.json",
    ]
    assert manifest["files_per_language"] == {"-": 3, "javascript": 1}
    assert manifest["archives"][0]["file"] == "is-number-7.0.0.tgz"


def test_pypi_sdist(tmp_path):
    spec = {
        "source": {"kind": "pypi", "package": "six", "version": "1.16.0"},
        "subdir": "six-1.16.0",
    }
    manifest = fetch(tmp_path, spec)
    root = tmp_path / "corpora" / "c"
    assert (root / "six.py").is_file() and (root / "test_six.py").is_file()
    assert manifest["resolved_revision"] == "1.16.0"
    assert manifest["archives"][0]["file"] == "six-1.16.0.tar.gz"
    assert manifest["files_per_language"]["python"] >= 3


# ---------------------------------------------------------------------------- fileset


def test_language_of_uses_last_suffix_case_sensitively():
    assert language_of("a/b.rs", LANGUAGES) == "rust"
    assert language_of("x.tar.c", LANGUAGES) == "c"
    assert language_of("boot.S", LANGUAGES) == "unparsed-source"
    assert language_of("Main.JAVA", LANGUAGES) == "-"
    assert language_of(".py", LANGUAGES) == "-"
    assert language_of(b"caf\xe9.h", LANGUAGES) == "c"


def test_files_tsv_round_trip_with_hostile_names(tmp_path):
    names = [os.fsdecode(b"a\tb.c"), os.fsdecode(b"\xff\xfe.py"), "100%.go", "n\nl.rs", "z"]
    entries = [FileEntry(name, 3, "text", language_of(name, LANGUAGES)) for name in names]
    path = tmp_path / "files.tsv"
    write_files_tsv(list(reversed(entries)), path)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert len(lines) == len(names) + 2 and lines[-1] == ""
    assert all(len(line.split("\t")) == 4 for line in lines[:-1])
    assert read_files_tsv(path) == sorted(entries, key=lambda e: os.fsencode(e.path))


@pytest.mark.slow
def test_npm_unknown_version_says_what_to_check(tmp_path):
    spec = {"source": {"kind": "npm", "package": "is-number", "version": "0.0.0-none"}}
    with pytest.raises(BenchError, match="No matching version.*npm view is-number versions"):
        fetch(tmp_path, spec)
    assert_nothing_left(tmp_path)


# ---------------------------------------------------------------------------- pypi: bytes only


# An in-tree build backend needs no build dependencies, so pip runs it at once; importing it
# writes the marker (as a setup.py would).
HOSTILE_BACKEND = """
import pathlib
pathlib.Path({marker!r}).write_text("the build backend ran")
"""
HOSTILE_PYPROJECT = """[build-system]
requires = []
build-backend = "hostile_backend"
backend-path = ["."]
"""


@pytest.fixture
def fake_index(tmp_path, monkeypatch):
    """A PEP 503 index on localhost holding one sdist whose build backend writes a marker."""
    import functools
    import hashlib
    import http.server
    import threading

    marker = tmp_path / "MARKER"
    served = tmp_path / "index"
    (served / "simple" / "hostile-pkg").mkdir(parents=True)
    (served / "files").mkdir()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for member, text in {
            "hostile_pkg-1.0/hostile_backend.py": HOSTILE_BACKEND.format(marker=str(marker)),
            "hostile_pkg-1.0/pyproject.toml": HOSTILE_PYPROJECT,
            "hostile_pkg-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: hostile-pkg\nVersion: 1.0\n",
            "hostile_pkg-1.0/hostile_pkg.py": "def hostile_function():\n    return 1\n",
        }.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    sdist = buf.getvalue()
    (served / "files" / "hostile_pkg-1.0.tar.gz").write_bytes(sdist)
    digest = hashlib.sha256(sdist).hexdigest()
    (served / "simple" / "hostile-pkg" / "index.html").write_text(
        f'<html><body><a href="../../files/hostile_pkg-1.0.tar.gz#sha256={digest}">'
        "hostile_pkg-1.0.tar.gz</a></body></html>\n"
    )
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{server.server_port}/simple/")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_NO_INDEX", "")
    yield marker, digest
    server.shutdown()
    server.server_close()


def test_pypi_source_runs_nothing_from_the_sdist(tmp_path, fake_index):
    marker, digest = fake_index
    spec = {"source": {"kind": "pypi", "package": "hostile-pkg", "version": "1.0"}}
    wrong = {**spec, "source": {**spec["source"], "sha256": "0" * 64}}
    with pytest.raises(BenchError) as refused:
        fetch(tmp_path, wrong)
    assert not marker.exists(), "the sdist's build backend ran"
    assert "sha256 mismatch for PyPI sdist hostile-pkg==1.0" in str(refused.value)
    assert_nothing_left(tmp_path)
    right = {**spec, "source": {**spec["source"], "sha256": digest}, "subdir": "hostile_pkg-1.0"}
    manifest = fetch(tmp_path, right)
    assert not marker.exists()
    assert (tmp_path / "corpora" / "c" / "hostile_pkg.py").is_file()
    assert manifest["archives"][0] == {
        "file": "hostile_pkg-1.0.tar.gz",
        "sha256": digest,
        "bytes": manifest["archives"][0]["bytes"],
    }
    assert manifest["resolved_revision"] == "1.0"


def test_pypi_missing_version_is_one_line(tmp_path, fake_index):
    spec = {"source": {"kind": "pypi", "package": "hostile-pkg", "version": "2.0"}}
    with pytest.raises(BenchError, match="has no source distribution of version 2.0"):
        fetch(tmp_path, spec)
    assert_nothing_left(tmp_path)


def test_pip_config_lines_are_parsed():
    text = "global.cert='/etc/ca.crt'\n:env:.index-url='http://mirror.invalid/simple'\n"
    assert corpora.parse_pip_config(text) == {
        "global.cert": "/etc/ca.crt",
        ":env:.index-url": "http://mirror.invalid/simple",
    }
