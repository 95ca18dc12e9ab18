"""scripts/bench --here: the suite in a user's own Python, through asv's existing-environment mode (no install)."""

import dataclasses
import json
import os
import platform
import re
import shutil
from itertools import product
from pathlib import Path

from .. import git
from ..asvtools import device, results, runs, suite
from ..asvtools.lock import exclusive
from ..asvtools.sides import log
from ..errors import BadInput, ExitCode
from ..project import HERE_RUNNER
from ..publishing import blocks, generated, plots, rows
from . import bench

# One of each per device too: BLOCK-DEVICE ("here-answer-tpu-TPU-v5-lite").
HERE_TIME_BLOCK, HERE_ANSWER_BLOCK = "here-time", "here-answer"
DEVICES_BLOCK = "here-devices"
GIT_ENV = git.isolated_env("scripts/bench --here", "here@localhost")


def commit_for(repo: Path, equinox: str) -> str:
    """The commit that asv files a result under: one per Equinox version, tagged as a release."""
    tag = f"v{equinox}"
    if not (repo / ".git").is_dir():
        repo.mkdir(parents=True, exist_ok=True)
        git.run("init", "-q", "-b", "main", repo=repo, env=GIT_ENV)
    if tag not in git.tags(repo, env=GIT_ENV):
        message = f"Equinox {equinox}, as installed in the Python that scripts/bench --here measured"
        git.run("commit", "-q", "--allow-empty", "-m", message, repo=repo, env=GIT_ENV)
        git.run("tag", tag, repo=repo, env=GIT_ENV)
    return git.tags(repo, env=GIT_ENV)[tag]


def runner_path() -> Path:
    """A folder holding asv_runner alone, for PYTHONPATH: any other package of .venv would shadow the measured JAX."""
    link, source = HERE_RUNNER / "asv_runner", runs.runner_package()
    if not (link.is_symlink() and link.resolve() == source.resolve()):
        HERE_RUNNER.mkdir(parents=True, exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(source, target_is_directory=True)
    return HERE_RUNNER


def selection_markdown(args: bench.Options) -> str:
    """--quick and the --bench regexes as one code span, which keeps their backslashes."""
    words = ["--quick"] * args.quick + args.bench
    return f" (`{' '.join(words)}`)" if words else ""


def here(args: bench.Options) -> int:
    clock = bench.Clock([], HERE_TIME_BLOCK)
    if shutil.which(args.here) is None:
        raise BadInput(f"--here {args.here}: no such Python (give a path, or a name on PATH)")
    python = Path(shutil.which(args.here)).absolute()
    installed = device.probe(python)
    versions = installed.versions
    blocks_named = [
        f"{block}{suffix}" for block in (HERE_TIME_BLOCK, HERE_ANSWER_BLOCK) for suffix in ("", f"-{installed.device}")
    ]
    for path in args.docs:
        generated.write_blocks(path, dict.fromkeys(blocks_named, ""), write=False)
    # Results from two devices never share a file.
    if args.machine == bench.Options.machine:
        args = dataclasses.replace(args, machine=f"{platform.node()}-{installed.device.lower()}")
    machine, target = args.machine, bench.Target(args)
    log(
        f"Measuring in {python}: Python {installed.python}, jax {versions['jax']}, jaxlib {versions['jaxlib']}, "
        f"Equinox {versions['equinox']}, on {installed.device}"
        + (f" ({installed.driver})" if installed.driver else "")
        + f"; machine {machine!r}"
    )
    if shutil.which("valgrind") is None:
        log("valgrind is not installed here: the instruction counts (bench_instructions) are skipped, each saying why")
    regexes = args.bench or [f"^{re.escape(rows.ANSWER_MODULE)}"]
    selected(regexes)
    commit = commit_for(target.repo, versions["equinox"])
    env_name = runs.existing_env_name(python)
    path = runs.result_path(target.results_dir, machine, commit, env_name)
    # asv records an existing environment's Python as its path, and no versions: they go beside the device.
    stamped = {**installed.params(), "python": installed.python, "jax": versions["jax"], "jaxlib": versions["jaxlib"]}
    lent = os.pathsep.join(filter(None, [str(runner_path()), os.environ.get("PYTHONPATH")]))
    stamped[device.RUNNER] = runs.runner_version(python, {**os.environ, "PYTHONPATH": lent})
    device.refuse_another(path, machine, stamped)
    extra = ("--environment", f"existing:{python}", "--set-commit-hash", commit)
    code = bench.run_asv(
        target, target.config(), exclusive(args.env_dir), regexes, *extra, pythonpath=str(runner_path())
    )
    clock.phase("choosing the benchmarks and running them with asv")
    if not path.exists():
        log(f"asv run exited {code} and saved no results")
        return ExitCode.FAILED
    device.stamp(path, machine, stamped)
    bench.publish(target)
    bench.record_last_run(target, [commit])
    state, failures = runs.classify(path, machine)
    print(f"\n{env_name}: {state}" + (f", {failures} failed" if failures else ""))
    # Other Pythons measured before may share the commit.
    found = rows.load_rows(target.results_dir, target.repo, machine)
    row = next(r for r in found if r.commit == commit and stamped.items() <= r.env_params.items())
    short, answer = (f"{blocks.here_answer(row, full)}\n\n{blocks.device_note([row])}" for full in (False, True))
    took = clock.finish(
        f"`scripts/bench --here`{selection_markdown(args)} in Python {installed.python} with jax {versions['jax']}, "
        f"jaxlib {versions['jaxlib']} and Equinox {versions['equinox']}, on {device.named(row.env_params)}",
        before=", and built no virtualenv",
    )
    for docs in args.docs:
        picture = docs.parent / "images" / f"here-sweep-{installed.device}.png"
        drawn = f"\n\n![the sweep, on this device](images/{picture.name})" if plots.sweep_plot([row], picture) else ""
        bodies = dict(zip(blocks_named, [took, took, short + drawn, answer + drawn], strict=True))
        generated.write_blocks(docs, bodies | {DEVICES_BLOCK: lambda docs=docs: side_by_side(docs, path, installed)})
    print(f"\n{answer}\n\n{took}\n")
    bench.print_places(target)
    if code not in (0, 2):  # asv exits 2 when a benchmark failed, and saves the rest
        log(f"asv run exited {code}")
        return ExitCode.FAILED
    return ExitCode.FOUND if failures or state != "ran" else ExitCode.OK


def side_by_side(docs: Path, path: Path, installed: device.Installed) -> str:
    """The answer of every device recorded in DOCS' here-results/DEVICE/ (this run's kept there), side by side."""
    kept = docs.parent / "here-results" / installed.device
    shutil.rmtree(kept, ignore_errors=True)  # a device's latest run alone
    kept.mkdir(parents=True)
    shutil.copyfile(path, kept / path.name)
    found = [rows.row_of(results.load_file(record), "") for record in sorted(kept.parent.glob("*/*.json"))]
    picture = docs.parent / "images" / "here-sweep-devices.png"
    plots.sweep_plot(found, picture)
    return f"{blocks.devices_markdown(found)}\n\n![the sweep, a line per device]({Path('images', picture.name)})"


def selected(regexes: list[str]) -> None:
    """BadInput unless the regexes select a benchmark, as asv does: a search in "name(params)"."""
    described = {name: found for name, found in json.loads(suite.description()).items() if name != "version"}
    names = [f"{name}({', '.join(combo)})" for name, found in described.items() for combo in product(*found["params"])]
    if not any(re.search(regex, name) for regex in regexes for name in [*described, *names]):
        raise BadInput(f"--bench {' '.join(regexes)}: selects no benchmark of the suite")
