"""What CodSpeed would count of the twins, beside the suite's own count (docs/adopt.md): each count kept in a record
(docs/codspeed.json) that the page is written from, and that a fresh count is held against."""

import hashlib
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks import callgrind, metrics
from benchmarks.codspeed import OPERATIONS
from benchmarks.instruction_ops import OPERATIONS as COUNTED
from benchmarks.instruction_ops import TWINS

from .. import git
from ..asvtools import operations, shapes
from ..errors import BadInput, Failed
from ..judging.instructions import cause
from ..project import ROOT
from ..util import markdown_table
from .instruction_spread import environment_text

TWINS_BLOCK, STEP_BLOCK, CACHE_BLOCK = "codspeed-twins", "codspeed-step", "codspeed-cache"
CACHE_SIM, CYCLES = ("--cache-sim=yes",), "cycles"
PYTEST = ["-m", "pytest", "--pyargs", "benchmarks.codspeed", "-o", "addopts=", "-p", "no:env", "-p", "no:cacheprovider"]
TEST = re.compile(r"::test_(?:twin\[(.+)-(module|tuple)\]|(empty))$")
EMPTY = "empty"
SIDES = ("simulated", "suite")
SUITE_PARENT = Path(callgrind.__file__).resolve().parent.parent
STEP_TOLERANCE = 0.02  # the simulated step's size against the suite's own, in points (docs/adopt.md)
PUBLISHED = ROOT / "docs" / "pull-requests.json"
RECORD = ROOT / "docs" / "codspeed.json"  # {"twins": a count, "step": {"revisions", "before", "after"}}
# What a count is of: the benchmarks, the operations they build, and the windows and warm-up around them.
WORKLOADS = ("codspeed.py", "instruction_ops.py", "module_ops.py", "workloads.py", "twins.py", "callgrind.py")
PACKAGES = "import equinox, jax; print(equinox.__version__, jax.__version__)"


def workloads() -> str:
    return hashlib.sha256(b"".join((SUITE_PARENT / "benchmarks" / name).read_bytes() for name in WORKLOADS)).hexdigest()


def selected(select: str, python: str, path: list[str] = ()) -> list[str]:
    """The operations whose benchmarks ``pytest -k select`` runs, with ``path`` imported first (outside the project,
    whose tests' configuration is not the benchmarks'); an expression pytest refuses, or one that selects none of
    them, is bad input."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(SUITE_PARENT)])}
    with tempfile.TemporaryDirectory(prefix="eqxb-codspeed-") as work:
        command = [python, *PYTEST, "--collect-only", "-q", "-k", select]
        listed = subprocess.run(command, capture_output=True, text=True, cwd=work, env=env)
    found = {match[1] for match in map(TEST.search, listed.stdout.splitlines()) if match and match[1]}
    if listed.returncode not in (0, 5):  # 5: nothing collected
        said = [line for line in (listed.stderr + listed.stdout).splitlines() if line.startswith(("ERROR", "E "))]
        raise BadInput(f"-k {select!r}: pytest cannot collect with it ({' '.join(said[:2]) or listed.returncode})")
    if not found:
        raise BadInput(f"-k {select!r} selects none of the twins of benchmarks/codspeed.py")
    return [name for name in OPERATIONS if name in found]


def counts(select: str, names: list[str], python: str, path: list[str] = (), cache: bool = False) -> dict:
    """``{"operations": {operation: {twin: {"simulated", "suite", "left"}}}, "empty", "seconds", "load", "spreads",
    "environment", "workloads"}`` of the operations ``names`` that ``select`` selects (``selected``); with
    ``cache``, under callgrind's cache simulation, each twin's and the empty window's estimated "cycles" too."""
    try:
        with tempfile.TemporaryDirectory(prefix="eqxb-codspeed-") as work:
            arguments = [*PYTEST, "--codspeed", "--codspeed-mode", "simulation", "-k", f"({select}) or test_empty"]
            load, started = os.getloadavg()[0], time.monotonic()
            ran = callgrind.under_valgrind(
                python,
                Path(work),
                arguments,
                path,
                variables={"CODSPEED_ENV": "1"},
                cwd=work,
                options=CACHE_SIM[:cache],
            )
            if ran.returncode != 0:
                raise Failed(f"pytest-codspeed under valgrind exited {ran.returncode}: {ran.stdout[-2000:]}")
            run = {"seconds": time.monotonic() - started, "load": [load, os.getloadavg()[0]], "operations": {}}
            simulated = {}
            for dump in callgrind.dumps(Path(work), prefix=""):
                if match := TEST.search(dump.desc):
                    simulated.setdefault(match[1] or EMPTY, {})[match[2] or EMPTY] = dump
        # under the cache model the ratios alone are compared: the suite's own count is the twins' run's
        suite = {} if cache else callgrind.count([name for name in names if name in COUNTED], python=python, path=path)
    except callgrind.Unavailable as why:
        raise BadInput(f"cannot count here: {why}") from None
    except RuntimeError as error:
        raise Failed(str(error)) from None
    empty = simulated[EMPTY][EMPTY]
    packages = subprocess.run(
        [python, "-c", PACKAGES],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
    )
    environment = callgrind.environment(python) | dict(zip(("equinox", "jax"), packages.stdout.split(), strict=True))
    spreads = {name: sum(metrics.instruction_spread(name, twin) for twin in TWINS) for name in names if name in suite}
    run |= {"environment": environment, "spreads": spreads, "workloads": workloads()}
    for name in names:
        run["operations"][name] = {twin: counted_by(simulated[name][twin]) for twin in TWINS}
        for twin in TWINS if name in suite else ():
            counted = suite[name][twin], callgrind.difference(simulated[name][twin], empty, 1)
            run["operations"][name][twin].update(suite=counted[0]["instructions"], left=cause(*counted, shown=2))
    return {**run, EMPTY: empty.total} | ({CYCLES: empty.cycles} if cache else {})


def counted_by(dump: callgrind.Dump) -> dict:
    return {"simulated": dump.total} | ({CYCLES: dump.cycles} if dump.cycles is not None else {})


def commit_of(upstream: Path, revision: str) -> str:
    return git.out("rev-parse", "--verify", git.END, f"{revision}^{{commit}}", repo=upstream, error=BadInput).strip()


def equinox_at(upstream: Path, commit: str, into: Path) -> str:
    """The folder to import Equinox from at ``commit`` of the git repository ``upstream``, unpacked in ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    git.run("archive", f"--output={into / 'equinox.tar'}", commit, "equinox", repo=upstream)
    shutil.unpack_archive(into / "equinox.tar", into)
    return str(into)


def ratio(twins: dict, side: str, empty: float = 0) -> float:
    return (twins["module"][side] - empty) / (twins["tuple"][side] - empty)


def ratio_rows(found: dict) -> tuple[list, dict]:
    """Each operation's row, and whether each ratio less the empty window lies within the suite's own and its
    spread (of the operations the suite counts too)."""
    rows, agree, empty = [], {}, found[EMPTY]
    for name, twins in found["operations"].items():
        row = [name, *(f"{twins[twin][side]:,.0f}" if side in twins[twin] else "—" for twin in TWINS for side in SIDES)]
        row.append(f"{ratio(twins, 'simulated'):.2f}")
        if "suite" in twins["module"]:
            simulated, suite, spread = ratio(twins, "simulated", empty), ratio(twins, "suite"), found["spreads"][name]
            agree[name] = abs(simulated / suite - 1) <= spread
            left = (twins[twin]["simulated"] - empty - twins[twin]["suite"] for twin in TWINS)
            row += [f"{simulated:.2f}", f"{suite:.2f} ± {spread:.1%}", f"{simulated / suite - 1:+.1%}"]
            row += ["yes" if agree[name] else "no", " / ".join(f"{gap:+,.0f}" for gap in left), twins["tuple"]["left"]]
        rows.append(row + ["—"] * (12 - len(row)))
    return rows, agree


def verdicts(runs: list[dict]) -> dict:
    """Each ratio's verdict over ``runs`` of one count: "yes" or "no" where every run gives it, else "varies"."""
    each = [ratio_rows(run)[1] for run in runs]
    return {name: ("no", "yes")[each[0][name]] if len({f[name] for f in each}) == 1 else "varies" for name in each[0]}


def twins_markdown(runs: list[dict]) -> str:
    """The first run's table, each ratio's verdict over every run."""
    found, said = runs[0], verdicts(runs)
    rows = [row[:9] + [said.get(row[0], "—")] + row[10:] for row in ratio_rows(found)[0]]
    moved = max(
        abs(count / flat(found)[key] - 1) for run in runs for key, count in flat(run).items() if SIDES[0] in key
    )
    head = ["operation", "module, simulated", "suite's", "tuple, simulated", "suite's", "CodSpeed's ratio"]
    head += ["less the empty window", "suite's ratio ± its spread", "apart", "agrees", "left: module / tuple"]
    head += ["where the tuple's is: the suite's → CodSpeed's"]
    return (
        f"One pytest-codspeed process in simulation mode under callgrind ({run_text(found)}), each twin's count that "
        "of one steady call in a window as the suite's own (`callgrind.repeat`), beside the suite's count per call "
        f"(windows of many calls less an empty one), in {environment_text(found['environment'])}, Equinox "
        f"{found['environment']['equinox']} and JAX {found['environment']['jax']}. The empty window (the same "
        f"benchmark with no call) counts {found[EMPTY]:,}: pytest-codspeed's own work around a call. Less the empty "
        f"window, over {len(runs)} runs of the same count, {list(said.values()).count('yes')} of the {len(said)} "
        "ratios the suite counts too lie within their operation's measured spread (the sum of its twins', "
        f"metrics.instruction_spread) of the suite's own in every run, {list(said.values()).count('no')} in none, "
        f"and the rest in some: a count of one call moved by up to {moved:.1%} from one run to another. What each "
        "twin's count less the empty window leaves beside the suite's own count is left, in instructions, and the "
        "functions whose own instructions differ most in the tuple twin's, the one call against the suite's windows."
        "\n\n" + markdown_table(head, rows)
    )


def run_text(found: dict) -> str:
    return f"{found['seconds']:.0f} s, JAX's import included, at load {found['load'][0]:.1f} to {found['load'][1]:.1f}"


def published(step: dict) -> dict:
    """Each Module twin's change in exact cost that the suite's check of the step's two commits published where it
    ran with the step's JAX (docs/pull-requests.json), by the twin's operation."""
    checks = shapes.read_json(PUBLISHED, "record of the suite's pull-request checks")
    changes = {
        change["operation"]: change["after"] / change["before"] - 1
        for check in checks
        if [check.get("base"), check.get("head")] == step["revisions"]
        and step["after"]["environment"]["jax"] in check["jax"]
        for change in check["changes"]
        if change["headline"]
    }
    labels = {operation.timed: operation.label for operation in operations.OPERATIONS}
    named = {name: labels.get(counted.timed[0]) for name, counted in COUNTED.items() if counted.timed}
    return {name: changes[named[name]] for name in step["after"]["operations"] if named.get(name) in changes}


def step_rows(step: dict) -> tuple[list, dict]:
    """Each Module twin's change both ways and as the suite published it, and whether CodSpeed's lies within
    STEP_TOLERANCE of the suite's own count's and moves its way and the published way (either may stay within
    STEP_TOLERANCE of none)."""
    rows, close, exact = [], {}, published(step)
    before, after = step["before"]["operations"], step["after"]["operations"]
    for name in (name for name in after if "suite" in after[name]["module"]):
        changes = [after[name][twin][side] / before[name][twin][side] - 1 for twin in TWINS for side in SIDES]
        same_way = all(
            changes[0] * other > 0 or min(abs(changes[0]), abs(other)) <= STEP_TOLERANCE
            for other in [changes[1], *([exact[name]] if name in exact else [])]
        )
        close[name] = abs(changes[0] - changes[1]) <= STEP_TOLERANCE and same_way
        shown = f"{exact[name]:+.1%}" if name in exact else "—"
        rows.append([name, *(f"{change:+.1%}" for change in changes), f"{(changes[0] - changes[1]) * 100:+.1f}", shown])
    return rows, close


def step_markdown(step: dict) -> str:
    rows, close = step_rows(step)
    head = ["operation", "module, simulated", "module, suite's", "tuple, simulated", "tuple, suite's", "points apart"]
    revisions, environment = step["revisions"], step["after"]["environment"]
    return (
        f"Equinox `{revisions[0][:8]}` → `{revisions[1][:8]}`, each side counted both ways as the table above, in "
        f"{environment_text(environment)} and JAX {environment['jax']} "
        f"({' and '.join(run_text(step[side]) for side in ('before', 'after'))}): {sum(close.values())} of "
        f"{len(close)} Module twins' changes as CodSpeed would show them lie within {STEP_TOLERANCE * 100:.0f} points "
        "of the suite's own instruction count's, and move its way and the way of the exact cost that the suite's "
        f"check of these commits published with this JAX ({sum(r[-1] != '—' for r in rows)} of them published).\n\n"
        + markdown_table([*head, "published: exact cost"], rows)
    )


def cache_markdown(found: dict) -> str:
    """Each ratio in instructions and in estimated cycles (callgrind.CYCLES), both less the empty window."""
    rows, moved = [], {}
    for name, twins in found["operations"].items():
        by = [ratio(twins, side, found[key]) for side, key in (("simulated", EMPTY), (CYCLES, CYCLES))]
        moved[name] = by[1] / by[0] - 1
        rows.append([name, *(f"{twins[twin][CYCLES]:,.0f}" for twin in TWINS), *(f"{r:.2f}" for r in by)])
        rows[-1].append(f"{moved[name]:+.1%}")
    most = max(moved, key=lambda name: abs(moved[name]))
    weights = ", ".join(f"{event} × {weight}" for event, weight in callgrind.CYCLES.items())
    head = ["operation", "module, cycles", "tuple, cycles", "ratio: instructions", "ratio: cycles", "apart"]
    return (
        f"One pytest-codspeed process in simulation mode, under callgrind's cache simulation (`--cache-sim=yes`; "
        f"{run_text(found)}), in {environment_text(found['environment'])}, Equinox {found['environment']['equinox']} "
        f"and JAX {found['environment']['jax']}. Cycles are estimated as KCachegrind estimates them ({weights}); the "
        f"empty window estimates {found[CYCLES]:,} cycles. Each ratio less the empty window, in instructions and in "
        f"cycles: the cache model moves a ratio by {moved[most]:+.1%} at most ({most}), and by "
        f"{statistics.median(abs(m) for m in moved.values()):.1%} in the median operation.\n\n"
        + markdown_table(head, rows)
    )


def blocks(record: dict) -> dict:
    """The page's blocks (docs/adopt.md), each written from its part of the record."""
    made = {"twins": (TWINS_BLOCK, twins_markdown), "step": (STEP_BLOCK, step_markdown)}
    made |= {"cache": (CACHE_BLOCK, cache_markdown)}
    return {made[part][0]: made[part][1](found) for part, found in record.items()}


def read(path: Path) -> dict:
    return shapes.read_json(path, "record of CodSpeed's counts") if path.is_file() else {}


def comparable(recorded: dict, fresh: dict) -> bool:
    """Whether two counts' instructions can be held against each other: the same workloads in one environment, and
    the same operations in their process (a one-call window moves by percents with what else its process ran)."""
    return all(fresh[key] == recorded[key] for key in ("environment", "workloads")) and (
        fresh["operations"].keys() == recorded["operations"].keys()
    )


def updated(record: dict, part: str, found: dict) -> dict:
    """``record`` with ``found`` as its ``part``; a count of the twins is one more run of the record's where
    ``comparable``, a run of its own otherwise."""
    if part != "twins":
        return record | {part: found}
    runs = record.get("twins", [])
    return record | {"twins": [*runs, found] if runs and comparable(runs[0], found) else [found]}


def broken(runs: list[dict], fresh: dict) -> list[str]:
    """What ``fresh`` does not bear out of what the record's ``runs`` of the same count claim: each ratio's verdict
    that every run gave, and where ``comparable``, each count within the runs' range widened by its operation's
    spread (the widest where the suite counts it not)."""
    claimed, now = verdicts(runs), verdicts([fresh])
    found = [
        f"{name}: its ratio's verdict is {now[name]}, every run of the record's {claimed[name]}"
        for name in now
        if claimed.get(name, "varies") not in ("varies", now[name])
    ]
    for (name, twin, side), count in flat(fresh).items() if comparable(runs[0], fresh) else ():
        spread = runs[0]["spreads"].get(name, max(runs[0]["spreads"].values()))
        kept = [flat(run)[name, twin, side] for run in runs]
        if not min(kept) * (1 - spread) <= count <= max(kept) * (1 + spread):
            found.append(
                f"{name}, {twin}: {side} {count:,.0f}, the record's {min(kept):,.0f} to {max(kept):,.0f} ± {spread:.1%}"
            )
    return found


def flat(run: dict) -> dict:
    """``{(operation, twin, side): instructions}`` of one run."""
    return {
        (n, twin, side): twins[twin][side]
        for n, twins in run["operations"].items()
        for twin in TWINS
        for side in SIDES
        if side in twins[twin]
    }


def broken_step(recorded: dict, fresh: dict) -> list[str]:
    """Each Module twin's change whose verdict (``step_rows``) is not the record's."""
    claimed, now = (step_rows(step)[1] for step in (recorded, fresh))
    return [
        f"{name}: the change {('no longer agrees', 'agrees')[now[name]]} with the suite's"
        for name in now
        if claimed.get(name, now[name]) != now[name]
    ]
