"""A rule reruns when any library module its script imports, even indirectly, changes."""

import ast
from pathlib import Path

import pytest

from searchbench import codehash
from searchbench.codehash import module_closure, script_code_hash

REPO = Path(__file__).resolve().parent.parent


def _package(tmp_path: Path) -> tuple[Path, Path]:
    package = tmp_path / "searchbench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "top.py").write_text("from searchbench.middle import f\n")
    (package / "middle.py").write_text("import searchbench.leaf\n\ndef f():\n    return 1\n")
    (package / "leaf.py").write_text("X = 1\n")
    (package / "unrelated.py").write_text("Y = 2\n")
    script = tmp_path / "step.py"
    script.write_text("from searchbench.top import f\n")
    return package, script


def test_hash_follows_imports_transitively(tmp_path):
    package, script = _package(tmp_path)
    before = script_code_hash(package, script)
    (package / "unrelated.py").write_text("Y = 3\n")
    assert script_code_hash(package, script) == before
    (package / "leaf.py").write_text("X = 2\n")
    assert script_code_hash(package, script) != before


def test_real_scripts_cover_the_modules_they_use():
    names = {p.name for p in module_closure(REPO / "searchbench", ["sampling"])}
    assert {"sampling.py", "symbols.py", "trec.py", "paths.py"} <= names
    search = script_code_hash(REPO / "searchbench", REPO / "scripts" / "search.py")
    assert len(search) == 16


def test_an_import_added_in_the_same_process_joins_the_closure(tmp_path):
    # each module's imports are parsed once per process, keyed by its text: an edit that
    # adds an import (here a lazy one, inside a function) is seen at once
    package, script = _package(tmp_path)
    before = script_code_hash(package, script)
    assert "unrelated.py" not in {p.name for p in module_closure(package, ["top"])}
    (package / "leaf.py").write_text("def g():\n    import searchbench.unrelated\n")
    assert "unrelated.py" in {p.name for p in module_closure(package, ["top"])}
    after = script_code_hash(package, script)
    (package / "unrelated.py").write_text("Y = 3\n")
    assert len({before, after, script_code_hash(package, script)}) == 3


def _whole_module_imports(source: str) -> frozenset[str]:
    return frozenset(codehash._package_imports(ast.parse(source)))


def test_the_line_scan_reads_every_repository_file_as_a_whole_module_parse_does():
    files = [
        *(REPO / "searchbench").rglob("*.py"),
        *(REPO / "scripts").glob("*.py"),
        *(REPO / "tests").glob("*.py"),
    ]
    assert len(files) > 150
    for path in files:
        source = path.read_text(encoding="utf-8")
        assert codehash._imported_modules(source) == _whole_module_imports(source), path


@pytest.mark.parametrize(
    "source",
    [
        # parenthesised, over several lines, inside a function
        "def f():\n    from searchbench.a import (\n        b,\n        c,\n    )\n",
        # a one-line compound statement: only the whole-module parse reads it
        "if True: import searchbench.d\n",
        # a backslash continuation naming the package on its second line
        "import os, \\\n    searchbench.e\n",
        # prose naming the package in a docstring, and an import beside it
        '"""from searchbench we import nothing"""\nfrom searchbench.f import g\n',
        # a comment with an unclosed parenthesis after an import
        "import searchbench.h  # (see\nx = 1\n",
    ],
)
def test_imports_in_every_shape_are_found(source):
    assert codehash._imported_modules(source) == _whole_module_imports(source) != frozenset()
