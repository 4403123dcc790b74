"""One-line configuration errors, and the side files a configuration names."""

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


def config_error_line(data: dict, schema: dict, source: str) -> str:
    """The most relevant schema violation as one sentence naming the key and the fix."""
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is None:
        return f"{source}: invalid (no detail available)"
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
    try:
        loaded = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        first = str(err).splitlines()[0]
        raise ValueError(f"{path}: not valid YAML ({first}); fix the file") from None
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return loaded
