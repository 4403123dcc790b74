"""One-line configuration errors, and the side files a configuration names."""

import math
from pathlib import Path

import jsonschema
import yaml

from searchbench.errors import BenchError
from searchbench.symbols import load_rules


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
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                line = key_node.start_mark.line + 1
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice (line {line}); keep one", None
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_yaml_unique(path: Path) -> object:
    """Parse a YAML file, refusing duplicate keys; one-line ValueError on any problem."""
    try:
        return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=UniqueKeyLoader)
    except yaml.YAMLError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else "invalid"
        problem = getattr(err, "problem", None) or first
        raise ValueError(f"{path}: not valid YAML ({problem}); fix the file") from None


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        parts.append(missing)
    if error.validator == "additionalProperties" and "'" in error.message:
        parts.append(error.message.split("'")[1])
    return ".".join(p for p in parts if p) or "(top level)"


def first_config_error(data: dict, schema: dict, source: str) -> str | None:
    """The most relevant violation of the strict schema (finite numbers, integral integers)
    as one sentence, or None when data is valid."""
    error = jsonschema.exceptions.best_match(StrictValidator(schema).iter_errors(data))
    return None if error is None else _error_line(error, source)


def config_error_line(data: dict, schema: dict, source: str) -> str:
    """The most relevant schema violation as one sentence naming the key and the fix."""
    error = jsonschema.exceptions.best_match(StrictValidator(schema).iter_errors(data))
    if error is None:
        return f"{source}: invalid (no detail available)"
    return _error_line(error, source)


def _error_line(error: jsonschema.ValidationError, source: str) -> str:
    message = error.message.replace("\n", " ")
    if len(message) > 160:
        message = message[:157] + "..."
    return (
        f"config error in {source} at `{_key_path(error)}`: {message} "
        f"(see config/schema/ for what each key accepts)"
    )


def load_side_file(name: str, basedir: Path) -> dict:
    """A file named in the config: relative to the working directory, else to the workflow."""
    path = Path(name)
    if not path.is_absolute() and not path.exists():
        path = basedir / path
    if not path.is_file():
        raise ValueError(f"config names {name!r}, which does not exist; fix the path")
    loaded = load_yaml_unique(path)
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return loaded


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
        for doc in yaml.safe_load_all(text):
            if doc:
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
