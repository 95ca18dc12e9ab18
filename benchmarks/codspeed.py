"""The twins as pytest-codspeed benchmarks, for a pull request's CI (docs/adopt.md): each twin of every operation
the suite counts in instructions and of the answer's steps, one steady warmed call a benchmark, made as the suite's
own windows make it, and a window of no call::

    pytest --pyargs benchmarks.codspeed --codspeed -o addopts= -p no:env

``-o addopts=`` drops the caller's own options: Equinox's turn on jaxtyping's runtime checks, which inflate every
count about 100×.  No pytest at import, and no JAX work: asv imports every module of the suite.
"""

import functools
import gc
import itertools

from . import bench_answer, callgrind, instruction_ops, workloads
from .instruction_ops import TWINS
from .params import DEFAULT_STATE_SIZE

STEPS = {f"step({wrapping})": wrapping for wrapping in ("eager", "jit", "filter_jit")}
OPERATIONS = (*instruction_ops.OPERATIONS, *STEPS)


@functools.cache
def twins(operation: str) -> dict:
    """``{twin: zero-argument call}``, warmed (a jitted call counted cold would count its compile)."""
    import equinox

    if type(equinox.__spec__.loader).__module__.startswith("jaxtyping"):
        raise RuntimeError("Equinox was imported with jaxtyping's runtime checks on: run pytest with -o addopts=")
    if operation not in STEPS:
        return callgrind.warm(instruction_ops.build(operation))
    steps = workloads.calls(STEPS[operation], DEFAULT_STATE_SIZE)
    return callgrind.warm(dict(zip(TWINS, steps.values(), strict=True)))


def setup_module():
    bench_answer.synchronous()  # as the answer times them: each call returns with its result computed
    gc.disable()  # as the suite counts: no collection falls in one benchmark's call and not in another's


def teardown_module():
    gc.enable()


def pytest_generate_tests(metafunc):
    if "twin" in metafunc.fixturenames:
        metafunc.parametrize(("operation", "twin"), list(itertools.product(OPERATIONS, TWINS)))


def test_twin(benchmark, operation, twin):
    window(benchmark, twins(operation)[twin], 1)


def test_empty(benchmark):
    window(benchmark, None, 0)


def window(benchmark, call, times: int):
    """The window counted right after the same window warmed: pytest's own work between two benchmarks leaves the
    call's caches cold, and the window's own code would be quickened in a counted window (docs/adopt.md)."""
    gc.collect()
    callgrind.warm({"window": functools.partial(callgrind.repeat, call, times)})
    benchmark(callgrind.repeat, call, times)
