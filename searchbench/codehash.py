"""Content hash of library modules and everything they import from this package.

Snakemake reruns a rule when its script changes, but not when a module the script imports
changes; a rule's `code` param carries this hash so that such an edit reruns it.
"""

import ast
import functools
import hashlib
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


# Keyed by the source text itself, so an edited module is parsed again: the workflow hashes
# ~40 scripts whose closures share most modules, and parsing each module once per closure
# was three quarters of every Snakemake start (12 of 16 s).
@functools.lru_cache(maxsize=1024)
def _imported_modules(source: str) -> frozenset[str]:
    found = set()
    for node in _statements(ast.parse(source).body):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == PACKAGE
        ):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
    return frozenset(found)


# Found files only: the closures of ~40 scripts ask ~6,000 times for ~150 modules, and a
# module that was missing may be written later in the same process.
_FOUND: dict[tuple[Path, str], Path] = {}


def _module_file(package_root: Path, module: str) -> Path | None:
    found = _FOUND.get((package_root, module))
    if found is not None:
        return found
    parts = module.split(".")[1:]
    base = package_root.joinpath(*parts) if parts else package_root
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            _FOUND[package_root, module] = candidate
            return candidate
    return None


def module_closure(package_root: Path, modules: list[str]) -> list[Path]:
    """Files of the given modules (e.g. "sampling", "hay.cli") and of all they import."""
    todo = [f"{PACKAGE}.{m}" if not m.startswith(PACKAGE) else m for m in modules]
    seen: dict[str, Path] = {}
    while todo:
        module = todo.pop()
        path = _module_file(package_root, module)
        if path is None or module in seen:
            continue
        seen[module] = path
        todo.extend(_imported_modules(path.read_text(encoding="utf-8")))
    return sorted(set(seen.values()))


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
