"""What may be published: a stored asv file as asv writes it, with text the site can show. Every later publish reads
it, so a value publish cannot take breaks the site for good, and HTML in it runs in every visitor's browser."""

import json
import math
import re
from pathlib import Path, PurePath

import fastjsonschema

from ..errors import BadInput
from . import shapes

# A full run with every sample stays below 1 MiB; GitHub refuses files over 100 MB.
MAX_STORED_BYTES = 10 * 1024 * 1024
# asv's step detection never returns on values whose differences overflow; the suite's largest are below 1e12.
LARGEST = 1e100
# Where asv writes a non-finite number: NaN for a skipped benchmark, a single sample's interval bounds.
NON_FINITE = {"result": "NaN", "stats_ci_99_a": "-Infinity", "stats_ci_99_b": "Infinity"}
PER_BENCHMARK = ("params", "version", "started_at", "duration", "profile")

SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
RESULT_NAME = re.compile(r"(?P<hash8>[0-9a-f]{8})-(?P<env>[A-Za-z0-9_.+-]+)\.json")
FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class Unpublishable(ValueError):
    """A value that asv's publish or the site cannot take."""


def _within(parse):
    """json's parse_float or parse_int refusing a number beyond ±LARGEST (1e400 is no infinity: asv writes Infinity)."""

    def number(text: str):
        if -LARGEST <= (value := parse(text)) <= LARGEST:
            return value
        raise Unpublishable(f"{text[:40]} is not a number within ±{LARGEST:g}")

    return number


def _non_finite(value, where: str, allowed: str | None = None) -> None:
    """Unpublishable for a NaN or an infinity anywhere in VALUE (any JSON), but ALLOWED (its JSON spelling)."""
    if isinstance(value, float) and not math.isfinite(value) and json.dumps(value) != allowed:
        only = f"a finite number or {allowed}" if allowed else "a finite number"
        raise Unpublishable(f"{where}: {json.dumps(value)}, where only {only} may stand")
    inner = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in inner:
        _non_finite(item, f"{where}.{key}".lstrip(".") if isinstance(key, str) else f"{where}[{key}]", allowed)


def _site_takes(value, part: str, prefix: str = "") -> None:
    try:
        shapes.validator(f"stored#/definitions/{part}")(value)
    except fastjsonschema.JsonSchemaValueException as error:
        raise Unpublishable(shapes.problem(error, prefix)) from None


def _cells(value: dict) -> None:
    _non_finite({key: inner for key, inner in value.items() if key != "results"}, "")
    columns = value["result_columns"]
    for key, row in value["results"].items():
        where = f"results[{key[:60]!r}]"
        if len(row) > len(columns):
            raise Unpublishable(f"{where} has more values than result_columns names")
        cells = dict(zip(columns, row, strict=False))
        _site_takes(cells, "cells", where)
        combinations = math.prod(map(len, cells["params"]))
        for name, cell in cells.items():
            _non_finite(cell, f"{where}.{name}", NON_FINITE.get(name))
            if name not in PER_BENCHMARK and cell is not None and len(cell) != combinations:
                raise Unpublishable(f"{where}.{name}: {len(cell)} values, not one per combination of params")


def kind_of(relative: PurePath) -> str:
    """What a file below a results folder (or a folder of them) is; BadInput for what a results branch lacks."""
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


KINDS = {"benchmarks": "asv benchmark list", "machine": "asv machine file", "result": "asv results file"}


def read_as_asv(kind: str, path: Path, machine: str) -> None:
    """The stored file at PATH read by asv's own readers, as publish calls them."""
    from asv import results, util

    if kind != "result":
        util.load_json(str(path), api_version=2 if kind == "benchmarks" else 1)
        return
    loaded = results.Results.load(str(path), machine)
    for key in loaded.get_all_result_keys():
        params = loaded.get_result_params(key)
        loaded.get_result_value(key, params)
        loaded.get_result_stats(key, params)
        loaded.get_result_samples(key, params)


def stored_file(path: Path, relative: PurePath, *, suite=None, matrix=None, commit: str | None = None) -> bytes:
    """PATH's bytes, once shown to be the asv file RELATIVE says (of SUITE, MATRIX, COMMIT where given); or BadInput."""
    from asv import results

    kind = kind_of(relative)
    if path.is_symlink() or not path.is_file():
        raise BadInput(f"{path}: not a plain file (a link or something else), so not stored")
    what = KINDS[kind]
    with path.open("rb") as file:
        data = file.read(MAX_STORED_BYTES + 1)
    if len(data) > MAX_STORED_BYTES:
        raise BadInput(
            f"{what} {path}: {path.stat().st_size} bytes, more than the {MAX_STORED_BYTES >> 20} MiB a stored file "
            "may hold (GitHub refuses files over 100 MB)"
        )
    value = shapes.parse(data, path, what, parse_float=_within(float), parse_int=_within(int))
    machine = relative.parent.name
    if kind == "result" and not (name := RESULT_NAME.fullmatch(relative.name)):
        raise BadInput(f"{path}: a results file's name is <first 8 hex digits of the commit>-<environment>.json")
    shapes.check(value, "results" if kind == "result" else kind, path, what)
    if kind == "result":
        if not FULL_HASH.fullmatch(value["commit_hash"]) or value["commit_hash"][:8] != name["hash8"]:
            raise BadInput(
                f"{what} {path}: its commit {value['commit_hash'][:60]!r} is not a full hash that "
                f"starts with its name's {name['hash8']}"
            )
        if commit is not None and value["commit_hash"] != commit:
            raise BadInput(f"{what} {path} holds commit {value['commit_hash']}, not {commit[:64]}")
        if results.get_filename(machine, value["commit_hash"], value["env_name"]) != f"{machine}/{relative.name}":
            raise BadInput(f"{what} {path}: its environment {value['env_name'][:60]!r} does not give its name")
        if value["params"].get("machine") != machine:
            raise BadInput(f"{what} {path}: machine {value['params'].get('machine')!r}, not its folder's {machine!r}")
    try:
        _site_takes(value, kind)
        if kind == "result":
            _cells(value)
        else:
            _non_finite(value, "")
        for name, description in value.items() if kind == "benchmarks" else ():
            if name != "version" and description["name"] != name:
                raise Unpublishable(f"[{name[:60]!r}]: names another benchmark, {description['name'][:60]!r}")
    except Unpublishable as error:
        raise BadInput(f"{what} has a value the site cannot take: {path}: {error}") from None
    except RecursionError:
        raise BadInput(f"{what} has a value the site cannot take: {path}: nested too deeply") from None
    if kind == "machine" and value["machine"] != machine:
        raise BadInput(f"{what} {path} names machine {value['machine']!r}, not its folder's {machine!r}")
    if kind == "result" and suite is not None:
        listed = json.loads(suite) if isinstance(suite, (bytes, str)) else suite
        for key, row in value["results"].items():
            described = listed.get(key) if key != "version" else None
            if not isinstance(described, dict):
                raise BadInput(f"{what} {path}: benchmark {key[:60]!r}, which this suite does not have")
            params = dict(zip(value["result_columns"], row, strict=False)).get("params") or []
            known = described.get("params") or []
            if len(params) != len(known) or any(not set(p) <= set(k) for p, k in zip(params, known, strict=True)):
                raise BadInput(
                    f"{what} {path}: {key[:60]!r} has params {json.dumps(params)[:100]}, "
                    f"which this suite does not have (it has {json.dumps(known)[:100]})"
                )
    if kind == "result" and matrix is not None:
        if (expected := matrix.get(value["env_name"])) is None:
            raise BadInput(
                f"{what} {path}: environment {value['env_name'][:80]!r}, which no asv configuration of this suite has"
            )
        python, requirements = expected
        pinned = {key: value["params"].get(key) for key in requirements}
        if value["python"] != python or value["requirements"] != requirements or pinned != requirements:
            raise BadInput(
                f"{what} {path}: environment {value['env_name'][:80]!r} with Python {value['python'][:20]!r} and "
                f"requirements {json.dumps(value['requirements'])[:120]}, not the configuration's {python} and "
                f"{json.dumps(requirements)[:120]}"
            )
    try:
        read_as_asv(kind, path, machine)
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None
    except Exception as error:  # noqa: BLE001 - whatever asv's reader cannot read is bad input
        raise BadInput(f"{what} is corrupt: {path} ({type(error).__name__}: {str(error)[:200]})") from None
    return data
