"""The behavioural track's per-corpus queries, qrels and funnel from the mined fixtures."""

from pathlib import Path

import pytest

from searchbench import behaviour, transcripts
from searchbench.errors import BenchError
from searchbench.fileset import format_files_tsv, load_languages, scan_files
from searchbench.sampling import QUERY_COLUMNS
from searchbench.transcripts import MinedSearch
from searchbench.trec import read_qrels

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
REPO = FIXTURES / "repo"
COMMIT = "4f1c2b3a5d6e7f8091a2b3c4d5e6f708192a3b4c"
URL = "https://example.org/team/proj.git"
PROJ = "/home/dev/proj"
REPOSITORIES = (PROJ, URL)
CONFIG = Path(__file__).resolve().parent.parent / "config" / "languages.yaml"


@pytest.fixture(scope="module")
def files_tsv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "files.tsv"
    path.write_text(format_files_tsv(scan_files(REPO, load_languages(CONFIG))))
    return path


def mined() -> list[MinedSearch]:
    rows, _ = transcripts.mine(FIXTURES / "logs", pins={PROJ: COMMIT})
    return rows


def build(files_tsv, n="all", seed=7, min_length=4, rows=None, revision=COMMIT):
    return behaviour.behaviour_queries(
        mined() if rows is None else rows,
        "fix",
        REPO,
        REPOSITORIES,
        revision,
        n,
        seed,
        min_length,
        language_of=behaviour.languages_from_files_tsv(files_tsv),
    )


EXPECTED_QUERIES = [
    ("fix-behaviour-0001", "$(rm -rf) | tee", "python", "src/cli.py", "7", 1, 1),
    ("fix-behaviour-0002", "--dry-run", "-", "docs/guide.md", "9", 1, 2),
    (
        "fix-behaviour-0003",
        "--dry-run first; never paste $(rm -rf)",
        "python",
        "src/cli.py",
        "7",
        1,
        1,
    ),
    ("fix-behaviour-0004", "ConfigError", "python", "src/config.py", "6", 2, 2),
    ("fix-behaviour-0005", "DEFAULT_TIMEOUT", "python", "src/config.py", "3", 1, 1),
    ("fix-behaviour-0006", "load_plugins", "python", "src/loader.py", "6", 2, 1),
    ("fix-behaviour-0007", "parse_config", "python", "src/loader.py", "3", 2, 3),
    ("fix-behaviour-0008", "slugify(", "python", "src/util/strings.py", "4", 1, 1),
]
EXPECTED_QRELS = {
    "fix-behaviour-0001": {"src/cli.py": 1},
    "fix-behaviour-0002": {"docs/guide.md": 1, "src/cli.py": 1},
    "fix-behaviour-0003": {"src/cli.py": 1},
    "fix-behaviour-0004": {"src/config.py": 1, "src/loader.py": 1},
    "fix-behaviour-0005": {"src/config.py": 1},
    "fix-behaviour-0006": {"src/loader.py": 1},
    "fix-behaviour-0007": {"docs/guide.md": 1, "src/config.py": 1, "src/loader.py": 1},
    "fix-behaviour-0008": {"src/util/strings.py": 1},
}
EXPECTED_FUNNEL = [
    ("mined-searches", 14),
    ("this-repository", 13),  # elsewhere.git is another repository
    ("this-revision", 12),  # one search at revision 000...0
    ("min-length", 12),
    ("answer-holds-literal", 11),  # load_plugin_names: README.md does not hold it
    ("distinct-queries", 8),  # ConfigError, load_plugins, parse_config: 2 searches each
    ("sampled", 8),
]


def test_queries_qrels_and_funnel_are_exact(files_tsv):
    rows, qrels, funnel = build(files_tsv)
    assert [list(r) for r in rows] == [QUERY_COLUMNS] * len(rows)
    got = [
        (r["qid"], r["query"], r["language"], r["path"], r["line"], r["eligibility"]) for r in rows
    ]
    assert got == [
        (qid, query, language, path, line, f"behaviour:{s}-searches:{a}-answers")
        for qid, query, language, path, line, s, a in EXPECTED_QUERIES
    ]
    assert {r["kind"] for r in rows} == {"behaviour"}
    assert qrels == EXPECTED_QRELS
    assert funnel == EXPECTED_FUNNEL


def test_every_answer_holds_the_literal_and_the_line_is_its_first(files_tsv):
    rows, qrels, _ = build(files_tsv)
    for row in rows:
        literal = row["query"].encode()
        for path in qrels[row["qid"]]:
            assert literal in (REPO / path).read_bytes()
        lines = (REPO / row["path"]).read_bytes().split(b"\n")
        first = next(i for i, line in enumerate(lines, 1) if literal in line)
        assert int(row["line"]) == first


def test_sample_is_seeded_sorted_and_numbered(files_tsv):
    rows, qrels, funnel = build(files_tsv, n=3, seed=7)
    queries = [r["query"] for r in rows]
    assert queries == sorted(queries, key=str.encode)
    assert [r["qid"] for r in rows] == [f"fix-behaviour-{i:04d}" for i in (1, 2, 3)]
    assert funnel[-1] == ("sampled", 3)
    assert set(qrels) == {r["qid"] for r in rows}
    again, _, _ = build(files_tsv, n=3, seed=7)
    assert again == rows
    other, _, _ = build(files_tsv, n=3, seed=8)
    assert [r["query"] for r in other] != queries or len(set(queries)) == 3


def test_min_length_and_other_revision_steps(files_tsv):
    _, _, funnel = build(files_tsv, min_length=13)
    # the two `$(rm -rf)` literals, DEFAULT_TIMEOUT and load_plugin_names
    assert ("min-length", 4) in funnel
    _, _, funnel = build(files_tsv, revision="0" * 40)
    assert funnel[:3] == [("mined-searches", 14), ("this-repository", 13), ("this-revision", 1)]


def test_outputs_are_written_by_the_project_writers_and_byte_identical(files_tsv, tmp_path):
    texts = []
    for run in ("a", "b"):
        rows, qrels, funnel = build(files_tsv)
        out = [tmp_path / f"{run}.{name}" for name in ("queries.tsv", "qrels.txt", "funnel.tsv")]
        behaviour.write_behaviour_outputs(rows, qrels, funnel, *out)
        texts.append([p.read_bytes() for p in out])
    assert texts[0] == texts[1]
    queries = texts[0][0].decode().splitlines()
    assert queries[0] == "\t".join(QUERY_COLUMNS)
    assert queries[1].split("\t")[1] == "$(rm -rf) | tee"
    assert read_qrels(tmp_path / "a.qrels.txt") == EXPECTED_QRELS
    assert texts[0][2].decode().splitlines()[0] == "step\tcount"


def test_hostile_queries_survive_as_data(files_tsv, tmp_path):
    rows, qrels, funnel = build(files_tsv)
    behaviour.write_behaviour_outputs(
        rows, qrels, funnel, tmp_path / "q.tsv", tmp_path / "r.txt", tmp_path / "f.tsv"
    )
    fields = [line.split("\t") for line in (tmp_path / "q.tsv").read_text().splitlines()]
    queries = {f[1] for f in fields[1:]}
    assert "--dry-run" in queries
    assert "--dry-run first; never paste $(rm -rf)" in queries


def test_paths_with_spaces_are_encoded_docids(tmp_path):
    root = tmp_path / "corpus"
    (root / "a dir").mkdir(parents=True)
    (root / "a dir" / "x y.py").write_text("def needle_name(): pass\n")
    rows = [MinedSearch(PROJ, COMMIT, "needle_name", ("a dir/x y.py",), "0123456789ab")]
    out, qrels, _ = behaviour.behaviour_queries(
        rows, "fix", root, [PROJ], COMMIT, "all", 1, 4, language_of=lambda p: "python"
    )
    assert out[0]["path"] == "a%20dir/x%20y.py"
    assert qrels == {"fix-behaviour-0001": {"a%20dir/x%20y.py": 1}}


def test_symlinks_and_missing_files_are_not_answers(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "real.py").write_text("needle_name\n")
    (root / "link.py").symlink_to("real.py")
    rows = [MinedSearch(PROJ, COMMIT, "needle_name", ("link.py", "gone.py", "real.py"), "s")]
    out, qrels, _ = behaviour.behaviour_queries(
        rows, "fix", root, [PROJ], COMMIT, "all", 1, 4, language_of=lambda p: "-"
    )
    assert qrels == {"fix-behaviour-0001": {"real.py": 1}}


def test_bad_input_is_a_one_line_error(files_tsv, tmp_path):
    for call in (
        lambda: behaviour.behaviour_queries(
            mined(), "fix", tmp_path / "none", REPOSITORIES, COMMIT, "all", 1, 4, language_of=str
        ),
        lambda: build(files_tsv, n=0),
        lambda: behaviour.languages_from_files_tsv(tmp_path / "missing.tsv"),
    ):
        with pytest.raises(BenchError) as err:
            call()
        assert "\n" not in str(err.value)


def test_searches_must_match_the_configured_revision_else_the_fetched_one():
    fetched = {"resolved_revision": COMMIT, "pinned_revision": "v1.0"}
    assert behaviour.searched_revision("", fetched) == COMMIT
    assert behaviour.searched_revision("abc123", fetched) == "abc123"
    with pytest.raises(BenchError, match="no resolved_revision; rerun fetch_corpus"):
        behaviour.searched_revision("", {"pinned_revision": "v1.0"})
