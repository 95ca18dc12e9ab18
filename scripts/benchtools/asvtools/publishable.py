"""What may be published: a stored asv file is taken only as asv writes it, and only with text the site can show.

Every stored file is kept for good and read by every later asv publish, so a value that publish or its step
detection cannot take breaks the site for good, and text that the site renders as HTML (asv puts benchmark
names, params, and machine fields into headings and ``html: true`` tooltips) runs in every visitor's browser.
"""

import functools
import json
import math
import re
import tempfile
from pathlib import Path, PurePath

from ..errors import BadInput
from ..project import MACHINE_FIELDS
from . import shapes

NUMBER = (int, float)
# 10 MiB: the largest real results file (29 benchmarks, no samples) is 11 KB, and
# a full run of the whole suite with every sample recorded stays below 1 MiB; the
# cap is far below GitHub's 100 MB per file, so a file that merges also pushes.
MAX_STORED_BYTES = 10 * 1024 * 1024
# asv's step detection never returns on values whose differences overflow (1.7e308
# beside -1.7e308); this suite's largest values (instruction counts) are below 1e12.
LARGEST = 1e100
# No angle brackets, ampersands, double quotes, backticks or backslashes, so no
# tag, entity or attribute can be formed: asv quotes its attributes with double
# quotes, and puts single quotes around string param values ('jit').
SAFE_TEXT = re.compile(r"[A-Za-z0-9 ._+:/,()'\[\]=@~-]{0,500}")
SAFE_TEXT_DOC = "letters, digits, spaces and ._+:/,()'[]=@~- (at most 500)"
# An environment's value (a pinned version, the Python): what a version is made of, so that no Markdown link,
# mention or emphasis (``[x](https://…)``, ``@someone``) can form in the issue or the report that name it.
ENV_VALUE = re.compile(r"[A-Za-z0-9._+!-]{0,100}")
ENV_VALUE_DOC = "letters, digits and ._+!- (a version; at most 100)"
BENCHMARK_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,299}")
BENCHMARK_NAME_DOC = "letters, digits, _ and . (module.Class.method)"
MACHINE_KEY = re.compile(r"[A-Za-z0-9_]{1,100}")
DURATION_KEY = re.compile(r"<build>|<setup_cache [A-Za-z0-9 ._+:/,()'\[\]=@~-]{1,300}>")
BASE64 = re.compile(r"[A-Za-z0-9+/=]*")

SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
RESULT_NAME = re.compile(r"(?P<hash8>[0-9a-f]{8})-(?P<env>[A-Za-z0-9_.+-]+)\.json")
FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@functools.cache
def asv_layout() -> dict:
    """What asv's Results.save writes: its top-level ``keys`` and its ``result_columns``, from asv itself."""
    from asv import results, runner

    saved = results.Results({"machine": "m"}, {}, "0" * 40, 0, "3", "e", {})
    benchmark = {"name": "b", "version": "1", "params": []}
    saved.add_result(benchmark, runner.BenchmarkResult([1.0], [[1.0]], [1], 0, "", None))
    with tempfile.TemporaryDirectory(prefix="asv-layout-") as tmp:
        saved.save(tmp)
        data = json.loads((Path(tmp) / results.get_filename("m", "0" * 40, "e")).read_bytes())
    return {"keys": frozenset(data), "result_columns": tuple(data["result_columns"])}


class Unpublishable(ValueError):
    """A value that asv's publish or the site cannot take, and where it is."""


def _refuse(where: str, value, expected: str):
    raise Unpublishable(f"{where}: {shapes.shown(value)} is not {expected}")


def _finite_float(text: str) -> float:
    """json's parse_float: 1e400 is not infinity, it is no number at all (asv writes Infinity)."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text[:40]}: a number beyond what a float holds")
    return number


def _number(value, where: str, nan: bool = False, inf: float | None = None, none: bool = True, kind=NUMBER):
    if (value is None and none) or (nan and value != value) or (inf is not None and value == inf):
        return
    if isinstance(value, bool) or not isinstance(value, kind) or not -LARGEST <= value <= LARGEST:
        allowed = [
            f"a number within ±{LARGEST:g}" if kind is NUMBER else "an integer",
            *["NaN"] * nan,
            *[json.dumps(inf)] * (inf is not None),
            *["null"] * none,
        ]
        _refuse(where, value, " or ".join(filter(None, [", ".join(allowed[:-1]), allowed[-1]])))


def _text(value, where: str, pattern=SAFE_TEXT, doc=SAFE_TEXT_DOC, none: bool = False):
    if value is None and none:
        return
    if not isinstance(value, str):
        _refuse(where, value, "text")
    if not pattern.fullmatch(value):
        raise Unpublishable(f"{where}: {value[:60]!r} may hold only {doc}")


def _each(value, where: str, rule, expected: str, n: int | None = None, none: bool = True):
    """VALUE is a list (of N items, where given; or null where allowed), each item checked by RULE."""
    if value is None and none:
        return
    if not isinstance(value, list) or n not in (None, len(value)):
        _refuse(where, value, expected)
    for i, item in enumerate(value):
        rule(item, f"{where}[{i}]")


def _finite(value, where: str) -> None:
    """Every number in VALUE (any JSON) is finite and within ±LARGEST, and no number is true or false."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _finite(inner, f"{where}[{key[:40]!r}]")
    elif isinstance(value, list):
        _each(value, where, _finite, "")
    elif isinstance(value, float):
        _number(value, where)


def _per_param(rule):
    return lambda value, n, where: _each(
        value, where, rule, f"null or a list of {n} (one per combination of params)", n
    )


def _scalar(rule):
    return lambda value, n, where: rule(value, where)


# Each column asv's Results.save writes (asv_layout()["result_columns"]; a test checks that these are all of
# them), and what asv writes in it: what publish reads (result, stats_ci_99_a/b through _stats.get_weight) and
# what it keeps for later (the rest), as asv writes it and no other way.
COLUMNS = {
    "result": _per_param(lambda v, w: _number(v, w, nan=True)),  # NaN: skipped; null: failed
    "params": None,  # checked first: it gives the number of values in the others
    "version": _scalar(lambda v, w: _text(v, w, none=True)),
    "started_at": _scalar(_number),
    "duration": _scalar(_number),
    # A single sample's confidence interval is (-Infinity, Infinity), which asv writes and get_weight reads.
    "stats_ci_99_a": _per_param(lambda v, w: _number(v, w, inf=-math.inf)),
    "stats_ci_99_b": _per_param(lambda v, w: _number(v, w, inf=math.inf)),
    "stats_q_25": _per_param(_number),
    "stats_q_75": _per_param(_number),
    "stats_number": _per_param(_number),
    "stats_repeat": _per_param(lambda v, w: _number(v, w, kind=int)),
    "samples": _per_param(
        lambda v, w: _each(v, w, lambda s, ws: _number(s, ws, none=False), "null or a list of samples")
    ),
    "profile": _scalar(lambda v, w: _text(v, w, BASE64, "base64 (asv's compressed profile)", none=True)),
}


def _params(value, where: str) -> int:
    """How many combinations of params they make."""

    def texts(values, where: str):
        _each(values, where, _text, "a list of params (as text)", none=False)

    _each(value, where, texts, "a list of lists of params (as text)", none=False)
    return math.prod(map(len, value))


def _result_fields(value: dict) -> None:
    if unexpected := [key for key in value if key not in asv_layout()["keys"]]:
        keys = ", ".join(sorted(asv_layout()["keys"]))
        raise Unpublishable(f"unexpected key {unexpected[0][:60]!r} (asv writes only {keys})")
    _text(value["env_name"], "env_name")
    _number(value["date"], "date", none=False)
    for field in ("params", "requirements", "env_vars"):
        for key, item in value.get(field, {}).items():
            _text(key, f"{field} key")
            # The machine's own fields keep their text (a cpu is "Intel(R) Xeon(R) CPU @ 2.20GHz"); an
            # environment's values are versions, which the issue and the report name.
            environment = field == "requirements" or (field == "params" and key not in MACHINE_FIELDS)
            if environment and isinstance(item, str):
                _text(item, f"{field}[{key!r}]", ENV_VALUE, ENV_VALUE_DOC)
            elif field == "env_vars" or isinstance(item, str):
                _text(item, f"{field}[{key!r}]")
            else:
                _number(item, f"{field}[{key!r}]")
    _text(value["python"], "python", ENV_VALUE, ENV_VALUE_DOC)
    for key, item in value.get("durations", {}).items():
        _text(key, "durations key", DURATION_KEY, "<build> or <setup_cache KEY>")
        _number(item, f"durations[{key!r}]", none=False)
    columns = value["result_columns"]
    for name in columns:
        if name not in COLUMNS:  # a test checks that they are asv_layout()'s
            raise Unpublishable(f"result_columns: {name[:60]!r} is not a column asv writes")
    if len(set(columns)) != len(columns) or "params" not in columns:
        raise Unpublishable("result_columns: each column once, params among them, as asv writes them")
    for key, row in value["results"].items():
        _text(key, "a benchmark name", BENCHMARK_NAME, BENCHMARK_NAME_DOC)
        if len(row) > len(columns):
            raise Unpublishable(f"{key[:60]!r} has more values than result_columns names")
        cells = dict(zip(columns, row, strict=False))
        n = _params(cells.get("params"), f"results[{key[:60]!r}].params")
        for name, cell in cells.items():
            if name != "params":
                COLUMNS[name](cell, n, f"results[{key[:60]!r}].{name}")


def _machine_fields(value: dict) -> None:
    for key, item in value.items():
        _text(key, "a machine field", MACHINE_KEY, "letters, digits and _")
        if key != "version":
            _text(item, key)


def _benchmark_fields(value: dict) -> None:
    _finite(value, "")
    for name, description in value.items():
        if name == "version":
            continue
        where = f"[{name[:60]!r}]"
        _text(name, f"{where} name", BENCHMARK_NAME, BENCHMARK_NAME_DOC)
        if description["name"] != name:
            raise Unpublishable(f"{where}: names another benchmark, {description['name'][:60]!r}")
        for field in ("type", "unit", "pretty_name", "version"):
            _text(description.get(field), f"{where}.{field}", none=True)
        _each(description.get("param_names", []), f"{where}.param_names", _text, "", none=False)
        _params(description.get("params", []), f"{where}.params")


def _in_suite(value: dict, suite, path: Path, what: str) -> None:
    """Every benchmark and param of the results file VALUE is one the suite's benchmarks.json SUITE has."""
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


def _in_matrix(value: dict, matrix: dict, path: Path, what: str) -> None:
    """The results file VALUE is of an environment of MATRIX ({env_name: (python, requirements)}), as asv names it."""
    expected = matrix.get(value["env_name"])
    if expected is None:
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


def _every_value(path: Path, machine: str) -> None:
    """The results file at PATH read by asv's own readers, as publish calls them."""
    from asv import results

    loaded = results.Results.load(str(path), machine)
    for key in loaded.get_all_result_keys():
        params = loaded.get_result_params(key)
        loaded.get_result_value(key, params)
        loaded.get_result_stats(key, params)
        loaded.get_result_samples(key, params)


# Each kind of stored file: what it is called, and the checks of what the site shows.
KINDS = {
    "benchmarks": ("asv benchmark list", _benchmark_fields),
    "machine": ("asv machine file", _machine_fields),
    "result": ("asv results file", _result_fields),
}
# asv's own readers of each kind, (path, machine), as publish calls them.
ASV_READERS = {
    "benchmarks": lambda path, _: _load_json(path, api_version=2),
    "machine": lambda path, _: _load_json(path, api_version=1),
    "result": _every_value,
}


def _load_json(path: Path, api_version: int):
    from asv import util

    return util.load_json(str(path), api_version=api_version)


def stored_file(path: Path, relative: PurePath, *, suite=None, matrix=None, commit: str | None = None) -> bytes:
    """PATH's bytes, once it is shown to be the asv file its place RELATIVE says; else BadInput naming it.

    A results file names only SUITE's benchmarks and params (benchmarks.json, as bytes or parsed), MATRIX's
    environments ({env_name: (python, requirements)}) and COMMIT (a full hash), where given.
    """
    from asv import results

    kind = kind_of(relative)
    if path.is_symlink() or not path.is_file():
        raise BadInput(f"{path}: not a plain file (a link or something else), so not stored")
    what, fields = KINDS[kind]
    with path.open("rb") as file:
        data = file.read(MAX_STORED_BYTES + 1)
    if len(data) > MAX_STORED_BYTES:
        raise BadInput(
            f"{what} {path}: {path.stat().st_size} bytes, more than the {MAX_STORED_BYTES >> 20} MiB a stored file "
            "may hold (GitHub refuses files over 100 MB)"
        )
    value = shapes.parse(data, path, what, parse_float=_finite_float)
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
        fields(value)
    except Unpublishable as error:
        raise BadInput(f"{what} has a value the site cannot take: {path}: {error}") from None
    except RecursionError:
        raise BadInput(f"{what} has a value the site cannot take: {path}: nested too deeply") from None
    if kind == "machine" and value["machine"] != machine:
        raise BadInput(f"{what} {path} names machine {value['machine']!r}, not its folder's {machine!r}")
    if kind == "result" and suite is not None:
        _in_suite(value, suite, path, what)
    if kind == "result" and matrix is not None:
        _in_matrix(value, matrix, path, what)
    try:
        ASV_READERS[kind](path, machine)
    except RecursionError:
        raise BadInput(f"{what} is corrupt: {path} (nested too deeply)") from None
    except Exception as error:  # noqa: BLE001 - whatever asv's reader cannot read is bad input
        raise BadInput(f"{what} is corrupt: {path} ({type(error).__name__}: {str(error)[:200]})") from None
    return data
