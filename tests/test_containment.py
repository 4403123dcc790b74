"""One pass finds, for every query, exactly the files whose bytes contain its literal."""

import os
from pathlib import Path

import pytest

from searchbench.containment import (
    automaton,
    containment_rows,
    containment_text,
    files_containing_all,
    literals_by_file,
    read_containment,
    records,
)
from searchbench.errors import BenchError
from searchbench.fastpath import locate_rg

QUERIES = ["foob", "obar", "foo", "ReadAll", "Read", "-rf", "$(rm)", "héllo", "nowhere"]


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("foobar baz\nxx ReadAll\n")
    (tmp_path / "b.bin").write_bytes(b"\x00oob\x00 foob\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "we ird\nname.c").write_text("Read here -rf\n")
    (tmp_path / "sub" / ".hidden").write_text("echo $(rm) héllo\n")
    (tmp_path / ".gitignore").write_text("*\n")
    (tmp_path / "latin1.txt").write_bytes("h\xe9llo foo".encode("latin-1"))
    os.symlink("a.txt", tmp_path / "link.txt")
    os.symlink("missing", tmp_path / "dangling")
    return tmp_path


def brute_force(root: Path, literal: str) -> set[bytes]:
    """The definition: files (links followed) whose bytes contain the literal."""
    needle = literal.encode("utf-8")
    found = set()
    for path in root.rglob("*"):
        if path.is_file() and needle in path.read_bytes():
            found.add(os.fsencode(path.relative_to(root)))
    return found


def test_one_pass_equals_a_brute_force_search_for_every_query(corpus):
    found = files_containing_all(locate_rg(), str(corpus), QUERIES)
    for query in QUERIES:
        assert found.get(query, set()) == brute_force(corpus, query), query
    # Overlapping and nested literals count for each of them.
    assert b"a.txt" in found["foob"] and b"a.txt" in found["obar"] and b"a.txt" in found["foo"]
    assert b"a.txt" in found["Read"] and b"a.txt" in found["ReadAll"]
    assert "nowhere" not in found


def test_records_split_odd_names_and_binary_lines():
    stream = [b"./we ird\nna", b"me.c\0li\0ne one\n./b\0two\n"]
    assert list(records(stream)) == [(b"./we ird\nname.c", b"li\0ne one"), (b"./b", b"two")]
    with pytest.raises(BenchError, match="ended inside a record"):
        list(records([b"./a\0no newline"]))


def test_matching_is_byte_exact():
    machine = automaton(["héllo", "ab"])
    lines = [(b"./x", "héllo".encode()), (b"./y", "héllo".encode("latin-1")), (b"./z", b"xaby")]
    assert literals_by_file(lines, machine) == {"héllo": {b"x"}, "ab": {b"z"}}


def test_rows_round_trip_through_the_tsv(tmp_path):
    found = {"foo": {b"b", b"a dir/x\ty"}, "bar": {b"c"}}
    rows = containment_rows({"q2": "foo", "q1": "bar", "q3": "absent"}, found)
    assert rows == [("q1", b"c"), ("q2", b"a dir/x\ty"), ("q2", b"b")]
    path = tmp_path / "containing.tsv"
    path.write_text(containment_text(rows))
    assert read_containment(path) == {"q1": {b"c"}, "q2": {b"b", b"a dir/x\ty"}}


def test_a_multiline_query_is_refused(corpus):
    with pytest.raises(BenchError, match="line break"):
        files_containing_all(locate_rg(), str(corpus), ["a\nb"])


def test_a_failing_rg_stops_the_pass_but_a_dangling_link_does_not(corpus, tmp_path_factory):
    # The fixture holds a dangling link: rg exits 2 for it, and that is no reason to stop.
    assert files_containing_all(locate_rg(), str(corpus), ["foo"])["foo"]
    fake = tmp_path_factory.mktemp("bin") / "rg"
    fake.write_text("#!/bin/sh\necho 'rg: ./a.txt: Permission denied (os error 13)' >&2\nexit 2\n")
    fake.chmod(0o755)
    with pytest.raises(BenchError, match="Permission denied"):
        files_containing_all(str(fake), str(corpus), ["foo"])


def test_a_link_that_never_resolves_does_not_stop_the_pass(corpus):
    # `x -> x`: rg says "Too many levels of symbolic links"; the fetch refuses such a link,
    # and here it was read as an unreadable file ("make every file readable", the wrong fix).
    os.symlink("loopself", corpus / "loopself")
    assert files_containing_all(locate_rg(), str(corpus), ["foo"])["foo"] == brute_force(
        corpus, "foo"
    )
