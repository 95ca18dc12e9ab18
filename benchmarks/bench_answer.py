"""The answer to Equinox discussion #572, measured as a user's own timeit measures it: steady calls, side by side.

Each figure is a pair of twins, tree_at's and the tuple's, timed in alternating batches in one process
(``instruments.interleaved_pairs``): after calls that compile, each batch's ``number`` calibrated as timeit
calibrates it.  In a spell of pairs, the tuple's time is the median of its batches, the ratio the median of the
pairs' ratios, each with the 95% interval of that median.  ``ANSWER_PROCESSES`` fresh processes take every figure,
one after the other (a TPU is held by one process at a time, and a timing beside another runs slower), each its
steps in ``ANSWER_ROUNDS`` spells, the first's before the sweep and after it: one spell's interval was narrower than
the drift between two measurements of the same call in one run.  The answer is the median of the spells' medians,
its interval from the lowest to the highest of their intervals (``coverage`` checks that a second measurement lies in
it), and tree_at's time the tuple's times the ratio, so that its µs ÷ the tuple's is the × by construction.  On a
CPU, where JAX hands a call's work to a thread whose wake-up differs from one process to the next
(docs/timing-noise.md), the answer's processes make the dispatch synchronous, and as many again take, under JAX's
own dispatch, the steps a user's timeit times.

``setup_cache`` runs them once per asv run, so each process opens the device once for every figure, and the
``track_`` methods hand the figures to asv, each at its ``statistic``: the median, and the interval's low and high.
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
    DEFAULT_DEPTH,
    DEFAULT_N_CALLS,
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
    WRAPPINGS,
)
from .workloads import build_state, calls, make_step, wrap

SECONDS = 0.5  # of pairs per figure in each process: its ratio's median moves by about 1% between runs
# Student's t at 97.5% for 1 to 10 degrees of freedom: a prediction interval from a few processes.
T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)
READY_CALLS = 50  # calls of a jitted step dispatched alone, to see whether they return before their result is computed
SIDES = ("tuple", "ratio", "tree_at")
TABLED = ("step", "dispatch")  # the figures timed in spells of pairs whose µs the answer's tables show: their level


def figure(twins: dict, seconds: float = SECONDS) -> dict:
    """One spell's pairs of the twins: the tuple's seconds per call, tree_at's, and the pairs' ratio, each as its
    median with the 95% interval of that median, and how many pairs."""
    pairs = interleaved_pairs(twins["tree_at"], twins["tuple"], seconds)
    sides = {"tuple": [b for _, b in pairs], "tree_at": [a for a, _ in pairs], "ratio": [a / b for a, b in pairs]}
    return {side: median_interval(values) for side, values in sides.items()} | {"pairs": len(pairs)}


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
    """JAX's CPU client hands each call to a thread of its own, whose wake-up adds 0 to 60 µs to every call of both
    twins, more in some processes and spells than in others (docs/timing-noise.md): a ratio then takes one of two
    values.  Made synchronous (before the client starts: it is read once), the same calls repeat from process to
    process.  Other backends dispatch as they do."""
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
    """Every figure of the answer in this process: its steps in ``ANSWER_ROUNDS`` spells (one in a quick run), and
    where ``sweep``, the sweep after the first (the answer's first process alone takes it: a picture, never judged,
    whose largest states cost a process more than all its steps).  On a CPU the dispatch is made synchronous, unless
    ``default_dispatch``: then what a user's timeit reads under JAX's own, first, as a user's fresh process runs it.
    Under JAX's own dispatch, a jitted call dispatched alone is timed too where most of its calls return before their
    result is ready.  ``again``: the steps once more at the end, a second measurement of the same calls
    (``coverage``)."""
    if not default_dispatch:
        synchronous()
    timed = user_timeit(repeats=3) if default_dispatch else {}
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


def user_timeit(repeats: int = 15) -> dict:
    """docs/here.md's direct check, as a user's own timeit runs it, under the dispatch this process has: µs per
    step, each the median of ``repeats`` repeats of timeit's autorange."""
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
    defaults = [in_fresh_process(f"measure_once(True, {again}, False)") for _ in range(count) if taken[0]["on cpu"]]
    spells = {}
    for process in taken + defaults:
        for key, found in process["figures"].items():
            spells.setdefault(key, []).extend(found)
    timed = [process["timeit"] for process in defaults]
    ready = {w: min(p["returned before ready"].get(w, 1) for p in taken + defaults) for w in DISPATCH_WRAPPINGS}
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
        "provenance": provenance | {f"{w} returned before ready": share for w, share in ready.items()},
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
    """What a user's timeit of ``wrapping``'s twins reads in one more fresh process, from each process's
    ``user_timeit``: each side's median over the processes, between the ends of where one more process's value lies,
    95%: a normal prediction interval of the logs, their mean ± t · sd · √(1 + 1/n) (the values' range where n < 2),
    widened to hold every value."""
    values = {side: [found[f"{wrapping} {side}"] / 1e6 for found in timed] for side in ("tree_at", "tuple")}
    values["ratio"] = [a / b for a, b in zip(values["tree_at"], values["tuple"], strict=True)]
    found = {}
    for side, taken in values.items():
        logs, n = [math.log(value) for value in taken], len(taken)
        half = T_975[min(n - 1, len(T_975)) - 1] * statistics.stdev(logs) * math.sqrt(1 + 1 / n) if n > 1 else 0.0
        low, high = math.exp(statistics.fmean(logs) - half), math.exp(statistics.fmean(logs) + half)
        found[side] = {"median": statistics.median(taken), "low": min(low, *taken), "high": max(high, *taken)}
    return divided(found)


def divided(found: dict) -> dict:
    """tree_at's median the tuple's times the ratio's, so that the µs divide to the ×, its interval widened to hold
    it."""
    tree_at = found["tree_at"]
    tree_at["median"] = found["tuple"]["median"] * found["ratio"]["median"]
    tree_at["low"], tree_at["high"] = min(tree_at["low"], tree_at["median"]), max(tree_at["high"], tree_at["median"])
    return found


def within(figure: dict, other: dict) -> dict:
    """Whether each side's median of ``other`` lies in ``figure``'s interval."""
    return {side: figure[side]["low"] <= other[side]["median"] <= figure[side]["high"] for side in SIDES}


def coverage(runs: int, path: str, direct: int = 1) -> dict:
    """The check that the answer's intervals hold, over ``runs`` runs of the answer, written to ``path`` after each:
    whether a second measurement of each step in the same processes (``again``) lies in the answer's interval, and
    whether ``direct`` fresh processes' ``user_timeit`` lie in the figures it states for JAX's own dispatch."""
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
    """tree_at's figure, the tuple's and their ratio, at the figure named by ``prefix`` and the params before the
    statistic; NaN (asv: not measured) where the run did not take it."""

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
    """How the answer was taken: its processes, its intervals' level, whether quick, the load average before and
    after, its seconds, and the share of a jitted call's returns that left its result computing."""

    params = [list(PROVENANCE)]
    param_names = ["what"]
    unit = "count"

    def track_provenance(self, answer, what):
        return float(answer["provenance"].get(what, math.nan))
