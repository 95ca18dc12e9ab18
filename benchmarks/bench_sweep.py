"""The compiled step against the size of the state: where the Module's per-call cost stops mattering.

Under ``jit``, ``filter_jit`` and ``jit_scan`` the twins run the same compiled
program (their jaxprs are identical), so what the Module still costs is
Python work per call: flattening it at dispatch, and for ``filter_jit`` the
sorting of its arguments.  That cost is fixed while the arithmetic grows
with the state, so the ratio falls towards 1 as the state grows; on a GPU the
launch and the wait for the device come on top of both.  The size at which
each ratio falls below ``metrics.NEGLIGIBLE_RATIO`` is the answer per device.

``depth`` and ``n_calls`` are held at their defaults: they change the
Python work, which ``SteadyState`` and ``EagerSurgery`` cover, not the
arithmetic that hides it.
"""

import jax

from .instruments import Steady, interleaved_ratio
from .params import (
    DEFAULT_DEPTH,
    DEFAULT_N_CALLS,
    DEFAULT_STATE_SIZE,
    DISPATCH_WAITS,
    STRUCTURES,
    SWEEP_SIZES,
    SWEEP_WRAPPINGS,
)
from .workloads import calls, make_runner


class _Sweep:
    params = [list(SWEEP_WRAPPINGS), list(SWEEP_SIZES)]
    param_names = ["wrapping", "state_size"]
    # A jit_scan over 10**7 elements per leaf runs for seconds on a CPU; one process per size, and (for the
    # times) a few samples, keep the sweep's 24 sizes and wrappings within the minutes of a first answer.
    timeout = 600
    processes = 1

    def prepare(self, wrapping, state_size):
        return {s: make_runner(s, wrapping, state_size, DEFAULT_DEPTH, DEFAULT_N_CALLS) for s in STRUCTURES}


class StateSizeRatio(_Sweep):
    """``tree_at`` time over tuple time per call, the twins interleaved in one process."""

    unit = "ratio"

    def setup(self, wrapping, state_size):
        self.calls = self.prepare(wrapping, state_size)

    def track_overhead_ratio(self, wrapping, state_size):
        return interleaved_ratio(self.calls["tree_at"], self.calls["tuple"])


class StateSizeTime(_Sweep, Steady):
    """The same calls in seconds: a step (one call; ``SCAN_LENGTH`` steps for ``jit_scan``), waited for."""

    repeat = (1, 5, 4.0)

    def time_tree_at(self, wrapping, state_size):
        self.ready(wrapping, state_size)["tree_at"]()

    def time_tuple(self, wrapping, state_size):
        self.ready(wrapping, state_size)["tuple"]()


class Dispatch(Steady):
    """A jitted step's call without waiting for its result (``dispatch``: what Python pays before the device
    runs), beside the same call waited for (``block_until_ready``).  On a CPU the two are close; on a GPU the
    first is the Module's flattening and the launch, the second adds the device's work and the sync.

    As in JAX's own ``*_dispatch`` cases, calls not waited for may still run after their sample, and a long
    queue of them slows the next dispatch: that back-pressure is part of what dispatch costs.  Each benchmark
    runs in a process of its own, so none of them outlives it.  bench_answer.AnswerDispatch measures the same calls
    in pairs, each batch waited for outside its time.
    """

    params = [["jit", "filter_jit"], list(DISPATCH_WAITS)]
    param_names = ["wrapping", "wait"]

    def prepare(self, wrapping, wait):
        found = calls(wrapping, DEFAULT_STATE_SIZE, wait != "dispatch")
        for call in found.values():
            jax.block_until_ready(call())  # compiled here, so that a timed call is steady state
        return found

    def time_tree_at(self, wrapping, wait):
        self.ready(wrapping, wait)["tree_at"]()

    def time_tuple(self, wrapping, wait):
        self.ready(wrapping, wait)["tuple"]()
