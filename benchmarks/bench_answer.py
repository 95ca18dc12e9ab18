"""The answer to Equinox discussion #572, measured as a user's own timeit measures it: steady calls, side by side.

Each figure is a pair of twins, tree_at's and the tuple's, timed in alternating batches in one process
(``instruments.interleaved_pairs``): after calls that compile, each batch's ``number`` calibrated as timeit
calibrates it.  In a process, the tuple's time is the median of its batches, the ratio the median of the pairs'
ratios, and tree_at's time the tuple's times the ratio.  ``ANSWER_PROCESSES`` fresh processes take every figure, one
after the other (a TPU is held by one process at a time, and a timing beside another runs slower); the answer is the
median of theirs, its interval from the lowest to the highest of the processes' 95% intervals of their medians, and
tree_at's µs ÷ the tuple's µs is the × by construction.  Fresh
processes matter on a CPU, where JAX hands a jitted call's work to a thread whose wake-up differs from one process to
the next (docs/timing-noise.md).

``setup_cache`` runs them once per asv run, so each process opens the device once for every figure, and the
``track_`` methods hand the figures to asv, each at its ``statistic``: the median, and the interval's low and high.
"""

import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import jax

from .instruments import interleaved_pairs
from .params import (
    ANSWER_PROCESSES,
    DEFAULT_DEPTH,
    DEFAULT_N_CALLS,
    DEFAULT_STATE_SIZE,
    DISPATCH_WAITS,
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


def figure(twins: dict) -> dict:
    """One process's pairs of the twins: the tuple's seconds per call, tree_at's, and the pairs' ratio, each as its
    median with the 95% interval of that median."""
    pairs = interleaved_pairs(twins["tree_at"], twins["tuple"], SECONDS)
    sides = {"tuple": [b for _, b in pairs], "tree_at": [a for a, _ in pairs], "ratio": [a / b for a, b in pairs]}
    return {side: median_interval(values) for side, values in sides.items()}


def median_interval(values: list[float]) -> dict:
    """The median and the order statistics that bound it with about 95% (a sign test's ranks): no assumed shape."""
    ordered, half_width = sorted(values), 1.96 * len(values) ** 0.5 / 2
    rank = max(0, int((len(values) - 1) / 2 - half_width))
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


def identical_jaxprs(wrapping: str) -> bool:
    traced = []
    for structure in STRUCTURES:
        fn, operand = wrap(make_step(structure, DEFAULT_DEPTH, DEFAULT_N_CALLS), wrapping)
        traced.append(str(jax.make_jaxpr(fn)(build_state(structure, DEFAULT_STATE_SIZE, DEFAULT_DEPTH), operand)))
    return traced[0] == traced[1]


def measure_once() -> dict:
    """Every figure of the answer, in this process: on a CPU, with JAX's dispatch synchronous."""
    synchronous()
    figures = {f"step {w}": figure(calls(w, DEFAULT_STATE_SIZE)) for w in WRAPPINGS}
    for wrapping, wait in itertools.product(DISPATCH_WRAPPINGS, DISPATCH_WAITS):
        figures[f"dispatch {wrapping} {wait}"] = figure(calls(wrapping, DEFAULT_STATE_SIZE, wait != "dispatch"))
    for wrapping, size in itertools.product(SWEEP_WRAPPINGS, SWEEP_SIZES):
        figures[f"sweep {wrapping} {size}"] = figure(calls(wrapping, size))
    jaxprs = {wrapping: identical_jaxprs(wrapping) for wrapping in WRAPPINGS}
    return {"figures": figures, "identical_jaxprs": jaxprs}


def in_fresh_processes(count: int) -> dict:
    """``measure_once`` in ``count`` fresh Pythons, one after the other: the median of each figure and its range."""
    here = Path(__file__).resolve().parents[1]  # asv imports the suite by a finder of its own, not by sys.path
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), *filter(None, sys.path)])}
    script = f"import json, importlib; print(json.dumps(importlib.import_module({__name__!r}).measure_once()))"
    load, started, taken = os.getloadavg()[0], time.monotonic(), []
    for _ in range(count):
        ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
        if ran.returncode != 0:
            raise RuntimeError(f"a process measuring the answer failed: {ran.stderr.strip()[-2000:]}")
        taken.append(json.loads(ran.stdout.strip().splitlines()[-1]))
    answer = {key: spread([process["figures"][key] for process in taken]) for key in taken[0]["figures"]}
    return {
        "figures": answer,
        "identical_jaxprs": {w: all(p["identical_jaxprs"][w] for p in taken) for w in WRAPPINGS},
        "provenance": {
            "processes": count,
            "load before": load,
            "load after": os.getloadavg()[0],
            "seconds": time.monotonic() - started,
        },
    }


def spread(per_process: list[dict]) -> dict:
    """Each side's median over the processes, between the lowest and the highest of their intervals; tree_at's
    median the tuple's times the ratio's, so that the µs divide to the ×."""
    found = {
        side: {
            "median": statistics.median(p[side]["median"] for p in per_process),
            "low": min(p[side]["low"] for p in per_process),
            "high": max(p[side]["high"] for p in per_process),
        }
        for side in ("tuple", "ratio", "tree_at")
    }
    found["tree_at"]["median"] = found["tuple"]["median"] * found["ratio"]["median"]
    return found


def cached_answer() -> dict:
    if wrapping := os.environ.get(ONE_STEP_VARIABLE):  # one step, in this fresh process: a value the gate pairs
        synchronous()
        return {"figures": {f"step {wrapping}": figure(calls(wrapping, DEFAULT_STATE_SIZE))}}
    return in_fresh_processes(1 if os.environ.get(QUICK_VARIABLE) else ANSWER_PROCESSES)


class _Answer:
    timeout = 1800  # the sweep's largest states run for seconds a call on a CPU

    def setup_cache(self):
        return cached_answer()

    setup_cache.timeout = timeout

    def side(self, answer, key: str, side: str, statistic: str) -> float:
        return answer["figures"][key][side][statistic]


class AnswerStep(_Answer):
    """A step of ``DEFAULT_N_CALLS`` updates at the default sizes (``SCAN_LENGTH`` steps for the scans), waited for."""

    params = [list(WRAPPINGS), list(STATISTICS)]
    param_names = ["wrapping", "statistic"]

    def track_ratio(self, answer, wrapping, statistic):
        return self.side(answer, f"step {wrapping}", "ratio", statistic)

    track_ratio.unit = "ratio"

    def track_tree_at(self, answer, wrapping, statistic):
        return self.side(answer, f"step {wrapping}", "tree_at", statistic)

    track_tree_at.unit = "seconds"

    def track_tuple(self, answer, wrapping, statistic):
        return self.side(answer, f"step {wrapping}", "tuple", statistic)

    track_tuple.unit = "seconds"


class AnswerJaxprs(_Answer):
    """1 where tree_at's step traces to another jaxpr than the tuple's, 0 where they are identical."""

    params = [list(WRAPPINGS)]
    param_names = ["wrapping"]
    unit = "jaxprs differ"

    def track_jaxprs_differ(self, answer, wrapping):
        return float(not answer["identical_jaxprs"][wrapping])


class AnswerDispatch(_Answer):
    """A jitted step's call dispatched alone (what Python pays before the device runs) and waited for."""

    params = [list(DISPATCH_WRAPPINGS), list(DISPATCH_WAITS), list(STATISTICS)]
    param_names = ["wrapping", "wait", "statistic"]

    def track_ratio(self, answer, wrapping, wait, statistic):
        return self.side(answer, f"dispatch {wrapping} {wait}", "ratio", statistic)

    track_ratio.unit = "ratio"

    def track_tree_at(self, answer, wrapping, wait, statistic):
        return self.side(answer, f"dispatch {wrapping} {wait}", "tree_at", statistic)

    track_tree_at.unit = "seconds"

    def track_tuple(self, answer, wrapping, wait, statistic):
        return self.side(answer, f"dispatch {wrapping} {wait}", "tuple", statistic)

    track_tuple.unit = "seconds"


class AnswerSweep(_Answer):
    """tree_at's step over the tuple's against the elements per leaf, for the compiled wrappings."""

    params = [list(SWEEP_WRAPPINGS), list(SWEEP_SIZES), list(STATISTICS)]
    param_names = ["wrapping", "state_size", "statistic"]
    unit = "ratio"

    def track_ratio(self, answer, wrapping, state_size, statistic):
        return self.side(answer, f"sweep {wrapping} {state_size}", "ratio", statistic)


class AnswerProvenance(_Answer):
    """How the answer was taken: how many fresh processes, the load average before and after, and its seconds."""

    params = [list(PROVENANCE)]
    param_names = ["what"]
    unit = "count"

    def track_provenance(self, answer, what):
        return float(answer["provenance"][what])
