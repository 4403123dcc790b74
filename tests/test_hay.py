"""hay, the definition-prior ranker: real ripgrep, real fixture trees, real outcomes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from searchbench.errors import BenchError
from searchbench.hay import misfires
from searchbench.hay.cli import parse_args, rg_argv
from searchbench.hay.signals import (
    DOCS_SHAPES,
    FALSE_FIRING_WORDS_FILE,
    Scorer,
    Switches,
    cshape_raw,
    docs_shaped,
    file_context,
    is_comment_line,
    load_false_firing_words,
    path_category,
)
from searchbench.tools import load_tools

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "hay"
PY = ROOT / ".venv" / "bin" / "python"
RG = ROOT / ".venv" / "bin" / "rg"
PYTHON = str(PY) if PY.exists() else sys.executable


def hay(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [PYTHON, "-m", "searchbench.hay.cli", *args],
        cwd=cwd,
        capture_output=True,
        env=full_env,
        timeout=60,
    )


def files_in_order(out: bytes, null: bool = False) -> list[str]:
    """Distinct paths in first-printed order from grep-style output."""
    order: list[str] = []
    for line in out.decode().splitlines():
        path = line.split("\0" if null else ":", 1)[0]
        if path not in order:
            order.append(path)
    return order


# --- declaration first, per language -----------------------------------------------------
CASES = [
    ("c", "ext4_read_block", "./z_impl.c"),
    ("cpp", "make_widget", "./z_widget.cpp"),
    ("cpp", "Gadget", "./z_widget.cpp"),
    ("rust", "quiet", "./src/z_hiargs.rs"),  # `pub(crate) fn quiet` inside `impl`
    ("rust", "render_line", "./src/z_hiargs.rs"),  # a method in `impl`
    ("typescript", "firstValueFrom", "./z_impl.ts"),
    ("typescript", "_subscribe", "./z_impl.ts"),
    ("javascript", "isNumber", "./z_lib.js"),
    ("javascript", "parseFlags", "./z_lib.js"),
    ("python", "resolve_color_default", "./src/z_globals.py"),
    ("go", "dialSerial", "./z_dial.go"),
    ("java", "trimToSize", "./src/ZArrayList.java"),
    ("swift", "validate", "./ZValidation.swift"),
]


@pytest.mark.parametrize(("lang", "symbol", "decl"), CASES)
def test_declaration_ranks_first(lang: str, symbol: str, decl: str) -> None:
    r = hay("--", symbol, cwd=FIX / lang)
    assert r.returncode == 0, r.stderr
    order = files_in_order(r.stdout)
    assert order[0] == decl
    # the fixture is built so that plain path order would put the declaration later
    assert sorted(order)[0] != decl


def test_test_file_declaration_ranks_below_implementation() -> None:
    order = files_in_order(hay("quiet", cwd=FIX / "rust").stdout)
    assert order.index("./src/z_hiargs.rs") < order.index("./crates/core/tests/quiet.rs")
    go = files_in_order(hay("dialSerial", cwd=FIX / "go").stdout)
    assert go.index("./z_dial.go") < go.index("./a_dial_test.go") < go.index("./a_client.go")


# --- every switch matters where its signal does ------------------------------------------
@pytest.mark.parametrize(
    ("flag", "lang", "symbol", "decl"),
    [
        ("--no-keyword-prior", "rust", "quiet", "./src/z_hiargs.rs"),
        ("--no-keyword-prior", "python", "Context", "./src/z_globals.py"),
        ("--no-c-shape", "c", "ext4_read_block", "./z_impl.c"),
        ("--no-c-shape", "java", "trimToSize", "./src/ZArrayList.java"),
    ],
)
def test_switching_a_signal_off_loses_the_declaration(
    flag: str, lang: str, symbol: str, decl: str
) -> None:
    on = files_in_order(hay(symbol, cwd=FIX / lang).stdout)
    off = files_in_order(hay(flag, symbol, cwd=FIX / lang).stdout)
    assert on[0] == decl
    assert off[0] != decl
    assert sorted(on) == sorted(off)  # ranking changes, the set of files does not


@pytest.mark.parametrize(("lang", "symbol", "decl"), CASES)
def test_the_configured_no_definition_variant_loses_every_declaration_to_path_order(
    lang: str, symbol: str, decl: str
) -> None:
    """hay-no-definition (config/tools.yaml) switches keyword and C-shape off together: no
    fixture declaration is first any more, whichever signal found it."""
    argv = load_tools(ROOT / "config" / "tools.yaml")["hay-no-definition"].argv
    flags = [a for a in argv if a.startswith("--no-")]
    assert flags == ["--no-keyword-prior", "--no-c-shape"]
    off = files_in_order(hay(*flags, "--", symbol, cwd=FIX / lang).stdout)
    assert off[0] != decl
    assert decl in off


def test_no_path_prior_lets_the_test_declaration_win_the_tie() -> None:
    on = files_in_order(hay("quiet", cwd=FIX / "rust").stdout)
    off = files_in_order(hay("--no-path-prior", "quiet", cwd=FIX / "rust").stdout)
    assert on[0] == "./src/z_hiargs.rs"
    # both declarations now score the same; path order breaks the tie
    assert off[0] == "./crates/core/tests/quiet.rs"
    docs = files_in_order(hay("resolve_color_default", cwd=FIX / "python").stdout)
    docs_off = files_in_order(
        hay("--no-path-prior", "resolve_color_default", cwd=FIX / "python").stdout
    )
    assert docs[-1] == "./docs/api.rst"
    assert docs_off[1] == "./docs/api.rst"


@pytest.mark.parametrize(
    ("query", "shaped"),
    [
        ("--no-config", True),
        ("--sort=path", True),
        ("GUIDE.md", True),
        ("conftest.py", True),
        ("Caching", True),
        ("plugins", True),
        ("HTTP", True),
        ("max_parse_bytes", False),
        ("fromEvent", False),
        ("pytest.fixture", False),
        ("grep_searcher::Searcher", False),
        ("Config2", False),
        ("-x", False),
    ],
)
def test_docs_shape_is_a_flag_a_file_name_or_a_plain_word(query: str, shaped: bool) -> None:
    assert docs_shaped(query.encode()) is shaped


def test_docs_shapes_are_the_docs_tracks_own_flag_and_word_rules() -> None:
    import yaml

    tokens = yaml.safe_load((ROOT / "config" / "docs_tokens.yaml").read_text())
    flag = next(rule["regex"] for rule in tokens["tokens"] if rule["name"] == "flag")
    assert DOCS_SHAPES["flag"].decode() == flag
    assert DOCS_SHAPES["heading word"].decode() == tokens["words"]["regex"]


def test_docs_shape_variant_lifts_the_document_only_for_a_docs_shaped_query(
    tmp_path: Path,
) -> None:
    """The configured hay-docs variant: the document ties with a code mention instead of
    ranking below it; an identifier query ranks exactly as hay ranks it."""
    argv = load_tools(ROOT / "config" / "tools.yaml")["hay-docs"].argv
    flags = [a for a in argv if a.startswith("--") and a not in ("--null", "--")]
    assert flags == ["--docs-shape"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "a.py").write_text("class Caching:\n    max_bytes = 1\n")
    (tmp_path / "zz.py").write_text("x = Caching()\ny = max_bytes\n")
    (tmp_path / "docs" / "caching.md").write_text("# Caching\n\nSet `max_bytes`.\n")
    hay_order = files_in_order(hay("Caching", ".", cwd=tmp_path).stdout)
    variant = files_in_order(hay(*flags, "Caching", ".", cwd=tmp_path).stdout)
    assert hay_order == ["./a.py", "./zz.py", "./docs/caching.md"]
    assert variant == ["./a.py", "./docs/caching.md", "./zz.py"]
    for query in ("max_bytes",):
        assert hay(*flags, query, ".", cwd=tmp_path).stdout == hay(query, ".", cwd=tmp_path).stdout


def test_excluded_words_come_from_the_config_file(tmp_path: Path) -> None:
    empty = tmp_path / "words.txt"
    empty.write_text("# nothing excluded\n")
    with_list = files_in_order(hay("ext4_read_block", cwd=FIX / "c").stdout)
    without = files_in_order(
        hay("ext4_read_block", cwd=FIX / "c", env={"HAY_FALSE_FIRING_WORDS": str(empty)}).stdout
    )
    assert with_list == ["./z_impl.c", "./b_block.h", "./a_callers.c"]
    # `return ext4_read_block(inode);` now looks like a prototype, ties with the header's
    # and wins the tie by path
    assert without == ["./z_impl.c", "./a_callers.c", "./b_block.h"]
    missing = hay("x", cwd=FIX / "c", env={"HAY_FALSE_FIRING_WORDS": str(tmp_path / "no")})
    assert missing.returncode == 2
    assert b"false-firing word list" in missing.stderr


def test_word_bonus_prefers_exact_word_over_substring(tmp_path: Path) -> None:
    (tmp_path / "a.rs").write_text("let t = test_quiet_mode();\n")
    (tmp_path / "b.rs").write_text("if args.quiet() {}\n")
    assert files_in_order(hay("quiet", cwd=tmp_path).stdout) == ["./b.rs", "./a.rs"]


# --- it ranks, it does not filter; output is deterministic --------------------------------
def rg_matches(symbol: str, cwd: Path) -> set[tuple[str, int]]:
    out = subprocess.run(rg_argv(str(RG), symbol, ["."], False), cwd=cwd, capture_output=True)
    found = set()
    for raw in out.stdout.splitlines():
        msg = json.loads(raw)
        if msg["type"] == "match":
            found.add((msg["data"]["path"]["text"], msg["data"]["line_number"]))
    return found


@pytest.mark.parametrize("symbol", ["quiet", "self", "fn", "(", "e"])
def test_every_match_is_printed_once(symbol: str) -> None:
    r = hay("--json", "--", symbol, cwd=FIX)
    got = [(o["path"], o["line"]) for o in map(json.loads, r.stdout.splitlines())]
    assert len(got) == len(set(got))
    assert set(got) == rg_matches(symbol, FIX)
    assert len(got) > 0


def test_output_is_deterministic_and_grouped() -> None:
    runs = {hay("--", "e", cwd=FIX).stdout for _ in range(3)}
    assert len(runs) == 1
    out = runs.pop()
    # each file's lines are contiguous and in line order
    seen, last = [], {}
    for line in out.decode().splitlines():
        path, number, _ = line.split(":", 2)
        if not seen or seen[-1] != path:
            assert path not in seen
            seen.append(path)
        assert int(number) > last.get(path, 0)
        last[path] = int(number)
    # equal best scores are ordered by path bytes
    objs = [json.loads(x) for x in hay("--json", "e", cwd=FIX).stdout.splitlines()]
    best: dict[str, int] = {}
    for o in objs:
        best[o["path"]] = max(best.get(o["path"], -999), o["score"])
    keys = [(-best[p], p.encode()) for p in dict.fromkeys(o["path"] for o in objs)]
    assert keys == sorted(keys)


# --- formats ------------------------------------------------------------------------------
def test_null_and_json_formats() -> None:
    plain = hay("trimToSize", cwd=FIX / "java").stdout
    null = hay("--null", "trimToSize", cwd=FIX / "java").stdout
    assert plain.splitlines()[0] == b"./src/ZArrayList.java:3:    public void trimToSize() {"
    assert null.splitlines()[0] == b"./src/ZArrayList.java\x003:    public void trimToSize() {"
    assert null.replace(b"\0", b":") == plain
    objs = [
        json.loads(x)
        for x in hay("--json", "trimToSize", cwd=FIX / "java").stdout.split(b"\n")[:-1]
    ]
    assert objs[0] == {
        "line": 3,
        "path": "./src/ZArrayList.java",
        "path_encoded": False,
        "score": 95,
        "signals": ["c-shape", "word"],
        "text": "    public void trimToSize() {",
    }
    assert objs[-1]["signals"] == ["word", "path:example"]


def test_non_utf8_path_and_line(tmp_path: Path) -> None:
    name = os.fsdecode(b"n\xffme.rs")
    (tmp_path / name).write_bytes(b"fn weird\xfe_sym() {}\nfn weird() {}\n")
    r = hay("--null", "weird", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 0
    path = os.fsencode(str(tmp_path)) + b"/n\xffme.rs"
    assert r.stdout == path + b"\x001:fn weird\xfe_sym() {}\n" + path + b"\x002:fn weird() {}\n"
    objs = [json.loads(x) for x in hay("--json", "weird", cwd=tmp_path).stdout.splitlines()]
    assert objs[0]["path"] == "./n%FFme.rs" and objs[0]["path_encoded"] is True
    assert objs[1]["signals"] == ["keyword", "word"]


# --- hostile queries are literals, never options, never shell -----------------------------
HOSTILE = ["-rf", "--help", "$(touch pwned)", "*", "\\", "a b", "naïve", "`touch pwned2`", "'"]


def test_hostile_queries_are_literal(tmp_path: Path) -> None:
    lines = [f"line with {q} inside" for q in HOSTILE] + ["plain line"]
    (tmp_path / "data.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for q in HOSTILE:
        r = hay("--", q, cwd=tmp_path)
        assert r.returncode == 0, (q, r.stderr)
        got = r.stdout.decode("utf-8").splitlines()
        want = [f"./data.txt:{i}:{t}" for i, t in enumerate(lines, 1) if q in t]
        assert got == want, q
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt"]
    # without `--`, a dash query is refused (as grep would), not run
    assert hay("-rf", cwd=tmp_path).returncode == 2
    assert hay("--help", cwd=tmp_path).stdout.startswith(b"hay:")


def test_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "f.c").write_text("int x;\n")
    assert hay("x", cwd=tmp_path).returncode == 0
    assert hay("nothing_here", cwd=tmp_path).returncode == 1
    missing_rg = hay("--rg", str(tmp_path / "no-rg"), "x", cwd=tmp_path)
    assert missing_rg.returncode == 2 and b"no-rg does not exist" in missing_rg.stderr
    env_rg = hay("x", cwd=tmp_path, env={"HAY_RG": str(tmp_path / "no-rg")})
    assert env_rg.returncode == 2
    bad_path = hay("x", str(tmp_path / "absent"), cwd=tmp_path)
    assert bad_path.returncode == 2 and b"hay: ripgrep" in bad_path.stderr
    assert hay("--word", "x", cwd=tmp_path).returncode == 0
    assert hay("--no-such-flag", "x", cwd=tmp_path).returncode == 2


def test_several_paths_and_the_file_listing(tmp_path: Path) -> None:
    (tmp_path / "a.rs").write_text("fn quiet() {}\n")
    (tmp_path / "b.rs").write_text("quiet();\n")
    (tmp_path / "c.bin").write_bytes(b"quiet\0")
    assert hay("quiet", "./b.rs", "./a.rs", cwd=tmp_path).stdout == (
        b"./a.rs:1:fn quiet() {}\n./b.rs:1:quiet();\n"
    )
    # A single named file still prints its name (the fast path names single files).
    assert hay("quiet", "./b.rs", cwd=tmp_path).stdout == b"./b.rs:1:quiet();\n"
    listed = hay("--files", "./", cwd=tmp_path).stdout.split(b"\0")
    assert sorted(p for p in listed if p) == [b"./a.rs", b"./b.rs"]  # no binary


def test_the_file_listing_is_in_path_order_every_time(tmp_path: Path) -> None:
    # rg's parallel walk lists a wide tree in a varying order; the listing is an artifact.
    for d in range(12):
        for f in range(12):
            (tmp_path / f"d{d:02}" / f"f{f:02}.rs").parent.mkdir(exist_ok=True)
            (tmp_path / f"d{d:02}" / f"f{f:02}.rs").write_text(f"fn f{f}() {{}}\n" * 50)
    listings = [hay("--files", "./", cwd=tmp_path).stdout for _ in range(3)]
    names = [p for p in listings[0].split(b"\0") if p]
    assert len(names) == 144 and names == sorted(names)
    assert listings[1] == listings[0] and listings[2] == listings[0]


def test_word_flag_is_passed_to_rg(tmp_path: Path) -> None:
    (tmp_path / "a.rs").write_text("quietly\nquiet\n")
    assert hay("--word", "quiet", cwd=tmp_path).stdout == b"./a.rs:2:quiet\n"
    assert hay("quiet", cwd=tmp_path).stdout == b"./a.rs:1:quietly\n./a.rs:2:quiet\n"


def test_parse_args() -> None:
    o = parse_args(["--json", "--", "--help", "src"])
    assert (o["json"], o["symbol"], o["paths"]) == (True, "--help", ["src"])
    assert parse_args(["sym"])["paths"] == ["."]
    assert parse_args(["sym", "a.c", "./-b.c"])["paths"] == ["a.c", "./-b.c"]
    assert parse_args(["--files"])["paths"] == ["."] and parse_args(["--files"])["files"]
    assert parse_args(["sym", "--null"])["null"] is True
    assert parse_args(["--rg=/x/rg", "s"])["rg"] == "/x/rg"


# --- signals as units ---------------------------------------------------------------------
def score(line: str, symbol: str, file: str = "src/x.c", **switches) -> tuple:
    sw = Switches(**switches)
    words = load_false_firing_words()
    return Scorer(symbol.encode(), sw, words).score(line.encode(), file_context(file.encode(), sw))


@pytest.mark.parametrize(
    ("line", "symbol", "path", "signal"),
    [
        ("pub(crate) fn quiet(&self) -> bool {", "quiet", "a.rs", "keyword"),
        ("    pub async unsafe fn go_now()", "go_now", "a.rs", "keyword"),
        ("macro_rules! my_mac {", "my_mac", "a.rs", "keyword"),
        ("impl<T> Sink for Buf<T> {", "Sink", "a.rs", "keyword"),
        ("export default class Foo {", "Foo", "a.ts", "keyword"),
        ("#define MAX_LEN 10", "MAX_LEN", "a.h", "keyword"),
        ("struct foo {", "foo", "a.c", "keyword"),
        ("    async def fetch(self):", "fetch", "a.py", "keyword"),
        ("func (r *Reader) Read(p []byte) (int, error) {", "Read", "a.go", "keyword"),
        ("type Handler interface {", "Handler", "a.go", "keyword"),
        ("static struct foo *bar(int x)", "bar", "a.c", "c-shape"),
        ("unsigned long long f(void) {", "f", "a.c", "c-shape"),
        ("public static void main(String[] args) {", "main", "A.java", "c-shape"),
        ("int Foo::bar(int x) const {", "bar", "a.cpp", "c-shape"),
        ("const char *const *names(void);", "names", "a.h", "c-shape"),
        ("- (void)viewDidLoad {", "viewDidLoad", "a.m", "c-shape"),
        ("int helper(void) {", "helper", "A.c", "c-shape"),
    ],
)
def test_declarations_fire(line: str, symbol: str, path: str, signal: str) -> None:
    s, fired = score(line, symbol, path)
    assert signal in fired and s > 50


@pytest.mark.parametrize(
    ("line", "symbol", "path"),
    [
        ("struct foo *p = get();", "foo", "a.c"),  # a use of the tag, not its declaration
        ("\treturn ext4_read_block(inode);", "ext4_read_block", "a.c"),
        ("match pattern_from_bytes(line) {", "pattern_from_bytes", "a.rs"),
        ("for seq in Utf8Sequences::new(r) {", "new", "a.rs"),
        ("return new Notification('N', value);", "Notification", "a.ts"),
        ("\tdefer releaseThread()", "releaseThread", "a.go"),
        ("    assert get_current_context() is ctx", "get_current_context", "a.py"),
        ("x && isFunction(value)", "isFunction", "a.ts"),
        ("// static int helper(void) was removed", "helper", "a.c"),
        (" * int helper(void) is documented here", "helper", "a.c"),
        ("# def helper(x): old version", "helper", "a.py"),
        ("Call the helper(x) function to start.", "helper", "README.md"),
        ("let y = quiet_mode(x);", "quiet", "a.rs"),  # substring only
        ("LICENSE terms govern(this) file", "govern", "LICENSE"),
    ],
)
def test_non_declarations_do_not_fire(line: str, symbol: str, path: str) -> None:
    _, fired = score(line, symbol, path)
    assert "keyword" not in fired and "c-shape" not in fired


def test_switches_turn_signals_off() -> None:
    assert "keyword" not in score("fn quiet() {", "quiet", "a.rs", keyword=False)[1]
    assert score("static int f(void) {", "f", "a.c", cshape=False)[1] == ("word",)
    assert score("fn q() {}", "q", "tests/a.rs")[1] == ("keyword", "word", "path:test")
    assert score("fn q() {}", "q", "tests/a.rs", path=False)[1] == ("keyword", "word")


def test_path_categories() -> None:
    cases = {
        "src/lib.rs": None,
        "pkg/reader_test.go": "test",
        "tests/x.rs": "test",
        "click/test_core.py": "test",
        "src/a.spec.ts": "test",
        "src/a.test.ts": "test",
        "x/__tests__/a.js": "test",
        "net/testdata/a.go": "test",
        "docs/index.html": "docs",
        "README.md": "docs",
        "notes.txt": "docs",
        "examples/a.rs": "example",
        "benches/b.rs": "example",
        "vendor/x/y.go": "vendored",
        "node_modules/a/index.js": "vendored",
        "third_party/z.c": "vendored",
    }
    for path, want in cases.items():
        assert path_category(path.encode()) == want, path


def test_comment_lines() -> None:
    assert is_comment_line(b"   // x")
    assert is_comment_line(b"# x")
    assert not is_comment_line(b"#define X 1")
    assert not is_comment_line(b"#[inline] fn x()")
    assert not is_comment_line(b"int x;")


def test_scorer_agrees_with_the_shape_the_counter_measures() -> None:
    """The per-symbol regex hay runs and the position-based shape the misfire counter runs
    must fire on exactly the same lines (with no exclusions and outside comments)."""
    lines = [
        b"static int ext4_read_block(struct inode *inode)",
        b"\treturn foo(x);",
        b"std::vector<int> foo(int n) {",
        b"x && foo(y)",
        b"foo(y)",
        b"int a = foo(y);",
        b"public <T> List<T> foo(T t) {",
        b"unsigned long long *foo (void);",
        b"Foo::Bar foo<T>(x)",
        b"const char *const *foo(void);",
        b"- (void)foo",
    ]
    sw = Switches(keyword=False, path=False)
    scorer = Scorer(b"foo", sw, frozenset())
    ctx = file_context(b"a.c", sw)
    for line in lines:
        start = line.find(b"foo")
        raw = cshape_raw(line, start, start + 3)
        assert ("c-shape" in scorer.score(line, ctx)[1]) == raw, line


# --- the misfire counter ------------------------------------------------------------------
def test_count_misfires_counts_words_before_false_firings(tmp_path: Path) -> None:
    (tmp_path / "m.c").write_text(
        "static int helper(int x)\n{\n\treturn helper(x - 1);\n}\n"
        "int main(void)\n{\n\treturn helper(2);\n}\n/* see\n   the helper(3) call */\n"
    )
    (tmp_path / "m.rs").write_text("fn run() {\n    match helper(1) {}\n}\n")
    rows = [
        {"symbol": "helper", "kind": "function", "language": "c", "path": "m.c", "line": "1"},
        {"symbol": "main", "kind": "function", "language": "c", "path": "m.c", "line": "5"},
        {"symbol": "run", "kind": "function", "language": "rust", "path": "m.rs", "line": "1"},
    ]
    tally = misfires.count(tmp_path, [{**r, "rule": "t"} for r in rows])
    assert tally.false == {"return": 2, "match": 1, "the": 1}
    assert tally.true == {"int": 2, "fn": 1}
    assert misfires.derive_excluded(tally) == ["return"]
    text = misfires.words_file(tally, ["fixture"])
    assert "return  # false=2 true=0 c:2" in text
    table = misfires.table(tally)
    assert table[0].split("\t")[:3] == ["word", "false", "true"]


def test_symbols_tsv_reader(tmp_path: Path) -> None:
    good = tmp_path / "symbols.tsv"
    good.write_text("symbol\tkind\tlanguage\tpath\tline\trule\nf\tfunction\tc\ta.c\t3\tr1\n")
    assert misfires.read_symbols(good)[0]["line"] == "3"
    bad = tmp_path / "bad.tsv"
    bad.write_text("name\tpath\n")
    with pytest.raises(BenchError, match=r"header is \['name', 'path'\], expected"):
        misfires.read_symbols(bad)


def test_shipped_word_list_is_derived_and_parsable() -> None:
    text = Path(FALSE_FIRING_WORDS_FILE).read_text()
    assert "count_cshape_misfires.py" in text
    words = load_false_firing_words()
    assert {b"return", b"match", b"in", b"new", b"case"} <= words
    # type words that really declare C functions must never be excluded
    assert not {b"int", b"void", b"char", b"static", b"fn", b"func", b"def"} & words


def test_version_names_rg_by_content_not_path(tmp_path: Path) -> None:
    """The same rg in another venv must give the same version line (so no hay job reruns);
    another rg binary must not."""
    from searchbench.hay.cli import version_line

    first, second, other = tmp_path / "a" / "rg", tmp_path / "b" / "rg", tmp_path / "c" / "rg"
    for path, body in ((first, b"rg 14"), (second, b"rg 14"), (other, b"rg 15")):
        path.parent.mkdir()
        path.write_bytes(body)
    assert version_line(str(first)) == version_line(str(second))
    assert version_line(str(first)) != version_line(str(other))
    assert str(tmp_path) not in version_line(str(first))
    assert version_line(None).endswith("; rg not found)")


# --- issue 37 item 7: a broken ripgrep, a FIFO, a long query ------------------------------
def test_a_named_ripgrep_that_cannot_run_is_named_with_why(tmp_path: Path) -> None:
    """The fix is not "pass --rg PATH" when the user did: say what is wrong with the path."""
    (tmp_path / "f.c").write_text("int x;\n")
    (tmp_path / "plain").write_text("not a program\n")
    cases = [
        (
            ("--rg", str(tmp_path / "no-rg")),
            {},
            f"--rg {tmp_path}/no-rg: {tmp_path}/no-rg does not exist",
        ),
        (
            (),
            {"HAY_RG": str(tmp_path / "plain")},
            f"HAY_RG={tmp_path}/plain: {tmp_path}/plain is not executable",
        ),
        (("--rg", str(tmp_path)), {}, f"--rg {tmp_path}: {tmp_path} is not a file"),
        (("--rg", "no-such-rg-here"), {}, "--rg no-such-rg-here: no-such-rg-here is not on PATH"),
    ]
    for args, env, why in cases:
        r = hay(*args, "x", cwd=tmp_path, env=env)
        assert r.returncode == 2 and not r.stdout
        assert r.stderr.decode() == f"hay: {why}; give the path of a ripgrep binary\n"


@pytest.mark.parametrize("exit_status", [0, 1])
def test_a_ripgrep_that_is_not_one_is_an_error_not_no_match(
    tmp_path: Path, exit_status: int
) -> None:
    """/bin/false exits 1, which is ripgrep's "no match": hay must not read it so."""
    (tmp_path / "f.c").write_text("int x;\n")
    fake = tmp_path / "fake-rg"
    fake.write_text(f"#!/bin/sh\nexit {exit_status}\n")
    fake.chmod(0o755)
    r = hay("x", cwd=tmp_path, env={"HAY_RG": str(fake)})
    assert r.returncode == 2 and not r.stdout
    assert r.stderr.decode() == (
        f"hay: {fake} exited {exit_status} without ripgrep's JSON summary: not a working "
        "ripgrep; pass --rg PATH of ripgrep\n"
    )
    if exit_status == 1:
        listing = hay("--files", ".", cwd=tmp_path, env={"HAY_RG": str(fake)})
        assert listing.returncode == 2 and listing.stderr.decode().startswith(
            f"hay: {fake} is not ripgrep"
        )
    # the real ripgrep's "no match" stays exit 1, silently, in both modes
    for args in (("nothing_here",), ("--files", "./nowhere-empty")):
        (tmp_path / "nowhere-empty").mkdir(exist_ok=True)
        r = hay(*args, cwd=tmp_path)
        assert (r.returncode, r.stdout, r.stderr) == (1, b"", b""), args


def test_a_fifo_is_refused_when_named_and_skipped_inside_a_folder(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "a.c").write_text("int ring_reset(void);\n")
    os.mkfifo(tmp_path / "dir" / "pipe")
    for args in (("ring_reset", "dir/pipe"), ("--files", "dir/pipe")):
        r = hay(*args, cwd=tmp_path)  # hay()'s timeout fails a hang
        assert r.returncode == 2 and not r.stdout
        assert (
            r.stderr
            == b"hay: dir/pipe is a FIFO or device, not a file or folder; name files or folders\n"
        )
    found = hay("ring_reset", "dir", cwd=tmp_path)
    assert (found.returncode, found.stdout) == (0, b"dir/a.c:1:int ring_reset(void);\n")


@pytest.mark.slow
def test_a_long_query_compiles_its_regexes_only_for_a_line_it_scores(monkeypatch) -> None:
    """A 100 KB query spent its time compiling five regexes that hold it (0.45 s here, 5.9 s
    where measured), whether or not any line matched: now a long one compiles when a line
    is scored, once; a symbol of usual length still compiles at once (while rg searches)."""
    import re

    from searchbench.hay import rank

    compiled: list[int] = []
    original = re.compile

    def counting(pattern, flags=0):
        compiled.append(len(pattern))
        return original(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    sw = Switches()
    long_symbol = b"x" * 100_000
    scorer = Scorer(long_symbol, sw, frozenset())
    assert rank.collect([b'{"data":{},"type":"summary"}\n'], scorer) == {}
    assert compiled == []  # nothing matched: nothing compiled
    line = b"int " + long_symbol + b"(void);"
    assert "c-shape" in scorer.score(line, file_context(b"a.c", sw))[1]
    first = len(compiled)
    assert first == len(Scorer._PATTERNS) and max(compiled) < 3 * len(long_symbol)
    scorer.score(line, file_context(b"b.c", sw))
    assert len(compiled) == first  # compiled once
    compiled.clear()
    Scorer(b"ring_reset", sw, frozenset())
    assert len(compiled) == len(Scorer._PATTERNS)
