"""JSON files as the commands read them: parsed, then checked against the JSON Schema named after them.

Each file a command reads has its schema in ``scripts/benchtools/schemas/NAME.schema.json``; a file
that is missing, not JSON or of another shape is a one-line ``BadInput`` (exit 2) naming the file and
the first wrong field, never a traceback (exit 4).  The schemas require what the readers use and leave
the rest open, as asv's own files carry more than the tools read.
"""

import functools
import json
import re
from pathlib import Path

import jsonschema

from ..errors import BadInput

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
# How a JSON type is named in a message.
TYPE_WORDS = {
    "object": "an object",
    "array": "an array",
    "string": "text",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_bytes(path: Path, what: str) -> bytes:
    """PATH's bytes; BadInput naming WHAT and PATH when it is missing or not a file."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise BadInput(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise BadInput(f"{what} is a folder, not a file: {path}") from None
    except OSError as error:
        raise BadInput(f"{what} cannot be read: {path} ({error.strerror or error})") from None


def read_json(path: Path, what: str):
    """The JSON in PATH; BadInput naming WHAT and PATH when it is missing or not JSON."""
    raw = read_bytes(path, what)
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise BadInput(f"{what} is corrupt: {path} ({error})") from None
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None


@functools.cache
def validator(schema: str) -> jsonschema.protocols.Validator:
    """The validator of SCHEMA: a schema file's NAME, or NAME#/$defs/PART for one of its parts."""
    name, _, part = schema.partition("#")
    document = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    if part:
        document = {"$schema": document["$schema"], "$defs": document["$defs"], "$ref": f"#{part}"}
    return jsonschema.validators.validator_for(document)(document)


def shown(value) -> str:
    """VALUE as JSON, cut to 60 characters, for a message (its type where it is no JSON)."""
    try:
        return json.dumps(value)[:60]
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def place(error: jsonschema.ValidationError) -> str:
    """Where ERROR is, as a reader writes it: results['b.T.t'][2], or the top level."""
    where = ""
    for step in error.absolute_path:
        if isinstance(step, int):
            where += f"[{step}]"
        elif IDENTIFIER.fullmatch(step) and len(step) <= 40:
            where += f".{step}" if where else step
        else:
            where += f"[{step[:40]!r}]"
    return where or "the top level"


def problem(error: jsonschema.ValidationError) -> str:
    """ERROR in one line: where, and what was expected there."""
    where = place(error)
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in error.instance)
        return f"{where}: the key {missing!r} is missing"
    if error.validator == "type":
        types = [error.validator_value] if isinstance(error.validator_value, str) else error.validator_value
        return f"{where}: expected {' or '.join(TYPE_WORDS[t] for t in types)}, found {shown(error.instance)}"
    if "propertyNames" in error.schema_path:  # the instance is the key
        return f"{where}: unexpected key {shown(error.instance)}"
    return f"{where}: {error.message[:200]}"


def check(value, schema: str, path: Path | str, what: str):
    """VALUE if SCHEMA (``validator``) holds; else BadInput naming WHAT, PATH and the first wrong field."""
    try:
        error = jsonschema.exceptions.best_match(validator(schema).iter_errors(value))
    except RecursionError:
        raise BadInput(f"{what} has the wrong shape: {path}: nested too deeply") from None
    if error is not None:
        raise BadInput(f"{what} has the wrong shape: {path}: {problem(error)}")
    return value


def read_checked(path: Path, schema: str, what: str):
    """``read_json`` then ``check``."""
    return check(read_json(path, what), schema, path, what)
