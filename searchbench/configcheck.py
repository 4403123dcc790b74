"""One-line configuration errors, and the side files a configuration names."""

import difflib
import os
import re
from collections.abc import Iterable
from pathlib import Path

import jsonschema
import yaml


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        parts.append(missing)
    if error.validator == "additionalProperties" and "'" in error.message:
        parts.append(error.message.split("'")[1])
    return ".".join(p for p in parts if p) or "(top level)"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """` (did you mean `x`?)` for the closest valid name, or "" when none is close."""
    close = difflib.get_close_matches(name, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _unknown_keys(error: jsonschema.ValidationError) -> list[str]:
    instance = error.instance if isinstance(error.instance, dict) else {}
    known = set(error.schema.get("properties", {}))
    return sorted(str(k) for k in instance if k not in known)


def _explain(error: jsonschema.ValidationError) -> str:
    """The violation in words, with the closest valid name for a misspelling."""
    if error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        unknown = _unknown_keys(error)
        if unknown:
            key = unknown[0]
            return f"unknown key `{key}`{did_you_mean(key, known)}"
    if error.validator == "enum" and isinstance(error.instance, str):
        choices = [str(c) for c in error.validator_value]
        hint = did_you_mean(error.instance, choices) or f" (one of {', '.join(choices)})"
        return f"{error.instance!r} is not allowed{hint}"
    message = error.message.replace("\n", " ")
    return message[:157] + "..." if len(message) > 160 else message


def config_error_line(data: dict, schema: dict, source: str) -> str:
    """The most relevant schema violation as one sentence naming the key and the fix.

    An unknown key comes first: a misspelled key also leaves its right spelling missing,
    and the misspelling is what the user has to fix."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = list(validator.iter_errors(data))
    unknown = [e for e in errors if e.validator == "additionalProperties" and _unknown_keys(e)]
    error = unknown[0] if unknown else jsonschema.exceptions.best_match(errors)
    if error is None:
        return f"{source}: invalid (no detail available)"
    return (
        f"config error in {source} at `{_key_path(error)}`: {_explain(error)} "
        f"(see config/schema/ for what each key accepts)"
    )


def unknown_name_line(what: str, name: str, choices: Iterable[str], key: str) -> str:
    """One line for a name that is not among the configured ones (a tool, a corpus)."""
    names = sorted(choices)
    hint = did_you_mean(name, names)
    return (
        f"config error at `{key}`: {what} {name!r} is not configured{hint}; "
        f"the {what}s are: {', '.join(names)}"
    )


def local_path_problem(corpus: str, path: Path) -> str | None:
    """Why a local corpus's directory cannot be fetched, as one line; None when it can."""
    if not path.exists():
        parent = path.parent
        siblings = [p.name for p in parent.iterdir()] if parent.is_dir() else []
        hint = did_you_mean(path.name, siblings)
        return (
            f"config error at `corpora.{corpus}.source.path`: {path} does not exist{hint}; "
            "fix the path"
        )
    if not path.is_dir():
        return (
            f"config error at `corpora.{corpus}.source.path`: {path} is not a directory; "
            "name the corpus's top folder"
        )
    if not os.access(path, os.R_OK | os.X_OK):
        return (
            f"config error at `corpora.{corpus}.source.path`: {path} cannot be read; "
            "fix its permissions"
        )
    return None


def load_side_file(name: str, basedir: Path) -> dict:
    """A file named in the config: relative to the working directory, else to the workflow."""
    path = Path(name)
    if not path.is_absolute() and not path.exists():
        path = basedir / path
    if not path.is_file():
        raise ValueError(f"config names {name!r}, which does not exist; fix the path")
    try:
        loaded = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        first = str(err).splitlines()[0]
        raise ValueError(f"{path}: not valid YAML ({first}); fix the file") from None
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return loaded


# results/ names that are the run's own (not a corpus) and a corpus's own (not a track).
RUN_NAMES = ("tools", "tools.json", "report", "run_status.tsv", "logs", "benchmarks")
CORPUS_NAMES = (
    "done.txt",
    "corpus.json",
    "files.tsv",
    "symbols.tsv",
    "unseen.tsv",
    "fileset_audit.tsv",
    "filesets",
    "timing",
)


def _alternation(names: Iterable[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names)) or "(?!)"


def unknown_target_pattern(corpora: Iterable[str], tracks: Iterable[str]) -> str:
    """A regex for the part after results/ that no rule produces: neither one of the run's
    own names nor a corpus followed by one of its names or tracks."""
    corpora, tracks = list(corpora), list(tracks)
    run = _alternation(RUN_NAMES)
    corpus = _alternation(corpora)
    inside = _alternation([*CORPUS_NAMES, *tracks])
    return rf"(?!(?:{run})(?:/|$))(?!(?:{corpus})(?:/(?:{inside})(?:/|$)|$)).+"


def unknown_target_line(target: str, corpora: Iterable[str], tracks: Iterable[str]) -> str:
    """One line for a target under results/ that names no corpus or track of this config."""
    corpora, tracks = sorted(corpora), sorted(tracks)
    parts = target.split("/")
    name = parts[1] if len(parts) > 1 else ""
    if name in corpora and len(parts) > 2:
        what, hint = f"track {parts[2]!r}", did_you_mean(parts[2], [*tracks, *CORPUS_NAMES])
    else:
        what, hint = f"corpus {name!r}", did_you_mean(name, corpora)
    return (
        f"no rule makes {target}: {what} is not configured{hint}; corpora: "
        f"{', '.join(corpora)}; tracks: {', '.join(tracks)} "
        "(one corpus, everything: results/CORPUS/done.txt)"
    )
