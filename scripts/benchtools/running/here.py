"""scripts/bench --here: the suite run in a user's own Python, on the JAX, jaxlib and Equinox installed there.

asv's existing-environment mode (``--environment existing:PYTHON``) runs the benchmarks in that Python as it is: no
virtualenv is built, nothing is installed, no registry is asked, so it works offline and on any backend the installed
JAX has (a CUDA plugin included). asv files a result under a commit of the configuration's repository; here that is a
commit made for the installed Equinox version in HERE_REPO (one per version, tagged as a release history tags it), so
that the site and the report name the release.
"""

import dataclasses
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

from .. import git, util
from ..asvtools import device, runs, suite
from ..asvtools.lock import exclusive
from ..asvtools.sides import discovery_regex
from ..errors import BadInput, ExitCode
from ..project import HERE_RUNNER, asv_home
from ..publishing import blocks, generated, rows
from . import bench, runner

# What a user asks (Equinox discussion #572), after the first answer's exact and steady figures: a step with tree_at
# against its tuple twin under each wrapping, in seconds and as a ratio; the compiled step's ratio against the state's
# size, and a jitted call's dispatch beside the call waited for. The sweep's seconds per call
# (bench_sweep.StateSizeTime, 48 timings) say nothing the answer uses, so they wait for --bench bench_sweep.
QUESTION = (
    "bench_steady.SteadyState",
    "bench_overhead.SteadyStateRatio",
    "bench_sweep.StateSizeRatio",
    "bench_sweep.Dispatch",
)
# --docs FILE: the blocks written there (publishing/generated.py): what the run took, and its answer.
HERE_TIME_BLOCK, HERE_ANSWER_BLOCK = "here-time", "here-answer"
# The commits of HERE_REPO: made here, by nothing but this module's git settings.
GIT_ENV = git.isolated_env(
    GIT_AUTHOR_NAME="scripts/bench --here",
    GIT_AUTHOR_EMAIL="here@localhost",
    GIT_COMMITTER_NAME="scripts/bench --here",
    GIT_COMMITTER_EMAIL="here@localhost",
)


def python_path(name: str) -> Path:
    """The Python that --here names: a path, or a name looked up on PATH; BadInput when there is none."""
    found = shutil.which(name)
    if found is None:
        raise BadInput(f"--here {name}: no such Python (give a path, or a name on PATH)")
    return Path(found).absolute()


def commit_for(repo: Path, equinox: str) -> str:
    """The commit of HERE_REPO that stands for Equinox ``equinox``, made (empty, tagged v``equinox``) the first time
    that version is measured."""
    tag = f"v{equinox}"
    if not (repo / ".git").is_dir():
        repo.mkdir(parents=True, exist_ok=True)
        git.run("init", "-q", "-b", "main", repo=repo, env=GIT_ENV)
    found = git.run("rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}", repo=repo, env=GIT_ENV, check=False)
    if found.returncode == 0:
        return found.stdout.strip()
    message = f"Equinox {equinox}, as installed in the Python that scripts/bench --here measured"
    git.run("commit", "-q", "--allow-empty", "-m", message, repo=repo, env=GIT_ENV)
    git.run("tag", tag, repo=repo, env=GIT_ENV)
    return git.out("rev-parse", "HEAD", repo=repo, env=GIT_ENV).strip()


def runner_path() -> Path:
    """A folder holding asv's benchmark runner (asv_runner, pure Python) and nothing else.

    asv runs its benchmark script with the measured Python, which has no asv_runner, and passes an existing environment
    the caller's environment variables as they are, so this folder goes first on PYTHONPATH. It holds no other package
    of .venv, which would shadow the JAX being measured; asv's own Python finds the same asv_runner there. A PYTHONPATH
    of the caller's stays after it: outside .venv (scripts/door) it is where asv itself comes from.
    """
    link = HERE_RUNNER / "asv_runner"
    source = runs.runner_package()
    if not (link.is_symlink() and link.resolve() == source.resolve()):
        HERE_RUNNER.mkdir(parents=True, exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(source, target_is_directory=True)
    return HERE_RUNNER


def benchmarks(described: dict) -> list[str]:
    """asv's regexes for --here's benchmarks: the first answer's (runner.answer_benchmarks), then QUESTION's."""
    exact, timed = runner.answer_benchmarks(described)
    return discovery_regex(exact + timed) + [f"^{name}\\." for name in QUESTION]


def machine_name(args: bench.Options, installed: device.Installed) -> str:
    """--machine as given, or this host's name with the device: results from two devices never share a file."""
    return args.machine if args.machine != bench.Options.machine else f"{platform.node()}-{installed.slug()}"


def lead(target: bench.Target, machine: str, commit: str, stamped: dict[str, str]) -> str:
    """The run's answer in the user's words (blocks.lead_paragraph), from the result of its commit whose params hold
    ``stamped`` (other Pythons measured before may share the commit), and, on a CPU, that no GPU record exists yet."""
    found = rows.load_rows(target.results_dir, target.repo, machine)
    row = next(r for r in found if r.commit == commit and stamped.items() <= r.env_params.items())
    return "\n\n".join(filter(None, [blocks.lead_paragraph(row), blocks.gpu_note([row])]))


def selection_markdown(args: bench.Options) -> str:
    """--quick and the --bench regexes as one code span, so that Markdown keeps their backslashes; "" for the
    default selection."""
    words = ["--quick"] * args.quick + args.bench
    return f" (`{' '.join(words)}`)" if words else ""


def took_markdown(installed: device.Installed, phases: dict[str, float], loads: tuple, selection: str) -> str:
    """One paragraph: what the run measured and where, its wall time by phase, and the load around it."""
    return (
        f"`scripts/bench --here`{selection} in Python {installed.python} with jax {installed.versions['jax']}, "
        f"jaxlib {installed.versions['jaxlib']} and Equinox {installed.versions['equinox']}, on "
        f"{installed.device}, took {sum(phases.values()) / 60:.1f} min of wall time after scripts/setup, and "
        "built no virtualenv: "
        + ", ".join(f"{seconds:.0f} s {phase}" for phase, seconds in phases.items())
        + f". Load average before and after: {loads[0]:.2f} and {loads[1]:.2f}, on {os.cpu_count()} cores."
    )


def here(args: bench.Options) -> int:
    """Run the suite in ``args.here``'s Python, publish its site; the exit code (bench's contract)."""
    if args.docs:
        generated.write_blocks(args.docs, {HERE_TIME_BLOCK: ""}, write=False)
    started, load_before = time.monotonic(), os.getloadavg()[0]
    python = python_path(args.here)
    installed = device.probe(python)
    machine = machine_name(args, installed)
    args = dataclasses.replace(args, machine=machine)
    target = bench.Target(args)
    equinox = installed.versions["equinox"]
    print(
        f"Measuring in {python}: Python {installed.python}, jax {installed.versions['jax']}, "
        f"jaxlib {installed.versions['jaxlib']}, Equinox {equinox}, on {installed.device}"
        + (f" ({installed.driver})" if installed.driver else "")
        + f"; machine {machine!r}",
        file=sys.stderr,
    )
    if shutil.which("valgrind") is None:
        print(
            "valgrind is not installed here: the instruction counts (bench_instructions) are skipped, each saying why",
            file=sys.stderr,
        )
    commit = commit_for(target.repo, equinox)
    env_name = runs.existing_env_name(python)
    path = runs.result_path(target.results_dir, machine, commit, env_name)
    device.refuse_another(path, machine, installed.device)
    cmd = util.asv(
        "run",
        "--config",
        target.config(),
        "--machine",
        machine,
        "--environment",
        f"existing:{python}",
        "--set-commit-hash",
        commit,
        "--show-stderr",
    )
    if args.quick:
        cmd.append("--quick")
    for regex in args.bench or benchmarks(json.loads(suite.description())):
        cmd += ["--bench", regex]
    with exclusive(args.env_dir), asv_home() as env:
        runner.record_machine(machine, target.base, env)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(runner_path()), env.get("PYTHONPATH")]))
        code = util.run(cmd, env=env).returncode
    measured = time.monotonic()
    if not path.exists():
        print(f"asv run exited {code} and saved no results", file=sys.stderr)
        return ExitCode.FAILED
    # asv records an existing environment's Python as its path, and no versions: the Python's version and the installed
    # JAX go beside the device, so that the report names the environment as it names asv's own.
    versions = {name: installed.versions[name] for name in ("jax", "jaxlib")}
    stamped = {**installed.params(), "python": installed.python, **versions}
    device.stamp(path, machine, stamped)
    bench.publish(target)
    bench.record_last_run(target, [commit])
    state, failures = runs.classify(path, machine)
    print(f"\n{env_name}: {state}" + (f", {failures} failed" if failures else ""))
    answer = lead(target, machine, commit, stamped)
    phases = {
        "choosing the benchmarks and running them with asv": measured - started,
        "publishing the site": time.monotonic() - measured,
    }
    took = took_markdown(installed, phases, (load_before, os.getloadavg()[0]), selection_markdown(args))
    if args.docs:
        generated.write_blocks(args.docs, {HERE_TIME_BLOCK: took, HERE_ANSWER_BLOCK: answer})
    print(f"\n{answer}\n\n{took}\n")
    bench.print_places(target)
    if code not in (0, 2):  # asv exits 2 when a benchmark failed, and saves the rest
        print(f"asv run exited {code}", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.FOUND if failures or state != "ran" else ExitCode.OK
