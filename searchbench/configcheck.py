"""One-line configuration errors, and the side files a configuration names."""

import difflib
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

import jsonschema
import yaml

from searchbench.errors import BenchError
from searchbench.symbols import load_rules, rule_documents


def _is_integer(checker, value) -> bool:
    # 7.0 is not an integer here: a count or a seed written as a float is a typo.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(checker, value) -> bool:
    # .nan compares false with every bound, so it would pass `minimum`: numbers are finite.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value)


_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"integer": _is_integer, "number": _is_number}
)
StrictValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)


class UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one mapping (YAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        seen: set = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *entry`: its keys may be overridden here, as YAML means
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice; keep one", key_node.start_mark
                )
            seen.add(key)
        return yaml.constructor.SafeConstructor.construct_mapping(self, node, deep=deep)


# libyaml's parser where PyYAML has it: the tools file and the schemas are read at every
# Snakemake start (0.17 s each in pure Python).
FAST_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Its messages are vaguer, so a file it refuses is read again by UniqueKeyLoader.
class FastUniqueKeyLoader(FAST_SAFE_LOADER):
    construct_mapping = UniqueKeyLoader.construct_mapping


def fast_safe_load(text: str) -> object:
    """yaml.safe_load, on libyaml where PyYAML has it."""
    return yaml.load(text, Loader=FAST_SAFE_LOADER)


def yaml_error_line(path: str | os.PathLike, err: yaml.YAMLError) -> str:
    """`FILE:LINE:COLUMN: not valid YAML (what is wrong)` (1-based, as editors count); a
    problem YAML does not place (a duplicate key names its line itself) has no position."""
    first = str(err).strip().splitlines()[0] if str(err).strip() else "invalid"
    what = getattr(err, "problem", None) or first
    # "while parsing a flow sequence" and where it began: often the line to fix (an unclosed `[`)
    context, began = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and began is not None:
        what += f" ({context} begun at {began.line + 1}:{began.column + 1})"
    mark = getattr(err, "problem_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else f"{path}"
    return f"{where}: not valid YAML: {what}; fix the file"


def load_yaml_unique(path: Path) -> object:
    """Parse a YAML file, refusing duplicate keys; one-line ValueError on any problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason}); save it as UTF-8") from None
    try:
        return yaml.load(text, Loader=FastUniqueKeyLoader)
    except yaml.YAMLError as fast_err:
        try:
            yaml.load(text, Loader=UniqueKeyLoader)
        except yaml.YAMLError as err:
            raise ValueError(yaml_error_line(path, err)) from None
        raise ValueError(yaml_error_line(path, fast_err)) from None


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


def _most_relevant(errors: list[jsonschema.ValidationError]) -> jsonschema.ValidationError:
    """An unknown key comes first: a misspelled key also leaves its right spelling missing,
    and the misspelling is what the user has to fix."""
    unknown = [e for e in errors if e.validator == "additionalProperties" and _unknown_keys(e)]
    return unknown[0] if unknown else jsonschema.exceptions.best_match(errors)


def first_config_error(data: dict, schema: dict, source: str) -> str | None:
    """The most relevant violation of the strict schema (finite numbers, integral integers)
    as one sentence, or None when data is valid."""
    errors = list(StrictValidator(schema).iter_errors(data))
    return _error_line(_most_relevant(errors), source) if errors else None


def config_error_line(data: dict, schema: dict, source: str) -> str:
    """The most relevant schema violation as one sentence naming the key and the fix."""
    line = first_config_error(data, schema, source)
    return line or f"{source}: invalid (no detail available)"


def _error_line(error: jsonschema.ValidationError, source: str) -> str:
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


def side_file_path(name: str, basedir: Path) -> Path:
    """A file named in the config: relative to the working directory, else to the workflow."""
    path = Path(name)
    if not path.is_absolute() and not path.exists():
        path = basedir / path
    return path


def load_side_file(name: str, basedir: Path) -> dict:
    """A file named in the config: relative to the working directory, else to the workflow."""
    path = side_file_path(name, basedir)
    if not path.is_file():
        raise ValueError(f"config names {name!r}, which does not exist; fix the path")
    loaded = load_yaml_unique(path)
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return loaded


# results/ names that are the run's own (not a corpus) and a corpus's own (not a track).
RUN_NAMES = (
    "tools",
    "tools.json",
    "report",
    "run_status.tsv",
    "logs",
    "benchmarks",
    "pooled",
    "ablations.tsv",
    "calibration_status.tsv",
    "false_firings.tsv",
    "false_firing_effect.tsv",
    "false_firing_words.txt",
    "transcripts",
    "tools_skipped.tsv",
)
CORPUS_NAMES = (
    "done.txt",
    "corpus.json",
    "files.tsv",
    "symbols.tsv",
    "symbols",
    "unseen.tsv",
    "uses.tsv",
    "fileset_audit.tsv",
    "false_firings.tsv",
    "filesets",
    "index",
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


def rules_problem(rules_dir: Path, languages: dict) -> str | None:
    """Why the ast-grep rules folder cannot serve the parsed languages, or None."""
    if not Path(rules_dir).is_dir():
        return f"config names astgrep_rules_dir {str(rules_dir)!r}, which is not a folder; fix it"
    try:
        load_rules(Path(rules_dir), languages)
    except BenchError as err:
        return str(err)
    return None


def rule_kinds(rules_dir: Path, languages: dict) -> set[str]:
    """Every declaration kind the rules name (rule ids are `<language>-<kind>`)."""
    kinds = set()
    for language, text in load_rules(Path(rules_dir), languages).items():
        for doc in rule_documents(text):
            kinds.add(str(doc["id"])[len(language) + 1 :])
    return kinds


def query_kinds_problem(query_kinds: list[str], kinds: set[str]) -> str | None:
    """A query kind no rule declares would sample no query: say so before any job runs."""
    unknown = sorted(set(query_kinds) - kinds)
    if not unknown:
        return None
    return (
        f"config error at `query_kinds`: {', '.join(unknown)} is not a declaration kind of "
        f"any ast-grep rule; use kinds from: {', '.join(sorted(kinds))}"
    )


def tool_languages_problem(tools: dict, languages: dict) -> str | None:
    """A tool's `languages` must name parsed languages, or its caveats would never apply."""
    parsed = sorted(languages.get("parsed") or {})
    for name, entry in sorted(tools.items()):
        unknown = sorted(set((entry or {}).get("languages") or []) - set(parsed))
        if unknown:
            return (
                f"config error at `tools.{name}.languages`: {', '.join(unknown)} is not a parsed "
                f"language; use names from the languages file: {', '.join(parsed)}"
            )
    return None


def tool_tracks_problem(tools: dict, tracks: Iterable[str], baseline: str) -> str | None:
    """A tool's `tracks` must name tracks; the baseline runs on every track (each tool is
    compared with it query by query)."""
    known = list(tracks)
    for name, entry in sorted(tools.items()):
        named = (entry or {}).get("tracks")
        unknown = sorted(set(named or []) - set(known))
        if unknown:
            return (
                f"config error at `tools.{name}.tracks`: {', '.join(unknown)} is not a track; "
                f"use names from: {', '.join(known)}"
            )
        if name == baseline and named is not None and set(named) != set(known):
            return (
                f"config error at `tools.{name}.tracks`: {name} is the baseline, which runs on "
                f"every track ({', '.join(known)}); drop `tracks` or choose another baseline"
            )
    return None


# What an index is made by: a tool naming another's index (`index_of`) must make it the same way.
INDEX_RECIPE = ("index_binary", "index_argv", "env", "build")


def index_of_problem(tools: dict) -> str | None:
    """A tool's `index_of` must name another tool that builds its index the same way."""
    for name, entry in sorted(tools.items()):
        owner = (entry or {}).get("index_of")
        if owner is None:
            continue
        other = tools.get(owner) or {}
        if owner == name or not other.get("index_argv"):
            return (
                f"config error at `tools.{name}.index_of`: {owner!r} is not another tool with "
                "an index_argv; name the tool whose index this one searches"
            )
        differ = [k for k in INDEX_RECIPE if (entry or {}).get(k) != other.get(k)]
        if differ:
            return (
                f"config error at `tools.{name}.index_of`: its {', '.join(differ)} differ from "
                f"{owner}'s, so {owner}'s index is not the one it would build; make them equal "
                "or drop index_of"
            )
    return None


def variants_problem(variants: dict, tools: dict, corpora: Iterable[str]) -> str | None:
    """A declared variant must be a tool that varies another (`ablation_of`), and its two
    corpus groups must be corpora of this configuration that do not overlap: a corpus it was
    designed on cannot judge it."""
    known = sorted(corpora)
    for name, entry in sorted(variants.items()):
        if not (tools.get(name) or {}).get("ablation_of"):
            return (
                f"config error at `variants.{name}`: {name!r} is not a tool of the tools file "
                "with an ablation_of; declare the tool, naming the tool it varies"
            )
        for group in ("designed_on", "held_out"):
            unknown = sorted(set(entry[group]) - set(known))
            if unknown:
                return (
                    f"config error at `variants.{name}.{group}`: {', '.join(unknown)} is not a "
                    f"corpus of this configuration; use names from: {', '.join(known)}"
                )
        both = sorted(set(entry["designed_on"]) & set(entry["held_out"]))
        if both:
            return (
                f"config error at `variants.{name}`: {', '.join(both)} is both designed_on and "
                "held_out; a corpus the rule was designed on cannot judge it"
            )
    return None


DEFAULT_CONFIG = "config/config.yaml"  # the Snakefile's configfile when none is given


def reproduce_command(configfiles: Iterable[str | Path], basedir: Path) -> str:
    """The command a report and a published run name: config files inside the workflow are
    named relative to it, so that the command works in any checkout. The default
    configuration alone is no flag: `--configfile config/config.yaml` runs what a bare
    `snakemake` runs, and must not rerun the report."""
    names = []
    for f in configfiles:
        resolved = Path(f).resolve()
        inside = resolved.is_relative_to(basedir.resolve())
        names.append(str(resolved.relative_to(basedir.resolve())) if inside else str(f))
    if names == [DEFAULT_CONFIG]:
        names = []
    return "snakemake --cores 8" + "".join(f" --configfile {n}" for n in names)
