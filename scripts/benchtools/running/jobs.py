"""The replay's runner: one job of the nightly workflow, as ubuntu-latest runs it; an action as its step_* method."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .. import git
from ..errors import BadInput, Failed
from ..project import ROOT
from ..publishing import github
from . import workflow

WORKFLOW = Path(".github/workflows/nightly.yml")
REPOSITORY = "replay/equinox-benchmarks"  # GITHUB_REPOSITORY in the replay's jobs
# Names that a runner without setup-python has only as its own python3 (the runner bin leaves them out).
PYTHONISH = re.compile(r"(python|pip|pydoc|idle|2to3|pyvenv|virtualenv)[0-9.]*(-config)?")
# Variables of this machine's environment that a runner's job does not get.
NOT_PASSED = ("PATH", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHON", "CI")
NOT_PASSED_PREFIXES = ("GITHUB_", "RUNNER_", "GH_", "EQXB_", "ACTIONS_", "PYENV_", "CONDA")


@dataclass
class JobRun:
    result: str  # success, failure or skipped
    seconds: float = 0.0
    exit: int | None = None
    failed_step: str | None = None


def make_runner_bin(folder: Path, python: str | None) -> Path:
    """A PATH folder: every program on this machine's PATH but its Pythons, and python3 the runner's."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or "/.pyenv/" in directory or (Path(directory).parent / "pyvenv.cfg").exists():
            continue
        for entry in sorted(Path(directory).glob("*")):  # glob, unlike iterdir, passes over a folder it cannot read
            target = folder / entry.name
            program = entry.is_file() and os.access(entry, os.X_OK) and not PYTHONISH.fullmatch(entry.name)
            if program and not os.path.lexists(target):
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


def nightly_extras(options, upstream: Path, runner_patch: str | None = None) -> list[str]:
    """What the replay adds to every scripts/nightly line (docs/replay.md#substitutions); a runner's own Python gets
    environments of its own."""
    env_dir = (
        options.env_dir.with_name(f"{options.env_dir.name}-python-{runner_patch}") if runner_patch else options.env_dir
    )
    extras = ["--upstream", str(upstream), "--env-dir", str(env_dir)]
    extras += [word for regex in options.bench for word in ("--bench", regex)]
    extras += [word for version in options.jax for word in ("--jax", version)]
    if options.confirm_max_pairs is not None:
        extras += ["--confirm-max-pairs", str(options.confirm_max_pairs)]
    return extras


class Replay:
    def __init__(self, options, api: github.StandIn, log=sys.stderr):
        self.options, self.api, self.log = options, api, log
        self.upstream = options.output / "upstream.git"
        self.server = options.output / "github"  # GITHUB_SERVER_URL: the results remote is SERVER/REPOSITORY.git
        self.project = options.output / "project.git"
        self.runner_patch = None  # the patch release setup-python gives since a python-X.Y.Z event

    def prepare(self) -> dict:
        """The output folder, its repositories and the runner's PATH made, the workflow checked: the record of them."""
        out = self.options.output
        if out.exists() and any(out.iterdir()):
            raise BadInput(f"--output {out}: not empty (a replay starts in a new folder)")
        for bare in (self.upstream, self.server / f"{REPOSITORY}.git", self.project):
            git.run("init", "-q", "--bare", "-b", "main", str(bare))  # and the folders above it
        snapshot = snapshot_project(self.options.checkout, self.project, out / "snapshot")
        self.workflow = workflow.read_workflow(self.options.workflow or out / "snapshot" / WORKFLOW)
        packages = workflow.check_workflow(self.workflow)
        # ubuntu-latest's python3, 3.12, as this machine has it, for the jobs that do not set up a Python.
        choice = self.options.runner_python
        python = workflow.python_version(choice) if choice else workflow.find_python("3.12")
        if choice and not python:
            raise BadInput(f"--runner-python {choice}: not a Python that runs")
        self.runner_bin = make_runner_bin(out / "runner" / "bin", python and python[0])
        note = f"Python {python[1]} ({python[0]}{', --runner-python' if choice else ''})" if python else None
        return {
            "workflow": str(self.workflow.path),
            "jobs": [job.name for job in self.workflow.jobs],
            "project": snapshot,
            "runner_python": note or "none: this machine has no Python 3.12, so python3 there says so and exits 3",
            "packages": packages,
        }

    def advance(self, tip: str) -> None:
        source = self.options.upstream
        tags = git.out("tag", "--merged", tip, repo=source).split()
        refspecs = [f"{tip}:refs/heads/main"] + [f"refs/tags/{t}:refs/tags/{t}" for t in tags]
        git.run("push", "-q", "--force", str(self.upstream), *refspecs, repo=source)

    def run_job(self, job: workflow.Job, night: dict, folder: Path, needs: dict[str, str]) -> JobRun:
        context = self.context(job, folder, needs)
        if not workflow.condition(job.if_, context, workflow.status([needs[n] for n in job.needs])):
            return JobRun("skipped")
        workspace, temp = folder / "workspace", folder / "temp"
        workspace.mkdir(parents=True)
        temp.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in NOT_PASSED and not k.startswith(NOT_PASSED_PREFIXES)}
        env.update(
            PATH=str(self.runner_bin),
            CI="true",
            GITHUB_ACTIONS="true",
            GITHUB_SERVER_URL=str(self.server),
            GITHUB_REPOSITORY=REPOSITORY,
            GITHUB_API_URL=self.api.url,
            GITHUB_EVENT_NAME=context["github"]["event_name"],
            RUNNER_OS="Linux",
            GITHUB_WORKSPACE=str(workspace),
            RUNNER_TEMP=str(temp),
            GITHUB_RUN_ID=str(night["run_id"]),
            GITHUB_STEP_SUMMARY=str(folder / "summary.md"),
            GITHUB_JOB=job.name,
        )
        started, run = time.monotonic(), JobRun("success")
        # Line-buffered, so that each line the replay writes comes before the output of the step it announces.
        with (folder / "log.txt").open("w", buffering=1) as log:
            for step in job.steps:
                heading = f"## step {step.index} ({step.label})"
                if not workflow.condition(step.if_, context, workflow.status([run.result])):
                    print(f"{heading}: skipped", file=log)
                    continue
                for name, value in {**self.workflow.env, **job.env, **step.env}.items():
                    context["env"][name] = workflow.substitute(value, context)
                print(heading, file=log)
                code = self.step(step, context, {**env, **context["env"]}, workspace, night, log)
                context["env"] = {k: v for k, v in context["env"].items() if k in self.workflow.env or k in job.env}
                if step.id:
                    context["steps"].setdefault(step.id, {"outputs": {}})["outcome"] = "failure" if code else "success"
                if code and step.continue_on_error:
                    print(f"## step {step.index} failed: exit {code}; continue-on-error", file=log)
                elif code and run.result == "success":
                    run.result, run.exit, run.failed_step = "failure", code, step.label
                    print(f"## step {step.index} failed: exit {code}", file=log)
                env["PATH"] = context["runner"]["path"]
        run.seconds = round(time.monotonic() - started, 1)
        return run

    def context(self, job: workflow.Job, folder: Path, needs: dict[str, str]) -> dict:
        # The job's github.token may write issues when the job's permissions say issues: write.
        token, permissions = f"ghs_replay_{job.name}", job.permissions
        write = isinstance(permissions, dict) and permissions.get("issues") == "write" or permissions == "write-all"
        self.api.tokens[token] = write
        return {
            "inputs": dict(self.workflow.inputs, quick=True) if self.options.quick else {},
            "needs": {name: {"result": needs[name], "outputs": {}} for name in job.needs},
            "steps": {},
            "env": dict(self.workflow.env, **job.env),
            "github": {
                "token": token,
                "event_name": "workflow_dispatch" if self.options.quick else "schedule",
                "repository": REPOSITORY,
                "server_url": str(self.server),
            },
            "runner": {"temp": str(folder / "temp"), "os": "Linux", "path": str(self.runner_bin)},
        }

    def step(self, step: workflow.Step, context: dict, env: dict, workspace: Path, night: dict, log) -> int:
        if step.run is not None:
            return self.step_run(step, context, env, workspace, log)
        with_ = {k: workflow.substitute(v, context) for k, v in step.with_.items()}
        try:
            return getattr(self, f"step_{step.action}")(with_, step, context, workspace, night, log) or 0
        except workflow.Unmappable:
            raise
        except (OSError, Failed) as error:
            print(f"{step.label}: {error}", file=log)
            return 1

    def step_run(self, step: workflow.Step, context: dict, env: dict, workspace: Path, log) -> int:
        if (packages := workflow.pinned_packages(step.run)) is not None:
            here = {package: workflow.installed_version(package) for package in packages}
            for package, pinned in packages.items():
                print(f"replay: {package}={pinned} is this machine's {package} {here[package]}", file=log)
            return 0 if all(here.values()) else 1
        script = workflow.substitute(step.run, context)
        extras = " ".join(shlex.quote(a) for a in nightly_extras(self.options, self.upstream, self.runner_patch))
        script = re.sub(r"(?<![\w/.-])scripts/nightly(?=\s)", lambda m: f"{m[0]} {extras}", script)
        path = workspace.parent / f"step-{step.index}.sh"
        path.write_text(script + "\n")
        print(f"$ {script}", file=log)
        timeout = step.timeout_minutes * 60 if step.timeout_minutes else None
        process = subprocess.Popen(
            [*workflow.SHELLS[step.shell], str(path)],
            cwd=workspace,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"## timed out after {step.timeout_minutes} min", file=log)
            return 124
        finally:
            if process.returncode is None:  # timed out, or the replay was stopped
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def step_checkout(self, with_, step, context, workspace, night, log):
        git.run("clone", "-q", str(self.project), str(workspace), repo=workspace.parent)

    def step_setup_python(self, with_, step, context, workspace, night, log):
        version = with_.get("python-version", "")
        patch = self.runner_patch if self.runner_patch and self.runner_patch.startswith(f"{version}.") else None
        if (found := workflow.find_python(patch or version)) is None:
            raise workflow.Unmappable(f"actions/setup-python {version!r}: this machine has no Python {version}")
        minor = ".".join(version.split(".")[:2])
        folder = workspace.parent / f"python-{step.index}" / "bin"
        folder.mkdir(parents=True)
        executable = found[0]
        for name in ("python", "python3", f"python{minor}"):
            (folder / name).symlink_to(executable)
        context["runner"]["path"] = f"{folder}:{context['runner']['path']}"
        if step.id:
            context["steps"][step.id] = {"outputs": {"python-path": executable, "python-version": version}}
        print(f"Python {version}: {executable}", file=log)

    def step_upload_artifact(self, with_, step, context, workspace, night, log):
        name = with_.get("name") or "artifact"
        if (target := Path(night["artifacts"], name)).exists():
            raise Failed(f"an artifact named {name} already exists")
        paths = [workspace / p.strip() for p in with_.get("path", "").splitlines() if p.strip()]
        files = [file for p in paths for file in ([p] if p.is_file() else sorted(p.rglob("*"))) if file.is_file()]
        if not files:
            print(f"no files found at {with_.get('path')}", file=log)
            return 1 if with_.get("if-no-files-found") == "error" else 0
        root = paths[0].parent if len(paths) == 1 and paths[0].is_file() else Path(os.path.commonpath(paths))
        for file in files:
            (target / file.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target / file.relative_to(root))
        print(f"uploaded {len(files)} file(s) as {name}", file=log)

    def step_download_artifact(self, with_, step, context, workspace, night, log):
        if not (source := Path(night["artifacts"], with_.get("name", ""))).is_dir():
            raise Failed(f"no artifact named {with_.get('name')!r}")
        shutil.copytree(source, workspace / with_.get("path", "."), dirs_exist_ok=True)

    def step_upload_pages_artifact(self, with_, step, context, workspace, night, log):
        pages = {"name": "github-pages", "path": with_.get("path", "_site")}
        return self.step_upload_artifact(pages, step, context, workspace, night, log)

    def step_deploy_pages(self, with_, step, context, workspace, night, log):
        if not (source := Path(night["artifacts"], "github-pages")).is_dir():
            raise Failed("no github-pages artifact")
        pages = self.options.output / "pages"
        shutil.rmtree(pages, ignore_errors=True)
        shutil.copytree(source, pages)
        if step.id:
            context["steps"][step.id] = {"outputs": {"page_url": pages.as_uri() + "/"}}


def snapshot_project(checkout: str, bare: Path, folder: Path) -> dict:
    """This repository (HEAD, or the working tree committed on it), pushed to BARE and cloned into FOLDER."""
    head = commit = git.out("rev-parse", "HEAD", repo=ROOT).strip()
    changed = []
    if checkout != "HEAD":
        changed = [line[3:] for line in git.out("status", "--porcelain", repo=ROOT).splitlines()]
        # Through an index of its own, as `git stash create` does, so that the repository's is left as it is.
        env = dict(os.environ, GIT_INDEX_FILE=str(folder.with_name("snapshot.index")))
        git.run("add", "-A", repo=ROOT, env=env)
        tree = git.out("write-tree", repo=ROOT, env=env).strip()
        identity = ["-c", "user.name=replay", "-c", "user.email=replay@localhost"]
        commit = git.out(*identity, "commit-tree", "-p", head, "-m", f"working tree of {head[:8]}", tree, repo=ROOT)
    git.run("push", "-q", "--no-verify", "--force", str(bare), f"{commit.strip()}:refs/heads/main", repo=ROOT)
    git.run("clone", "-q", str(bare), str(folder), repo=ROOT)
    return {"checkout": checkout, "head": head, "changed": changed}
