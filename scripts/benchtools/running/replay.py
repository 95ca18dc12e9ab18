"""The replay: upstream history night by night, through the nightly workflow's own jobs (docs/replay.md).

The jobs, their ``needs`` and ``if``, their steps and the steps' ``run:``
lines and setup steps are read from the workflow's YAML, so that the replay
and the workflow cannot drift apart.  A step it cannot map (an action it
does not know, an option of one that it does not model, a context it has no
value for) stops the replay (``Unmappable``, exit 3) before that night runs.
"""

import datetime
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import git, util
from ..asvtools.results import failed_benchmarks
from ..errors import BadInput, Failed
from ..project import ROOT
from ..publishing import github

WORKFLOW = Path(".github/workflows/nightly.yml")
REPOSITORY = "replay/equinox-benchmarks"  # GITHUB_REPOSITORY in the replay's jobs
# What each action is replayed as (Replay.step_*) and the `with:` keys it models; any other key is unmappable.
ACTIONS = {
    "actions/checkout": ("checkout", {"persist-credentials", "fetch-depth"}),
    "actions/setup-python": ("setup_python", {"python-version"}),
    "actions/upload-artifact": ("upload_artifact", {"name", "path", "if-no-files-found", "retention-days"}),
    "actions/download-artifact": ("download_artifact", {"name", "path"}),
    "actions/upload-pages-artifact": ("upload_pages_artifact", {"path"}),
    "actions/deploy-pages": ("deploy_pages", set()),
}
JOB_KEYS = {"runs-on", "timeout-minutes", "permissions", "needs", "if", "steps", "env", "environment", "name"}
STEP_KEYS = {"id", "name", "uses", "with", "run", "env", "if", "timeout-minutes", "shell"}
# GitHub's default shell on Linux, and its `shell: bash`.
SHELLS = {None: ["bash", "-e"], "bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"]}
# Names that a runner without setup-python has only as its own python3 (the runner bin leaves them out).
PYTHONISH = re.compile(r"(python|pip|pydoc|idle|2to3|pyvenv|virtualenv)[0-9.]*(-config)?")
# Variables of this machine's environment that a runner's job does not get.
NOT_PASSED = ("PATH", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHON", "CI")
NOT_PASSED_PREFIXES = ("GITHUB_", "RUNNER_", "GH_", "EQXB_", "ACTIONS_", "PYENV_", "CONDA")
START, END = "<!-- replay-table:{}:start -->", "<!-- replay-table:{}:end -->"


class Unmappable(Failed):
    """A workflow step, option or expression that the replay cannot run as GitHub would: exit 3."""


# --- Expressions: the subset of GitHub's ${{ }} language that the workflows use -----------------

TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|(?P<op>&&|\|\||==|!=|[!(),])"
    r"|(?P<name>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*))"
)
# Contexts whose every key the replay must know (an unknown one is unmappable); the others give null.
STRICT = {"github", "runner"}
STATUS = ("success", "failure", "always", "cancelled")


def tokens(text: str) -> list[tuple[str, str]]:
    found, at = [], 0
    text = text.rstrip()
    while at < len(text):
        match = TOKEN.match(text, at)
        if not match or match.end() == at:
            raise Unmappable(f"expression {text!r}: cannot read it at {text[at:]!r}")
        kind = match.lastgroup
        found.append((kind, match[kind]))
        at = match.end()
    return found


def truthy(value) -> bool:
    return value not in (None, False, 0, "")


def equal(a, b) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


def evaluate(text: str, context: dict, status: dict | None = None):
    """The value of expression TEXT (without ${{ }}); STATUS gives success() and failure()."""
    items = tokens(text)
    at = [0]

    def peek():
        return items[at[0]] if at[0] < len(items) else (None, None)

    def take(value=None):
        kind, token = peek()
        if value is not None and token != value:
            raise Unmappable(f"expression {text!r}: expected {value!r}")
        at[0] += 1
        return kind, token

    def chained(operand, operator, combine):
        """``operand (operator operand)*``, folded left by ``combine``: one level of precedence."""

        def parse():
            value = operand()
            while peek()[1] == operator:
                take()
                value = combine(value, operand())
            return value

        return parse

    # GitHub's && and || return an operand, as JavaScript's do: the first falsy or truthy one.
    both = chained(lambda: comparison(), "&&", lambda value, other: other if truthy(value) else value)
    either = chained(both, "||", lambda value, other: value if truthy(value) else other)

    def comparison():
        value = unary()
        while peek()[1] in ("==", "!="):
            _, op = take()
            other = unary()
            value = equal(value, other) if op == "==" else not equal(value, other)
        return value

    def unary():
        if peek()[1] == "!":
            take()
            return not truthy(unary())
        return primary()

    def primary():
        kind, token = take()
        if token == "(":
            value = either()
            take(")")
            return value
        if kind == "str":
            return token[1:-1].replace("''", "'")
        if kind == "num":
            return float(token) if "." in token else int(token)
        if kind != "name":
            raise Unmappable(f"expression {text!r}: unexpected {token!r}")
        if token in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token]
        if peek()[1] == "(":
            take("(")
            take(")")
            if token not in STATUS or status is None:
                raise Unmappable(f"expression {text!r}: the replay has no function {token}()")
            return {"always": True, "cancelled": False, **status}[token]
        return lookup(token, context, text)

    value = either()
    if at[0] != len(items):
        raise Unmappable(f"expression {text!r}: cannot read it at {items[at[0]][1]!r}")
    return value


def lookup(path: str, context: dict, text: str):
    head, *rest = path.split(".")
    if head not in context:
        raise Unmappable(f"expression {text!r}: the replay has no value for the context {head!r}")
    value = context[head]
    for key in rest:
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif head in STRICT:
            raise Unmappable(f"expression {text!r}: the replay has no value for {path}")
        else:
            return None
    return value


def text_of(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def substitute(text, context: dict) -> str:
    """TEXT with each ${{ expression }} replaced by its value, as GitHub does before a step runs."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: text_of(evaluate(m[1], context)), text_of(text), flags=re.S)


def condition(text, context: dict, status: dict) -> bool:
    """An `if:`; absent, success() (GitHub's default)."""
    if text is None or text is True:
        text = "success()"
    text = text_of(text).strip()
    inner = re.fullmatch(r"\$\{\{(.*)\}\}", text, flags=re.S)
    return truthy(evaluate(inner[1] if inner else text, context, status))


# --- The workflow ---------------------------------------------------------------------------


@dataclass
class Step:
    index: int
    label: str
    id: str | None
    action: str | None  # the handler's name for a `uses:`, None for a `run:`
    with_: dict
    run: str | None
    env: dict
    if_: object
    timeout_minutes: float | None
    shell: str | None


@dataclass
class Job:
    name: str
    needs: list[str]
    if_: object
    env: dict
    permissions: object
    timeout_minutes: float | None
    steps: list[Step] = field(default_factory=list)


@dataclass
class Workflow:
    path: Path
    env: dict
    inputs: dict  # workflow_dispatch inputs: {name: default}
    jobs: list[Job]  # in the order they run (needs first, else as written)


def read_workflow(path: Path) -> Workflow:
    """The workflow's jobs and steps, each checked to be one the replay can run; Unmappable for any other."""
    import yaml

    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise BadInput(f"workflow {path}: cannot be read ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("jobs"), dict):
        raise BadInput(f"workflow {path}: no jobs")
    # PyYAML reads the key `on` as True.
    on = document.get("on", document.get(True)) or {}
    dispatch = (on.get("workflow_dispatch") or {}) if isinstance(on, dict) else {}
    inputs = {name: spec.get("default") for name, spec in (dispatch.get("inputs") or {}).items()}
    jobs = []
    for name, spec in document["jobs"].items():
        where = f"{path.name}: job {name}"
        unknown = set(spec) - JOB_KEYS
        if unknown:
            raise Unmappable(f"{where}: the replay does not model {', '.join(sorted(unknown))}")
        if spec.get("runs-on", "ubuntu-latest") != "ubuntu-latest":
            raise Unmappable(f"{where}: runs-on {spec['runs-on']!r}; the replay models ubuntu-latest only")
        needs = spec.get("needs") or []
        job = Job(
            name,
            [needs] if isinstance(needs, str) else list(needs),
            spec.get("if"),
            dict(spec.get("env") or {}),
            spec.get("permissions"),
            spec.get("timeout-minutes"),
        )
        for index, step in enumerate(spec.get("steps") or [], 1):
            job.steps.append(read_step(where, index, step))
        jobs.append(job)
    names = {job.name for job in jobs}
    for job in jobs:
        for need in job.needs:
            if need not in names:
                raise BadInput(f"{path.name}: job {job.name} needs {need!r}, which is no job")
    return Workflow(path, dict(document.get("env") or {}), inputs, in_order(jobs))


def read_step(where: str, index: int, step: dict) -> Step:
    label = step.get("name") or step.get("uses") or (step.get("run") or "").split("\n")[0][:60]
    where = f"{where}, step {index} ({label})"
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise Unmappable(f"{where}: the replay does not model {', '.join(sorted(unknown))}")
    if ("uses" in step) == ("run" in step):
        raise Unmappable(f"{where}: a step has either uses: or run:")
    action = None
    if "uses" in step:
        name = str(step["uses"]).split("@")[0]
        if name not in ACTIONS:
            raise Unmappable(f"{where}: uses {step['uses']}, an action the replay cannot run")
        action, keys = ACTIONS[name]
        extra = set(step.get("with") or {}) - keys
        if extra:
            raise Unmappable(f"{where}: {name} with {', '.join(sorted(extra))}, which the replay does not model")
    if step.get("shell") not in SHELLS:
        raise Unmappable(f"{where}: shell {step['shell']!r}; the replay runs bash only")
    return Step(
        index,
        label,
        step.get("id"),
        action,
        dict(step.get("with") or {}),
        step.get("run"),
        dict(step.get("env") or {}),
        step.get("if"),
        step.get("timeout-minutes"),
        step.get("shell"),
    )


KNOWN = {"inputs", "needs", "steps", "env", "github", "runner"}
STRICT_KEYS = {"github": {"token", "event_name", "repository", "server_url"}, "runner": {"temp", "os"}}


def check_expression(text, where: str, bare: bool = False) -> None:
    """Unmappable unless every context, key and function that TEXT's ${{ }} expressions use (TEXT itself,
    when BARE: an `if:`) is one the replay has."""
    text = text_of(text)
    parts = re.findall(r"\$\{\{(.*?)\}\}", text, flags=re.S) or ([text] if bare else [])
    for part in parts:
        items = tokens(part)
        for at, (kind, token) in enumerate(items):
            if kind != "name" or token in ("true", "false", "null"):
                continue
            called = at + 1 < len(items) and items[at + 1][1] == "("
            head, *rest = token.split(".")
            if called and token not in STATUS:
                raise Unmappable(f"{where}: the replay has no function {token}()")
            if not called and (
                head not in KNOWN or (head in STRICT_KEYS and rest[:1] and rest[0] not in STRICT_KEYS[head])
            ):
                raise Unmappable(f"{where}: the replay has no value for {token}")


def check_workflow(workflow: Workflow) -> None:
    """Every expression and setup-python version of WORKFLOW, checked before the first night runs."""
    for scope in (workflow.env,):
        for value in scope.values():
            check_expression(value, f"{workflow.path.name}: env")
    for job in workflow.jobs:
        where = f"{workflow.path.name}: job {job.name}"
        if job.if_ is not None:
            check_expression(job.if_, f"{where}: if", bare=True)
        for value in job.env.values():
            check_expression(value, f"{where}: env")
        for step in job.steps:
            here = f"{where}, step {step.index} ({step.label})"
            if step.if_ is not None:
                check_expression(step.if_, f"{here}: if", bare=True)
            for value in [step.run, *step.env.values(), *step.with_.values()]:
                check_expression(value, here)
            if step.action == "setup_python" and find_python(str(step.with_.get("python-version", ""))) is None:
                raise Unmappable(f"{here}: this machine has no Python {step.with_.get('python-version')}")


def in_order(jobs: list[Job]) -> list[Job]:
    """The jobs with every job after those it needs, otherwise as written; BadInput for a cycle."""
    done, ordered, pending = set(), [], list(jobs)
    while pending:
        ready = next((job for job in pending if set(job.needs) <= done), None)
        if ready is None:
            raise BadInput(f"the jobs {', '.join(job.name for job in pending)} need each other")
        pending.remove(ready)
        ordered.append(ready)
        done.add(ready.name)
    return ordered


# --- Nights -----------------------------------------------------------------------------------


@dataclass
class Commit:
    hash: str
    date: str  # commit date, UTC, ISO
    subject: str


def first_parent_commits(repo: Path, revisions: str) -> list[Commit]:
    """The first-parent commits of REVISIONS (git's range syntax, as asv reads it), oldest first."""
    out = git.out(
        "rev-list", "--first-parent", "--reverse", "--format=%H%x00%ct%x00%s", "--end-of-options", revisions, repo=repo
    )
    commits = []
    for line in out.splitlines():
        if line.startswith("commit "):
            continue
        hash_, stamp, subject = line.split("\0", 2)
        date = datetime.datetime.fromtimestamp(int(stamp), datetime.UTC).isoformat(timespec="seconds")
        commits.append(Commit(hash_, date, subject))
    return commits


def split_nights(commits: list[Commit], per_night: int | None = None) -> list[list[Commit]]:
    """Every PER_NIGHT commits a night, or, without it, one night per commit date (UTC)."""
    if per_night:
        return [commits[i : i + per_night] for i in range(0, len(commits), per_night)]
    nights: list[list[Commit]] = []
    for commit in commits:
        if nights and nights[-1][-1].date[:10] == commit.date[:10]:
            nights[-1].append(commit)
        else:
            nights.append([commit])
    return nights


# --- Pythons ----------------------------------------------------------------------------------


def python_version(executable: str) -> tuple[str, str] | None:
    """(sys.executable, its version) of an interpreter that runs, else None."""
    try:
        result = subprocess.run(
            [executable, "-c", "import platform, sys; print(sys.executable); print(platform.python_version())"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = result.stdout.split()
    return (lines[0], lines[1]) if result.returncode == 0 and len(lines) == 2 else None


def find_python(version: str) -> str | None:
    """This machine's interpreter of VERSION ("3.11", "3.13.5"): pythonX.Y on PATH first, then the
    Python 3.13 that scripts/setup builds, pyenv's, and /usr's."""
    minor = ".".join(version.split(".")[:2])
    cache = Path(os.environ.get("EQXB_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser())
    cache = cache / "equinox-benchmarks" if not os.environ.get("EQXB_CACHE") else cache
    candidates = [shutil.which(f"python{minor}")]
    for pattern in (f"{cache}/cpython-{minor}*/bin", os.path.expanduser(f"~/.pyenv/versions/{minor}*/bin")):
        candidates += [f"{folder}/python{minor}" for folder in sorted(Path("/").glob(pattern.lstrip("/")))]
    candidates += [f"/usr/local/bin/python{minor}", f"/usr/bin/python{minor}"]
    for candidate in candidates:
        if candidate and os.path.exists(candidate):
            found = python_version(candidate)
            if found and (found[1] == version or found[1].startswith(version + ".")):
                return found[0]
    return None


def runner_python(choice: str | None) -> tuple[str | None, str]:
    """ubuntu-latest's python3 (3.12) as this machine has it: (executable or None, what it is)."""
    if choice:
        found = python_version(choice)
        if not found:
            raise BadInput(f"--runner-python {choice}: not a Python that runs")
        return found[0], f"Python {found[1]} ({found[0]}, --runner-python)"
    executable = find_python("3.12")
    if executable:
        return executable, f"Python {python_version(executable)[1]} ({executable})"
    return None, "none: this machine has no Python 3.12, so python3 there says so and exits 3"


def make_runner_bin(folder: Path, python: str | None) -> Path:
    """A PATH folder: every program on this machine's PATH but its Pythons, and python3 the runner's."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        place = Path(directory)
        if not directory or "/.pyenv/" in directory or (place.parent / "pyvenv.cfg").exists():
            continue
        try:
            entries = sorted(place.iterdir())
        except OSError:
            continue
        for entry in entries:
            target = folder / entry.name
            if PYTHONISH.fullmatch(entry.name) or os.path.lexists(target):
                continue
            if entry.is_file() and os.access(entry, os.X_OK):
                target.symlink_to(entry.resolve())
    if python:
        (folder / "python3").symlink_to(python)
    else:
        (folder / "python3").write_text(
            "#!/bin/sh\necho 'replay: python3 on ubuntu-latest is Python 3.12, which this machine lacks "
            "(--runner-python)' >&2\nexit 3\n"
        )
        (folder / "python3").chmod(0o755)
    return folder


# --- Running the jobs -------------------------------------------------------------------------


@dataclass
class Options:
    source: Path  # the upstream repository the commits come from
    revisions: str
    output: Path
    per_night: int | None
    workflow: Path | None
    checkout: str  # "worktree" or "HEAD"
    env_dir: Path
    bench: list[str]
    jax: list[str]
    quick: bool
    runner_python: str | None
    docs: Path | None
    table: str
    base: bool
    fail_fast: bool
    keep_workspaces: bool
    limit: int | None


def nightly_extras(options: Options, upstream: Path) -> list[str]:
    """What the replay adds to every scripts/nightly line of the workflow (docs/replay.md#substitutions)."""
    extras = ["--upstream", str(upstream), "--env-dir", str(options.env_dir)]
    for regex in options.bench:
        extras += ["--bench", regex]
    for version in options.jax:
        extras += ["--jax", version]
    return extras


@dataclass
class JobRun:
    result: str  # success, failure or skipped
    seconds: float = 0.0
    exit: int | None = None
    failed_step: str | None = None


class Replay:
    def __init__(self, options: Options, api: github.StandIn, log=sys.stderr):
        self.options, self.api, self.log = options, api, log
        out = options.output
        self.upstream = out / "upstream.git"
        self.server = out / "github"  # GITHUB_SERVER_URL: the results remote is SERVER/REPOSITORY.git
        self.results_remote = self.server / f"{REPOSITORY}.git"
        self.project = out / "project.git"
        self.pages = out / "pages"
        self.record_path = out / "replay.json"
        self.tokens = {}

    # Setting up: the replay's own upstream, results remote and project snapshot.
    def prepare(self) -> None:
        out = self.options.output
        if out.exists() and any(out.iterdir()):
            raise BadInput(f"--output {out}: not empty (a replay starts in a new folder)")
        out.mkdir(parents=True, exist_ok=True)
        for bare in (self.upstream, self.results_remote, self.project):
            bare.parent.mkdir(parents=True, exist_ok=True)
            git.run("init", "-q", "--bare", "-b", "main", str(bare), repo=out)
        self.snapshot = snapshot_project(self.options.checkout, self.project, out / "snapshot")
        # The workflow as the snapshot has it, unless --workflow names another.
        self.workflow = read_workflow(self.options.workflow or out / "snapshot" / WORKFLOW)
        check_workflow(self.workflow)
        self.python, self.python_note = runner_python(self.options.runner_python)
        self.runner_bin = make_runner_bin(out / "runner" / "bin", self.python)

    def advance(self, tip: str) -> None:
        """The replay's upstream at TIP: main there, and every tag that TIP's history holds."""
        source = self.options.source
        tags = git.out("tag", "--merged", tip, repo=source).split()
        refspecs = [f"{tip}:refs/heads/main"] + [f"refs/tags/{t}:refs/tags/{t}" for t in tags]
        git.run("push", "-q", "--force", str(self.upstream), *refspecs, repo=source)

    def token(self, job: Job) -> str:
        """The job's github.token: it may write issues when the job's permissions say issues: write."""
        permissions = job.permissions if job.permissions is not None else {}
        write = isinstance(permissions, dict) and permissions.get("issues") == "write" or permissions == "write-all"
        name = f"ghs_replay_{job.name}"
        self.api.tokens[name] = bool(write)
        return name

    def base_env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in NOT_PASSED and not k.startswith(NOT_PASSED_PREFIXES)}
        env.update(
            PATH=str(self.runner_bin),
            CI="true",
            GITHUB_ACTIONS="true",
            GITHUB_SERVER_URL=str(self.server),
            GITHUB_REPOSITORY=REPOSITORY,
            GITHUB_API_URL=self.api.url,
            GITHUB_EVENT_NAME="workflow_dispatch" if self.options.quick else "schedule",
            RUNNER_OS="Linux",
        )
        return env

    def run_job(self, job: Job, night: dict, folder: Path, needs: dict[str, str]) -> JobRun:
        context_needs = {name: {"result": needs[name], "outputs": {}} for name in job.needs}
        status = {
            "success": all(needs[n] == "success" for n in job.needs),
            "failure": any(needs[n] == "failure" for n in job.needs),
        }
        context = self.context(job, folder, context_needs)
        if not condition(job.if_, context, status):
            return JobRun("skipped")
        folder.mkdir(parents=True)
        workspace, temp = folder / "workspace", folder / "temp"
        workspace.mkdir()
        temp.mkdir()
        env = dict(
            self.base_env(),
            GITHUB_WORKSPACE=str(workspace),
            RUNNER_TEMP=str(temp),
            GITHUB_RUN_ID=str(night["run_id"]),
            GITHUB_STEP_SUMMARY=str(folder / "summary.md"),
            GITHUB_JOB=job.name,
        )
        started = time.monotonic()
        run = JobRun("success")
        with (folder / "log.txt").open("w") as log:
            for step in job.steps:
                step_status = {"success": run.result == "success", "failure": run.result == "failure"}
                if not condition(step.if_, context, step_status):
                    print(f"## step {step.index} ({step.label}): skipped", file=log, flush=True)
                    continue
                step_env = dict(env)
                for scope in (self.workflow.env, job.env, step.env):
                    for name, value in scope.items():
                        context["env"][name] = step_env[name] = substitute(value, context)
                print(f"## step {step.index} ({step.label})", file=log, flush=True)
                code = self.step(step, context, step_env, workspace, night, log)
                context["env"] = {k: v for k, v in context["env"].items() if k in self.workflow.env or k in job.env}
                if step.id:
                    context["steps"].setdefault(step.id, {"outputs": {}})["outcome"] = (
                        "success" if code == 0 else "failure"
                    )
                if code != 0 and run.result == "success":
                    run.result, run.exit, run.failed_step = "failure", code, step.label
                    print(f"## step {step.index} failed: exit {code}", file=log, flush=True)
                env["PATH"] = context["runner"]["path"]
        run.seconds = round(time.monotonic() - started, 1)
        return run

    def context(self, job: Job, folder: Path, needs: dict) -> dict:
        inputs = dict(self.workflow.inputs, quick=True) if self.options.quick else {}
        return {
            "inputs": inputs,
            "needs": needs,
            "steps": {},
            "env": dict(self.workflow.env, **job.env),
            "github": {
                "token": self.token(job),
                "event_name": "workflow_dispatch" if self.options.quick else "schedule",
                "repository": REPOSITORY,
                "server_url": str(self.server),
            },
            "runner": {"temp": str(folder / "temp"), "os": "Linux", "path": str(self.runner_bin)},
        }

    def step(self, step: Step, context: dict, env: dict, workspace: Path, night: dict, log) -> int:
        if step.run is not None:
            return self.step_run(step, context, env, workspace, log)
        with_ = {k: substitute(v, context) for k, v in step.with_.items()}
        try:
            return getattr(self, f"step_{step.action}")(with_, step, context, workspace, night, log) or 0
        except (OSError, Failed) as error:
            if isinstance(error, Unmappable):
                raise
            print(f"{step.label}: {error}", file=log, flush=True)
            return 1

    def step_run(self, step: Step, context: dict, env: dict, workspace: Path, log) -> int:
        script = substitute(step.run, context)
        extras = " ".join(shlex.quote(a) for a in nightly_extras(self.options, self.upstream))
        script = re.sub(r"(?<![\w/.-])scripts/nightly(?=\s)", lambda m: f"{m[0]} {extras}", script)
        path = workspace.parent / f"step-{step.index}.sh"
        path.write_text(script + "\n")
        print(f"$ {script}", file=log, flush=True)
        timeout = step.timeout_minutes * 60 if step.timeout_minutes else None
        process = subprocess.Popen(
            [*SHELLS[step.shell], str(path)],
            cwd=workspace,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            print(f"## timed out after {step.timeout_minutes} min", file=log, flush=True)
            return 124
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise

    def step_checkout(self, with_, step, context, workspace, night, log):
        git.run("clone", "-q", str(self.project), str(workspace), repo=workspace.parent)

    def step_setup_python(self, with_, step, context, workspace, night, log):
        version = with_.get("python-version", "")
        executable = find_python(version)
        if executable is None:
            raise Unmappable(f"actions/setup-python {version!r}: this machine has no Python {version}")
        minor = ".".join(version.split(".")[:2])
        folder = workspace.parent / f"python-{step.index}" / "bin"
        folder.mkdir(parents=True)
        for name in ("python", "python3", f"python{minor}"):
            (folder / name).symlink_to(executable)
        context["runner"]["path"] = f"{folder}:{context['runner']['path']}"
        if step.id:
            context["steps"][step.id] = {"outputs": {"python-path": executable, "python-version": version}}
        print(f"Python {version}: {executable}", file=log, flush=True)

    def artifact(self, night: dict, name: str) -> Path:
        return Path(night["artifacts"]) / name

    def step_upload_artifact(self, with_, step, context, workspace, night, log):
        name = with_.get("name") or "artifact"
        target = self.artifact(night, name)
        if target.exists():
            print(f"an artifact named {name} already exists", file=log, flush=True)
            return 1
        paths = [workspace / p.strip() for p in with_.get("path", "").splitlines() if p.strip()]
        files = [(p, f) for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*")) if p.is_dir() else [])]
        files = [(p, f) for p, f in files if f.is_file()]
        if not files:
            print(f"no files found at {with_.get('path')}", file=log, flush=True)
            return 1 if with_.get("if-no-files-found") == "error" else 0
        root = Path(os.path.commonpath([str(p) for p in paths]))
        if len(paths) == 1 and paths[0].is_file():
            root = paths[0].parent
        for _, file in files:
            (target / file.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target / file.relative_to(root))
        print(f"uploaded {len(files)} file(s) as {name}", file=log, flush=True)

    def step_download_artifact(self, with_, step, context, workspace, night, log):
        source = self.artifact(night, with_.get("name", ""))
        if not source.is_dir():
            print(f"no artifact named {with_.get('name')!r}", file=log, flush=True)
            return 1
        shutil.copytree(source, workspace / with_.get("path", "."), dirs_exist_ok=True)

    def step_upload_pages_artifact(self, with_, step, context, workspace, night, log):
        pages = {"name": "github-pages", "path": with_.get("path", "_site")}
        return self.step_upload_artifact(pages, step, context, workspace, night, log)

    def step_deploy_pages(self, with_, step, context, workspace, night, log):
        source = self.artifact(night, "github-pages")
        if not source.is_dir():
            print("no github-pages artifact", file=log, flush=True)
            return 1
        shutil.rmtree(self.pages, ignore_errors=True)
        shutil.copytree(source, self.pages)
        if step.id:
            context["steps"][step.id] = {"outputs": {"page_url": self.pages.as_uri() + "/"}}


def snapshot_project(checkout: str, bare: Path, folder: Path) -> dict:
    """This repository as each job's actions/checkout gets it, pushed to BARE: HEAD, or the working tree
    (HEAD with every change and untracked file that git does not ignore), one commit in FOLDER."""
    head = git.out("rev-parse", "HEAD", repo=ROOT).strip()
    if checkout == "HEAD":
        git.run("clone", "-q", "--no-local", str(ROOT), str(folder), repo=ROOT)
        changed = []
    else:
        names = git.out("ls-files", "-z", "--cached", "--others", "--exclude-standard", repo=ROOT).split("\0")
        folder.mkdir(parents=True)
        for name in filter(None, names):
            source = ROOT / name
            if source.is_file() or source.is_symlink():  # a file deleted in the working tree is left out
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, folder / name, follow_symlinks=False)
        changed = [line[3:] for line in git.out("status", "--porcelain", repo=ROOT).splitlines()]
        git.run("init", "-q", "-b", "main", repo=folder)
        git.run("add", "-A", repo=folder)
        identity = ["-c", "user.name=replay", "-c", "user.email=replay@localhost"]
        git.run(*identity, "commit", "-q", "-m", f"working tree of {head[:8]}", repo=folder)
    git.run("push", "-q", "--force", str(bare), "HEAD:refs/heads/main", repo=folder)
    return {"checkout": checkout, "head": head, "changed": changed}


# --- What a night did -------------------------------------------------------------------------


def result_files(folder: Path) -> list[dict]:
    """Every asv results file under FOLDER: its commit, environment and how many benchmarks failed."""
    from asv import results

    found = []
    for path in sorted(folder.glob("**/*.json")) if folder.is_dir() else []:
        if path.name in ("machine.json", "benchmarks.json"):
            continue
        try:
            result = results.Results.load(str(path), path.parent.name)
        except Exception:  # noqa: BLE001 - what the run job left unreadable is no result of a commit
            continue
        found.append(
            {
                "commit": result.commit_hash,
                "env": result.env_name,
                "ran": len(result.get_all_result_keys()),
                "failed": len(failed_benchmarks(result)),
            }
        )
    return found


def commit_states(commits: list[Commit], results: list[dict], verdict: dict | None, tags: dict) -> list[dict]:
    """Each of the night's commits: benchmarked, failed (every benchmark), partly failed, unchanged (the package
    its parent's, so not benchmarked: the verdict names it), or skipped (no result for another reason)."""
    failed_by_verdict = {f["commit"] for f in (verdict or {}).get("failed_commits") or []}
    unchanged = set((verdict or {}).get("unchanged_commits") or [])
    states = []
    for commit in commits:
        files = [r for r in results if r["commit"] == commit.hash]
        ran, failed = sum(r["ran"] for r in files), sum(r["failed"] for r in files)
        if not files:
            state = "unchanged" if commit.hash in unchanged else "skipped"
        elif failed == ran:
            state = "failed"
        elif failed or commit.hash in failed_by_verdict:
            state = "partly failed"
        else:
            state = "benchmarked"
        states.append(
            {
                "commit": commit.hash,
                "name": tags.get(commit.hash) or commit.hash[:8],
                "date": commit.date,
                "subject": commit.subject,
                "state": state,
                "benchmarks": ran,
                "failed_benchmarks": failed,
            }
        )
    return states


def verdict_summary(verdict: dict | None) -> dict | None:
    if verdict is None:
        return None
    suspects = verdict.get("suspects") or []
    return {
        "status": verdict.get("status"),
        "regression": verdict.get("regression"),
        "summary": verdict.get("summary"),
        "counted": [
            {k: c.get(k) for k in ("benchmark", "params", "environment", "change", "good", "bad", "cause")}
            for c in verdict.get("counted") or []
        ],
        "suspects": [{"benchmark": s.get("benchmark"), "verdict": s.get("verdict")} for s in suspects],
        "failed_commits": [f.get("commit") for f in verdict.get("failed_commits") or []],
    }


def issue_action(calls: list[dict], state: dict, alert: JobRun | None) -> str:
    """What the alert did to the issues, from the requests it made: none, opened #N, updated #N, kept #N."""
    if alert is None or alert.result == "skipped":
        return "alert skipped"
    writes = [c for c in calls if c["method"] in ("POST", "PATCH") and "/issues" in c["path"]]
    if writes:
        last = writes[-1]
        if last["method"] == "PATCH":
            return f"updated #{last['path'].rsplit('/', 1)[-1]}"
        return f"opened #{len(state['issues'])}"
    if alert.result == "failure":
        return f"alert failed (exit {alert.exit})"
    if not calls:
        return "none"
    issues = sorted(state["issues"], key=lambda i: i["updated_at"], reverse=True)
    for wanted, note in (("open", "kept #{}"), ("closed", "kept (closed #{})")):
        found = [i for i in issues if i["state"] == wanted]
        if found:
            return note.format(found[0]["number"])
    return "none"


def find_file(folders: list[Path], name: str) -> Path | None:
    for folder in folders:
        found = sorted(folder.glob(f"**/{name}")) if folder.is_dir() else []
        if found:
            return found[0]
    return None


def load_json(path: Path | None):
    try:
        return json.loads(path.read_text()) if path else None
    except (OSError, ValueError):
        return None


# --- The replay ---------------------------------------------------------------------------------


def replay(options: Options, log=sys.stderr) -> int:
    """Every night of the range through the workflow's jobs (see scripts/replay --help); exit code."""
    commits = first_parent_commits(options.source, options.revisions)
    if not commits:
        raise BadInput(f"{options.revisions}: no commit in {options.source}")
    nights = split_nights(commits, options.per_night)
    parents = git.out("rev-list", "--first-parent", "-n", "1", "--skip", "1", commits[0].hash, repo=options.source)
    base = parents.strip()
    if options.base and base:
        subject = git.out("log", "-1", "--format=%ct%x00%s", base, repo=options.source).strip().split("\0", 1)
        date = datetime.datetime.fromtimestamp(int(subject[0]), datetime.UTC).isoformat(timespec="seconds")
        nights.insert(0, [Commit(base, date, subject[1])])
    if options.limit:
        nights = nights[: options.limit]
    tags = {commit: tag for tag, commit in git.tags(options.source).items()}
    with github.StandIn(repos=[REPOSITORY], tokens={}) as api:
        machine = Replay(options, api, log)
        machine.prepare()
        record = {
            "range": options.revisions,
            "source": str(options.source),
            "per_night": options.per_night,
            "by": f"{options.per_night} commit(s)" if options.per_night else "commit date (UTC)",
            "base": bool(options.base and base),
            "workflow": str(machine.workflow.path),
            "jobs": [job.name for job in machine.workflow.jobs],
            "project": machine.snapshot,
            "runner_python": machine.python_note,
            "nightly_extras": nightly_extras(options, machine.upstream),
            "quick": options.quick,
            "started": now(),
            "nights": [],
        }
        failed_any = False
        for index, night_commits in enumerate(nights):
            label = "base" if options.base and base and index == 0 else str(index + (0 if options.base and base else 1))
            night = run_night(machine, index, label, night_commits, tags)
            record["nights"].append(night)
            # Every issue as the stand-in holds it, so that what the alerts wrote can be read after the replay.
            record["issues"] = machine.api.state()["issues"]
            record["finished"] = now()
            write_record(machine.record_path, record)
            if options.docs:
                write_table(options.docs, options.table, record)
            failed = [name for name, job in night["jobs"].items() if job["result"] == "failure"]
            print(
                f"replay: night {label} ({len(night_commits)} commit(s), tip {night['tip'][:8]}): "
                f"{', '.join(failed) + ' failed' if failed else 'every job passed'}; {night['issue']}",
                file=log,
                flush=True,
            )
            failed_any = failed_any or bool(failed)
            if failed and options.fail_fast:
                print("replay: stopping (--fail-fast)", file=log)
                break
    print(f"replay: record in {machine.record_path}", file=log)
    return 1 if failed_any else 0


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def write_record(path: Path, record: dict) -> None:
    util.write_atomic(path, (json.dumps(record, indent=1) + "\n").encode())


def run_night(self: Replay, index: int, label: str, commits: list[Commit], tags: dict) -> dict:
    tip = commits[-1].hash
    folder = self.options.output / "nights" / f"{index:03d}"
    artifacts = folder / "artifacts"
    artifacts.mkdir(parents=True)
    night = {
        "night": label,
        "run_id": index + 1,
        "tip": tip,
        "dates": [commits[0].date, commits[-1].date],
        "artifacts": str(artifacts),
    }
    self.advance(tip)
    calls_before = len(self.api.state()["calls"])
    results: dict[str, JobRun] = {}
    started = time.monotonic()
    for job in self.workflow.jobs:
        print(f"replay: night {label}: job {job.name}", file=self.log, flush=True)
        results[job.name] = self.run_job(job, night, folder / job.name, {n: results[n].result for n in job.needs})
    seconds = round(time.monotonic() - started, 1)
    state = self.api.state()
    alert = results.get("alert")
    verdict_path = find_file([artifacts, folder / "run" / "temp"], "verdict.json")
    verdict = load_json(verdict_path)
    run_results = result_files(artifacts / "results")
    night.update(
        commits=commit_states(commits, run_results, verdict, tags),
        verdict=verdict_summary(verdict),
        verdict_from=str(verdict_path) if verdict_path else None,
        issue=issue_action(state["calls"][calls_before:], state, alert),
        seconds=seconds,
        jobs={name: vars(run) for name, run in results.items()},
    )
    if not self.options.keep_workspaces:
        for job in self.workflow.jobs:
            for name in ("workspace", "temp"):
                shutil.rmtree(folder / job.name / name, ignore_errors=True)
    return night


# --- The table ----------------------------------------------------------------------------------


def duration(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def job_cell(run: dict) -> str:
    if run["result"] == "skipped":
        return "skipped"
    if run["result"] == "failure":
        return f"**failed** (exit {run['exit']}, {duration(run['seconds'])})"
    return duration(run["seconds"])


def table(record: dict) -> str:
    """The record as a Markdown table, one row a night."""
    jobs = record["jobs"]
    head = ["night", "commits (UTC)", "benchmarked", "unchanged", "skipped", "failed", "verdict", "counted"]
    head += ["suspects", "issue"]
    lines = ["| " + " | ".join(head + jobs + ["night"]) + " |", "|" + "---|" * (len(head) + len(jobs) + 1)]
    for night in record["nights"]:
        states = night.get("commits") or []

        def names(*wanted, states=states):
            return " ".join(f"`{c['name']}`" for c in states if c["state"] in wanted) or "–"

        verdict = night.get("verdict")
        counted = (
            "; ".join(
                f"{c['benchmark']} {c['change']:+.1%} at `{(c.get('bad') or '')[:8]}`"
                if isinstance(c.get("change"), float)
                else str(c["benchmark"])
                for c in verdict["counted"]
            )
            if verdict
            else ""
        ) or "–"
        suspects = ", ".join(f"{s['benchmark']}: {s['verdict']}" for s in (verdict or {}).get("suspects") or []) or "–"
        row = [
            night["night"],
            f"{len(states)} ({' to '.join(sorted({d[:10] for d in night['dates']}))})",
            names("benchmarked"),
            names("unchanged"),
            names("skipped"),
            names("failed", "partly failed"),
            (verdict or {}).get("summary") or "no verdict",
            counted,
            suspects,
            night["issue"],
            *(job_cell(night["jobs"][name]) for name in jobs),
            duration(night["seconds"]),
        ]
        lines.append("| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |")
    extras = " ".join(record["nightly_extras"][4:]) or "nothing more"
    changed = len(record["project"]["changed"])
    lines += [
        "",
        f"Range `{record['range']}` of `{Path(record['source']).name}`, nights by {record['by']}"
        f"{', after a base night on the commit before it' if record['base'] else ''}; "
        f"workflow `{Path(record['workflow']).name}`, jobs {', '.join(jobs)}; the project at "
        f"`{record['project']['head'][:8]}` ({record['project']['checkout']}"
        f"{f', {changed} changed file(s)' if changed else ''}); "
        f"scripts/nightly also given --upstream, --env-dir and {extras}; the runner's python3: "
        f"{record['runner_python']}; from {record['started']} to {record.get('finished', '')}.",
    ]
    return "\n".join(lines)


def write_table(page: Path, name: str, record: dict) -> None:
    """The table between NAME's markers in PAGE (added at its end when PAGE lacks them)."""
    start, end = START.format(name), END.format(name)
    text = page.read_text() if page.exists() else "# Replay\n"
    block = f"{start}\n\n{table(record)}\n\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + f"\n\n{block}\n"
    util.write_atomic(page, text.encode())
