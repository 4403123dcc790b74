"""One list of dependencies: pyproject.toml declares them, requirements.txt pins each exactly,
and each conda environment a rule runs in (envs/*.yaml, `--sdm conda`) lists every package its
scripts import, directly or through searchbench. Each gap is one line naming the package and
the file to add it to.

Imports are found with `ast` (function-local ones too: the docs track imports its parsers
lazily) and mapped to distributions with importlib.metadata, so the test runs in the venv that
requirements.txt built; conda is not run (its channels may be out of reach), the environment
files are read.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from searchbench.codehash import module_closure

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "searchbench"
# Distributions whose conda package has another name (none yet): canonical pip name -> conda.
CONDA_NAMES: dict[str, str] = {}
# Imports that run only under a built tool's own interpreter, never the workflow's: semble's
# session server runs in resources/tools/semble (a pip build, config/tools.yaml), which the
# build installs from the tool's pin.
IN_TOOL_BUILD = {"searchbench/embed_session.py": {"semble", "model2vec", "static_model"}}

# --- reading the three lists -------------------------------------------------------------


def declared(pyproject: str) -> tuple[dict[str, Requirement], dict[str, Requirement]]:
    """pyproject.toml's `[project] dependencies` and the optional groups' ones, by canonical
    name: (what the workflow needs to run, everything declared)."""
    project = tomllib.loads(pyproject)["project"]
    runtime = {
        canonicalize_name(r.name): r for r in map(Requirement, project.get("dependencies", []))
    }
    every = dict(runtime)
    for group in project.get("optional-dependencies", {}).values():
        every.update({canonicalize_name(r.name): r for r in map(Requirement, group)})
    return runtime, every


def pins(requirements: str) -> dict[str, Requirement]:
    """requirements.txt's requirements by canonical name (pip options and comments skipped)."""
    found = {}
    for line in requirements.splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith(("#", "-")):
            req = Requirement(line)
            found[canonicalize_name(req.name)] = req
    return found


def conda_packages(env: str) -> dict[str, str | None]:
    """An environment file's packages (conda and pip sections), canonical name -> the version
    it asks for as a specifier (None: any)."""
    found: dict[str, str | None] = {}
    for dep in yaml.safe_load(env)["dependencies"]:
        if isinstance(dep, dict):
            for line in dep.get("pip", []):
                req = Requirement(line)
                found[canonicalize_name(req.name)] = str(req.specifier) or None
            continue
        match = re.fullmatch(r"(?:[\w-]+::)?([\w.-]+)\s*(==|=|>=|<=|>|<)?\s*([\w.*]+)?", dep)
        if not match:
            raise ValueError(f"cannot read the conda dependency {dep!r}")
        name, op, version = match.groups()
        if version is None:
            spec = None
        elif op == "=":  # conda's `=3.1` is 3.1.*
            spec = f"=={version}" if version.endswith("*") else f"=={version}.*"
        else:
            spec = f"{op}{version}"
        found[canonicalize_name(name)] = spec
    return found


# --- what the code imports ---------------------------------------------------------------


def top_level_imports(source: str) -> set[str]:
    """Top-level names of every absolute import in a Python file, wherever it stands."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


SMK_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))", re.MULTILINE)


def smk_imports(source: str) -> set[str]:
    """The same for a Snakefile or .smk file (not Python that ast reads)."""
    return {(a or b).split(".")[0] for a, b in SMK_IMPORT.findall(source)}


def third_party(names: Iterable[str], local: Iterable[str] = ()) -> set[str]:
    return set(names) - set(sys.stdlib_module_names) - {PACKAGE, *local}


def distributions_of(
    module: str, where: str, mapping: Mapping[str, list[str]]
) -> tuple[set[str], list[str]]:
    """The canonical names of the distributions providing a top-level module, or a problem."""
    dists = {canonicalize_name(d) for d in mapping.get(module, [])}
    if dists:
        return dists, []
    return set(), [
        f"{module}: {where} imports it but no installed distribution provides it; install it "
        "and add its distribution to pyproject.toml [project] dependencies"
    ]


# --- the checks: each returns its problems, one line each ------------------------------------


def named(items: Iterable[str], most: int = 4) -> str:
    """A short list for a message: the first few, then how many more."""
    items = sorted(items)
    more = f" and {len(items) - most} more" if len(items) > most else ""
    return ", ".join(items[:most]) + more


def check_declared(
    imports: Mapping[str, set[str]],
    allowed: Mapping[str, Requirement],
    where: str,
    mapping: Mapping[str, list[str]],
) -> list[str]:
    """Every third-party module the files import comes from a distribution `allowed` names;
    one line per missing distribution."""
    problems = []
    missing: dict[str, set[str]] = {}
    for path, modules in sorted(imports.items()):
        for module in sorted(modules):
            dists, unknown = distributions_of(module, path, mapping)
            problems += unknown
            if dists and not dists & set(allowed):
                missing.setdefault(sorted(dists)[0], set()).add(f"{path} ({module})")
    for dist, files in sorted(missing.items()):
        problems.append(
            f"{dist}: imported by {named(files)}; add {dist} to {where} in pyproject.toml"
        )
    return problems


def check_pins(declared_all: Mapping[str, Requirement], pinned: Mapping[str, Requirement]):
    """Each declared package pinned exactly (==) in requirements.txt, within pyproject's
    range and with its extras; nothing pinned that pyproject does not declare."""
    problems = []
    for name, req in sorted(declared_all.items()):
        pin = pinned.get(name)
        if pin is None:
            problems.append(
                f"{name}: declared in pyproject.toml, not pinned; add {name}==VERSION "
                "to requirements.txt"
            )
            continue
        exact = [s for s in pin.specifier if s.operator == "=="]
        if len(exact) != 1 or len(pin.specifier) != 1 or "*" in exact[0].version:
            problems.append(f"{name}: requirements.txt must pin one exact version (==), not {pin}")
            continue
        version = exact[0].version
        if not req.specifier.contains(version, prereleases=True):
            problems.append(
                f"{name}: requirements.txt pins {version}, outside pyproject.toml's "
                f"{req.specifier}; change one of them"
            )
        if not req.extras <= pin.extras:
            problems.append(
                f"{name}: pyproject.toml asks for extras {sorted(req.extras)}; pin "
                f"{name}[{','.join(sorted(req.extras))}]=={version} in requirements.txt"
            )
    for name in sorted(set(pinned) - set(declared_all)):
        problems.append(
            f"{name}: pinned in requirements.txt, declared nowhere; add it to pyproject.toml"
        )
    return problems


def check_env(
    env_file: str,
    listed: Mapping[str, str | None],
    needs: Mapping[str, set[str]],
    pinned: Mapping[str, Requirement],
    requires_python: str,
) -> list[str]:
    """A conda environment lists each distribution its scripts import (needs: distribution ->
    the rules whose script imports it, "rule (through file)"), at versions that admit
    requirements.txt's pin."""
    problems = []
    for dist, rules in sorted(needs.items()):
        if CONDA_NAMES.get(dist, dist) not in listed and dist not in listed:
            problems.append(
                f"{dist}: imported by the scripts of rules {named(rules)}, which run in "
                f"{env_file}; add {CONDA_NAMES.get(dist, dist)} to {env_file}"
            )
    pip_names = {CONDA_NAMES.get(n, n): n for n in pinned}
    for name, spec in sorted(listed.items()):
        if spec is None:
            continue
        if name == "python":
            version = re.search(r"\d+(?:\.\d+)*", spec).group()
            if not SpecifierSet(requires_python).contains(version):
                problems.append(
                    f"python: {env_file} asks for {spec}, outside pyproject.toml's "
                    f"requires-python {requires_python}"
                )
            continue
        pin = pinned.get(pip_names.get(name, name))
        if pin is None:
            continue  # a tool with no pip package (ugrep, ctags...): nothing to agree with
        version = next(iter(pin.specifier)).version
        if not SpecifierSet(spec).contains(Version(version), prereleases=True):
            problems.append(
                f"{name}: {env_file} asks for {spec}, requirements.txt pins {version}; "
                "make them agree"
            )
    return problems


RULE_START = re.compile(r"^\s*(?:rule|checkpoint)\s+(\w+)\s*:", re.MULTILINE)


def rule_scripts(smk: str) -> dict[str, tuple[str | None, str]]:
    """Rule name -> (its conda: file or None, its script: file), for rules with a script."""
    starts = [m.start() for m in RULE_START.finditer(smk)] + [len(smk)]
    found = {}
    for begin, end in zip(starts, starts[1:], strict=False):
        block = smk[begin:end]
        name = RULE_START.match(block).group(1)
        script = re.search(r"\bscript:\s*\"([^\"]+)\"", block)
        conda = re.search(r"\bconda:\s*\"([^\"]+)\"", block)
        if script:
            found[name] = (conda.group(1) if conda else None, script.group(1))
    return found


# --- the repository ----------------------------------------------------------------------


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def python_files(*folders: str) -> list[Path]:
    files = [p for f in folders for p in sorted((REPO / f).rglob("*.py"))]
    return [p for p in files if "fixtures" not in p.relative_to(REPO).parts]


def launchers() -> list[Path]:
    """bin/'s Python launchers (hay, lsp-symbol)."""
    return [
        p
        for p in sorted((REPO / "bin").iterdir())
        if p.is_file() and "python" in read(p).partition("\n")[0]
    ]


def script_imports(script: Path) -> dict[str, set[str]]:
    """Third-party modules a rule's script imports, per file, through searchbench's modules
    it imports (directly or not)."""
    modules = set()
    for node in ast.walk(ast.parse(read(script))):
        if isinstance(node, ast.Import):
            modules.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
            modules.update([node.module, *(f"{node.module}.{a.name}" for a in node.names)])
    found = {rel(script): third_party(top_level_imports(read(script)))}
    for path in module_closure(REPO / PACKAGE, sorted(modules)):
        found[rel(path)] = third_party(top_level_imports(read(path)))
    return {path: names for path, names in found.items() if names}


@pytest.fixture(scope="module")
def mapping() -> Mapping[str, list[str]]:
    return packages_distributions()


@pytest.fixture(scope="module")
def lists() -> tuple[dict, dict, dict]:
    runtime, every = declared(read(REPO / "pyproject.toml"))
    return runtime, every, pins(read(REPO / "requirements.txt"))


def test_every_declared_package_is_pinned_in_requirements_txt(lists):
    _, every, pinned = lists
    problems = check_pins(every, pinned)
    assert not problems, "\n".join(problems)


def test_what_the_workflow_imports_is_a_runtime_dependency(lists, mapping):
    """searchbench, the rules' scripts, bin/ and the Snakefile with its rules/ (run by
    Snakemake's own Python): `[project] dependencies`, not an optional group."""
    runtime, _, _ = lists
    imports = {
        rel(p): third_party(top_level_imports(read(p))) - IN_TOOL_BUILD.get(rel(p), set())
        for p in [*python_files(PACKAGE, "scripts"), *launchers()]
    }
    for smk in [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]:
        imports[rel(smk)] = third_party(smk_imports(read(smk)))
    assert len(imports) > 50 and "pandas" in imports["searchbench/artifacts.py"]
    problems = check_declared(imports, runtime, "[project] dependencies", mapping)
    assert not problems, "\n".join(problems)


def test_what_the_tests_and_devtools_import_is_declared(lists, mapping):
    """Tests and developer tools may use an optional group (dev)."""
    _, every, _ = lists
    local = {p.stem for p in (REPO / "tests").rglob("*.py")}
    imports = {
        rel(p): third_party(top_level_imports(read(p)), local)
        for p in python_files("tests", "devtools")
    }
    assert "devtools/bench_scale.py" in imports and "tests/test_metrics.py" in imports
    problems = check_declared(imports, every, "[project.optional-dependencies] dev", mapping)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_each_rule_environment_lists_what_its_scripts_import(lists, mapping):
    """With `--sdm conda` each rule's script runs in its conda: file's environment alone, so
    that file must list every distribution the script needs (the docs track's markdown-it-py
    and docutils, for instance)."""
    _, _, pinned = lists
    requires_python = tomllib.loads(read(REPO / "pyproject.toml"))["project"]["requires-python"]
    rules = {}
    for smk in sorted((REPO / "rules").glob("*.smk")):
        rules.update(rule_scripts(read(smk)))
    assert len(rules) >= 35, "the rules' script: and conda: lines were not found"
    needs: dict[Path, dict[str, set[str]]] = {}
    problems = []
    for rule, (conda, script) in sorted(rules.items()):
        if conda is None:
            problems.append(f"rule {rule}: runs {script} without a conda: environment")
            continue
        env = (REPO / "rules" / conda).resolve()
        for path, modules in script_imports((REPO / "rules" / script).resolve()).items():
            for module in modules:
                dists, unknown = distributions_of(module, path, mapping)
                problems += unknown
                for dist in dists:
                    needs.setdefault(env, {}).setdefault(dist, set()).add(f"{rule} ({path})")
    doc_env = (REPO / "rules" / rules["doc_headings"][0]).resolve()
    assert {"markdown-it-py", "docutils", "pandas"} <= set(needs[doc_env])
    for env in sorted(REPO.joinpath("envs").glob("*.yaml")):
        problems += check_env(
            rel(env), conda_packages(read(env)), needs.get(env, {}), pinned, requires_python
        )
    assert not problems, "\n".join(dict.fromkeys(problems))


# --- the checks fail when they should -----------------------------------------------------

PYPROJECT = """
[project]
name = "x"
requires-python = ">=3.11"
dependencies = ["pandas~=3.1", "snakemake[reports]~=9.27", "docutils>=0.22"]
[project.optional-dependencies]
dev = ["pytest~=9.2"]
"""


def test_check_pins_names_the_package_and_requirements_txt():
    _, every = declared(PYPROJECT)
    pinned = pins("--only-binary x\npandas==3.1.1  # why\nsnakemake==9.27.1\npytest>=9\nruff==1\n")
    assert check_pins(every, pinned) == [
        "docutils: declared in pyproject.toml, not pinned; add docutils==VERSION to "
        "requirements.txt",
        "pytest: requirements.txt must pin one exact version (==), not pytest>=9",
        "snakemake: pyproject.toml asks for extras ['reports']; pin "
        "snakemake[reports]==9.27.1 in requirements.txt",
        "ruff: pinned in requirements.txt, declared nowhere; add it to pyproject.toml",
    ]
    pinned = pins("pandas==4.0\nsnakemake[reports]==9.27.1\ndocutils==0.22.4\npytest==9.2.0\n")
    assert check_pins(every, pinned) == [
        "pandas: requirements.txt pins 4.0, outside pyproject.toml's ~=3.1; change one of them"
    ]


def test_check_declared_names_the_import_and_pyproject():
    runtime, every = declared(PYPROJECT)
    source = "import os\ndef f():\n    from markdown_it import MarkdownIt\n    import pandas.io\n"
    imports = {"searchbench/headings.py": third_party(top_level_imports(source))}
    mapping = {"markdown_it": ["markdown-it-py"], "pandas": ["pandas"], "_pytest": ["pytest"]}
    imports["scripts/doc_headings.py"] = {"markdown_it"}
    assert check_declared(imports, runtime, "[project] dependencies", mapping) == [
        "markdown-it-py: imported by scripts/doc_headings.py (markdown_it), "
        "searchbench/headings.py (markdown_it); add markdown-it-py to [project] dependencies "
        "in pyproject.toml"
    ]
    # a test's import of a dev package is fine, a runtime one is not
    tests = {"tests/test_x.py": {"_pytest"}}
    assert check_declared(tests, every, "dev", mapping) == []
    assert check_declared(tests, runtime, "[project] dependencies", mapping)[0].startswith(
        "pytest: imported by tests/test_x.py (_pytest); add pytest to"
    )
    assert check_declared({"a.py": {"nosuch"}}, every, "dev", mapping) == [
        "nosuch: a.py imports it but no installed distribution provides it; install it and "
        "add its distribution to pyproject.toml [project] dependencies"
    ]
    assert smk_imports("import yaml\nfrom snakemake.utils import min_version\n") == {
        "yaml",
        "snakemake",
    }


def test_check_env_names_the_package_and_the_environment_file():
    env = conda_packages(
        "dependencies:\n  - python=3.10\n  - conda-forge::pandas=3.0\n  - ugrep\n"
        "  - pip\n  - pip:\n      - ir_measures==0.4.3\n"
    )
    assert env == {
        "python": "==3.10.*",
        "pandas": "==3.0.*",
        "ugrep": None,
        "pip": None,
        "ir-measures": "==0.4.3",
    }
    pinned = pins("pandas==3.1.1\nir_measures==0.4.3\ndocutils==0.22.4\n")
    needs = {
        "docutils": {f"{r} (searchbench/headings.py)" for r in "abcdef"},
        "ir-measures": {"score (scripts/score.py)"},
    }
    assert check_env("envs/python.yaml", env, needs, pinned, ">=3.11") == [
        "docutils: imported by the scripts of rules a (searchbench/headings.py), "
        "b (searchbench/headings.py), c (searchbench/headings.py), d (searchbench/headings.py) "
        "and 2 more, which run in envs/python.yaml; add docutils to envs/python.yaml",
        "pandas: envs/python.yaml asks for ==3.0.*, requirements.txt pins 3.1.1; make them agree",
        "python: envs/python.yaml asks for ==3.10.*, outside pyproject.toml's requires-python "
        ">=3.11",
    ]


def test_rule_scripts_pairs_each_script_with_its_rules_environment():
    smk = (
        'rule a:\n    conda:\n        "../envs/python.yaml"\n    script:\n        "../scripts/a.py"'
        '\n\n\nif True:\n\n    rule b:\n        script:\n            "../scripts/b.py"\n\n\n'
        "def code_hash(script: str) -> str:\n    return script\n\n\n"
        'rule c:\n    shell:\n        "x"\n'
    )
    assert rule_scripts(smk) == {
        "a": ("../envs/python.yaml", "../scripts/a.py"),
        "b": (None, "../scripts/b.py"),
    }
