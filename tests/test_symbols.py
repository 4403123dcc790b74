"""The ast-grep symbol pass on a fixture corpus of tricky declarations (tests/fixtures/tricky)."""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from searchbench import symbols as sym
from searchbench.errors import BenchError
from searchbench.fileset import load_languages, scan_files

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "tricky"
RULES = REPO / "config" / "astgrep"
LANGUAGES = load_languages(REPO / "config" / "languages.yaml")
MAX = 4_000_000

EXPECTED = {
    "c": [
        ("helper_twice", "function", "c/other.c", 2),
        ("msg", "variable", "c/tricky.c", 4),
        ("TRICKY_GREEN", "enumerator", "c/tricky.c", 6),
        ("TRICKY_RED", "enumerator", "c/tricky.c", 6),
        ("tricky_color", "enum", "c/tricky.c", 6),
        ("tricky_bits", "union", "c/tricky.c", 8),
        ("tricky_point", "typedef", "c/tricky.c", 15),
        ("tricky_counter", "variable", "c/tricky.c", 17),
        ("tricky_add", "function", "c/tricky.c", 19),
        ("tricky_static", "function", "c/tricky.c", 24),
        ("tricky_new", "function", "c/tricky.c", 30),
        ("tricky_array", "function", "c/tricky.c", 37),
        ("tricky_apply", "function", "c/tricky.c", 42),
        ("helper_twice", "function", "c/tricky.c", 47),
        ("TRICKY_H", "macro", "c/tricky.h", 3),
        ("TRICKY_MAX", "macro", "c/tricky.h", 5),
        ("tricky_node", "struct", "c/tricky.h", 7),
        ("tricky_node_t", "typedef", "c/tricky.h", 12),
        ("tricky_cb", "typedef", "c/tricky.h", 13),
        ("f", "field", "c/tricky.c", 10),
        ("i", "field", "c/tricky.c", 9),
        ("next", "field", "c/tricky.h", 9),
        ("value", "field", "c/tricky.h", 8),
        ("x", "field", "c/tricky.c", 14),
    ],
    "cpp": [
        ("tcc_template_fn", "function", "cpp/impl.tcc", 2),
        ("gadgets", "namespace", "cpp/widget.cpp", 3),
        ("Widget", "method", "cpp/widget.cpp", 4),
        ("size", "method", "cpp/widget.cpp", 5),
        ("free_function", "function", "cpp/widget.cpp", 6),
        ("inner", "namespace", "cpp/widget.cpp", 7),
        ("make_widget", "function", "cpp/widget.cpp", 8),
        ("inner_qualified", "method", "cpp/widget.cpp", 11),
        ("gadgets", "namespace", "cpp/widget.hpp", 2),
        ("Widget", "class", "cpp/widget.hpp", 3),
        ("inline_get", "method", "cpp/widget.hpp", 7),
        ("PlainData", "struct", "cpp/widget.hpp", 11),
        ("Fast", "enumerator", "cpp/widget.hpp", 12),
        ("Mode", "enum", "cpp/widget.hpp", 12),
        ("Slow", "enumerator", "cpp/widget.hpp", 12),
        ("WidgetPtr", "alias", "cpp/widget.hpp", 13),
        ("a", "field", "cpp/widget.hpp", 11),
        ("size_", "field", "cpp/widget.hpp", 9),
    ],
    "go": [
        ("GoConst", "const", "go/net.go", 6),
        ("GoA", "const", "go/net.go", 9),
        ("GoB", "const", "go/net.go", 10),
        ("GoVar", "var", "go/net.go", 13),
        ("goVarA", "var", "go/net.go", 16),
        ("goVarB", "var", "go/net.go", 16),
        ("GoStruct", "type", "go/net.go", 19),
        ("GoIface", "type", "go/net.go", 23),
        ("GoIfaceMethod", "interface-method", "go/net.go", 24),
        ("GoAlias", "type", "go/net.go", 27),
        ("GoFunc", "function", "go/net.go", 29),
        ("GoMethod", "method", "go/net.go", 34),
        ("GoGeneric", "function", "go/net.go", 36),
        ("Field", "field", "go/net.go", 20),
    ],
    "java": [
        ("Shape", "class", "java/Shape.java", 4),
        ("sides", "field", "java/Shape.java", 5),
        ("NAME", "field", "java/Shape.java", 6),
        ("OTHER", "field", "java/Shape.java", 6),
        ("Shape", "constructor", "java/Shape.java", 8),
        ("getSides", "method", "java/Shape.java", 10),
        ("Drawable", "interface", "java/Shape.java", 12),
        ("draw", "method", "java/Shape.java", 12),
        ("Color", "enum", "java/Shape.java", 14),
        ("GREEN", "enum-constant", "java/Shape.java", 14),
        ("RED", "enum-constant", "java/Shape.java", 14),
        ("Point", "record", "java/Shape.java", 16),
        ("Marker", "annotation", "java/Shape.java", 18),
        ("x", "record-component", "java/Shape.java", 16),
        ("y", "record-component", "java/Shape.java", 16),
    ],
    "javascript": [
        ("JsxComponent", "function", "js/comp.jsx", 1),
        ("jsFunction", "function", "js/util.js", 2),
        ("JsClass", "class", "js/util.js", 3),
        ("jsMethod", "method", "js/util.js", 4),
        ("jsGetter", "method", "js/util.js", 5),
        ("jsArrow", "variable", "js/util.js", 7),
        ("jsExported", "variable", "js/util.js", 8),
        ("jsVar", "variable", "js/util.js", 9),
    ],
    "python": [
        ("MODULE_CONST", "variable", "python/pkg.py", 5),
        ("annotated_var", "variable", "python/pkg.py", 6),
        ("py_function", "function", "python/pkg.py", 9),
        ("nested_helper", "function", "python/pkg.py", 10),
        ("py_async", "function", "python/pkg.py", 15),
        ("PyClass", "class", "python/pkg.py", 19),
        ("__init__", "method", "python/pkg.py", 22),
        ("py_property", "method", "python/pkg.py", 26),
        ("py_async_method", "method", "python/pkg.py", 29),
        ("class_attr", "attribute", "python/pkg.py", 20),
    ],
    "rust": [
        ("crate_visible", "function", "rust/lib.rs", 4),
        ("super_visible", "function", "rust/lib.rs", 8),
        ("Matcher", "struct", "rust/lib.rs", 10),
        ("Kind", "enum", "rust/lib.rs", 14),
        ("Literal", "variant", "rust/lib.rs", 15),
        ("Regex", "variant", "rust/lib.rs", 16),
        ("Searcher", "trait", "rust/lib.rs", 19),
        ("search", "method", "rust/lib.rs", 20),
        ("default_method", "method", "rust/lib.rs", 21),
        ("new", "method", "rust/lib.rs", 27),
        ("fmt", "method", "rust/lib.rs", 34),
        ("Result2", "type", "rust/lib.rs", 39),
        ("MAX_LEN", "const", "rust/lib.rs", 40),
        ("COUNTER", "static", "rust/lib.rs", 41),
        ("my_macro", "macro", "rust/lib.rs", 43),
        ("RawBits", "union", "rust/lib.rs", 47),
        ("async_unsafe_fn", "function", "rust/lib.rs", 52),
        ("f", "field", "rust/lib.rs", 49),
        ("i", "field", "rust/lib.rs", 48),
        ("pattern", "field", "rust/lib.rs", 11),
    ],
    "swift": [
        ("swiftGlobal", "property", "swift/shapes.swift", 4),
        ("swiftFunction", "function", "swift/shapes.swift", 6),
        ("SwiftClass", "class", "swift/shapes.swift", 8),
        ("swiftProp", "property", "swift/shapes.swift", 9),
        ("swiftMethod", "method", "swift/shapes.swift", 11),
        ("SwiftStruct", "struct", "swift/shapes.swift", 14),
        ("value", "property", "swift/shapes.swift", 15),
        ("SwiftEnum", "enum", "swift/shapes.swift", 18),
        ("alpha", "case", "swift/shapes.swift", 19),
        ("beta", "case", "swift/shapes.swift", 19),
        ("SwiftProtocol", "protocol", "swift/shapes.swift", 22),
        ("protoRequirement", "protocol-method", "swift/shapes.swift", 23),
        ("extensionMethod", "method", "swift/shapes.swift", 27),
        ("SwiftAlias", "typealias", "swift/shapes.swift", 30),
    ],
    "tsx": [
        ("TsxComponent", "function", "ts/view.tsx", 2),
        ("TsxArrow", "variable", "ts/view.tsx", 5),
        ("TsxProps", "interface", "ts/view.tsx", 6),
        ("name", "property", "ts/view.tsx", 2),
        ("x", "property", "ts/view.tsx", 6),
    ],
    "typescript": [
        ("tsFunction", "function", "ts/mod.ts", 2),
        ("tsAsync", "function", "ts/mod.ts", 3),
        ("tsGenerator", "function", "ts/mod.ts", 4),
        ("TsClass", "class", "ts/mod.ts", 5),
        ("tsField", "field", "ts/mod.ts", 6),
        ("constructor", "method", "ts/mod.ts", 7),
        ("tsMethod", "method", "ts/mod.ts", 8),
        ("tsStatic", "method", "ts/mod.ts", 9),
        ("TsAbstract", "class", "ts/mod.ts", 11),
        ("tsAbstractMethod", "method-signature", "ts/mod.ts", 12),
        ("TsInterface", "interface", "ts/mod.ts", 14),
        ("ifaceMethod", "method-signature", "ts/mod.ts", 15),
        ("TsAlias", "type", "ts/mod.ts", 18),
        ("A", "enum-member", "ts/mod.ts", 19),
        ("B", "enum-member", "ts/mod.ts", 19),
        ("TsEnum", "enum", "ts/mod.ts", 19),
        ("tsArrow", "variable", "ts/mod.ts", 20),
        ("tsConst", "variable", "ts/mod.ts", 21),
        ("tsLet", "variable", "ts/mod.ts", 22),
        ("TsSpace", "namespace", "ts/mod.ts", 23),
        ("tsLocal", "function", "ts/mod.ts", 25),
        ("ifaceProp", "property", "ts/mod.ts", 16),
    ],
}


def scan(root: Path, files=None, threads: int = 2, max_bytes: int = MAX, **kw):
    files = scan_files(root, LANGUAGES) if files is None else files
    return sym.scan_symbols(root, files, RULES, LANGUAGES, max_bytes, threads, **kw)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The fixture copied into a git checkout whose ignore files hide everything, the way
    Debian's kernel tarball does (`/*` in .gitignore), plus a hidden directory."""
    root = tmp_path_factory.mktemp("tricky") / "corpus"
    shutil.copytree(FIXTURE, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("/*\n!/debian/\n")
    (root / ".ignore").write_text("*\n")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("*\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.go").write_text("package h\n\nfunc HiddenFunc() {}\n")
    return root


@pytest.fixture(scope="module")
def result(corpus):
    return scan(corpus)


def rows_for(rows, language, hidden=False):
    return sorted(
        (r.symbol, r.kind, r.path, r.line)
        for r in rows
        if r.language == language and (hidden or not r.path.startswith(".hidden/"))
    )


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_exact_declarations_per_language(result, language):
    rows, _ = result
    assert rows_for(rows, language) == sorted(EXPECTED[language])
    assert all(r.rule == f"{r.language}-{r.kind}" for r in rows)


def test_every_parsed_language_has_rules_and_a_fixture():
    assert sorted(EXPECTED) == sorted(LANGUAGES["parsed"])
    assert sorted(p.stem for p in RULES.glob("*.yml")) == sorted(LANGUAGES["parsed"])


def test_ignore_files_and_hidden_paths_hide_nothing(result):
    rows, unseen = result
    assert ("HiddenFunc", "function", ".hidden/secret.go", 3) in rows_for(rows, "go", hidden=True)
    assert {r.path.split("/")[0] for r in rows} >= {"c", "cpp", "rust", "ts", "js", "go"}
    # git init's sample hooks are shell scripts (`#!`): unparsed source, rightly unseen
    assert {u.reason for u in unseen if u.path.startswith(".git/hooks/")} == {"unparsed-language"}
    assert [u for u in unseen if not u.path.startswith(".git/")] == []


def test_names_in_comments_and_strings_are_not_declarations(result, corpus):
    rows, _ = result
    mentioned = [p for p in corpus.rglob("*") if p.is_file() and b"phantom_" in p.read_bytes()]
    assert len(mentioned) >= 10  # the negatives really are in the corpus
    assert [r for r in rows if "phantom" in r.symbol] == []


def test_prototypes_externs_and_locals_are_not_declarations(result):
    rows, _ = result
    where = {}
    for r in rows:
        where.setdefault(r.symbol, set()).add(r.path)
    # declared in the header, defined in the .c: the definition is the one answer
    assert where["tricky_add"] == {"c/tricky.c"}
    assert where["tricky_new"] == {"c/tricky.c"}
    assert where["tricky_counter"] == {"c/tricky.c"}
    assert where["size"] == {"cpp/widget.cpp"}
    # a data member is a declaration (a field); its uses in widget.cpp are not
    assert where["size_"] == {"cpp/widget.hpp"}
    for name in (
        "c_prototype",
        "tsDeclared",
        "local_var",
        "localVar",
        "notTopLevel",
        "local_name",
        "inner_fp",
        "cb",
        "n",
        "value_",
    ):
        assert name not in where, name


def test_a_name_declared_in_two_files_has_two_rows(result):
    rows, _ = result
    assert {r.path for r in rows if r.symbol == "helper_twice"} == {"c/other.c", "c/tricky.c"}


def test_extensions_are_parsed_as_our_language(result):
    rows, _ = result
    languages = {(r.path.rsplit(".", 1)[1], r.language) for r in rows}
    assert ("h", "c") in languages and ("tcc", "cpp") in languages  # ast-grep skips .tcc alone
    assert ("jsx", "javascript") in languages and ("hpp", "cpp") in languages


def test_output_is_identical_for_threads_batches_and_input_order(corpus, tmp_path):
    files = scan_files(corpus, LANGUAGES)
    outputs = []
    for threads, budget, order in ((1, sym.ARGV_BUDGET, files), (2, 40, files[::-1])):
        rows, unseen = scan(corpus, files=order, threads=threads, argv_budget=budget)
        out = tmp_path / f"t{threads}"
        sym.write_symbols_tsv(rows, out / "symbols.tsv")
        sym.write_unseen_tsv(unseen, out / "unseen.tsv")
        outputs.append(((out / "symbols.tsv").read_bytes(), (out / "unseen.tsv").read_bytes()))
    assert outputs[0] == outputs[1]
    # header + every expected row + HiddenFunc from the hidden directory
    assert outputs[0][0].count(b"\n") == 1 + sum(len(v) for v in EXPECTED.values()) + 1


def test_json_matches_are_name_sized(corpus):
    """Relational rules would copy whole function bodies into the JSON; the rules avoid it."""
    texts = sym.load_rules(RULES, LANGUAGES)
    paths = sorted(p.relative_to(corpus).as_posix().encode() for p in corpus.rglob("*.[ch]"))
    with tempfile.TemporaryDirectory() as work:
        config = sym.write_sgconfig(Path(work), texts, LANGUAGES)
        matches, errors = sym._run_batch(sym.find_astgrep(), config, corpus, paths, 1)
    assert errors == [] and len(matches) == len(EXPECTED["c"])
    for match in matches:
        assert "metaVariables" not in match, match["ruleId"]
        assert len(json.dumps(match)) < 700, match["ruleId"]


def test_unseen_files_have_reasons(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    big = "int in_big_file(void) { return 0; }\n" + "// padding line\n" * 200
    (root / "big.c").write_text(big)
    (root / "small.c").write_text("int in_small_file(void) { return 0; }\n")
    (root / "latin1.c").write_bytes(b"/* caf\xe9 */\nint in_latin1_file(void) { return 0; }\n")
    (root / "start.S").write_text(".globl in_asm_file\nin_asm_file:\n")
    (root / "blob.c").write_bytes(b"int in_blob(void);\0\0")
    files = scan_files(root, LANGUAGES)
    rows, unseen = scan(root, files=files, max_bytes=1000)
    assert [(r.symbol, r.path) for r in rows] == [("in_small_file", "small.c")]
    size = {p.name: p.stat().st_size for p in root.iterdir()}
    assert [(u.path, u.reason, u.bytes) for u in unseen] == [
        ("big.c", "too-large", size["big.c"]),
        ("blob.c", "binary", size["blob.c"]),
        ("latin1.c", "not-utf8", size["latin1.c"]),
        ("start.S", "unparsed-language", size["start.S"]),
    ]


def test_astgrep_error_is_reported_for_the_file(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "ok.c").write_text("int fine_function(void) { return 0; }\n")
    files = [("ok.c", 39, "text", "c"), ("gone.c", 10, "text", "c")]  # gone.c was deleted
    rows, unseen = scan(root, files=files)
    assert [r.symbol for r in rows] == ["fine_function"]
    assert unseen == [sym.UnseenRow("gone.c", "astgrep-error", 10)]


def test_names_in_files_matches_whole_identifiers_only(tmp_path):
    (tmp_path / "a b.S").write_text("call do_thing_fast\n$jq_var = other_name2;\n")
    (tmp_path / "c.S").write_text("caf\u00e9_fn:\n")
    names = {"do_thing", "do_thing_fast", "jq_var", "$jq_var", "other_name", "caf\u00e9_fn"}
    found = sym.names_in_files(tmp_path, ["a%20b.S", "c.S", "missing.S"], names)
    assert found == {"do_thing_fast", "$jq_var", "caf\u00e9_fn"}


def test_tsv_round_trip_is_sorted_and_exact(tmp_path):
    rows = [
        sym.SymbolRow("b", "function", "c", "dir/x y.c", 10, "c-function"),
        sym.SymbolRow("b", "function", "c", "dir/x y.c", 9, "c-function"),
        sym.SymbolRow("a", "macro", "c", "z.h", 1, "c-macro"),
    ]
    unseen = [sym.UnseenRow("z.S", "unparsed-language", 3), sym.UnseenRow("a.c", "too-large", 9)]
    sym.write_symbols_tsv(rows, tmp_path / "symbols.tsv")
    sym.write_unseen_tsv(unseen, tmp_path / "unseen.tsv")
    assert (tmp_path / "symbols.tsv").read_text() == (
        "symbol\tkind\tlanguage\tpath\tline\trule\n"
        "a\tmacro\tc\tz.h\t1\tc-macro\n"
        "b\tfunction\tc\tdir/x%20y.c\t9\tc-function\n"
        "b\tfunction\tc\tdir/x%20y.c\t10\tc-function\n"
    )
    assert (tmp_path / "unseen.tsv").read_text() == (
        "path\treason\tbytes\na.c\ttoo-large\t9\nz.S\tunparsed-language\t3\n"
    )
    assert sym.read_symbols_tsv(tmp_path / "symbols.tsv") == sym.sort_symbols(rows)
    assert sym.read_unseen_tsv(tmp_path / "unseen.tsv") == sym.sort_unseen(unseen)


def test_bad_rule_files_fail_with_a_sentence(tmp_path):
    for language in LANGUAGES["parsed"]:
        shutil.copy(RULES / f"{language}.yml", tmp_path / f"{language}.yml")
    doc = {"id": "gofunc", "language": "go", "rule": {"kind": "identifier"}}
    (tmp_path / "go.yml").write_text(yaml.safe_dump(doc))
    with pytest.raises(BenchError, match="must be `go-<kind>`"):
        sym.load_rules(tmp_path, LANGUAGES)
    (tmp_path / "go.yml").unlink()
    with pytest.raises(BenchError, match="no ast-grep rules for language go"):
        sym.load_rules(tmp_path, LANGUAGES)


def test_identifier_tokens_equal_the_token_regex_on_any_bytes():
    import random

    from searchbench.symbols import _TOKEN, identifier_tokens

    rng = random.Random(7)
    alphabet = b"ab_$Z9 \t\n\r\x0b\x0c\x00-+.(\x80\xc3\xa9\xff"
    for _ in range(200):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        assert identifier_tokens(data) == _TOKEN.findall(data), data


def test_scripts_and_sources_without_rules_are_unseen_not_invisible(tmp_path):
    """Issue 8 item 2: a name declared in a script or a .zsh/.fish file was exactly-once."""
    root = tmp_path / "corpus"
    (root / "bin").mkdir(parents=True)
    (root / "lib.py").write_text("def shared_helper():\n    return 1\n")
    (root / "bin" / "tool").write_text("#!/usr/bin/env python3\ndef shared_helper():\n    pass\n")
    (root / "bin" / "setup").write_text("#!/bin/sh\nsetup_env() { :; }\n")
    (root / "prompt.zsh").write_text("function zsh_widget() { }\n")
    (root / "conf.fish").write_text("function fish_greeting\nend\n")
    (root / "README").write_text("no shebang: prose\n")
    files = scan_files(root, LANGUAGES)
    assert {f.path: f.language for f in files} == {
        "README": "-",
        "bin/setup": "unparsed-source",
        "bin/tool": "unparsed-source",
        "conf.fish": "unparsed-source",
        "lib.py": "python",
        "prompt.zsh": "unparsed-source",
    }
    rows, unseen = scan(root, files=files)
    assert [(r.symbol, r.path) for r in rows] == [("shared_helper", "lib.py")]
    assert [(u.path, u.reason) for u in unseen] == [
        ("bin/setup", "unparsed-language"),
        ("bin/tool", "unparsed-language"),
        ("conf.fish", "unparsed-language"),
        ("prompt.zsh", "unparsed-language"),
    ]
    # so the sampler keeps shared_helper out of the exactly-once set
    assert sym.names_in_files(root, [u.path for u in unseen], {"shared_helper"}) == {
        "shared_helper"
    }


def _write_pass(rows, unseen, out: Path) -> tuple[bytes, bytes]:
    sym.write_symbols_tsv(rows, out / "symbols.tsv")
    sym.write_unseen_tsv(unseen, out / "unseen.tsv")
    return (out / "symbols.tsv").read_bytes(), (out / "unseen.tsv").read_bytes()


def _sharded_pass(root: Path, files, shards: int, out: Path, **kw) -> tuple[bytes, bytes]:
    """What rules symbols_shard and symbols write: each shard scanned and written, then the
    shard files gathered."""
    symbol_paths, unseen_paths = [], []
    for shard in range(shards):
        rows, unseen = scan(root, files=sym.shard_files(files, shard, shards), **kw)
        part = out / f"{shard}-of-{shards}"
        _write_pass(rows, unseen, part)
        symbol_paths.append(part / "symbols.tsv")
        unseen_paths.append(part / "unseen.tsv")
    sym.gather_shards(symbol_paths, unseen_paths, out / "symbols.tsv", out / "unseen.tsv")
    return (out / "symbols.tsv").read_bytes(), (out / "unseen.tsv").read_bytes()


@pytest.mark.slow
def test_sharded_symbol_pass_is_byte_identical_to_one_pass(corpus, tmp_path):
    """Issue 12 item 3: 1, 3 and more shards than files write the same two files."""
    # the tricky fixture plus an unseen file of every kind (a limit of 6,000 bytes makes
    # big.c too large) and two names that are not UTF-8 and print alike
    (corpus / "zz").mkdir(exist_ok=True)
    (corpus / "zz" / "big.c").write_text("int in_big(void) { return 0; }\n" + "//\n" * 3000)
    (corpus / "zz" / "latin1.c").write_bytes(b"/* caf\xe9 */\nint in_latin1(void);\n")
    (corpus / "zz" / "blob.c").write_bytes(b"int in_blob(void);\0\0")
    (corpus / "zz" / "min.js").write_text("var x = 1;" * 300 + "\n")
    (corpus / "zz" / "caf\udce9.c").write_bytes(b"int in_bad_name(void) { return 0; }\n")
    (corpus / "zz" / "caf\udce8.c").write_bytes(b"int in_bad_name2(void) { return 0; }\n")
    try:
        files = scan_files(corpus, LANGUAGES)
        gone = [("zz/gone.c", 10, "text", "c")]  # deleted after listing: astgrep-error
        files = files + gone
        limits = {"max_bytes": 6000, "max_line_bytes": 2000}
        single = _write_pass(*scan(corpus, files=files, **limits), tmp_path / "one")
        assert len(files) > 40
        for shards in (1, 3):
            sharded = _sharded_pass(corpus, files, shards, tmp_path / f"s{shards}", **limits)
            assert sharded == single, shards
        # more shards than files (most of them empty), on fewer files to keep it quick
        few = [f for f in files if sym._entry_fields(f)[0].startswith(("zz/", "c/", "go/"))]
        alone = _write_pass(*scan(corpus, files=few, **limits), tmp_path / "few")
        assert _sharded_pass(corpus, few, len(few) + 5, tmp_path / "many", **limits) == alone
        reasons = {line.split(b"\t")[1] for line in single[1].splitlines()[1:]}
        assert reasons >= {
            b"too-large",
            b"not-utf8",
            b"binary",
            b"minified",
            b"astgrep-error",
            b"name-not-utf8",
            b"unparsed-language",
        }
        assert single[0].count(b"\n") == 1 + sum(len(v) for v in EXPECTED.values()) + 1
    finally:
        shutil.rmtree(corpus / "zz")


def test_shard_assignment_is_stable_and_covers_every_file():
    paths = [f"dir{i % 7}/file {i}.c" for i in range(200)] + ["caf\udce9.c", "a\nb.c"]
    for shards in (1, 3, 8):
        assigned = {p: sym.shard_of(p, shards) for p in paths}
        assert set(assigned.values()) == set(range(shards))  # none empty on 200 files
        # a file's shard depends on its path and the count only: not on the other files
        assert {p: sym.shard_of(p, shards) for p in reversed(paths[:50])} == {
            p: assigned[p] for p in paths[:50]
        }
        entries = [(p, 1, "text", "c") for p in paths]
        parts = [sym.shard_files(entries, i, shards) for i in range(shards)]
        assert sorted(e for part in parts for e in part) == sorted(entries)
    # pinned: a change of the hash would silently reshuffle every shard of every corpus
    pinned = ("Makefile", "kernel/sched/core.c", "a.c", "mm/slab.c", "fs/ext4/inode.c")
    assert [sym.shard_of(p, 4) for p in pinned] == [0, 0, 2, 2, 1]
    assert [sym.shard_of(p, 3) for p in pinned] == [1, 0, 1, 2, 0]
    # two names that print alike (invalid UTF-8 replaced) share a shard
    assert sym.shard_of("caf\udce9.c", 5) == sym.shard_of("caf\udce8.c", 5)
    with pytest.raises(BenchError, match="shard 3 of 3 does not exist"):
        sym.shard_files([], 3, 3)


def test_gather_merges_shard_files_as_one_writer_sorts(tmp_path):
    """The streaming merge orders lines as sort_symbols/sort_unseen do: line numbers as
    numbers, non-ASCII names by code point, encoded paths; a repeated row once."""
    rows = [
        sym.SymbolRow(name, "function", "c", path, line, "c-function")
        for name in ("b", "a", "\u00e9t\u00e9", "\u4e2d", "a_b", "aB")
        for path in ("x y.c", "x.c", "caf\udce9.c", "x%.c")
        for line in (9, 10, 100, 2)
    ]
    unseen = [sym.UnseenRow(p, "too-large", n) for p in ("b.c", "a b.c", "a.c") for n in (9, 10)]
    sym.write_symbols_tsv(rows, tmp_path / "one" / "symbols.tsv")
    sym.write_unseen_tsv(unseen, tmp_path / "one" / "unseen.tsv")
    parts = []
    for i in range(3):
        sym.write_symbols_tsv(rows[i::3] + rows[:1], tmp_path / f"{i}" / "symbols.tsv")
        sym.write_unseen_tsv(unseen[i::3], tmp_path / f"{i}" / "unseen.tsv")
        parts.append(tmp_path / f"{i}")
    counts = sym.gather_shards(
        [p / "symbols.tsv" for p in parts],
        [p / "unseen.tsv" for p in parts],
        tmp_path / "all" / "symbols.tsv",
        tmp_path / "all" / "unseen.tsv",
    )
    for name in ("symbols.tsv", "unseen.tsv"):
        assert (tmp_path / "all" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert counts == (len(rows), 6)
    (tmp_path / "0" / "unseen.tsv").write_text("path\treason\n")
    with pytest.raises(BenchError, match="header"):
        sym.gather_shards([], [tmp_path / "0" / "unseen.tsv"], tmp_path / "s", tmp_path / "u")
