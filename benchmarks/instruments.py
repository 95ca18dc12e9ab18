"""The measuring instruments: interleaved timing ratios, and counters of Python calls, bytecodes, jaxpr equations
and copied bytes.  No JAX backend starts at import time.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
import timeit
from collections.abc import Callable

import jax

from .metrics import CALL_WEIGHT
from .params import QUICK_VARIABLE


def copied_bytes(before, after) -> int:
    """Bytes of the leaves of ``after`` that are not objects already in ``before``."""
    existing = {id(leaf) for leaf in jax.tree_util.tree_leaves(before)}
    return sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(after) if id(leaf) not in existing)


def calibrated_number(fn: Callable[[], object], target_seconds: float) -> int:
    """How many calls of ``fn`` take at least ``target_seconds``, after one that compiles what it must."""
    fn()
    number = 1
    while True:
        if timeit.timeit(fn, number=number) >= target_seconds or number >= 1 << 20:
            return number
        number *= 2


def interleaved_pairs(
    numerator: Callable[[], object],
    denominator: Callable[[], object],
    seconds: float = 1.0,
    batch_seconds: float = 0.002,
) -> list[tuple[float, float]]:
    """Seconds per call of ``numerator`` and of ``denominator`` in back-to-back batches of about ``batch_seconds``,
    for ``seconds`` (at least 3 pairs, only 3 in a quick run).  Speed swings by up to 2x from one half-second to the
    next on shared machines, so only timings a few milliseconds apart see the same machine."""
    numbers = [calibrated_number(fn, batch_seconds) for fn in (numerator, denominator)]
    pairs = []
    deadline = time.perf_counter() + (0 if os.environ.get(QUICK_VARIABLE) else seconds)
    while time.perf_counter() < deadline or len(pairs) < 3:
        sides = zip((numerator, denominator), numbers, strict=True)
        pairs.append(tuple(batch_time(fn, number) for fn, number in sides))
    return pairs


def batch_time(fn: Callable[[], object], number: int) -> float:
    """Seconds per call of ``fn`` over ``number`` calls, the garbage collector off as in timeit; its last result
    waited for outside the time, so that a call left running never falls into the next batch."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            last = fn()
        elapsed = time.perf_counter() - start
    finally:
        if collecting:
            gc.enable()
    jax.block_until_ready(last)
    return elapsed / number


def interleaved_ratio(
    numerator: Callable[[], object],
    denominator: Callable[[], object],
    seconds: float = 1.0,
    batch_seconds: float = 0.002,
) -> float:
    """``numerator`` time over ``denominator`` time, the median of ``interleaved_pairs``' ratios, which drops the
    pairs that straddle a swing of the machine's speed."""
    return statistics.median(a / b for a, b in interleaved_pairs(numerator, denominator, seconds, batch_seconds))


def _run_hooked(install: Callable, installed: Callable, hook: Callable, fn: Callable[[], object]) -> None:
    """``fn()`` with ``hook`` as the interpreter's profile or trace function, and the garbage collector off: a
    collection runs JAX's ``gc.callbacks`` in Python, so a count would depend on what was allocated before."""
    previous = installed()
    collecting = gc.isenabled()
    gc.disable()
    install(hook)
    try:
        fn()
    finally:
        install(previous)
        if collecting:
            gc.enable()


def count_python_calls(fn: Callable[[], object]) -> int:
    """How many Python-level function calls ``fn()`` makes (C calls excluded)."""
    calls = 0

    def profiler(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1

    _run_hooked(sys.setprofile, sys.getprofile, profiler, fn)
    return calls


def count_bytecodes(fn: Callable[[], object]) -> int:
    """How many Python bytecode instructions ``fn()`` executes: unlike a call count, it sees work added inside a
    function, such as an extra loop over the leaves."""
    executed = 0

    def tracer(frame, event, arg):
        nonlocal executed
        frame.f_trace_opcodes = True
        if event == "opcode":
            executed += 1
        return tracer

    _run_hooked(sys.settrace, sys.gettrace, tracer, fn)
    return executed


def python_cost(fn: Callable[[], object]) -> int:
    """The exact cost of ``fn()``: bytecode instructions + ``CALL_WEIGHT`` x Python calls (metrics.py)."""
    return count_bytecodes(fn) + CALL_WEIGHT * count_python_calls(fn)


def _sub_jaxprs(value):
    if hasattr(value, "eqns"):  # a Jaxpr, or a ClosedJaxpr (whose eqns are its jaxpr's)
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _sub_jaxprs(item)


def _count_equations(jaxpr) -> int:
    return sum(
        1 + sum(_count_equations(sub) for param in eqn.params.values() for sub in _sub_jaxprs(param))
        for eqn in jaxpr.eqns
    )


def jaxpr_equation_count(fn: Callable, *args) -> int:
    """Equations of ``fn``'s jaxpr, counting those nested in sub-jaxprs (scan bodies) too."""
    return _count_equations(jax.make_jaxpr(fn)(*args).jaxpr)
