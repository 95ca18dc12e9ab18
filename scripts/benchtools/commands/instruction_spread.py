"""The A/A spread of the instruction counts: identical code counted in fresh valgrind processes.

Counts every operation of benchmarks/instruction_ops.py --runs times, each run a fresh process of
the Equinox and JAX in .venv (benchmarks/callgrind.py), keeps each run as soon as it is counted
under --kept (a rerun counts only the runs missing), and prints, or writes into --readme FILE's
generated block, each benchmark's spread: (largest - smallest) / smallest over the runs, beside
the spread the suite allows (metrics.INSTRUCTIONS_SPREAD) and the floor a rise must pass
(metrics.INSTRUCTIONS_FLOOR).  Exit 1 when the spread of a benchmark that alerts (a Module twin)
exceeds the allowed one; the tuple twins, which do not alert, are shown.
"""

import json
import os
import time
from pathlib import Path

from benchmarks import callgrind, metrics
from benchmarks.instruction_ops import OPERATIONS, TWINS

from .. import cli, util
from ..errors import BadInput, Failed
from ..project import ROOT
from ..publishing import generated
from . import common_args

BLOCK = "instruction-spread"
INSTRUCTIONS = "bench_instructions.Instructions"


def parse_args(argv):
    parser = cli.parser("scripts/instruction-spread", __doc__)
    parser.add_argument("--runs", type=int, default=20, help="fresh processes to count (default: 20)")
    parser.add_argument(
        "--kept",
        type=Path,
        default=ROOT / ".asv" / "instruction-spread",
        metavar="DIR",
        help="where each run's counts are kept (default: .asv/instruction-spread)",
    )
    common_args.add_readme(parser, f"rewrite FILE's generated block {BLOCK} with the table; repeatable")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2: a spread needs two runs")
    return args


def count_runs(kept: Path, runs: int) -> list[dict]:
    """Each run's kept counts, counting the missing ones: {"counts", "seconds", "load": [before, after]}."""
    kept.mkdir(parents=True, exist_ok=True)
    found = []
    for number in range(runs):
        path = kept / f"run-{number:02d}.json"
        if not path.is_file():
            load, started = os.getloadavg()[0], time.monotonic()
            try:
                counts = callgrind.count(list(OPERATIONS))
            except callgrind.Unavailable as error:
                raise Failed(f"cannot count instructions here: {error}") from None
            except RuntimeError as error:
                raise Failed(str(error)) from None
            run = {"counts": counts, "seconds": time.monotonic() - started, "load": [load, os.getloadavg()[0]]}
            util.write_atomic(path, json.dumps(run).encode())
            print(f"run {number + 1}/{runs}: {run['seconds']:.0f} s, load {load:.1f}", flush=True)
        try:
            found.append(json.loads(path.read_text()))
        except ValueError as error:
            raise BadInput(f"{path}: not a kept run of instruction counts ({error})") from None
    return found


def spreads(found: list[dict]) -> dict[tuple[str, str], tuple[float, float]]:
    """{(operation, twin): (smallest count, largest count)} over the runs."""
    result = {}
    for name in OPERATIONS:
        for twin in TWINS:
            values = [run["counts"][name][twin]["instructions"] for run in found]
            result[(name, twin)] = (min(values), max(values))
    return result


def markdown(found: list[dict]) -> str:
    seconds = sorted(run["seconds"] for run in found)
    loads = [value for run in found for value in run["load"]]
    lines = [
        f"{len(found)} fresh processes of identical code (the Equinox and JAX of .venv), each counting every "
        f"operation; a process took {seconds[0]:.0f} to {seconds[-1]:.0f} s at load {min(loads):.1f} to "
        f"{max(loads):.1f}. Spread: (largest - smallest) / smallest. Allowed for a twin that alerts (the "
        f"Module's): {metrics.INSTRUCTIONS_SPREAD:.1%}; a rise counts above {metrics.INSTRUCTIONS_FLOOR:.0%}. The "
        "tuple twins do not alert.",
        "",
        "| operation | twin | instructions per call, smallest | largest | spread |",
        "|---|---|---|---|---|",
    ]
    for (name, twin), (low, high) in spreads(found).items():
        lines.append(f"| {name} | {twin} | {low:,.0f} | {high:,.0f} | {high / low - 1:.3%} |")
    return "\n".join(lines)


def main(argv):
    args = parse_args(argv)
    found = count_runs(args.kept, args.runs)
    text = markdown(found)
    for path in args.readme:
        generated.write_blocks(path, {BLOCK: text})
        print(f"updated {path}")
    if not args.readme:
        print(text)
    wide = [
        (name, twin)
        for (name, twin), (low, high) in spreads(found).items()
        if metrics.alerts(metrics.entry(f"{INSTRUCTIONS}.track_{twin}", repr(name)))
        and high / low - 1 > metrics.INSTRUCTIONS_SPREAD
    ]
    return 1 if wide else 0
