"""Content hash of library modules and everything they import from this package.

Snakemake reruns a rule when its script changes, but not when a module the script imports
changes; a rule's `code` param carries this hash so that such an edit reruns it.
"""

import ast
import functools
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "searchbench"


def _statements(body: list[ast.AST]) -> Iterator[ast.AST]:
    """Every statement, nested ones too: imports are statements, so expressions (most of a
    module's nodes) need no visit."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, field, None)
            if isinstance(nested, list):
                yield from _statements(nested)


def _package_imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in _statements(tree.body):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == PACKAGE
        ):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
    return found


_STATEMENT_START = re.compile(r"[ \t]*(?:from|import)[ \t]")


def _import_statements(source: str) -> list[str] | None:
    """The source of every statement that may import from the package, each on its own (a
    parenthesised import with its continuation lines), or None when only a parse of the whole
    module reads its imports right: a line naming the package beside `import` that is not a
    plain import statement (a one-line `if x: import ...`), or any backslash continuation."""
    lines = source.splitlines()
    if any(line.endswith("\\") for line in lines):
        return None
    statements = []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if PACKAGE not in line or "import" not in line:
            continue
        if not _STATEMENT_START.match(line):
            return None
        statement = [line.strip()]
        if "(" in line:
            while index < len(lines) and ")" not in statement[-1]:
                statement.append(lines[index].strip())
                index += 1
        statements.append("\n".join(statement))
    return statements


# Keyed by the source text itself, so an edited module is read again: the workflow hashes
# ~40 scripts whose closures share most modules. Only the lines naming the package are parsed
# (a whole-module parse was 0.16 of the 0.41 s every Snakemake start spent here); a statement
# that does not parse alone (the package named in a docstring, say) sends the module to the
# whole-module parse, so nothing it imports is missed.
@functools.lru_cache(maxsize=1024)
def _imported_modules(source: str) -> frozenset[str]:
    statements = _import_statements(source)
    found: set[str] = set()
    for statement in statements or ():
        try:
            found |= _package_imports(ast.parse(statement))
        except SyntaxError:
            statements = None
            break
    if statements is None:
        found = _package_imports(ast.parse(source))
    return frozenset(found)


# Found files only: the closures of ~40 scripts ask ~6,000 times for ~150 modules, and a
# module that was missing may be written later in the same process.
_FOUND: dict[tuple[str, str], str] = {}


def _module_file(package_root: str, module: str) -> str | None:
    found = _FOUND.get((package_root, module))
    if found is not None:
        return found
    base = os.path.join(package_root, *module.split(".")[1:])
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            _FOUND[package_root, module] = candidate
            return candidate
    return None


def module_closure(package_root: Path, modules: list[str]) -> list[Path]:
    """Files of the given modules (e.g. "sampling", "hay.cli") and of all they import."""
    root = str(package_root)
    todo = [f"{PACKAGE}.{m}" if not m.startswith(PACKAGE) else m for m in modules]
    seen: dict[str, str] = {}
    missing: set[str] = set()  # names that are not modules (`from pkg.mod import function`)
    while todo:
        module = todo.pop()
        if module in seen or module in missing:
            continue
        path = _module_file(root, module)
        if path is None:
            missing.add(module)
            continue
        seen[module] = path
        with open(path, encoding="utf-8") as handle:
            todo.extend(_imported_modules(handle.read()))
    return sorted({Path(path) for path in seen.values()})


def code_hash(package_root: Path, modules: list[str]) -> str:
    digest = hashlib.sha256()
    for path in module_closure(package_root, modules):
        digest.update(path.relative_to(package_root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def script_code_hash(package_root: Path, script: Path) -> str:
    """code_hash of every package module a workflow script imports, directly or not."""
    modules = sorted(_imported_modules(script.read_text(encoding="utf-8")))
    return code_hash(package_root, [m for m in modules if m != PACKAGE])
