"""The A/A spread of the instruction counts: identical code counted in fresh valgrind processes."""

import itertools
import json
import os
import statistics
import time
from pathlib import Path

from benchmarks import callgrind, metrics
from benchmarks.instruction_ops import OPERATIONS, TWINS

from .. import util
from ..asvtools import shapes
from ..errors import BadInput, Failed
from ..judging.instructions import BENCHMARK
from ..util import markdown_table

BLOCK = "instruction-spread"
ACROSS_BLOCK = "instruction-environments"
COUNTED = list(itertools.product(OPERATIONS, TWINS))  # (operation, twin), in the tables' order


def count_runs(kept: Path, runs: int, python: str) -> dict:
    kept.mkdir(parents=True, exist_ok=True)
    found = []
    try:
        here = callgrind.environment(python)
        for number in range(runs):
            path = kept / f"run-{number:02d}.json"
            if not path.is_file():
                load, started = os.getloadavg()[0], time.monotonic()
                counts = callgrind.count(list(OPERATIONS), python=python)
                seconds = time.monotonic() - started
                run = {"counts": counts, "seconds": seconds, "load": [load, os.getloadavg()[0]], "environment": here}
                util.write_atomic(path, json.dumps(run).encode())
                print(f"run {number + 1}/{runs}: {seconds:.0f} s, load {load:.1f}", flush=True)
            run = shapes.read_json(path, "kept run of instruction counts")
            if run.get("environment", here) != here:
                raise BadInput(f"{path}: counted in another environment ({run['environment']}), not in {here}")
            counted = [name for name in OPERATIONS if name in run["counts"]]  # a run may predate an operation
            counts = {name: {twin: run["counts"][name][twin]["instructions"] for twin in TWINS} for name in counted}
            found.append({"seconds": round(run["seconds"], 1), "load": run["load"], "counts": counts})
    except callgrind.Unavailable as error:
        raise Failed(f"cannot count instructions here: {error}") from None
    except RuntimeError as error:
        raise Failed(str(error)) from None
    return {"environment": here, "runs": found}


def read_data(path: Path) -> dict:
    try:
        found = json.loads(path.read_text())
        fewest = min(len(counts(found, name, twin)) for name, twin in COUNTED)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{path}: not the counts of scripts/instruction-spread --data ({error!r})") from None
    if fewest < 2:
        raise BadInput(f"{path}: an operation counted in {fewest} run(s); a spread needs two")
    return found


def counts(found: dict, name: str, twin: str) -> list[float]:
    return [float(run["counts"][name][twin]) for run in found["runs"] if name in run["counts"]]


def environment_text(environment: dict | None) -> str:
    if not environment:
        return "an environment not recorded"
    return ", ".join(environment[key] for key in ("python", "valgrind", "cpu", "image") if environment.get(key))


def floor(name: str, twin: str) -> float | None:
    """Above which a twin's rise counts; None: it never counts (the tuple twins)."""
    rule = metrics.rule(metrics.entry(f"{BENCHMARK}.track_{twin}", repr(name)))
    return rule.threshold if rule.alerts else None


def markdown(found: dict) -> str:
    seconds = sorted(run["seconds"] for run in found["runs"])
    loads = [value for run in found["runs"] for value in run["load"]]
    rows = []
    for name, twin in COUNTED:
        low, high = min(counts(found, name, twin)), max(counts(found, name, twin))
        shown = "does not alert" if floor(name, twin) is None else f"{floor(name, twin):.3%}"
        rows.append([name, twin, f"{low:,.0f}", f"{high:,.0f}", f"{high / low - 1:.3%}", shown])
    head = ["operation", "twin", "instructions per call, smallest", "largest", "spread", "floor"]
    return (
        f"{len(found['runs'])} fresh processes of identical code (one Equinox and JAX), each counting every "
        "operation that the suite held when it ran (an operation's spread is over the processes that counted it), "
        f"in {environment_text(found['environment'])}; a process took {seconds[0]:.0f} to "
        f"{seconds[-1]:.0f} s at load {min(loads):.1f} to {max(loads):.1f}. Spread: (largest - smallest) / "
        f"smallest. A Module twin's rise counts above its floor, {metrics.SPREAD_MARGIN} × its spread as "
        "benchmarks/instruction_spread.json holds it (metrics.py); the tuple twins do not alert.\n\n"
        + markdown_table(head, rows)
    )


def across_markdown(found: dict, other: dict) -> str:
    rows, moved = [], 0
    for name, twin in COUNTED:
        here, there = (statistics.median(counts(d, name, twin)) for d in (found, other))
        change = there / here - 1
        # Either way round: which environment a night meets first is chance.
        beyond = floor(name, twin) is not None and abs(change) > floor(name, twin)
        moved += beyond
        rows.append(
            [name, twin, f"{here:,.0f}", f"{there:,.0f}", f"{change:+.3%}", "beyond its floor" if beyond else "—"]
        )
    head = ["operation", "twin", "median, first", "median, second", "change", ""]
    return (
        f"The same code counted in two environments: {len(found['runs'])} processes in "
        f"{environment_text(found['environment'])}, {len(other['runs'])} in {environment_text(other['environment'])}. "
        f"Compared across them, {moved} of {len(OPERATIONS)} Module twins moved beyond their floor, with no "
        "line of code changed (a night that met the two environments in the other order would see a rise where "
        "this table shows a fall); so the gate never compares two environments' counts: it counts both commits "
        "again, side by side, in tonight's.\n\n" + markdown_table(head, rows).replace(" |  |\n", " | |\n", 1)
        # Its last column's head is empty, written "| |" (as the docs hold it), where markdown_table writes "|  |".
    )


def wide(found: dict) -> list[tuple[str, str]]:
    """The Module twins whose spread here would count as a rise."""
    return [
        (name, twin)
        for name, twin in COUNTED
        if floor(name, twin) is not None
        and max(counts(found, name, twin)) / min(counts(found, name, twin)) - 1 > floor(name, twin)
    ]
