"""asv's runs of scripts/bench: which benchmarks, in which stages and under which lock; the devices stamped after."""

import concurrent.futures
import dataclasses
import itertools
import json
import os
import subprocess
import sys

from benchmarks import metrics

from .. import util
from ..asvtools import device, runs, suite
from ..asvtools.lock import exclusive, one_environment
from ..asvtools.sides import discovery_regex
from ..errors import Error
from ..project import asv_home

# The steady timings: tree_map passes, a time in a unit that scales with the machine (benchmarks/bench_overhead.py).
STEADY_UNIT = "tree_map passes"


def answer_benchmarks(described: dict) -> tuple[list[str], list[str]]:
    """The first answer's benchmarks by asv's name: (the exact ones, which no load moves, so they may be measured beside
    other runs; the timed ones, measured alone: tree_at's steady time with its twin, and any that mixes a timing in)."""
    steady_class, timing = metrics.PASSES_TREE_AT.rsplit(".", 1)[0] + ".", set(metrics.TIMING_KINDS)
    kinds = {
        name: {metrics.kind(metrics.entry(name, ", ".join(c))) for c in itertools.product(*benchmark["params"])}
        for name, benchmark in described.items()
        if name != "version"
    }
    steady = {name for name in kinds if described[name]["unit"] == STEADY_UNIT and name.startswith(steady_class)}
    exact = [name for name, found in kinds.items() if not found & timing]
    timed = [name for name, found in kinds.items() if found & timing and (found - timing or name in steady)]
    return sorted(exact), sorted(timed)


@dataclasses.dataclass(frozen=True)
class Stage:
    phase: str
    # Overlapping: up to os.cpu_count() runs at a time, each holding its own environment only, for figures that no load
    # moves; else one after another, each holding every environment, so that a timing runs beside nothing of ours.
    overlapping: bool
    benchmarks: tuple[str, ...] = ()  # empty: --bench's regexes, or every benchmark


def stages(answer: bool) -> list[Stage]:
    if not answer:
        return [Stage("running asv (creating and installing its environments)", overlapping=False)]
    exact, timed = answer_benchmarks(json.loads(suite.description()))
    return [
        Stage(
            f"creating the environments and measuring the exact figures, up to {os.cpu_count()} at a time",
            overlapping=True,
            benchmarks=tuple(exact),
        ),
        Stage("timing tree_at's steady figures, one environment at a time", overlapping=False, benchmarks=tuple(timed)),
    ]


def run_asv(target, config, lock, regexes: list[str], *extra: str, prefix=None, pythonpath=None) -> int:
    """asv run under LOCK, with a HOME of its own (project.asv_home): asv rewrites its machine file in place on every
    run. With PREFIX, asv's own Python is unbuffered (-u), so that its lines come through the pipe as it writes them;
    the benchmarks' processes do not inherit the flag."""
    args = target.args
    cmd = util.asv("run", "--config", config, "--machine", args.machine, "--show-stderr", *extra)
    cmd += ["--quick"] * args.quick + [word for regex in regexes for word in ("--bench", regex)]
    with lock, asv_home() as env:
        record_machine(args.machine, target.base, env)
        if pythonpath:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
        return util.run(cmd if prefix is None else [cmd[0], "-u", *cmd[1:]], prefix=prefix, env=env).returncode


def record_machine(machine: str, config, env: dict) -> None:
    util.checked(
        util.asv("machine", "--yes", "--machine", machine, "--config", config), stdout=subprocess.DEVNULL, env=env
    )


def asv_run(target, stage: Stage, number: int, env_name: str, entry: dict, pending: list[str]) -> int:
    """The stage over ``pending`` in one environment, under the stage's lock; asv's exit code."""
    hashfile = target.config_dir / f"{target.name}-{number}.hashes"
    hashfile.write_text("\n".join(pending) + "\n")
    env_dir = target.args.env_dir
    return run_asv(
        target,
        target.config(entry, f"-{number}"),
        one_environment(env_dir, env_name) if stage.overlapping else exclusive(env_dir),
        target.args.bench or discovery_regex(list(stage.benchmarks)),
        *("--no-interleave-rounds", "--skip-existing-successful", f"HASHFILE:{hashfile}"),
        prefix=f"[{number}] " if stage.overlapping else None,
    )


def run_stages(target, envs: list[tuple[str, dict]], env_hashes: dict, tags: dict, phase) -> tuple[bool, dict]:
    """Each stage over the commits each environment lacks; whether asv failed, and {environment: commits run}."""
    args, asv_failed, ran = target.args, False, {}
    for stage in stages(args.answer):
        calls = []
        for number, (env_name, entry) in enumerate(envs, 1):
            pending = [h for h in env_hashes[env_name] if needs_run(target, env_name, h, stage.benchmarks)]
            print(
                f"\n=== {stage.phase}: environment {number}/{len(envs)}: {env_name}\n"
                f"=== {len(env_hashes[env_name]) - len(pending)} commit(s) already done, {len(pending)} to run: "
                f"{', '.join(tags.get(h, h[:8]) for h in pending) or 'nothing'}",
                file=sys.stderr,
                flush=True,
            )
            if pending:
                calls.append((number, env_name, entry, pending))
                ran.setdefault(env_name, {}).update(dict.fromkeys(pending))
        workers = min(os.cpu_count() or 1, len(calls)) if stage.overlapping else 1
        with concurrent.futures.ThreadPoolExecutor(max(workers, 1)) as pool:
            running = {pool.submit(asv_run, target, stage, *call): call[1] for call in calls}
            for future, env_name in running.items():
                code = future.result()
                if code not in (0, 2):  # asv exits 2 when a benchmark failed, and saves the results all the same
                    asv_failed = True
                    print(f"asv run exited {code} in {env_name}; going on", file=sys.stderr)
        phase(stage.phase)
    if ran:
        record_devices(target, envs, ran)
    return asv_failed, ran


def needs_run(target, env_name: str, commit: str, names: tuple[str, ...]) -> bool:
    args = target.args
    path = runs.result_path(target.results_dir, args.machine, commit, env_name)
    if not path.exists() or (names and not set(names) <= runs.result_keys(path, args.machine)):
        return True
    return args.retry_failed and runs.classify(path, args.machine) != ("ran", 0)


def record_devices(target, envs: list[tuple[str, dict]], ran: dict) -> None:
    """Stamp the results this run measured with their environment's device; the others (restored from the results
    branch, say) are left byte for byte."""
    machine = target.args.machine
    for number, (env_name, entry) in enumerate(envs, 1):
        paths = [runs.result_path(target.results_dir, machine, commit, env_name) for commit in ran.get(env_name, ())]
        paths = [path for path in paths if path.exists()]
        if not paths:
            continue
        python = runs.environment_python(target.config(entry, f"-{number}"))
        try:
            measured_on = device.probe(python, needs=("jax", "jaxlib")).params()
        except Error as error:  # the results stand, read as device.UNRECORDED: PyPI's jaxlib, the CPU
            print(f"warning: the device of {env_name} is not recorded: {error}", file=sys.stderr)
            continue
        for path in paths:
            device.stamp(path, machine, measured_on)
