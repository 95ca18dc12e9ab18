"""JSON files checked against schemas/NAME.schema.json: a bad one is one line naming the file and the wrong field."""

import functools
import json
import re
from pathlib import Path

import fastjsonschema

from ..errors import BadInput

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
TYPE_WORDS = {
    "object": "an object",
    "array": "an array",
    "string": "text",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}


def read_bytes(path: Path, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise BadInput(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise BadInput(f"{what} is a folder, not a file: {path}") from None
    except OSError as error:
        raise BadInput(f"{what} cannot be read: {path} ({error.strerror or error})") from None


def read_json(path: Path, what: str):
    return parse(read_bytes(path, what), path, what)


def parse(data: bytes, path: Path, what: str, parse_float=None, parse_int=None):
    try:
        return json.loads(data, parse_float=parse_float, parse_int=parse_int)
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise BadInput(f"{what} is corrupt: {path} ({error})") from None
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None


@functools.cache
def validator(schema: str):
    """The compiled check of SCHEMA: a schema file's NAME, or NAME#/definitions/PART for one of its parts."""
    name, _, part = schema.partition("#")
    document = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    if part:
        document = {"$schema": document["$schema"], "definitions": document["definitions"], "$ref": f"#{part}"}
    return fastjsonschema.compile(document)


def shown(value) -> str:
    """VALUE as JSON, cut to 60 characters, for a message (its type where it is no JSON)."""
    try:
        return json.dumps(value)[:60]
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def problem(error: fastjsonschema.JsonSchemaValueException, prefix: str = "") -> str:
    """ERROR in one line: where, and what was expected there."""
    rest = error.name.removeprefix("data")[:120]
    where = prefix + rest if prefix else rest.removeprefix(".") or "the top level"
    if error.rule == "required":
        missing = next(key for key in error.rule_definition if key not in error.value)
        return f"{where}: the key {missing!r} is missing"
    if error.rule == "type":
        types = [error.rule_definition] if isinstance(error.rule_definition, str) else error.rule_definition
        return f"{where}: expected {' or '.join(TYPE_WORDS[t] for t in types)}, found {shown(error.value)}"
    if error.rule == "pattern" and "description" in error.definition:
        return f"{where}: {shown(error.value)} may hold only {error.definition['description']}"
    if error.rule == "propertyNames":
        pattern = error.rule_definition.get("pattern", "")
        if "description" in error.rule_definition:
            wrong = next(key for key in error.value if not re.search(pattern, key))
            return f"{where}: the key {shown(wrong)} may hold only {error.rule_definition['description']}"
        return f"{where}: every key must match {pattern[:60]}, found the keys {shown(list(error.value))}"
    return f"{where}: {error.message.removeprefix(error.name).strip()[:200]}"


def check(value, schema: str, path: Path | str, what: str):
    try:
        validator(schema)(value)
    except fastjsonschema.JsonSchemaValueException as error:
        raise BadInput(f"{what} has the wrong shape: {path}: {problem(error)}") from None
    except RecursionError:
        raise BadInput(f"{what} has the wrong shape: {path}: nested too deeply") from None
    return value


def read_checked(path: Path, schema: str, what: str):
    return check(read_json(path, what), schema, path, what)
