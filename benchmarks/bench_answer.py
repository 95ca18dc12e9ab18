"""The answer to Equinox discussion #572, measured as a user's own timeit measures it: steady calls, side by side.

Each figure is tree_at's twin and the tuple's timed in alternating batches (``instruments.interleaved_pairs``), in
``ANSWER_ROUNDS`` spells in each of ``ANSWER_PROCESSES`` fresh processes, one after the other (a TPU is held by one
process at a time); docs/here.md ("How it is measured") gives the statistics.  ``setup_cache`` runs them once per asv
run, and the ``track_`` methods hand each figure to asv at its ``statistic``: the median, and the interval's ends.
"""

import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

import jax

from .instruments import interleaved_pairs
from .params import (
    ANSWER_PROCESSES,
    ANSWER_ROUNDS,
    BUSY,
    DEFAULT_DEPTH,
    DEFAULT_N_CALLS,
    DEFAULT_PROCESSES,
    DEFAULT_STATE_SIZE,
    DEFAULT_WRAPPINGS,
    DISPATCH_WRAPPINGS,
    ONE_STEP_VARIABLE,
    PROVENANCE,
    QUICK_VARIABLE,
    STATISTICS,
    STRUCTURES,
    SWEEP_SIZES,
    SWEEP_WRAPPINGS,
    TIMEIT_REPEATS,
    WRAPPINGS,
)
from .workloads import build_state, calls, make_step, wrap

SECONDS = 0.5  # of pairs per figure in each process: its ratio's median moves by about 1% between runs
READY_CALLS = 50  # calls of a jitted step dispatched alone, to see whether they return before their result is computed
SIDES = ("tuple", "ratio", "tree_at")
TABLED = ("step", "dispatch")  # the figures timed in spells of pairs whose µs the answer's tables show: their level


def figure(twins: dict, seconds: float = SECONDS) -> dict:
    """One spell's pairs: each side's seconds per call and the pairs' ratio, as ``median_interval``, how many, and
    the share of the spell's wall time that its thread did not run (``taken``): under synchronous CPU dispatch a call
    runs on the calling thread, so on a CPU the machine took that time.  Each twin is called once first: a compile
    runs on XLA's threads while this one waits, which no machine took."""
    for call in twins.values():
        call()
    wall, cpu = time.perf_counter(), time.thread_time()
    pairs = interleaved_pairs(twins["tree_at"], twins["tuple"], seconds)
    taken = 1 - (time.thread_time() - cpu) / (time.perf_counter() - wall)
    sides = {"tuple": [b for _, b in pairs], "tree_at": [a for a, _ in pairs], "ratio": [a / b for a, b in pairs]}
    return {side: median_interval(values) for side, values in sides.items()} | {"pairs": len(pairs), "taken": taken}


def quiet(spells: list[dict]) -> list[dict]:
    """The spells that the machine took at most ``BUSY`` of the time from; every one where it took more from each."""
    return [spell for spell in spells if spell["taken"] <= BUSY] or spells


def sign_rank(count: int) -> int:
    """The rank of the order statistics that bound the median of ``count`` values with about 95% (a sign test's)."""
    return max(0, int((count - 1) / 2 - 1.96 * count**0.5 / 2))


def level(count: int) -> float:
    """The chance that ``median_interval`` of ``count`` values holds their distribution's median, whatever its
    shape: 1 - 2 P(Binomial(count, 1/2) <= rank); for the range of a few, 1 - 2 * 0.5**count."""
    return 1 - 2 * sum(math.comb(count, k) for k in range(sign_rank(count) + 1)) / 2**count


def median_interval(values: list[float]) -> dict:
    """The median and the order statistics that bound it with about 95% (``level``): no assumed shape."""
    ordered, rank = sorted(values), sign_rank(len(values))
    return {"median": statistics.median(ordered), "low": ordered[rank], "high": ordered[-1 - rank]}


def synchronous() -> None:
    """JAX's CPU dispatch made synchronous, before the client starts: its thread's wake-up adds 0 to 60 µs a call,
    more in some processes than others (docs/timing-noise.md).  Other backends dispatch as they do."""
    try:
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    except AttributeError:  # a JAX from before the option, whose CPU dispatch was synchronous
        pass


def returned_before_ready(twins: dict) -> float:
    """The share of ``READY_CALLS`` calls that returned before their result was computed (``is_ready()`` False
    straight after the call), the lower of the twins': a call "dispatched alone" times dispatch only where most do."""
    shares = []
    for call in twins.values():
        jax.block_until_ready(call())  # the compile
        early = 0
        for _ in range(READY_CALLS):
            result = call()
            early += not all(leaf.is_ready() for leaf in jax.tree_util.tree_leaves(result))
            jax.block_until_ready(result)
        shares.append(early / READY_CALLS)
    return min(shares)


def identical_jaxprs(wrapping: str) -> bool:
    traced = []
    for structure in STRUCTURES:
        fn, operand = wrap(make_step(structure, DEFAULT_DEPTH, DEFAULT_N_CALLS), wrapping)
        traced.append(str(jax.make_jaxpr(fn)(build_state(structure, DEFAULT_STATE_SIZE, DEFAULT_DEPTH), operand)))
    return traced[0] == traced[1]


def measure_once(default_dispatch: bool = False, again: bool = False, sweep: bool = True) -> dict:
    """Every figure of the answer in this process: its steps in spells, the sweep after the first where ``sweep``
    (its largest states cost more than all the steps: the first process alone takes it), and under JAX's own dispatch
    (``default_dispatch``) a user's timeit first.  ``again``: the steps once more at the end (``coverage``)."""
    if not default_dispatch:
        synchronous()
    timed = user_timeit() if default_dispatch else {}
    on_cpu = jax.default_backend() == "cpu"
    wrappings = () if default_dispatch else WRAPPINGS
    steps = {f"step {wrapping}": calls(wrapping, DEFAULT_STATE_SIZE) for wrapping in wrappings}
    ready = {}
    for wrapping in DISPATCH_WRAPPINGS if default_dispatch or not on_cpu else ():
        alone = calls(wrapping, DEFAULT_STATE_SIZE, wait=False)
        ready[wrapping] = returned_before_ready(alone)
        if ready[wrapping] > 0.5:
            steps[f"dispatch {wrapping}"] = alone
    rounds = 1 if os.environ.get(QUICK_VARIABLE) else ANSWER_ROUNDS
    figures = {key: [] for key in steps}
    for spell in range(rounds):
        for key, twins in steps.items():
            figures[key].append(figure(twins, SECONDS / rounds))
        for wrapping, size in itertools.product(SWEEP_WRAPPINGS, SWEEP_SIZES) if spell == 0 and sweep else ():
            figures[f"sweep {wrapping} {size}"] = [figure(calls(wrapping, size))]
    for key, twins in steps.items() if again else ():
        figures[f"again {key}"] = [figure(twins, SECONDS / rounds)]
    jaxprs = {} if default_dispatch else {wrapping: identical_jaxprs(wrapping) for wrapping in WRAPPINGS}
    return {"figures": figures, "identical_jaxprs": jaxprs, "returned before ready": ready, "on cpu": on_cpu} | (
        {"timeit": timed} if timed else {}
    )


def user_timeit(repeats: int = TIMEIT_REPEATS) -> dict:
    """docs/here.md's direct check: µs per step, the median of ``repeats`` repeats of timeit's autorange."""
    found = {}
    for wrapping in DEFAULT_WRAPPINGS:
        for structure, call in calls(wrapping, DEFAULT_STATE_SIZE).items():
            timer = timeit.Timer(call)
            number = timer.autorange()[0]
            found[f"{wrapping} {structure}"] = (
                statistics.median(t / number for t in timer.repeat(repeats, number)) * 1e6
            )
    return found


def in_fresh_process(call: str) -> dict:
    """``call`` of this module (``"measure_once(True)"``), in a fresh Python: what it returns, from its JSON."""
    here = Path(__file__).resolve().parents[1]  # asv imports the suite by a finder of its own, not by sys.path
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), *filter(None, sys.path)])}
    script = f"import json, importlib; print(json.dumps(importlib.import_module({__name__!r}).{call}))"
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    if ran.returncode != 0:
        raise RuntimeError(f"a process measuring the answer failed: {ran.stderr.strip()[-2000:]}")
    return json.loads(ran.stdout.strip().splitlines()[-1])


def in_fresh_processes(count: int, again: bool = False) -> dict:
    """``measure_once`` in ``count`` fresh Pythons one after the other, and on a CPU in ``count`` more under JAX's
    own dispatch: each figure's median over every spell of theirs, and its range."""
    load, started = os.getloadavg()[0], time.monotonic()
    taken = [in_fresh_process(f"measure_once(False, {again}, {first == 0})") for first in range(count)]
    fresh = DEFAULT_PROCESSES if count > 1 else count  # a quick run's one
    defaults = [in_fresh_process(f"measure_once(True, {again}, False)") for _ in range(fresh) if taken[0]["on cpu"]]
    spells = {}
    for process in taken + defaults:
        for key, found in process["figures"].items():
            spells.setdefault(key, []).extend(found)
    timed = [process["timeit"] for process in defaults]
    ready = {w: min(p["returned before ready"].get(w, 1) for p in taken + defaults) for w in DISPATCH_WRAPPINGS}
    busy = {}  # on a CPU, each step's spells: how many were quiet, and the median share the machine took
    for wrapping in WRAPPINGS if taken[0]["on cpu"] else ():
        found = spells[f"step {wrapping}"]
        busy[f"{wrapping} quiet spells"] = sum(spell["taken"] <= BUSY for spell in found)
        busy[f"{wrapping} taken"] = statistics.median(spell["taken"] for spell in found)
        spells[f"step {wrapping}"] = quiet(found)
    provenance = {
        "processes": count,
        "default-dispatch processes": len(defaults),
        "level": min(
            level(s["pairs"])
            for key, found in spells.items()
            if key.split()[0] in TABLED
            for s in found
            if "pairs" in s
        ),
        "quick": float(bool(os.environ.get(QUICK_VARIABLE))),
        "load before": load,
        "load after": os.getloadavg()[0],
        "seconds": time.monotonic() - started,
    }
    return {
        "figures": {key: spread(found) for key, found in spells.items()}
        | {f"default {wrapping}": predicted(timed, wrapping) for wrapping in DEFAULT_WRAPPINGS if timed},
        "identical_jaxprs": {w: all(p["identical_jaxprs"][w] for p in taken) for w in WRAPPINGS},
        "provenance": provenance
        | {f"{w} returned before ready": share for w, share in ready.items()}
        | busy
        | ({"default level": range_level(len(defaults))} if defaults else {}),
    }


def spread(spells: list[dict]) -> dict:
    """Each side's median over the spells, between the lowest and the highest of their intervals."""
    return divided(
        {
            side: {
                "median": statistics.median(spell[side]["median"] for spell in spells),
                "low": min(spell[side]["low"] for spell in spells),
                "high": max(spell[side]["high"] for spell in spells),
            }
            for side in SIDES
        }
    )


def predicted(timed: list[dict], wrapping: str) -> dict:
    """Where a user's timeit of ``wrapping``'s twins lies in one more fresh process: each side's median over the
    processes, between their lowest and their highest, which hold one more process's with ``range_level`` whatever
    the timeits' spread (JAX's CPU dispatch has two speeds: no normal interval holds what it states)."""
    values = {side: [found[f"{wrapping} {side}"] / 1e6 for found in timed] for side in ("tree_at", "tuple")}
    values["ratio"] = [a / b for a, b in zip(values["tree_at"], values["tuple"], strict=True)]
    return divided(
        {side: {"median": statistics.median(v), "low": min(v), "high": max(v)} for side, v in values.items()}
    )


def range_level(count: int) -> float:
    """The chance that one more of ``count`` + 1 exchangeable values lies between the lowest and the highest of the
    others: (count - 1) / (count + 1)."""
    return (count - 1) / (count + 1)


def divided(found: dict) -> dict:
    """tree_at's median set to the tuple's times the ratio's, so that the µs divide to the ×."""
    tree_at = found["tree_at"]
    tree_at["median"] = found["tuple"]["median"] * found["ratio"]["median"]
    tree_at["low"], tree_at["high"] = min(tree_at["low"], tree_at["median"]), max(tree_at["high"], tree_at["median"])
    return found


def within(figure: dict, other: dict) -> dict:
    """Whether each side's median of ``other`` lies in ``figure``'s interval."""
    return {side: figure[side]["low"] <= other[side]["median"] <= figure[side]["high"] for side in SIDES}


def coverage(runs: int, path: str, direct: int = 1) -> dict:
    """Whether the answer's intervals hold over ``runs`` runs, written to ``path`` after each: a second measurement
    in the same processes (``again``), and ``direct`` fresh processes' ``user_timeit`` (docs/here.md)."""
    record = []
    for _ in range(runs):
        answer = in_fresh_processes(ANSWER_PROCESSES, again=True)
        figures, own = answer["figures"], "default" if answer["provenance"]["default-dispatch processes"] else "step"
        again = {key: within(figures[key[len("again ") :]], found) for key, found in figures.items() if "again" in key}
        timed = {}
        for key, micro in (found for _ in range(direct) for found in in_fresh_process("user_timeit()").items()):
            stated = figures[f"{own} {key.split()[0]}"][key.split()[1]]
            low, high = stated["low"] * 1e6, stated["high"] * 1e6
            timed.setdefault(key, []).append({"µs": micro, "stated": [low, high], "within": low <= micro <= high})
        record.append({"provenance": answer["provenance"], "again within": again, "user's timeit": timed})
        Path(path).write_text(json.dumps({"within": shares(record), "runs": record}, indent=1) + "\n")
    return shares(record)


def shares(record: list[dict]) -> dict:
    """``coverage``'s checks over the runs of ``record``: the share of each's cases that held."""
    checks = {
        "again": [ok for run in record for sides in run["again within"].values() for ok in sides.values()],
        "direct": [found["within"] for run in record for each in run["user's timeit"].values() for found in each],
    }
    return {name: sum(oks) / len(oks) for name, oks in checks.items() if oks}


class _Answer:
    timeout = 1800  # the sweep's largest states run for seconds a call on a CPU

    def setup_cache(self):
        if wrapping := os.environ.get(ONE_STEP_VARIABLE):  # one step, in this fresh process: a value the gate pairs
            synchronous()
            return {"figures": {f"step {wrapping}": figure(calls(wrapping, DEFAULT_STATE_SIZE))}}
        return in_fresh_processes(1 if os.environ.get(QUICK_VARIABLE) else ANSWER_PROCESSES)

    setup_cache.timeout = timeout


class _Twins(_Answer):
    """tree_at's figure, the tuple's and their ratio, at ``prefix`` and the params; NaN (asv: not measured) where not
    taken."""

    prefix = ""

    def at(self, answer, side: str, params: tuple) -> float:
        found = answer["figures"].get(" ".join([self.prefix, *map(str, params[:-1])]))
        return found[side][params[-1]] if found else math.nan

    def track_ratio(self, answer, *params):
        return self.at(answer, "ratio", params)

    track_ratio.unit = "ratio"

    def track_tree_at(self, answer, *params):
        return self.at(answer, "tree_at", params)

    track_tree_at.unit = "seconds"

    def track_tuple(self, answer, *params):
        return self.at(answer, "tuple", params)

    track_tuple.unit = "seconds"


class AnswerStep(_Twins):
    """A step of ``DEFAULT_N_CALLS`` updates at the default sizes (``SCAN_LENGTH`` steps for the scans), waited for;
    on a CPU with JAX's dispatch synchronous."""

    prefix = "step"
    params = [list(WRAPPINGS), list(STATISTICS)]
    param_names = ["wrapping", "statistic"]


class AnswerDefault(_Twins):
    """The same steps on a CPU under JAX's own dispatch, as a user's timeit times them, in processes of their own."""

    prefix = "default"
    params = [list(DEFAULT_WRAPPINGS), list(STATISTICS)]
    param_names = ["wrapping", "statistic"]


class AnswerDispatch(_Twins):
    """A jitted step's call dispatched alone (what Python pays before the device runs), under JAX's own dispatch,
    where most of its calls return before their result is ready (AnswerProvenance's "returned before ready")."""

    prefix = "dispatch"
    params = [list(DISPATCH_WRAPPINGS), list(STATISTICS)]
    param_names = ["wrapping", "statistic"]


class AnswerJaxprs(_Answer):
    """1 where tree_at's step traces to another jaxpr than the tuple's, 0 where they are identical."""

    params = [list(WRAPPINGS)]
    param_names = ["wrapping"]
    unit = "jaxprs differ"

    def track_jaxprs_differ(self, answer, wrapping):
        return float(not answer["identical_jaxprs"][wrapping])


class AnswerSweep(_Answer):
    """tree_at's step over the tuple's against the elements per leaf, for the compiled wrappings."""

    params = [list(SWEEP_WRAPPINGS), list(SWEEP_SIZES), list(STATISTICS)]
    param_names = ["wrapping", "state_size", "statistic"]
    unit = "ratio"

    def track_ratio(self, answer, wrapping, state_size, statistic):
        return answer["figures"][f"sweep {wrapping} {state_size}"]["ratio"][statistic]


class AnswerProvenance(_Answer):
    """How the answer was taken (params.PROVENANCE)."""

    params = [list(PROVENANCE)]
    param_names = ["what"]
    unit = "count"

    def track_provenance(self, answer, what):
        return float(answer["provenance"].get(what, math.nan))
