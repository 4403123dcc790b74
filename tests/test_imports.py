"""The package's modules import one another without a cycle (issue 35: build and tools did)."""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "searchbench"

# Cycles known and accepted, each as its sorted modules; a new one fails the test.
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _imported(node: ast.AST, package: str) -> list[str]:
    """Names a statement imports, submodules first: `from p import m` names p.m where m is one."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    return [module] + [f"{module}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    """Each module of searchbench/ to the package modules it imports, at any depth of its code."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = _imported(node, package)
            if isinstance(node, ast.ImportFrom):
                # `from p import m` of a submodule m depends on p.m, not on p's own code.
                submodules = [n for n in names[1:] if n in modules]
                names = submodules + ([names[0]] if len(submodules) < len(names) - 1 else [])
            for target in names:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph[todo.pop()] - seen:
            seen.add(target)
            todo.append(target)
    return seen


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The modules on a cycle, grouped by mutual reach (each group sorted)."""
    reach = {node: _reach(graph, node) for node in graph}
    return {
        tuple(sorted(other for other in reach[node] if node in reach[other]))
        for node in graph
        if node in reach[node]
    }


def test_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "searchbench.artifacts" in graph["searchbench.build"]
    assert "searchbench.report.sections.cost" in graph["searchbench.report.sections.corpus"]


def test_no_new_import_cycle():
    assert cycles(import_graph()) == KNOWN_CYCLES


def test_no_cycle_outside_the_known_ones():
    graph = import_graph()
    for cycle in KNOWN_CYCLES:
        for module in cycle:
            graph[module] -= set(cycle)
    graphlib.TopologicalSorter(graph).static_order()  # raises CycleError on a cycle


def test_build_does_not_import_tools():
    assert "searchbench.tools" not in import_graph()["searchbench.build"]


def test_no_script_puts_the_repository_on_sys_path():
    """Snakemake hands a script the workflow's search paths (the repository among them) and
    ./bench installs the package: a script imports searchbench as it is (issue 35 item 5)."""
    repo = PACKAGE.parent
    scripts = sorted((repo / "scripts").glob("*.py")) + sorted((repo / "devtools").glob("*.py"))
    assert len(scripts) > 30
    found = [p.name for p in scripts if "sys.path" in p.read_text(encoding="utf-8")]
    assert found == []


def _modules_loaded_by(imports: list[str]) -> set[str]:
    """Top-level modules a fresh interpreter holds after these import statements."""
    code = "\n".join([*imports, "import sys", "print(' '.join(sorted(sys.modules)))"])
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return {name.split(".")[0] for name in proc.stdout.split()}


def test_the_per_query_jobs_start_without_pandas_or_scipy():
    """search and timing are most of a run's jobs; pandas alone was 0.45 of their 0.6 s
    start."""
    repo = PACKAGE.parent
    for script in ("search", "timing"):
        tree = ast.parse((repo / "scripts" / f"{script}.py").read_text(encoding="utf-8"))
        imports = [
            ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
        ]
        assert {"pandas", "scipy"} & _modules_loaded_by(imports) == set(), script


def test_the_workflow_s_report_inputs_leave_the_page_and_scipy_unimported():
    # rules/common.smk reads report.inputs at every Snakemake start (every Slurm job twice)
    loaded = _modules_loaded_by(["import searchbench.report.inputs"])
    assert {"scipy", "altair", "pandas"} & loaded == set()
