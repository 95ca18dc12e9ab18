"""What CodSpeed would count of the twins, beside the suite's own count (docs/adopt.md)."""

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks import callgrind, metrics
from benchmarks.codspeed import OPERATIONS
from benchmarks.instruction_ops import OPERATIONS as COUNTED
from benchmarks.instruction_ops import TWINS

from .. import git
from ..errors import BadInput, Failed
from ..judging.instructions import cause
from ..util import markdown_table
from .instruction_spread import environment_text

TWINS_BLOCK, STEP_BLOCK = "codspeed-twins", "codspeed-step"
PYTEST = ["-m", "pytest", "--pyargs", "benchmarks.codspeed", "-o", "addopts=", "-p", "no:env", "-p", "no:cacheprovider"]
TEST = re.compile(r"::test_(?:twin\[(.+)-(module|tuple)\]|(empty))$")
EMPTY = "empty"
SIDES = ("simulated", "suite")
SUITE_PARENT = Path(callgrind.__file__).resolve().parent.parent
STEP_TOLERANCE = 0.02  # the simulated step's size against the suite's own, in points (docs/adopt.md)


def selected(select: str, python: str) -> list[str]:
    """The operations whose benchmarks ``pytest -k select`` runs; a selection of none is bad input."""
    listed = subprocess.run(
        [python, *PYTEST, "--collect-only", "-q", "-k", select], capture_output=True, text=True, cwd=SUITE_PARENT
    )
    found = {match[1] for match in map(TEST.search, listed.stdout.splitlines()) if match and match[1]}
    if not found:
        raise BadInput(f"-k {select!r} selects none of the twins of benchmarks/codspeed.py")
    return [name for name in OPERATIONS if name in found]


def counts(select: str, python: str, path: list[str] = ()) -> dict:
    """``{"operations": {operation: {twin: {"simulated", "suite", "left"}}}, "empty", "seconds", "load"}``."""
    try:
        callgrind.valgrind()
        names = selected(select, python)
        with tempfile.TemporaryDirectory(prefix="eqxb-codspeed-") as work:
            arguments = [*PYTEST, "--codspeed", "--codspeed-mode", "simulation", "-k", f"({select}) or test_empty"]
            load, started = os.getloadavg()[0], time.monotonic()
            ran = callgrind.under_valgrind(
                python, Path(work), arguments, path, variables={"CODSPEED_ENV": "1"}, cwd=work
            )
            if ran.returncode != 0:
                raise Failed(f"pytest-codspeed under valgrind exited {ran.returncode}: {ran.stdout[-2000:]}")
            run = {"seconds": time.monotonic() - started, "load": [load, os.getloadavg()[0]], "operations": {}}
            simulated = {}
            for dump in callgrind.dumps(Path(work), prefix=""):
                if match := TEST.search(dump.desc):
                    simulated.setdefault(match[1] or EMPTY, {})[match[2] or EMPTY] = dump
        suite = callgrind.count([name for name in names if name in COUNTED], python=python, path=path)
    except callgrind.Unavailable as why:
        raise BadInput(f"cannot count here: {why}") from None
    except RuntimeError as error:
        raise Failed(str(error)) from None
    empty = simulated[EMPTY][EMPTY]
    for name in names:
        run["operations"][name] = {twin: {"simulated": simulated[name][twin].total} for twin in TWINS}
        for twin in TWINS if name in suite else ():
            counted = suite[name][twin], callgrind.difference(simulated[name][twin], empty, 1)
            run["operations"][name][twin].update(suite=counted[0]["instructions"], left=cause(*counted, shown=2))
    return {**run, EMPTY: empty.total}


def equinox_at(upstream: Path, revision: str, into: Path) -> str:
    """The folder to import Equinox from at ``revision`` of the git repository ``upstream``, unpacked in ``into``."""
    commit = git.out("rev-parse", "--verify", git.END, f"{revision}^{{commit}}", repo=upstream, error=BadInput)
    git.run("archive", f"--output={into / 'equinox.tar'}", commit.strip(), "equinox", repo=upstream)
    shutil.unpack_archive(into / "equinox.tar", into)
    return str(into)


def ratio(twins: dict, side: str, empty: float = 0) -> float:
    return (twins["module"][side] - empty) / (twins["tuple"][side] - empty)


def ratio_rows(found: dict) -> tuple[list, int]:
    """Each operation's row, and how many ratios less the empty window lie outside the suite's own and its spread."""
    rows, apart, empty = [], 0, found[EMPTY]
    for name, twins in found["operations"].items():
        row = [name, *(f"{twins[twin][side]:,.0f}" if side in twins[twin] else "—" for twin in TWINS for side in SIDES)]
        row.append(f"{ratio(twins, 'simulated'):.2f}")
        if "suite" in twins["module"]:
            simulated, suite = ratio(twins, "simulated", empty), ratio(twins, "suite")
            spread = sum(metrics.instruction_spread(name, twin) for twin in TWINS)
            agrees = abs(simulated / suite - 1) <= spread
            apart += not agrees
            left = (twins[twin]["simulated"] - empty - twins[twin]["suite"] for twin in TWINS)
            row += [f"{simulated:.2f}", f"{suite:.2f} ± {spread:.1%}", f"{simulated / suite - 1:+.1%}"]
            row += ["yes" if agrees else "no", " / ".join(f"{gap:+,.0f}" for gap in left), twins["tuple"]["left"]]
        rows.append(row + ["—"] * (12 - len(row)))
    return rows, apart


def twins_markdown(found: dict, python: str) -> str:
    rows, apart = ratio_rows(found)
    judged = sum("suite" in twins["module"] for twins in found["operations"].values())
    head = ["operation", "module, simulated", "suite's", "tuple, simulated", "suite's", "CodSpeed's ratio"]
    head += ["less the empty window", "suite's ratio ± its spread", "apart", "agrees", "left: module / tuple"]
    head += ["where the tuple's is: the suite's → CodSpeed's"]
    return (
        f"One pytest-codspeed process in simulation mode under callgrind ({run_text(found)}), each twin's count that "
        "of one steady call in a window as the suite's own (`callgrind.repeat`), beside the suite's count per call "
        f"(windows of many calls less an empty one), in {environment_text(callgrind.environment(python))}. The "
        f"empty window (the same benchmark with no call) counts {found[EMPTY]:,}: pytest-codspeed's own work around "
        f"a call. Less the empty window, {judged - apart} of the {judged} ratios the suite counts too lie within "
        "their operation's measured spread (the sum of its twins', metrics.instruction_spread) of the suite's own; "
        "what each twin's count less the empty window leaves beside the suite's own count is left, in "
        "instructions, and the functions whose own instructions differ most in the tuple twin's, the one call "
        "against the suite's windows.\n\n" + markdown_table(head, rows)
    )


def run_text(found: dict) -> str:
    return f"{found['seconds']:.0f} s, JAX's import included, at load {found['load'][0]:.1f} to {found['load'][1]:.1f}"


def step_rows(before: dict, after: dict) -> tuple[list, int]:
    rows, apart = [], 0
    before, after = before["operations"], after["operations"]
    for name in (name for name in after if "suite" in after[name]["module"]):
        changes = [after[name][twin][side] / before[name][twin][side] - 1 for twin in TWINS for side in SIDES]
        close = abs(changes[0] - changes[1]) <= STEP_TOLERANCE
        apart += not close
        rows.append([name, *(f"{change:+.1%}" for change in changes), f"{(changes[0] - changes[1]) * 100:+.1f}"])
    return rows, apart


def step_markdown(before: dict, after: dict, revisions: list[str]) -> str:
    rows, apart = step_rows(before, after)
    head = ["operation", "module, simulated", "module, suite's", "tuple, simulated", "tuple, suite's", "points apart"]
    return (
        f"Equinox `{revisions[0]}` → `{revisions[1]}`, each side counted both ways as the table above "
        f"({' and '.join(map(run_text, (before, after)))}): "
        f"{len(rows) - apart} of {len(rows)} Module twins' changes as CodSpeed would show them lie within "
        f"{STEP_TOLERANCE * 100:.0f} points of the suite's own.\n\n" + markdown_table(head, rows)
    )
