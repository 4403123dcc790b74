"""The file-set audit compares each tool's listing with the corpus's text files."""

from searchbench.fileset import FileEntry
from searchbench.fileset_audit import NOT_AUDITED, audit_tool, format_audit, not_audited, target_set


def test_every_tool_has_a_row_and_one_without_a_listing_says_so():
    entries = [
        FileEntry("a.c", 10, "text", "c"),
        FileEntry("b.md", 5, "text", "-"),
        FileEntry("empty.txt", 0, "text", "-"),
        FileEntry("logo.png", 99, "binary", "-"),
    ]
    target = target_set(entries)
    assert target == {"a.c", "b.md"}
    rows = [
        audit_tool("rg", target, ["a.c", "b.md"]),
        audit_tool("ast-grep", target, ["a.c", "a.c"]),
        not_audited("ctags", target),
    ]
    lines = format_audit(rows).splitlines()
    assert lines[1:] == [
        "ast-grep\t2\t1\t1\t0\t1\tb.md\t-",
        f"ctags\t2\t-\t-\t-\t-\t{NOT_AUDITED}\t-",
        "rg\t2\t2\t0\t0\t0\t-\t-",
    ]
