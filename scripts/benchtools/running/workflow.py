"""The nightly workflow's YAML as the replay runs it; what it cannot run as GitHub would is ``Unmappable``."""

import ast
import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchmarks import callgrind

from ..errors import BadInput, Failed

# What each action is replayed as (jobs.Replay.step_*) and the `with:` keys it models; any other key is unmappable.
ACTIONS = {
    "actions/checkout": ("checkout", {"persist-credentials", "fetch-depth"}),
    "actions/setup-python": ("setup_python", {"python-version"}),
    "actions/upload-artifact": ("upload_artifact", {"name", "path", "if-no-files-found", "retention-days"}),
    "actions/download-artifact": ("download_artifact", {"name", "path"}),
    "actions/upload-pages-artifact": ("upload_pages_artifact", {"path"}),
    "actions/deploy-pages": ("deploy_pages", set()),
}
JOB_KEYS = {"runs-on", "timeout-minutes", "permissions", "needs", "if", "steps", "env", "environment", "name"}
STEP_KEYS = {"id", "name", "uses", "with", "run", "env", "if", "timeout-minutes", "shell", "continue-on-error"}
# Installing pinned Ubuntu packages: the only use of root that the replay maps.
APT_INSTALL = re.compile(
    r"sudo apt-get update(?: -\S+)*\s*&&\s*sudo apt-get install(?: -\S+)*(?P<packages>(?: [\w.+-]+=\S+)+)"
)
SHELLS = {None: ["bash", "-e"], "bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"]}


class Unmappable(Failed):
    """Exit 3."""


# GitHub's expressions read as Python: `!` as `~`, which binds as tightly as GitHub's `!` (Python's `not` does not).
TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|(?P<op>&&|\|\||==|!=|[!(),])"
    r"|(?P<name>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)|(?P<unreadable>\S+))"
)
AS_PYTHON = {"&&": "and", "||": "or", "!": "~", "true": "True", "false": "False", "null": "None"}
# Contexts whose every key the replay must know (an unknown one is unmappable); the others give null.
STRICT = {"github", "runner"}
STATUS = ("success", "failure", "always", "cancelled")


def truthy(value) -> bool:
    return value not in (None, False, 0, "")


def equal(a, b) -> bool:
    return a.lower() == b.lower() if isinstance(a, str) and isinstance(b, str) else a == b


# GitHub's && and || return an operand, as JavaScript's do; its == compares strings ignoring case.
OPERATORS = {
    ast.Or: lambda a, b: a if truthy(a) else b,
    ast.And: lambda a, b: b if truthy(a) else a,
    ast.Eq: equal,
    ast.NotEq: lambda a, b: not equal(a, b),
}


def evaluate(text: str, context: dict, status: dict | None = None):
    """The value of TEXT (without ${{ }}); STATUS gives success() and failure()."""
    names, words = [], []
    for match in TOKEN.finditer(text):
        kind, token = match.lastgroup, match[match.lastgroup]
        if kind == "unreadable":
            raise Unmappable(f"expression {text!r}: cannot read it at {token!r}")
        if kind == "name" and token not in AS_PYTHON:
            names.append(token)
            token = f"_{len(names) - 1}"
        words.append(repr(token[1:-1].replace("''", "'")) if kind == "str" else AS_PYTHON.get(token, token))
    try:
        tree = ast.parse(" ".join(words), mode="eval").body
    except SyntaxError:
        raise Unmappable(f"expression {text!r}: cannot read it") from None

    def value(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.BoolOp):
            return functools.reduce(OPERATORS[type(node.op)], map(value, node.values))
        if isinstance(node, ast.Compare):  # left to right, as GitHub reads a == b == c
            found = value(node.left)
            for operator, right in zip(node.ops, node.comparators, strict=True):
                found = OPERATORS[type(operator)](found, value(right))
            return found
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return not truthy(value(node.operand))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if (function := names[int(node.func.id[1:])]) not in STATUS or status is None or node.args:
                raise Unmappable(f"expression {text!r}: the replay has no function {function}()")
            return {"always": True, "cancelled": False, **status}[function]
        if not isinstance(node, ast.Name):
            raise Unmappable(f"expression {text!r}: cannot read it")
        token = names[int(node.id[1:])]
        head, *keys = token.split(".")
        missing = object()
        found = context.get(head, missing)
        for key in keys:
            found = found.get(key, missing) if isinstance(found, dict) else missing
        if found is missing and (head in STRICT or head not in context):
            raise Unmappable(f"expression {text!r}: the replay has no value for {token}")
        return None if found is missing else found

    return value(tree)


def text_of(value) -> str:
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def substitute(text, context: dict) -> str:
    """TEXT with each ${{ expression }} replaced by its value, as GitHub does before a step runs."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: text_of(evaluate(m[1], context)), text_of(text), flags=re.S)


def status(results: list[str]) -> dict[str, bool]:
    """success() and failure() after RESULTS: the needed jobs' for a job, the job's so far for a step."""
    return {"success": all(r == "success" for r in results), "failure": any(r == "failure" for r in results)}


def condition(text, context: dict, status: dict) -> bool:
    """An `if:`; absent, success() (GitHub's default)."""
    text = "success()" if text is None or text is True else text_of(text).strip()
    inner = re.fullmatch(r"\$\{\{(.*)\}\}", text, flags=re.S)
    return truthy(evaluate(inner[1] if inner else text, context, status))


@dataclass
class Step:
    index: int
    label: str
    action: str | None  # the handler's name for a `uses:`, None for a `run:`
    with_: dict
    env: dict
    id: str | None = None
    run: str | None = None
    if_: object = None
    timeout_minutes: float | None = None
    shell: str | None = None
    continue_on_error: bool = False


STEP_FIELDS = {key: key.replace("-", "_") for key in ("id", "run", "timeout-minutes", "shell", "continue-on-error")}
STEP_FIELDS["if"] = "if_"


@dataclass
class Job:
    name: str
    needs: list[str]
    if_: object
    env: dict
    permissions: object
    steps: list[Step]


@dataclass
class Workflow:
    path: Path
    env: dict
    inputs: dict  # {name: default}
    jobs: list[Job]  # in the order they run (needs first, else as written)


def read_workflow(path: Path) -> Workflow:
    import yaml

    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise BadInput(f"workflow {path}: cannot be read ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("jobs"), dict):
        raise BadInput(f"workflow {path}: no jobs")
    on = document.get("on", document.get(True)) or {}  # PyYAML reads the key `on` as True
    dispatch = (on.get("workflow_dispatch") or {}) if isinstance(on, dict) else {}
    inputs = {name: spec.get("default") for name, spec in (dispatch.get("inputs") or {}).items()}
    jobs = []
    for name, spec in document["jobs"].items():
        where = f"{path.name}: job {name}"
        if unknown := set(spec) - JOB_KEYS:
            raise Unmappable(f"{where}: the replay does not model {', '.join(sorted(unknown))}")
        if spec.get("runs-on", "ubuntu-latest") != "ubuntu-latest":
            raise Unmappable(f"{where}: runs-on {spec['runs-on']!r}; the replay models ubuntu-latest only")
        steps = [read_step(where, index, step) for index, step in enumerate(spec.get("steps") or [], 1)]
        needs = spec.get("needs") or []
        needs = [needs] if isinstance(needs, str) else list(needs)
        if missing := [need for need in needs if need not in document["jobs"]]:
            raise BadInput(f"{path.name}: job {name} needs {missing[0]!r}, which is no job")
        jobs.append(Job(name, needs, spec.get("if"), dict(spec.get("env") or {}), spec.get("permissions"), steps))
    ordered = []
    while jobs:
        if (ready := next((job for job in jobs if set(job.needs) <= {done.name for done in ordered}), None)) is None:
            raise BadInput(f"the jobs {', '.join(job.name for job in jobs)} need each other")
        ordered.append(jobs.pop(jobs.index(ready)))
    return Workflow(path, dict(document.get("env") or {}), inputs, ordered)


def read_step(where: str, index: int, step: dict) -> Step:
    label = step.get("name") or step.get("uses") or (step.get("run") or "").split("\n")[0][:60]
    where = f"{where}, step {index} ({label})"
    if unknown := set(step) - STEP_KEYS:
        raise Unmappable(f"{where}: the replay does not model {', '.join(sorted(unknown))}")
    if ("uses" in step) == ("run" in step):
        raise Unmappable(f"{where}: a step has either uses: or run:")
    action = None
    if "uses" in step:
        if (name := str(step["uses"]).split("@")[0]) not in ACTIONS:
            raise Unmappable(f"{where}: uses {step['uses']}, an action the replay cannot run")
        action, keys = ACTIONS[name]
        if extra := set(step.get("with") or {}) - keys:
            raise Unmappable(f"{where}: {name} with {', '.join(sorted(extra))}, which the replay does not model")
    if step.get("shell") not in SHELLS:
        raise Unmappable(f"{where}: shell {step['shell']!r}; the replay runs bash only")
    if not isinstance(step.get("continue-on-error", False), bool):
        raise Unmappable(
            f"{where}: continue-on-error {step['continue-on-error']!r}; the replay models true or false only"
        )
    given = {field: step[key] for key, field in STEP_FIELDS.items() if key in step}
    return Step(index, label, action, dict(step.get("with") or {}), dict(step.get("env") or {}), **given)


# Every context a job gets, with every key of the strict ones: an expression that fails here stops the replay early.
PROBE = {
    **dict.fromkeys(("inputs", "needs", "steps", "env"), {}),
    "github": dict.fromkeys(("token", "event_name", "repository", "server_url"), ""),
    "runner": dict.fromkeys(("temp", "os"), ""),
}


def check_expressions(where: str, texts, bare: bool = False) -> None:
    """Unmappable, naming WHERE, unless the replay can evaluate each of TEXTS (`if:`s when BARE, else their ${{ }})."""
    for text in texts:
        try:
            condition(text, PROBE, status([])) if bare else substitute(text, PROBE)
        except Unmappable as error:
            raise Unmappable(f"{where}: {error}") from None


def pinned_packages(script: str | None) -> dict[str, str] | None:
    found = APT_INSTALL.fullmatch((script or "").strip())
    return dict(pin.split("=", 1) for pin in found["packages"].split()) if found else None


def installed_version(package: str) -> str | None:
    try:
        result = subprocess.run(
            ["dpkg-query", "-W", "-f", "${db:Status-Abbrev}${Version}", package], capture_output=True, text=True
        )
    except OSError:
        return None
    return result.stdout[3:] if result.returncode == 0 and result.stdout.startswith("ii ") else None


def check_workflow(workflow: Workflow) -> dict[str, dict]:
    """Unmappable for what the replay cannot run; each pinned Ubuntu package, as pinned and as this machine has it."""
    pins = {}
    check_expressions(f"{workflow.path.name}: env", workflow.env.values())
    for job in workflow.jobs:
        where = f"{workflow.path.name}: job {job.name}"
        check_expressions(f"{where}: if", [job.if_], bare=True)
        check_expressions(f"{where}: env", job.env.values())
        for step in job.steps:
            here = f"{where}, step {step.index} ({step.label})"
            check_expressions(f"{here}: if", [step.if_], bare=True)
            check_expressions(here, [step.run, *step.env.values(), *step.with_.values()])
            packages = pinned_packages(step.run)
            if step.run is not None and "sudo" in step.run and packages is None:
                raise Unmappable(
                    f"{here}: uses sudo; the replay maps only "
                    "`sudo apt-get update && sudo apt-get install NAME=VERSION`"
                )
            for package, pinned in (packages or {}).items():
                pins[package] = {"pinned": pinned, "here": installed_version(package)}
                if pins[package]["here"] is None:
                    raise Unmappable(f"{here}: this machine lacks the package {package} (scripts/setup installs it)")
            if step.action == "setup_python" and find_python(str(step.with_.get("python-version", ""))) is None:
                raise Unmappable(f"{here}: this machine has no Python {step.with_.get('python-version')}")
    return pins


def python_version(executable: str) -> tuple[str, str] | None:
    try:
        script = "import platform, sys; print(sys.executable); print(platform.python_version())"
        result = subprocess.run([executable, "-c", script], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = result.stdout.split()
    return (lines[0], lines[1]) if result.returncode == 0 and len(lines) == 2 else None


def find_python(version: str) -> tuple[str, str] | None:
    """This machine's interpreter of VERSION ("3.11", "3.13.5"): on PATH, else scripts/setup's, pyenv's or /usr's."""
    minor = ".".join(version.split(".")[:2])
    cache = callgrind.cache_dir()
    candidates = [shutil.which(f"python{minor}")]
    for pattern in (f"{cache}/cpython-{minor}*/bin", os.path.expanduser(f"~/.pyenv/versions/{minor}*/bin")):
        candidates += [f"{folder}/python{minor}" for folder in sorted(Path("/").glob(pattern.lstrip("/")))]
    candidates += [f"/usr/local/bin/python{minor}", f"/usr/bin/python{minor}"]
    for candidate in filter(os.path.exists, filter(None, candidates)):
        if (found := python_version(candidate)) and (found[1] == version or found[1].startswith(version + ".")):
            return found
    return None
