"""Query sampling on a real fixture corpus and symbol table (tests/fixtures/sampling)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from searchbench import sampling
from searchbench.errors import BenchError
from searchbench.paths import decode_path
from searchbench.symbols import UNSEEN_COLUMNS
from searchbench.trec import read_qrels

FIXTURES = Path(__file__).parent / "fixtures" / "sampling"
ROOT = FIXTURES / "corpus"


def symbols() -> pd.DataFrame:
    return sampling.read_symbols(FIXTURES / "symbols.tsv")


def unseen() -> pd.DataFrame:
    return sampling.read_unseen(FIXTURES / "unseen.tsv")


def select(table=None, n="all", seed=7, min_length=4):
    return sampling.select_queries(
        symbols() if table is None else table,
        unseen(),
        ROOT,
        min_length=min_length,
        n=n,
        seed=seed,
        corpus="fix",
    )


def write(tmp: Path, table=None, n="all", seed=7) -> dict[str, bytes]:
    funnel, sample = select(table, n=n, seed=seed)
    out = {name: tmp / name for name in ("queries.tsv", "qrels.txt", "funnel.tsv")}
    sampling.write_outputs(sample, funnel, out["queries.tsv"], out["qrels.txt"], out["funnel.tsv"])
    return {name: path.read_bytes() for name, path in out.items()}


EXPECTED = [
    "$dollarSign",
    "AlphaClass",
    "method_one",
    "misplacedName",
    "overloaded",
    "partialHid",
    "protoOnly",
    "spacedName",
    "uniqueFunction",
]


def test_candidates_are_exactly_once_long_identifiers_not_in_unseen_files():
    funnel, sample = select()
    assert list(sample["query"]) == EXPECTED
    # twiceName: declared in two files -> dropped; abc: too short; operator==: not an
    # identifier; hiddenName: occurs in the unseen asm/entry.S. partialHid only occurs there
    # inside partialHidden, and $dollarSign only inside x$dollarSign: both kept.
    assert funnel == [
        ("declarations", 15),
        ("distinct-names", 13),
        ("identifier-shaped", 12),
        ("min-length", 11),
        ("declared-in-one-file", 10),
        ("not-in-unseen-files", 9),
        ("sampled", 9),
    ]


def test_twice_in_one_file_is_kept_with_the_first_line():
    _, sample = select()
    row = sample[sample["query"] == "overloaded"].iloc[0]
    assert (row["path"], row["line"], row["eligibility"]) == (
        "src/overload.cpp",
        "1",
        "exactly-once:1-file:2-decls",
    )
    assert sample[sample["query"] == "uniqueFunction"].iloc[0]["eligibility"] == (
        "exactly-once:1-file:1-decls"
    )


def test_min_length_is_inclusive():
    _, sample = select(min_length=3)
    assert "abc" in set(sample["query"])
    _, sample = select(min_length=11)
    assert set(sample["query"]) == {"$dollarSign", "uniqueFunction", "misplacedName"}


def test_written_files_exact(tmp_path):
    files = write(tmp_path, n=3, seed=11)
    queries = files["queries.tsv"].decode().splitlines()
    assert queries[0] == "qid\tquery\tlanguage\tkind\tpath\tline\teligibility"
    assert [line.split("\t")[0] for line in queries[1:]] == [
        "fix-code-0001",
        "fix-code-0002",
        "fix-code-0003",
    ]
    picked = [line.split("\t")[1] for line in queries[1:]]
    assert picked == sorted(picked)
    # The algorithm, spelled out: sorted candidates, default_rng(seed).choice, sorted again.
    index = np.random.default_rng(11).choice(len(EXPECTED), size=3, replace=False)
    assert picked == sorted(EXPECTED[i] for i in index)
    qrels = files["qrels.txt"].decode().splitlines()
    assert len(qrels) == 3
    for line, query_line in zip(qrels, queries[1:], strict=True):
        qid, zero, docid, rel = line.split(" ")
        fields = query_line.split("\t")
        assert (qid, zero, docid, rel) == (fields[0], "0", fields[4], "1")
    assert files["funnel.tsv"].decode().splitlines()[-1] == "sampled\t3"
    assert files["funnel.tsv"].decode().startswith("step\tcount\ndeclarations\t15\n")


def test_path_with_space_round_trips_in_qrels(tmp_path):
    files = write(tmp_path)
    lines = [ln for ln in files["qrels.txt"].decode().splitlines() if "spaced" in ln]
    assert len(lines) == 1
    fields = lines[0].split(" ")
    assert len(fields) == 4  # the space is encoded, not a field separator
    assert fields[2] == "dir%20with%20space/spaced.py"  # encoded once, not %2520
    assert (ROOT / decode_path(fields[2])).is_file()
    qrels = read_qrels(tmp_path / "qrels.txt")
    assert {docid for docs in qrels.values() for docid in docs} == {
        row.split("\t")[4] for row in files["queries.tsv"].decode().splitlines()[1:]
    }


def test_double_encoded_path_is_refused(tmp_path):
    table = symbols()
    table.loc[table["symbol"] == "spacedName", "path"] = "dir%2520with%2520space/spaced.py"
    with pytest.raises(BenchError, match="not a file under"):
        write(tmp_path, table=table)
    assert not list(tmp_path.iterdir())


def test_unencoded_path_is_refused(tmp_path):
    table = symbols()
    table.loc[table["symbol"] == "spacedName", "path"] = "dir with space/spaced.py"
    with pytest.raises(BenchError, match="encode_path"):
        write(tmp_path, table=table)
    assert not list(tmp_path.iterdir())  # nothing partial written


def test_all_and_n_larger_than_candidates_take_everything(tmp_path):
    everything = write(tmp_path / "all", n="all")
    larger = write(tmp_path / "big", n=1000)
    assert everything == larger
    assert everything["qrels.txt"].count(b"\n") == len(EXPECTED)


def test_bad_n_is_a_sentence():
    with pytest.raises(BenchError, match="positive integer or `all`"):
        select(n=0)
    with pytest.raises(BenchError, match="positive integer or `all`"):
        select(n="some")


def test_shuffled_input_and_reruns_give_byte_identical_files(tmp_path):
    first = write(tmp_path / "a", n=4, seed=3)
    again = write(tmp_path / "b", n=4, seed=3)
    assert first == again
    table = symbols()
    for shuffle_seed in range(5):
        shuffled = table.sample(frac=1, random_state=shuffle_seed).reset_index(drop=True)
        assert write(tmp_path / f"s{shuffle_seed}", table=shuffled, n=4, seed=3) == first


def synthetic_symbols(count: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    names = [f"name{i:05d}x" for i in rng.permutation(count)]
    return pd.DataFrame(
        {
            "symbol": names,
            "kind": "function",
            "language": "go",
            "path": [f"pkg/f{i % 37}.go" for i in range(count)],
            "line": [str(i + 1) for i in range(count)],
            "rule": "go-function",
        }
    )


def test_sample_does_not_depend_on_row_order_at_scale(tmp_path):
    table = synthetic_symbols(2000)
    (tmp_path / "pkg").mkdir()
    for path in set(table["path"]):
        (tmp_path / path).write_text("package pkg\n")
    empty = pd.DataFrame(columns=UNSEEN_COLUMNS)
    samples = []
    for shuffle_seed in range(4):
        shuffled = table.sample(frac=1, random_state=shuffle_seed).reset_index(drop=True)
        _, sample = sampling.select_queries(
            shuffled, empty, tmp_path, min_length=4, n=30, seed=20261202, corpus="syn"
        )
        samples.append(sampling.queries_text(sample))
    assert len(set(samples)) == 1
    # and a different seed draws a different sample
    _, other = sampling.select_queries(
        table, empty, tmp_path, min_length=4, n=30, seed=1, corpus="syn"
    )
    assert sampling.queries_text(other) != samples[0]


def test_empty_symbol_table(tmp_path):
    empty = symbols().iloc[0:0]
    files = write(tmp_path, table=empty, n=30)
    assert files["queries.tsv"] == b"qid\tquery\tlanguage\tkind\tpath\tline\teligibility\n"
    assert files["qrels.txt"] == b""
    assert files["funnel.tsv"].decode().splitlines()[1:] == [
        f"{step}\t0"
        for step in (
            "declarations",
            "distinct-names",
            "identifier-shaped",
            "min-length",
            "declared-in-one-file",
            "not-in-unseen-files",
            "sampled",
        )
    ]


def test_wrong_header_is_a_sentence(tmp_path):
    bad = tmp_path / "symbols.tsv"
    bad.write_text("name\tkind\n")
    with pytest.raises(BenchError, match="expected"):
        sampling.read_symbols(bad)


def test_draw_sample_sorts_its_input_first():
    _, candidates = sampling.funnel_and_candidates(symbols(), set(), 4)
    expected = sampling.draw_sample(candidates, 4, 5, "fix")
    for shuffle_seed in range(5):
        shuffled = candidates.sample(frac=1, random_state=shuffle_seed)
        assert sampling.draw_sample(shuffled, 4, 5, "fix").equals(expected)


def test_query_kinds_restrict_the_sample_but_not_exactly_once(tmp_path):
    symbols = pd.DataFrame(
        [
            ("alpha_fn", "function", "c", "a.c", "3", "c-function"),
            ("BETA_MACRO", "macro", "c", "b.h", "1", "c-macro"),
            ("gamma_twice", "function", "c", "c.c", "5", "c-function"),
            ("gamma_twice", "macro", "c", "d.h", "2", "c-macro"),
        ],
        columns=["symbol", "kind", "language", "path", "line", "rule"],
    )
    for name in ("a.c", "b.h", "c.c", "d.h"):
        (tmp_path / name).write_text("x\n")
    unseen = pd.DataFrame(columns=["path", "reason", "bytes"])
    funnel, sample = sampling.select_queries(
        symbols, unseen, tmp_path, min_length=4, n="all", seed=1, corpus="k", kinds=["function"]
    )
    # gamma_twice is a function in one file but a macro in another: still not exactly once.
    assert list(sample["query"]) == ["alpha_fn"]
    assert ("kind-allowed", 1) in funnel and funnel[-1] == ("sampled", 1)


def test_non_ascii_identifiers_are_kept_and_every_drop_has_its_own_step(tmp_path):
    """größe_berechnen is a real name: it was dropped at the step labelled min-length."""
    symbols = pd.DataFrame(
        [
            ("größe_berechnen", "function", "python", "a.py", "1", "python-function"),
            ("名前空間", "class", "python", "b.py", "2", "python-class"),
            ("operator==", "method", "cpp", "c.cpp", "3", "cpp-method"),
            ("abc", "function", "c", "d.c", "4", "c-function"),
            ("1abc", "function", "c", "d.c", "5", "c-function"),
        ],
        columns=["symbol", "kind", "language", "path", "line", "rule"],
    )
    for name in ("a.py", "b.py", "c.cpp", "d.c"):
        (tmp_path / name).write_text("x\n")
    unseen = pd.DataFrame(columns=["path", "reason", "bytes"])
    funnel, sample = sampling.select_queries(
        symbols, unseen, tmp_path, min_length=4, n="all", seed=1, corpus="u"
    )
    assert list(sample["query"]) == ["größe_berechnen", "名前空間"]  # UTF-8 byte order
    assert funnel[:4] == [
        ("declarations", 5),
        ("distinct-names", 5),
        ("identifier-shaped", 3),
        ("min-length", 2),
    ]
