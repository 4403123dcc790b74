"""Issue 8 item 7: one hostile file must not sink or skew a corpus.

Each case is a small corpus built in tmp_path; the result is correct, or the file is excluded
and listed in unseen.tsv, or the run stops with one line naming what happened."""

import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

from searchbench import gt_audit
from searchbench import symbols as sym
from searchbench.errors import BenchError
from searchbench.fileset import load_languages, scan_files
from searchbench.parsers import MAX_LINE, Match, parse_line, parse_output

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "config" / "astgrep"
LANGUAGES = load_languages(REPO / "config" / "languages.yaml")


def _scan(root: Path, **kw):
    return sym.scan_symbols(root, scan_files(root, LANGUAGES), RULES, LANGUAGES, 4_000_000, 1, **kw)


def test_non_utf8_file_name_is_unseen_not_a_failed_corpus(tmp_path):
    (tmp_path / "ok.c").write_text("int good_function(void) { return 0; }\n")
    bad = os.path.join(os.fsencode(tmp_path), b"caf\xe9.c")
    with open(bad, "wb") as handle:
        handle.write(b"int latin1_named_function(void) { return 0; }\n")
    rows, unseen = _scan(tmp_path)  # ast-grep panicked (exit 101) on this batch before
    assert [r.symbol for r in rows] == ["good_function"]
    assert [(os.fsencode(u.path), u.reason) for u in unseen] == [(b"caf\xe9.c", "name-not-utf8")]


def test_newline_in_a_file_name_is_unseen(tmp_path):
    (tmp_path / "ok.c").write_text("int good_function(void) { return 0; }\n")
    (tmp_path / "two\nlines.c").write_text("int newline_named_function(void) { return 0; }\n")
    rows, unseen = _scan(tmp_path)
    # grep-style output cannot be split back into this path: it must never be an answer
    assert [r.symbol for r in rows] == ["good_function"]
    assert [(u.path, u.reason) for u in unseen] == [("two\nlines.c", "newline-in-name")]


def test_minified_file_is_unseen_and_the_limit_is_configurable(tmp_path):
    line = "function minified_fn(){return 1};" + "x+=1;" * 3000 + "\n"
    (tmp_path / "app.min.js").write_text(line)
    (tmp_path / "ok.js").write_text("function readable_fn() { return 1; }\n")
    rows, unseen = _scan(tmp_path, max_line_bytes=10_000)
    assert [r.symbol for r in rows] == ["readable_fn"]
    assert [(u.path, u.reason, u.bytes) for u in unseen] == [("app.min.js", "minified", len(line))]
    rows, unseen = _scan(tmp_path, max_line_bytes=len(line))
    assert sorted(r.symbol for r in rows) == ["minified_fn", "readable_fn"] and unseen == []


def test_killed_symbol_pass_names_the_signal(tmp_path):
    (tmp_path / "ok.c").write_text("int good_function(void) { return 0; }\n")
    fake = tmp_path / "fake-ast-grep"
    kill = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    fake.write_text(f"#!{sys.executable}\n{kill}")
    fake.chmod(0o755)
    with pytest.raises(BenchError, match="killed by SIGKILL, likely the out-of-memory killer"):
        _scan(tmp_path, astgrep=str(fake))
    assert sym.exit_description(-signal.SIGSEGV) == "killed by SIGSEGV"
    assert sym.exit_description(2) == "exit 2"


def test_ctags_audit_list_cannot_smuggle_options(tmp_path):
    """A file named `--kinds-C=-f`, read from `-L -` as an option, turned C functions off."""
    ctags = shutil.which("ctags")
    if ctags is None:
        pytest.skip("needs universal-ctags")
    (tmp_path / "--kinds-C=-f").write_text("nothing here\n")
    (tmp_path / "a.c").write_text("int audited_function(void) { return 0; }\n")
    tags = gt_audit.run_ctags(tmp_path, [b"--kinds-C=-f", b"a.c"], {"audited_function"}, ctags)
    assert [(t.name, t.path, t.kind) for t in tags] == [("audited_function", "a.c", "function")]


def test_readtags_escapes_in_paths_are_undone():
    line = b'tab_fn\tdir\\\\x\\tb\\nc\\x01.c\t/^int tab_fn(void)$/;"\tkind:f'
    assert parse_line("ctags", line) == Match(b"dir\\x\tb\nc\x01.c", 0, b"int tab_fn(void)")
    assert parse_line("ctags", b"f\tplain/p.c\t1")[0] == b"plain/p.c"


def test_astgrep_record_over_the_line_cap_keeps_its_file_and_line():
    obj = {
        "text": "needle",
        "range": {"byteOffset": {"start": 9, "end": 15}, "start": {"line": 4, "column": 9}},
        "file": "dir/huge.js",
        "lines": "x" * (2 * MAX_LINE),
        "language": "JavaScript",
    }
    small = {**obj, "file": "small.js", "lines": "needle"}
    data = (json.dumps(obj, separators=(",", ":")) + "\n" + json.dumps(small) + "\n").encode()
    matches = parse_output("astgrep-json", data)
    assert [(m.path, m.line) for m in matches] == [(b"dir/huge.js", 5), (b"small.js", 5)]


def test_new_unseen_reasons_round_trip(tmp_path):
    rows = [
        sym.UnseenRow("a.min.js", "minified", 3),
        sym.UnseenRow("b\udce9.c", "name-not-utf8", 2),
        sym.UnseenRow("two\nlines.c", "newline-in-name", 1),
    ]
    sym.write_unseen_tsv(rows, tmp_path / "unseen.tsv")
    assert sym.read_unseen_tsv(tmp_path / "unseen.tsv") == sym.sort_unseen(rows)


# ---------------------------------------------------------------- the usage track's Global audit

USES_FIXTURE = REPO / "tests" / "fixtures" / "uses"
needs_global = pytest.mark.skipif(
    not shutil.which("gtags") or not shutil.which("global"), reason="needs GNU Global"
)


def _usage_tables(root: Path, out: Path):
    from searchbench import sampling, usage_queries, uses

    files = scan_files(root, LANGUAGES)
    symbols, unseen = sym.scan_symbols(root, files, RULES, LANGUAGES, 4_000_000, 1)
    sym.write_symbols_tsv(symbols, out / "symbols.tsv")
    sym.write_unseen_tsv(unseen, out / "unseen.tsv")
    found, _ = uses.scan_uses(
        root, files, REPO / "config" / "astgrep_uses", LANGUAGES, 4_000_000, 1
    )
    uses.write_uses_tsv(found, out / "uses.tsv")
    return usage_queries.select_usage_queries(
        sampling.read_symbols(out / "symbols.tsv"),
        sampling.read_unseen(out / "unseen.tsv"),
        usage_queries.read_uses(out / "uses.tsv"),
        root,
        min_length=4,
        n="all",
        seed=7,
        corpus="fx",
    )


@needs_global
def test_global_audit_takes_a_non_utf8_and_a_colon_file_name(tmp_path):
    """Issue 37 item 4: b"caf\\xe9.py" stopped the usage_queries rule (Global's Pygments
    plug-in raised UnicodeEncodeError, and the one line was its truncated traceback)."""
    from searchbench import usage_queries

    root = tmp_path / "corpus"
    shutil.copytree(USES_FIXTURE, root)
    with open(os.path.join(os.fsencode(root), b"c", b"caf\xe9.py"), "wb") as handle:
        handle.write(b"def latin1_named():\n    return 1\n")
    (root / "c" / "two\nlines.c").write_text("int nl(void) { return 2; }\n")
    (root / "c" / "a:1:b.c").write_text("int colon(void) { return lib_used_thrice(3); }\n")
    result = _usage_tables(root, tmp_path)
    rows = usage_queries.reference_agreement(root, result.sample, result.qrels, 10, 1)
    c, pooled = rows
    assert (c["language"], c["queries"], c["audited"]) == ("c", 3, 3)
    assert pooled["note"] == (
        "files not given to Global (unseen.tsv lists them): 1 name-not-utf8, 1 newline-in-name"
    )
    # Ours lists a:1:b.c (uses.tsv sees it) and so does Global, read whole (it was "a"):
    # the agreement is the clean fixture's (tests/test_uses.py), one more file each side.
    assert (c["exact"], c["mean_precision"], c["ours_files"], c["global_files"]) == (1, 1.0, 9, 11)
    assert c["mean_jaccard"] == pytest.approx((1 + 3 / 4 + 4 / 5) / 3)
    files = usage_queries.gtags_files(root)
    assert [(os.fsencode(p), r) for p, r in files.left_out] == [
        (b"c/caf\xe9.py", "name-not-utf8"),
        (b"c/two\nlines.c", "newline-in-name"),
    ]
    with tempfile.TemporaryDirectory() as db:
        usage_queries.build_gtags(root, db, conf=usage_queries.pygments_conf(Path(db)))
        found = usage_queries.global_files(
            root, db, "lib_used_thrice", known=frozenset(files.given)
        )
    assert found == {"c/a.c", "c/a:1:b.c", "c/b.c", "c/c.c", "c/lib.h"}


def test_global_grep_lines_split_at_a_known_path():
    from searchbench.usage_queries import parse_global_grep

    out = b"a:1:b.c:3:x = f(1);\n./d e.c:12:f();\nc/\xe9.c:1:f\n"
    known = frozenset({b"a:1:b.c", b"d e.c", b"c/\xe9.c"})
    assert parse_global_grep(out, known) == {"a:1:b.c", "d%20e.c", "c/%E9.c"}
    assert parse_global_grep(out) == {"a", "d%20e.c", "c/%E9.c"}  # without the file set


# ---------------------------------------------------------------- names printed raw or lossy


@pytest.mark.parametrize(
    ("fmt", "printed"),
    [
        ("grep-null", b"two\nlines.c\x001:int x;\nb.c\x002:y\n"),
        ("git-null", b"two\nlines.c\x001\x00int x;\nb.c\x002\x00y\n"),
        ("grep", b"./two\nlines.c:1:int x;\nb.c:2:y\n"),
        ("cscope", b"two\nlines.c f 1 int x;\nb.c g 2 y\n"),
    ],
)
def test_a_name_with_a_newline_printed_raw_is_read_back_whole(fmt, printed):
    """Every grep-style tool prints `two\\nlines.c` raw: its first piece did not parse and the
    second was taken for a file `lines.c`, outside the corpus."""
    from searchbench.parsers import StreamParser

    known = {b"two\nlines.c", b"b.c"}
    parser = StreamParser(fmt, known)
    got = [(m.path, m.line) for m in [*parser.feed(printed), *parser.close()]]
    assert got == [(b"two\nlines.c", 1), (b"b.c", 2)]
    assert (parser.unparsed, parser.stdout_lines) == (0, 3)
    # without the file set, as before: the piece is unparsed and the rest kept as printed
    alone = parse_output(fmt, printed)
    assert [m.path for m in alone] == [b"lines.c", b"b.c"]


def test_a_lossy_printed_name_is_the_one_known_name_printed_alike():
    """ast-grep (Rust's to_string_lossy) prints b"caf\\xe9.c" as "caf\\ufffd.c"."""
    from searchbench.parsers import StreamParser, lossy_names

    record = {"file": "./caf\ufffd.c", "range": {"start": {"line": 0}}, "lines": "f()"}
    data = (json.dumps(record) + "\n").encode()
    parser = StreamParser("astgrep-json", {b"caf\xe9.c", b"ok.c"})
    assert [m.path for m in parser.feed(data)] == [b"caf\xe9.c"]
    # two names that print alike cannot be told apart: kept as printed
    twins = StreamParser("astgrep-json", {b"caf\xe9.c", b"caf\xe8.c"})
    assert [m.path for m in twins.feed(data)] == ["caf\ufffd.c".encode()]
    assert lossy_names([b"a\xff", b"ok"]) == {"a\ufffd".encode(): b"a\xff"}


def test_language_server_uris_carry_a_non_utf8_name(tmp_path):
    """lsp-symbol --open-all .ts stopped with UnicodeEncodeError on b"caf\\xe9.ts" (its
    session died, every query of typescript-language-server was an error)."""
    from searchbench.lsp import path_to_uri, uri_to_path

    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9 x.ts")
    open(raw, "wb").close()
    uri = path_to_uri(os.fsdecode(raw))
    assert uri.endswith("/caf%E9%20x.ts")
    assert os.fsencode(uri_to_path(uri)) == os.path.realpath(raw)
    # tsserver's answer encodes the name it read literally once more
    assert os.fsencode(uri_to_path(uri.replace("%", "%25"))) == os.path.realpath(raw)
    utf8 = tmp_path / "é.ts"
    assert path_to_uri(utf8).endswith("/%C3%A9.ts") and uri_to_path(path_to_uri(utf8)) == str(
        utf8.resolve()
    )
