"""Issue 32 item 6: the repeatability audit's pure parts (the workflow end to end, with a tool
that prints a new order each run, is in tests/test_tool_health.py)."""

from searchbench.repeatability import audit, pooled_flag, sample


def record(qid: str, status: str = "ok", sha: str = "a") -> dict:
    return {"qid": qid, "status": status, "stdout_sha256": sha}


RECORDS = [
    record("q1"),
    record("q2", "no-match", "e"),
    record("q3", "timeout"),
    record("q4", "error"),
    record("q5"),
    record("q6", "stopped"),
]


def test_only_answered_queries_are_sampled_seeded_and_sorted() -> None:
    assert sample(RECORDS, 10, 1) == ["q1", "q2", "q5"]
    two = sample(RECORDS, 2, 1)
    assert len(two) == 2 and two == sorted(two) and set(two) <= {"q1", "q2", "q5"}
    assert sample(list(reversed(RECORDS)), 2, 1) == two  # input order does not matter
    assert sample(RECORDS, 0, 1) == []


def test_a_second_asking_that_prints_otherwise_is_counted_with_examples() -> None:
    files = {"q1": ["a.c", "b.c"], "q2": [], "q5": ["c.c"]}
    again = {
        "q1": (record("q1", sha="b"), ["b.c", "a.c"]),  # new order
        "q2": (record("q2", "no-match", "e"), []),  # the same
        "q5": (record("q5", "timeout", "a"), []),  # a status change is a difference
    }
    asked: list[str] = []

    def ask_again(qid: str) -> tuple[dict, list[str]]:
        asked.append(qid)
        return again[qid]

    doc = audit("t", RECORDS, files, ask_again, 10, 3)
    assert asked == ["q1", "q2", "q5"]
    assert (doc["queries"], doc["differ_output"], doc["differ_files"]) == (3, 2, 2)
    assert doc["examples"] == ["q1", "q5"] and doc["checks"]["q2"]["same_output"]
    assert doc["checks"]["q5"]["status"] == ["ok", "timeout"]


def test_same_files_but_other_bytes_differ_in_output_only() -> None:
    doc = audit("t", [record("q1")], {"q1": ["a.c"]}, lambda q: (record(q, sha="z"), ["a.c"]), 5, 0)
    assert (doc["differ_output"], doc["differ_files"]) == (1, 0)


def test_the_pooled_flag_is_null_when_nothing_was_audited() -> None:
    assert pooled_flag([]) == {"repeatable": None, "repeat_queries": 0, "repeat_differ": 0}
    same = {"queries": 10, "differ_output": 0}
    assert pooled_flag([same, same])["repeatable"] is True
    flag = pooled_flag([same, {"queries": 10, "differ_output": 3}])
    assert flag == {"repeatable": False, "repeat_queries": 20, "repeat_differ": 3}
