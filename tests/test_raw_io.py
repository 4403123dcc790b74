"""searchbench.raw_io: what a search job adds to a query's raw record beside its run."""

from searchbench.raw_io import with_costs


def test_a_query_asked_again_carries_the_tool_s_cpu_for_it_and_others_do_not():
    check = {"q1": 0.1234567891}
    repeat = {"q1": 0.5, "q2": 0.25}
    assert with_costs({"qid": "q1", "user": 1.0}, check, repeat) == {
        "qid": "q1",
        "user": 1.0,
        "check_cpu_seconds": 0.123457,
        "repeat_cpu_seconds": 0.5,
    }
    assert with_costs({"qid": "q2"}, check, repeat) == {"qid": "q2", "repeat_cpu_seconds": 0.25}
    assert with_costs({"qid": "q3"}, check, repeat) == {"qid": "q3"}
