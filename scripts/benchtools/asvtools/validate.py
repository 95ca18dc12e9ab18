"""Checks of what the commands read, in one place: option values, JSON shapes, and stored results.

Whatever a command reads from a file or an option is checked here before it
is used, so that a bad value is a one-line ``BadInput`` (exit 2) naming the
file or the option, never a traceback (exit 4), and never a silent success:

  threshold()        an argparse type: a finite, non-negative number
  read_json()        a JSON file, or BadInput (missing, not JSON, nested too deeply)
  check()            a JSON value against a small shape (types, required keys)
  results_file() …   a stored asv file as asv's own readers load it, plus the
                     checks they leave out: the machine matches its folder,
                     the file name is <hash8>-<env>.json, the commit is a full
                     hash that matches the name
"""

import argparse
import json
import math
import re
from pathlib import Path, PurePath

from ..errors import BadInput

# Option values


def finite_non_negative(value, what: str) -> float:
    """VALUE as a float, or BadInput naming WHAT unless it is a finite number >= 0."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadInput(f"{what} {value!r}: not a number") from None
    if isinstance(value, bool) or not math.isfinite(number) or number < 0:
        raise BadInput(f"{what} {value!r}: a threshold must be a finite number, 0 or more")
    return number


def threshold(text: str) -> float:
    """argparse type of a threshold option: finite and non-negative (argparse names the option, exit 2)."""
    try:
        return finite_non_negative(text, "")
    except BadInput as error:
        raise argparse.ArgumentTypeError(str(error).strip()) from None


# JSON files and shapes


def read_json(path: Path, what: str):
    """The JSON in PATH; BadInput naming WHAT and PATH when it is missing or not JSON."""
    try:
        return json.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise BadInput(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise BadInput(f"{what} is a folder, not a file: {path}") from None
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise BadInput(f"{what} is corrupt: {path} ({error})") from None
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None


class Map:
    """A JSON object of any keys: each key matches KEY (a regex), each value VALUE."""

    def __init__(self, value, key: str = ".*"):
        self.value, self.key = value, re.compile(key)


class List:
    """A JSON array whose items all match ITEM; with LENGTH, exactly that many."""

    def __init__(self, item, length: int | None = None):
        self.item, self.length = item, length


class Tuple:
    """A JSON array of exactly len(ITEMS) items, each matching its shape."""

    def __init__(self, *items):
        self.items = items


NUMBER = (int, float)
OPTIONAL = type(None)


def _fail(where: str, expected: str, value):
    shown = json.dumps(value)[:60] if _dumpable(value) else type(value).__name__
    raise ValueError(f"{where or 'the top level'}: expected {expected}, found {shown}")


def _dumpable(value) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError, RecursionError):
        return False


def _check(value, shape, where: str) -> None:
    if isinstance(shape, dict):  # required keys; other keys are allowed
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        for key, inner in shape.items():
            optional = key.endswith("?")
            name = key.rstrip("?")
            if name not in value:
                if optional:
                    continue
                raise ValueError(f"{where or 'the top level'}: the key {name!r} is missing")
            _check(value[name], inner, f"{where}.{name}" if where else name)
    elif isinstance(shape, Map):
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        for key, inner in value.items():
            if not shape.key.fullmatch(key):
                raise ValueError(f"{where or 'the top level'}: unexpected key {key[:60]!r}")
            _check(inner, shape.value, f"{where}[{key[:40]!r}]")
    elif isinstance(shape, List):
        if not isinstance(value, list):
            _fail(where, "an array", value)
        if shape.length is not None and len(value) != shape.length:
            _fail(where, f"an array of {shape.length}", value)
        for i, item in enumerate(value):
            _check(item, shape.item, f"{where}[{i}]")
    elif isinstance(shape, Tuple):
        if not isinstance(value, list) or len(value) != len(shape.items):
            _fail(where, f"an array of {len(shape.items)}", value)
        for i, (item, inner) in enumerate(zip(value, shape.items, strict=True)):
            _check(item, inner, f"{where}[{i}]")
    else:
        types = shape if isinstance(shape, tuple) else (shape,)
        # JSON's true and false are not numbers here.
        if isinstance(value, bool) and bool not in types:
            _fail(where, " or ".join(t.__name__ for t in types), value)
        if not isinstance(value, types):
            _fail(where, " or ".join("null" if t is OPTIONAL else t.__name__ for t in types), value)


def check(value, shape, path: Path | str, what: str):
    """VALUE if it has SHAPE; else BadInput naming WHAT, PATH and the first place where it differs."""
    try:
        _check(value, shape, "")
    except ValueError as error:
        raise BadInput(f"{what} has the wrong shape: {path}: {error}") from None
    except RecursionError:
        raise BadInput(f"{what} has the wrong shape: {path}: nested too deeply") from None
    return value


def read_checked(path: Path, shape, what: str):
    """``read_json`` then ``check``."""
    return check(read_json(path, what), shape, path, what)


# The shapes the gate reads.

LAST_RUN = {"config": str, "results_dir?": str, "html_dir?": str, "machine?": str, "commits?": List(str)}
# A configuration's fields that the gate reads (asv's own Config checks the rest when asv runs).
CONFIG = {"results_dir?": str, "html_dir?": str, "regressions_thresholds?": Map(NUMBER)}
INDEX = {"revision_to_hash": Map(str, key=r"-?[0-9]+"), "tags": Map(int)}
REVISION = (int, OPTIONAL)
REGRESSIONS = {
    "regressions?": List(
        Tuple(
            str,
            (str, OPTIONAL),
            Map((str, NUMBER, OPTIONAL)),
            object,
            object,
            object,
            List(Tuple(REVISION, int, NUMBER, NUMBER)),
        )
    )
}
GRAPH = List(Tuple(int, object))  # [[revision, a value or a list of values], ...]; steps.graph_points checks them
BENCHMARK = {"unit?": (str, OPTIONAL)}
BENCHMARKS = Map((dict, int))  # {name: description, ..., "version": 2}


# Stored results: the files that merge-results and push-results accept.

SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
RESULT_NAME = re.compile(r"(?P<hash8>[0-9a-f]{8})-(?P<env>[A-Za-z0-9_.+-]+)\.json")
FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
MACHINE = {"machine": str, "version": int}
RESULT = {
    "commit_hash": str,
    "env_name": str,
    "params": Map((str, NUMBER, OPTIONAL)),
    "requirements": Map((str, NUMBER, OPTIONAL)),
    "python": str,
    "date": NUMBER,
    "results": Map(list),
    "result_columns": List(str),
    "version": int,
}


def kind_of(relative: PurePath) -> str:
    """What a file below a results folder (or a folder of them) is: benchmarks, machine or result.

    BadInput for any other path: a results branch holds nothing else.
    """
    parts = relative.parts
    if not all(SAFE_NAME.fullmatch(part) for part in parts):
        raise BadInput(f"{relative}: not a name a results folder holds (letters, digits, _.+- only)")
    if relative.name == "benchmarks.json" and len(parts) in (1, 2):
        return "benchmarks"
    if len(parts) in (2, 3):
        return "machine" if relative.name == "machine.json" else "result"
    raise BadInput(
        f"{relative}: not where a results folder keeps its files "
        "([NAME/]benchmarks.json, [NAME/]MACHINE/machine.json, [NAME/]MACHINE/<hash8>-<env>.json)"
    )


def stored_file(path: Path, relative: PurePath) -> bytes:
    """PATH's bytes, once it is shown to be the asv file its place RELATIVE says; else BadInput naming it."""
    from asv import results, util

    kind = kind_of(relative)
    if path.is_symlink() or not path.is_file():
        raise BadInput(f"{path}: not a plain file (a link or something else), so not stored")
    data = path.read_bytes()
    what = {"benchmarks": "asv benchmark list", "machine": "asv machine file", "result": "asv results file"}[kind]
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadInput(f"{what} is corrupt: {path} ({error})") from None
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None
    machine = relative.parent.name
    if kind == "benchmarks":
        check(value, {"version": int}, path, what)
        check(value, BENCHMARKS, path, what)
        for name, description in value.items():
            if name != "version":
                check(
                    description,
                    {"name": str, "type": str, "params?": list, "param_names?": List(str)},
                    path,
                    f"{what} entry {name[:60]!r}",
                )
        _asv_loads(lambda: util.load_json(str(path), api_version=2), path, what)
        return data
    if kind == "machine":
        check(value, MACHINE, path, what)
        _asv_loads(lambda: util.load_json(str(path), api_version=1), path, what)
        if value["machine"] != machine:
            raise BadInput(f"{what} {path} names machine {value['machine']!r}, not its folder's {machine!r}")
        return data
    name = RESULT_NAME.fullmatch(relative.name)
    if not name:
        raise BadInput(f"{path}: a results file's name is <first 8 hex digits of the commit>-<environment>.json")
    check(value, RESULT, path, what)
    if not FULL_HASH.fullmatch(value["commit_hash"]) or value["commit_hash"][:8] != name["hash8"]:
        raise BadInput(
            f"{what} {path}: its commit {value['commit_hash'][:60]!r} is not a full hash that "
            f"starts with its name's {name['hash8']}"
        )
    if results.get_filename(machine, value["commit_hash"], value["env_name"]) != f"{machine}/{relative.name}":
        raise BadInput(f"{what} {path}: its environment {value['env_name'][:60]!r} does not give its name")
    if value["params"].get("machine") != machine:
        raise BadInput(f"{what} {path}: machine {value['params'].get('machine')!r}, not its folder's {machine!r}")
    for key, row in value["results"].items():
        if len(row) > len(value["result_columns"]):
            raise BadInput(f"{what} {path}: {key[:60]!r} has more values than result_columns names")
    loaded = _asv_loads(lambda: results.Results.load(str(path), machine), path, what)

    def every_value():
        for key in loaded.get_all_result_keys():
            params = loaded.get_result_params(key)
            values = loaded.get_result_value(key, params)
            for item in values if isinstance(values, list) else [values]:
                if item is not None and not isinstance(item, (int, float)):
                    raise TypeError(f"{key}: a value that is not a number: {item!r}"[:120])

    _asv_loads(every_value, path, what)
    return data


def _asv_loads(load, path: Path, what: str):
    """LOAD(), asv's reader; any failure is BadInput naming PATH."""
    try:
        return load()
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None
    except Exception as error:  # noqa: BLE001 - whatever asv's reader cannot read is bad input
        raise BadInput(f"{what} is corrupt: {path} ({type(error).__name__}: {str(error)[:200]})") from None
