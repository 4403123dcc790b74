"""The configuration files of a `snakemake` command line, checked before Snakemake reads them.

Snakemake loads every `--configfile` before the workflow's own checks run, and reports a
missing one as a traceback and a YAML error without file or line. `./bench run` calls
`python -m searchbench.preflight ARGS` first; the Snakefile checks its default configuration
with `default_configfile` and the loaded files with `target_configfile_line`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from searchbench.configcheck import DEFAULT_CONFIG, did_you_mean, load_yaml_unique

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
# Folders the workflow writes into: a file there is a target, never a configuration.
OUTPUT_FOLDERS = ("results", "resources", "evidence")
CONFIG_FLAGS = ("--configfile", "--configfiles")


def looks_like_target(path: str | os.PathLike) -> bool:
    """A name that is an output of the workflow (results/...), or not a YAML/JSON file name."""
    parts = Path(path).parts
    return (bool(parts) and parts[0] in OUTPUT_FOLDERS) or Path(path).suffix not in CONFIG_SUFFIXES


def target_line(path: str | os.PathLike, first: str | os.PathLike | None) -> str:
    """One line for a target that `--configfile` (which takes every name after it) swallowed."""
    given = f" --configfile={first}" if first is not None else " --configfile=FILE"
    return (
        f"config error: --configfile took {path} as a config file (it reads every name after "
        f"it, up to the next option): put targets before --configfile, or write{given}"
    )


def configfile_problem(
    path: str | os.PathLike, first: str | os.PathLike | None = None
) -> str | None:
    """Why `path` cannot be a configuration, as one line naming it and the fix; None when it
    is a YAML mapping. `first` is the configuration before it on the command line, if any
    (a later name that is no configuration was meant as a target)."""
    target = first is not None and looks_like_target(path)
    given = Path(path)
    if not given.exists():
        if target:
            return target_line(path, first)
        parent = given.parent if str(given.parent) else Path(".")
        siblings = [p.name for p in parent.iterdir()] if parent.is_dir() else []
        return (
            f"config error: config file {path} does not exist{did_you_mean(given.name, siblings)}; "
            "fix the path (config/ holds config.yaml, kernel.yaml and seed.yaml)"
        )
    if not given.is_file():
        return f"config error: config file {path} is not a file; name a YAML file"
    try:
        loaded = load_yaml_unique(given)
    except ValueError as err:
        return target_line(path, first) if target else f"config error: {err}"
    if not isinstance(loaded, dict):
        if target:
            return target_line(path, first)
        return (
            f"config error: {path} is not a configuration (its top level is no mapping of keys "
            "such as seed and corpora); see config/config.yaml"
        )
    return None


def configfiles_of(argv: Sequence[str]) -> list[str]:
    """The names a snakemake command line passes to --configfile, in order (argparse's nargs='+':
    every name after the flag up to the next option; `--configfile=FILE` takes one)."""
    names: list[str] = []
    taking = False
    for arg in argv:
        if arg == "--":
            break
        if arg in CONFIG_FLAGS:
            taking = True
            continue
        flag, eq, value = arg.partition("=")
        if eq and flag in CONFIG_FLAGS:
            names.append(value)
            taking = False
            continue
        if arg.startswith("-") and arg != "-":
            taking = False
            continue
        if taking:
            names.append(arg)
    return names


def command_line_problem(argv: Sequence[str]) -> str | None:
    """The first config file of a snakemake command line that Snakemake could not read, or
    that is a target read as a config file; None when all are configurations."""
    names = configfiles_of(argv)
    for i, name in enumerate(names):
        problem = configfile_problem(name, names[0] if i else None)
        if problem:
            return problem
    return None


def target_configfile_line(configfiles: Sequence[str | os.PathLike], workdir: Path) -> str | None:
    """A loaded config file that is one of the workflow's outputs (results/...: a target typed
    after --configfile that happened to parse as YAML), as one line; None when there is none."""
    if len(configfiles) < 2:
        return None
    first, *rest = (_relative(Path(path), workdir) for path in configfiles)
    for path in rest:
        if not path.is_absolute() and path.parts and path.parts[0] in OUTPUT_FOLDERS:
            return target_line(path, first)
    return None


def _relative(path: Path, workdir: Path) -> Path:
    """path as the user typed it (Snakemake makes config file names absolute)."""
    resolved, base = path.absolute(), workdir.absolute()
    return resolved.relative_to(base) if resolved.is_relative_to(base) else resolved


def default_configfile(basedir: str | os.PathLike) -> str:
    """config/config.yaml of the working directory, else the workflow's (a run elsewhere with
    --directory); a missing or unreadable one stops here with one line."""
    path = Path(DEFAULT_CONFIG)
    if not path.exists():
        path = Path(basedir) / DEFAULT_CONFIG
    problem = configfile_problem(path)
    if problem:
        sys.exit(problem)
    return str(path)


def main(argv: Sequence[str]) -> int:
    problem = command_line_problem(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
