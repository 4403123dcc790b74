"""The workflow end to end on small local corpora: outputs, determinism, no-op rerun, errors."""

import csv
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from design_fixture import FIXTURE_STATISTICS
from workflow_cli import NO_WORKFLOW_PROFILE

from searchbench.tools import load_tools

REPO = Path(__file__).resolve().parent.parent
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
pytestmark = pytest.mark.slow


def _write_corpus(root: Path) -> None:
    """A small two-language corpus with enough exactly-once declarations for >= 10 queries."""
    shutil.copytree(
        REPO / "searchbench", root / "searchbench", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "lib").mkdir()
    (root / "lib" / "util.c").write_text(
        "#include <stdio.h>\n#define BUFFER_LIMIT 64\n"
        "struct ring_state { int head; };\n"
        "static int ring_advance(struct ring_state *s) { return s->head + 1; }\n"
        "int ring_reset(struct ring_state *s) { s->head = 0; return ring_advance(s); }\n"
    )
    (root / "docs").mkdir()
    (root / "docs" / "notes.md").write_text("ring_advance is used by ring_reset.\n")
    # The docs track: five heading tokens in two markups, one also declared in the C code.
    (root / "docs" / "guide.md").write_text(
        "# Tuning ring_buffer_size\n\nSet it high.\n\n## The --fast-mode flag\n\n"
        "Mind ring_reset.\n\n## How ring_advance works\n"
    )
    (root / "docs" / "manual.rst").write_text(
        "RingState.advance\n=================\n\nText.\n\n"
        "The max_ring_depth limit\n------------------------\n"
    )
    # Issue 37 item 4: a file name that is not UTF-8 stopped usage_queries (GNU Global's
    # Pygments plug-in); it is unseen, and every step takes it.
    with open(os.path.join(os.fsencode(root), b"lib", b"caf\xe9.py"), "wb") as handle:
        handle.write(b"def latin1_named_helper():\n    return 1\n")


def _config(workdir: Path, corpus: Path, queries: int = 12) -> dict:
    return {
        "seed": 7,
        "queries_per_corpus": queries,
        "min_symbol_length": 4,
        "tools_file": str(REPO / "config" / "tools.yaml"),
        "languages_file": str(REPO / "config" / "languages.yaml"),
        "astgrep_rules_dir": str(REPO / "config" / "astgrep"),
        "baseline": "rg",
        "timeout_seconds": 30,
        "resamples": 2000,
        **FIXTURE_STATISTICS,
        "docs": {"min_queries": 3},
        "timing": {"queries": 2, "warmups": 0, "repeats": 1, "timeout_seconds": 30},
        "corpora": {
            "mini": {"description": "fixture", "source": {"kind": "local", "path": str(corpus)}}
        },
    }


def _snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [
        *SNAKEMAKE,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        *NO_WORKFLOW_PROFILE,
        "--resources",
        "timing_slot=1",
        *args,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The whole workflow on two cores (the tests below read it), and the same configuration
    on one core made as far as the files REPRODUCIBLE compares (the queries, runs, scores
    and inference: the rest of a run would cost a third more and be compared with nothing)."""
    corpus = tmp_path_factory.mktemp("corpus")
    _write_corpus(corpus)
    runs = []
    for cores, targets in (("2", []), ("1", REPRODUCIBLE)):
        workdir = tmp_path_factory.mktemp(f"run{cores}")
        (workdir / "config.yaml").write_text(yaml.safe_dump(_config(workdir, corpus)))
        _snakemake(workdir, "--cores", cores, *targets)
        runs.append(workdir)
    return runs


REPRODUCIBLE = [
    "results/mini/files.tsv",
    "results/mini/symbols.tsv",
    "results/mini/unseen.tsv",
    "results/mini/code/queries.tsv",
    "results/mini/code/qrels.txt",
    "results/mini/code/funnel.tsv",
    "results/mini/code/runs/rg.run",
    "results/mini/code/runs/hay.run",
    "results/mini/code/runs/ast-grep.run",
    "results/mini/code/scores.tsv",
    "results/mini/code/inference.json",
    "results/mini/code/inference.tsv",
    "results/mini/code/by_language.json",
    "results/mini/code/by_language.tsv",
    "results/pooled/code/by_language.json",
    "results/mini/docs/headings.tsv",
    "results/mini/docs/queries.tsv",
    "results/mini/docs/qrels.txt",
    "results/mini/docs/declared_in_code.tsv",
    "results/mini/docs/runs/rg.run",
    "results/mini/docs/runs/hay.run",
    "results/mini/docs/scores.tsv",
    "results/mini/docs/inference.json",
    "results/mini/fileset_audit.tsv",
]


def test_outputs_are_byte_identical_across_core_counts(two_runs):
    first, second = two_runs
    for rel in REPRODUCIBLE:
        assert (first / rel).is_file(), rel
        assert filecmp.cmp(first / rel, second / rel, shallow=False), f"{rel} differs"


def test_every_query_has_a_run_line_or_is_absent_and_scores_cover_all_tools(two_runs):
    workdir = two_runs[0]
    queries = (workdir / "results/mini/code/queries.tsv").read_text().splitlines()[1:]
    assert len(queries) == 12
    scores = (workdir / "results/mini/code/scores.tsv").read_text().splitlines()
    tools = json.loads((workdir / "results/tools.json").read_text())
    # tools.json does not say which tracks a tool runs on: the tools file does (`tracks`)
    specs = load_tools(REPO / "config" / "tools.yaml")
    on_code = [
        name
        for name, rec in tools.items()
        if rec["available"] and (specs[name].tracks is None or "code" in specs[name].tracks)
    ]
    assert {"cscope-refs", "clangd-refs"}.isdisjoint(on_code)  # usage-only reference modes
    assert len(scores) - 1 == 12 * len(on_code)
    assert {line.split("\t")[1] for line in scores[1:]} == set(on_code)
    # A tool with `languages` is not asked a query in another language, and only then.
    header = scores[0].split("\t")
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in scores[1:]]
    for row in rows:
        covered = specs[row["tool"]].languages
        skipped = covered is not None and row["language"] not in covered
        assert (row["status"] == "not-applicable") == skipped, row
    assert any(row["status"] == "not-applicable" for row in rows)  # cscope: C and C++ only
    # The baseline prints every file containing the literal, so the declaring file is found.
    base_ranks = [line.split("\t")[3] for line in scores[1:] if line.split("\t")[1] == "rg"]
    assert all(int(rank) >= 1 for rank in base_ranks)


def test_every_timed_tool_has_its_fast_path_audited_by_the_plain_timing_runs(two_runs):
    timing = two_runs[0] / "results" / "mini" / "timing"
    audits = {p.name.removesuffix(".fastpath.json"): p for p in timing.glob("*.fastpath.json")}
    assert set(audits) == {p.stem for p in timing.glob("*.tsv")}
    found = {tool: json.loads(path.read_text()) for tool, path in audits.items()}
    # a language server is timed on the queries in its languages only: up to 2
    assert all(a["equivalent"] and a["timed_queries"] <= 2 for a in found.values()), found
    # rg and hay answer the fixture's queries through the fast path: every timed one compared
    for tool in ("rg", "hay"):
        assert found[tool]["fast_path_queries"] == found[tool]["compared"] == 2, found[tool]


def test_the_file_set_audit_names_every_tool(two_runs):
    audit = (two_runs[0] / "results/mini/fileset_audit.tsv").read_text().splitlines()
    rows = {line.split("\t")[0]: line.split("\t") for line in audit[1:]}
    assert {"rg", "ast-grep", "hay", "ctags"} <= set(rows)
    assert rows["ctags"][2] == "-" and rows["ctags"][6].startswith("not audited")


def test_report_is_written(two_runs):
    html = (two_runs[0] / "results/report/index.html").read_text()
    assert "mini" in html and "hay" in html


def test_the_report_opens_with_the_pooled_leaderboard_of_the_run(two_runs, tmp_path):
    """Issue 33, end to end: the pooled rule's file is the report's input; summary.md's first
    40 lines hold the code track's leaderboard, every ranked tool in rank order, and in
    Chromium at 1400x900 the leaderboard and the quality-cost chart are on the first screen."""
    from test_report import CHROMIUM
    from test_report_front import inside, layout

    workdir = two_runs[0]
    pooled = json.loads((workdir / "results/pooled/code.json").read_text())
    head = (workdir / "results/report/summary.md").read_text().splitlines()[:40]
    start = head.index("## Leaderboard, code track: where is this name declared?")
    rows = [line for line in head[start:] if line.startswith("| ") and line[2].isdigit()]
    assert [line.split(" | ")[1] for line in rows] == [r["tool"] for r in pooled["leaderboard"]]
    leader = pooled["leaderboard"][0]
    assert any(line.startswith(f"- On the code track, {leader['tool']} leads") for line in head)
    report = workdir / "results/report"
    assert (report / "charts/pooled/code/quality_cost.svg").read_text().startswith("<svg")
    if CHROMIUM.exists():
        boxes = layout(report / "index.html", tmp_path)
        assert inside(boxes["leaderboard"]) and inside(boxes["chart"]), boxes


def test_declared_families_languages_and_run_provenance_come_out_of_a_run(two_runs):
    workdir = two_runs[0]
    inference = json.loads((workdir / "results/mini/code/inference.json").read_text())
    families = inference["metadata"]["families"]
    assert families["primary"]["pairs"] == [["hay", "rg"]]
    assert ["hay-no-definition", "hay"] in families["ablation"]["pairs"]
    assert all(pair[1] == "rg" for pair in families["secondary"]["pairs"])
    pooled = json.loads((workdir / "results/pooled/code/by_language.json").read_text())
    assert pooled["metadata"]["corpora"] == ["mini"]
    assert set(pooled["metadata"]["languages"]) <= {"c", "python", "rust", "go"}
    sidecar = yaml.safe_load((workdir / "results/mini/code/runs/hay.run.yaml").read_text())
    assert sidecar["tag"] == "hay" and sidecar["data"]["test collection"]["name"] == "mini/code"
    scores = (workdir / "results/mini/code/scores.tsv").read_text().splitlines()
    assert scores[0].split("\t")[-1] == "language"


def test_the_simulations_run_with_the_configured_design(two_runs):
    # the fixture's statistics (tests/design_fixture.py) reach the power and calibration jobs
    results = two_runs[0] / "results"
    power = json.loads((results / "mini" / "code" / "power.json").read_text())["metadata"]
    wanted = FIXTURE_STATISTICS["power"]
    assert {key: power[key] for key in wanted} == wanted
    calibration = FIXTURE_STATISTICS["calibration"]
    for track in ("code", "docs"):
        with (results / "mini" / track / "calibration.tsv").open() as table:
            rows = list(csv.DictReader(table, delimiter="\t"))
        assert rows
        assert {(r["simulations"], r["resamples"]) for r in rows} == {
            (str(calibration["simulations"]), str(calibration["resamples"]))
        }


def test_the_evidence_target_publishes_the_run(two_runs):
    workdir = two_runs[0]
    _snakemake(workdir, "--cores", "1", "evidence")
    published = workdir / "evidence" / "default"
    assert sorted(p.name for p in published.iterdir()) == [
        "README.md",
        "by_language.tsv",
        "charts",
        "provenance.json",
        "results.csv",
        "summary.md",
    ]
    # summary.md's charts travel with it: every chart it links is published beside it
    summary = (published / "summary.md").read_text()
    linked = set(re.findall(r"!\[[^]]*\]\((charts/[^)]+)\)", summary))
    assert linked and all((published / name).is_file() for name in linked)
    assert not re.search(r"/(tmp|home|root|work)/", summary)
    assert (published / "results.csv").read_bytes() == (
        workdir / "results/report/summary.csv"
    ).read_bytes()
    provenance = json.loads((published / "provenance.json").read_text())
    assert provenance["corpora"][0]["corpus"] == "mini" and provenance["code_commit"]
    assert "| mini | code | hay | rg |" in (published / "README.md").read_text()


def test_a_non_utf8_file_name_is_unseen_and_the_usage_audit_says_so(two_runs):
    results = two_runs[0] / "results/mini"
    unseen = (results / "unseen.tsv").read_text().splitlines()
    assert "lib/caf%E9.py\tname-not-utf8\t40" in unseen
    audit = (results / "usage/audit.tsv").read_text().splitlines()
    pooled = dict(zip(audit[0].split("\t"), audit[-1].split("\t"), strict=True))
    assert pooled["language"] == "all"
    assert pooled["note"] == "files not given to Global (unseen.tsv lists them): 1 name-not-utf8"


def test_nothing_to_do_after_a_full_run(two_runs):
    proc = _snakemake(two_runs[0], "-n", "--cores", "1")
    assert "Nothing to be done" in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda c: c.update(queries_per_corpus=0), "queries_per_corpus"),
        (lambda c: c["corpora"]["mini"]["source"].pop("path"), "path"),
        (lambda c: c["corpora"]["mini"]["source"].update(kind="svn"), "kind"),
        (lambda c: c.update(baseline="nosuchtool"), "baseline"),
        (lambda c: c.update(surprise=1), "surprise"),
        (lambda c: c.update(alpha=float("nan")), "alpha"),
        (lambda c: c.update(seed=7.0), "seed"),
        (lambda c: c["corpora"]["mini"]["source"].pop("kind"), "source.kind"),
        (lambda c: c.update(astgrep_rules_dir="/nonexistent/rules"), "astgrep_rules_dir"),
        (lambda c: c.update(query_kinds=["nosuchkind"]), "query_kinds"),
    ],
)
def test_malformed_config_stops_with_one_line_naming_the_key(tmp_path, mutate, expected):
    config = _config(tmp_path, tmp_path)
    mutate(config)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    proc = _snakemake(tmp_path, "-n", "--cores", "1", check=False)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    lines = [line for line in output.splitlines() if expected in line and "config" in line]
    assert lines, output[-3000:]
    assert not (tmp_path / "results").exists()


def test_duplicate_config_key_stops_with_one_line(tmp_path):
    text = yaml.safe_dump(_config(tmp_path, tmp_path)) + "seed: 8\n"  # a second `seed:`
    (tmp_path / "config.yaml").write_text(text)
    proc = _snakemake(tmp_path, "-n", "--cores", "1", check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "key 'seed' appears twice" in output, output[-3000:]
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "configfile", ["config/seed.yaml", "config/kernel.yaml", "config/config.yaml"]
)
def test_shipped_configurations_plan_a_complete_run(tmp_path, configfile):
    """The seed's git corpora and the kernel cannot be fetched here: a dry run proves the
    configuration is valid and the rule graph complete, without touching the network. Both
    tracks' inference is asked for by name: the default target waits on the docs queries'
    checkpoint (a docs track with too few queries is not run), which a dry run cannot pass.
    The default target (`all`) is planned in the same dry run: one Snakemake start, one DAG."""
    corpora = yaml.safe_load((REPO / configfile).read_text())["corpora"]
    targets = [f"results/{c}/{t}/inference.json" for c in corpora for t in ("code", "docs")]
    targets.append("all")
    cmd = [
        *SNAKEMAKE,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(tmp_path),
        *targets,
        "--configfile",
        str(REPO / configfile),
        *NO_WORKFLOW_PROFILE,
        "-n",
        "--cores",
        "2",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    for corpus in corpora:
        for rule in ("score", "search", "doc_headings", "doc_queries"):
            assert f"results/{corpus}/docs/" in out and rule in out, (corpus, rule)
        assert f"results/{corpus}/code/scores.tsv" in out, corpus
    assert re.search(r"^all\s+1$", out, re.M), "the default target is not planned"
    assert not (tmp_path / "results").exists()


def test_unreachable_corpus_fails_with_one_line_and_no_artifact(tmp_path):
    config = _config(tmp_path, tmp_path / "no-such-directory")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    proc = _snakemake(tmp_path, "--cores", "1", "results/mini/files.tsv", check=False)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    # Found at parse time, before any job: one line naming the key.
    lines = [line for line in output.splitlines() if "corpora.mini" in line]
    assert lines and "no-such-directory" in lines[0], output[-3000:]
    assert not (tmp_path / "results" / "mini" / "corpus.json").exists()
    assert not (tmp_path / "resources" / "corpora" / "mini").exists()


def test_venv_tools_are_found_without_the_venv_on_path(tmp_path):
    """`.venv/bin/snakemake` run from a shell whose PATH lacks the venv must still find the
    venv's rg and ast-grep, and hay must still find its Python and rg."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _write_corpus(corpus)
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "config.yaml").write_text(yaml.safe_dump(_config(workdir, corpus)))
    targets = [f"results/mini/code/runs/{tool}.run" for tool in ("hay", "rg", "ast-grep")]
    cmd = [
        *SNAKEMAKE,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        *NO_WORKFLOW_PROFILE,
        "--cores",
        "2",
        *targets,
    ]
    env = {"HOME": os.environ.get("HOME", "/tmp"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rg = json.loads((workdir / "results/tools/rg.json").read_text())
    assert rg["binary"].startswith(str(Path(sys.executable).parent))
    raw = (workdir / "results/mini/code/raw/hay.jsonl").read_text().splitlines()
    assert raw and all(json.loads(line)["status"] == "ok" for line in raw)


def test_the_docs_track_is_measured_end_to_end(two_runs):
    """Issue 9: heading tokens are the queries, the document with the heading the answer; every
    tool runs them through the same runner and inference as the code track."""
    workdir = two_runs[0] / "results/mini/docs"
    queries = [line.split("\t") for line in (workdir / "queries.tsv").read_text().splitlines()]
    assert [(q[1], q[4]) for q in queries[1:]] == [
        ("--fast-mode", "docs/guide.md"),
        ("RingState.advance", "docs/manual.rst"),
        ("max_ring_depth", "docs/manual.rst"),
        ("ring_advance", "docs/guide.md"),
        ("ring_buffer_size", "docs/guide.md"),
    ]
    declared = (workdir / "declared_in_code.tsv").read_text().splitlines()
    assert [line.split("\t")[2] for line in declared[1:]] == ["no", "no", "no", "yes", "no"]
    scores = (workdir / "scores.tsv").read_text().splitlines()
    rg = [line.split("\t") for line in scores[1:] if line.split("\t")[1] == "rg"]
    assert len(rg) == 5 and all(row[2] == "ok" and int(row[3]) >= 1 for row in rg)
    inference = json.loads((workdir / "inference.json").read_text())
    assert {c["tool"] for c in inference["comparisons"]} >= {"hay", "ast-grep"}


def _job_threads(proc: subprocess.CompletedProcess) -> dict[str, set[int]]:
    """{rule: the threads its planned jobs ask for} from a dry run's job listing (a job
    without a `threads:` line asks for one)."""
    out: dict[str, set[int]] = {}
    jobs: list[list] = []
    for line in (proc.stdout + proc.stderr).splitlines():
        rule = re.match(r"(?:local)?(?:rule|checkpoint) (\w+):$", line)
        if rule:
            jobs.append([rule.group(1), 1])
        elif jobs and (threads := re.match(r"\s+threads: (\d+)$", line)):
            jobs[-1][1] = int(threads.group(1))
    for rule, threads in jobs:
        out.setdefault(rule, set()).add(threads)
    return out


def test_the_query_drawing_rules_never_ask_for_every_core_of_a_small_run(tmp_path):
    """A job asking for both cores of a 2-core run starves behind a stream of 1-core jobs
    (on the kernel the symbol pass started 48 min after its fetch): there the query-drawing
    rules take one thread; from four cores on, two."""
    corpus = tmp_path / "corpus"
    _write_corpus(corpus)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(_config(tmp_path, corpus)))
    drawing = {"symbols_shard", "uses", "queries"}  # the others are drawn after checkpoints
    for cores, want in (("2", {1}), ("4", {2})):
        planned = _job_threads(_snakemake(tmp_path, "-n", "--cores", cores))
        assert drawing <= set(planned), sorted(planned)
        assert {rule: planned[rule] for rule in drawing} == dict.fromkeys(drawing, want), cores
