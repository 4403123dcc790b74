"""The ctags ground-truth audit, with the real universal-ctags, on the sampling fixture."""

import runpy
import shutil
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from searchbench import gt_audit, sampling

FIXTURES = Path(__file__).parent / "fixtures" / "sampling"
ROOT = FIXTURES / "corpus"
SCRIPTS = Path(__file__).parent.parent / "scripts"

pytestmark = pytest.mark.skipif(shutil.which("ctags") is None, reason="needs universal-ctags")


@pytest.fixture(scope="module")
def queries():
    _, sample = sampling.select_queries(
        sampling.read_symbols(FIXTURES / "symbols.tsv"),
        sampling.read_unseen(FIXTURES / "unseen.tsv"),
        ROOT,
        min_length=4,
        n="all",
        seed=7,
        corpus="fix",
    )
    return sample


@pytest.fixture(scope="module")
def ctags():
    return gt_audit.resolve_ctags()[0]


def rows_by_query(table):
    return {r.query: r for r in table.itertuples(index=False)}


def test_agreeing_and_disagreeing_queries(queries, ctags):
    tags = gt_audit.ctags_tags(ROOT, queries, scope="mentions", ctags=ctags)
    table = rows_by_query(gt_audit.audit(queries, tags))
    # Agreeing: ctags defines the name in the answer file, and nowhere else (the reST
    # heading `uniqueFunction` in docs/api.rst is prose, not a definition).
    for name in ("uniqueFunction", "AlphaClass", "overloaded", "partialHid", "$dollarSign"):
        assert (table[name].ctags_agrees, table[name].ctags_paths) == ("yes", table[name].path)
    assert table["spacedName"].ctags_paths == "dir%20with%20space/spaced.py"
    assert table["spacedName"].ctags_agrees == "yes"
    # Disagreeing: the parser's answer only calls it; ctags defines it in another file.
    assert (table["misplacedName"].ctags_agrees, table["misplacedName"].ctags_paths) == (
        "no",
        "src/beta.py",
    )
    # Disagreeing: a prototype is not a definition for ctags.
    assert (table["protoOnly"].ctags_agrees, table["protoOnly"].ctags_paths) == ("no", "-")
    log = gt_audit.disagreements(queries, gt_audit.audit(queries, tags), tags)
    assert len(log) == 2
    assert "misplacedName" in log[0] and "ctags-defines-elsewhere (src/beta.py:function)" in log[0]
    assert "protoOnly" in log[1] and "ctags-declaration-only (prototype@1)" in log[1]


def test_answers_scope_sees_only_answer_files(queries, ctags):
    tags = gt_audit.ctags_tags(ROOT, queries, scope="answers", ctags=ctags)
    table = rows_by_query(gt_audit.audit(queries, tags))
    assert table["misplacedName"].ctags_paths == "-"  # beta.py was not scanned
    assert table["uniqueFunction"].ctags_agrees == "yes"


def test_summary_and_files_are_deterministic(queries, ctags, tmp_path):
    outputs = []
    for run in ("a", "b"):
        tags = gt_audit.ctags_tags(ROOT, queries, ctags=ctags)
        table = gt_audit.audit(queries, tags)
        summary = gt_audit.summarize(table)
        gt_audit.write_audit(table, summary, tmp_path / run / "a.tsv", tmp_path / run / "s.tsv")
        outputs.append(
            ((tmp_path / run / "a.tsv").read_bytes(), (tmp_path / run / "s.tsv").read_bytes())
        )
    assert outputs[0] == outputs[1]
    summary = outputs[0][1].decode().splitlines()
    assert summary == [
        "language\tqueries\tparsed\tagree\tshare\tcontradicted\tcontradicted_share\tnote",
        "c\t1\t1\t0\t0\t0\t0\t-",
        "cpp\t1\t1\t1\t1\t0\t0\t-",
        "go\t1\t1\t1\t1\t0\t0\t-",
        "javascript\t1\t1\t1\t1\t0\t0\t-",
        "python\t5\t5\t4\t0.80000000000000004\t1\t0.20000000000000001\t-",
        "all\t9\t9\t7\t0.77777777777777779\t1\t0.1111111111111111\t-",
    ]
    audit_lines = outputs[0][0].decode().splitlines()
    assert audit_lines[0] == (
        "qid\tquery\tlanguage\tpath\tctags_agrees\tctags_paths\tctags_elsewhere\tctags_parses"
    )
    assert len(audit_lines) == 10


def test_missing_answer_file_is_a_sentence(queries, ctags, tmp_path):
    with pytest.raises(Exception, match="rerun the queries rule"):
        gt_audit.ctags_tags(tmp_path, queries, ctags=ctags)


def test_mentioning_files_many_names_path():
    few = gt_audit.mentioning_files(ROOT, ["misplacedName"])
    assert few == [b"src/alpha.py", b"src/beta.py"]
    many = gt_audit.mentioning_files(ROOT, ["misplacedName"] + [f"zz{i}" for i in range(100)])
    assert many == few


def fake_snakemake(**sections):
    """The attributes a `script:` sees, enough to run scripts/*.py without a workflow."""
    ns = {k: SimpleNamespace(**v) if isinstance(v, dict) else v for k, v in sections.items()}
    return SimpleNamespace(scriptdir=str(SCRIPTS), **ns)


def test_scripts_end_to_end(tmp_path):
    out = tmp_path / "results" / "fix" / "code"
    # The rules hand scripts `checkout.json`; the checkout is the `tree` folder beside it.
    folder = tmp_path / "resources" / "corpora" / "fix"
    folder.mkdir(parents=True)
    (folder / "tree").symlink_to(ROOT)
    checkout = folder / "checkout.json"
    checkout.write_text("{}\n")
    queries = fake_snakemake(
        input={
            "symbols": str(FIXTURES / "symbols.tsv"),
            "unseen": str(FIXTURES / "unseen.tsv"),
            "root": str(checkout),
        },
        params={"seed": 20261202, "n": 30, "min_length": 4, "corpus": "fix"},
        output={
            "queries": str(out / "queries.tsv"),
            "qrels": str(out / "qrels.txt"),
            "funnel": str(out / "funnel.tsv"),
        },
        log=[str(tmp_path / "queries.log")],
    )
    runpy.run_path(str(SCRIPTS / "queries.py"), init_globals={"snakemake": queries})
    assert (out / "qrels.txt").read_text().count("\n") == 9
    assert "funnel\tsampled\t9" in (tmp_path / "queries.log").read_text()
    assert "not evidence" in (tmp_path / "queries.log").read_text()
    audit = fake_snakemake(
        input={"queries": str(out / "queries.tsv"), "root": str(checkout)},
        output={"audit": str(out / "gt_audit.tsv"), "summary": str(out / "gt_audit_summary.tsv")},
        log=[str(tmp_path / "gt_audit.log")],
        params={},
    )
    runpy.run_path(str(SCRIPTS / "gt_audit.py"), init_globals={"snakemake": audit})
    assert (out / "gt_audit_summary.tsv").read_text().splitlines()[-1].startswith("all\t9\t9\t7\t")
    log = (tmp_path / "gt_audit.log").read_text().splitlines()
    assert log[0].startswith("ctags\t/") and "Universal Ctags" in log[0]
    assert "reason\t1\tc\tctags-declaration-only" in log
    assert "reason\t1\tpython\tctags-defines-elsewhere" in log
    assert sum(line.startswith("disagree\t") for line in log) == 2


def test_a_name_ctags_also_defines_elsewhere_is_a_contradiction(ctags, tmp_path):
    """Issue 8 item 3: membership said "agrees" although a Rust field made the name twice."""
    (tmp_path / "lib.rs").write_text("pub struct Config {\n    pub root_dir: String,\n}\n")
    (tmp_path / "main.rs").write_text("fn root_dir() -> String {\n    String::new()\n}\n")
    queries = pd.DataFrame(
        [("q-0001", "root_dir", "rust", "function", "main.rs", "1", "exactly-once")],
        columns=sampling.QUERY_COLUMNS,
    )
    table = gt_audit.audit(queries, gt_audit.ctags_tags(tmp_path, queries, ctags=ctags))
    row = table.iloc[0]
    assert (row.ctags_agrees, row.ctags_paths, row.ctags_elsewhere) == (
        "yes",
        "lib.rs,main.rs",
        "yes",
    )
    summary = gt_audit.summarize(table)
    assert list(summary.iloc[0]) == ["rust", 1, 1, 1, "1", 1, "1", "-"]


def test_a_language_ctags_cannot_parse_is_not_applicable_not_a_failure(ctags, tmp_path):
    """Issue 8 item 4: ctags 5.9 has no Swift parser; the audit said "swift 30 agree 0 share 0"
    which reads as broken ground truth. Now: parsed 0, shares nan, and a note saying why."""
    (tmp_path / "Shapes.swift").write_text("func swiftOnly() {}\n")
    (tmp_path / "lib.rs").write_text("fn rust_only() {}\n")
    queries = pd.DataFrame(
        [
            ("q-0001", "swiftOnly", "swift", "function", "Shapes.swift", "1", "exactly-once"),
            ("q-0002", "rust_only", "rust", "function", "lib.rs", "1", "exactly-once"),
        ],
        columns=sampling.QUERY_COLUMNS,
    )
    tags = gt_audit.ctags_tags(tmp_path, queries, ctags=ctags)
    parsed = gt_audit.parsed_paths(tmp_path, queries["path"], ctags)
    assert parsed == {"lib.rs"}
    table = gt_audit.audit(queries, tags, parsed)
    assert list(table["ctags_agrees"]) == ["n/a", "yes"]
    assert list(table["ctags_parses"]) == ["no", "yes"]
    rows = {r[0]: list(r) for r in gt_audit.summarize(table).itertuples(index=False)}
    assert rows["swift"] == [
        "swift",
        1,
        0,
        0,
        "nan",
        0,
        "nan",
        "no ctags parser for .swift (1 queries)",
    ]
    assert rows["rust"] == ["rust", 1, 1, 1, "1", 0, "0", "-"]
    assert rows["all"][1:5] == [2, 1, 1, "1"]
    lines = gt_audit.disagreements(queries, table, tags)
    assert lines == [
        "no-parser\tq-0001\tswiftOnly\tswift\tfunction\tShapes.swift:1"
        "\tctags has no parser for this file"
    ]


def test_locals_and_embedded_fields_are_not_declarations_elsewhere(ctags, tmp_path):
    """On rxjs 19 of 22 "contradictions" were ctags tagging locals (`const config = {...}`
    inside a function) and on go-net an embedded field `*resolverConfig` (a use of the type).
    The symbol pass records module- and type-level declarations only, so neither counts; a
    real second declaration at module level still does."""
    (tmp_path / "config.ts").write_text("export const config = { a: 1 };\n")
    (tmp_path / "ajax.ts").write_text(
        "export function fromAjax() {\n  const config = { b: 2 };\n  return config;\n}\n"
    )
    (tmp_path / "dns.go").write_text("package net\n\ntype resolverConfig struct{ n int }\n")
    (tmp_path / "dns_test.go").write_text(
        "package net\n\ntype resolvConfTest struct {\n\t*resolverConfig\n}\n"
    )
    (tmp_path / "other.ts").write_text("export const shared = 1;\n")
    (tmp_path / "again.ts").write_text("export let shared = 2;\n")
    queries = pd.DataFrame(
        [
            ("q-0001", "config", "typescript", "variable", "config.ts", "1", "exactly-once"),
            ("q-0002", "resolverConfig", "go", "type", "dns.go", "3", "exactly-once"),
            ("q-0003", "shared", "typescript", "variable", "other.ts", "1", "exactly-once"),
        ],
        columns=sampling.QUERY_COLUMNS,
    )
    table = gt_audit.audit(queries, gt_audit.ctags_tags(tmp_path, queries, ctags=ctags))
    got = {r.query: (r.ctags_agrees, r.ctags_paths, r.ctags_elsewhere) for r in table.itertuples()}
    assert got == {
        "config": ("yes", "config.ts", "no"),
        "resolverConfig": ("yes", "dns.go", "no"),
        "shared": ("yes", "again.ts,other.ts", "yes"),
    }
