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

from .instruments import interleaved_ratio
from .params import (
    DEFAULT_DEPTH,
    DEFAULT_N_CALLS,
    DEFAULT_STATE_SIZE,
    DISPATCH_WAITS,
    SWEEP_SIZES,
    SWEEP_WRAPPINGS,
)
from .workloads import build_state, make_runner, make_step, wrap


class _Sweep:
    params = [list(SWEEP_WRAPPINGS), list(SWEEP_SIZES)]
    param_names = ["wrapping", "state_size"]
    # A jit_scan over 10**7 elements per leaf runs for seconds on a CPU; one process per size, and (for the
    # times) a few samples, keep the sweep's 24 sizes and wrappings within the minutes of a first answer.
    timeout = 600
    processes = 1

    def setup(self, wrapping, state_size):
        sizes = (state_size, DEFAULT_DEPTH, DEFAULT_N_CALLS)
        self.run_tree_at = make_runner("tree_at", wrapping, *sizes)
        self.run_tuple = make_runner("tuple", wrapping, *sizes)


class StateSizeRatio(_Sweep):
    """``tree_at`` time over tuple time per call, the twins interleaved in one process."""

    unit = "ratio"

    def track_overhead_ratio(self, wrapping, state_size):
        return interleaved_ratio(self.run_tree_at, self.run_tuple)


class StateSizeTime(_Sweep):
    """The same calls in seconds: a step (one call; ``SCAN_LENGTH`` steps for ``jit_scan``), waited for."""

    repeat = (1, 5, 4.0)

    def time_tree_at(self, wrapping, state_size):
        self.run_tree_at()

    def time_tuple(self, wrapping, state_size):
        self.run_tuple()


class Dispatch:
    """A jitted step's call without waiting for its result (``dispatch``: what Python pays before the device
    runs), beside the same call waited for (``block_until_ready``).  On a CPU the two are close; on a GPU the
    first is the Module's flattening and the launch, the second adds the device's work and the sync.

    As in JAX's own ``*_dispatch`` cases, calls not waited for may still run after their sample, and a long
    queue of them slows the next dispatch: that back-pressure is part of what dispatch costs.  Each benchmark
    runs in a process of its own, so none of them outlives it.
    """

    params = [["jit", "filter_jit"], list(DISPATCH_WAITS)]
    param_names = ["wrapping", "wait"]

    def setup(self, wrapping, wait):
        self.calls = {}
        for structure in ("tree_at", "tuple"):
            state = build_state(structure, DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
            fn, operand = wrap(make_step(structure, DEFAULT_DEPTH, DEFAULT_N_CALLS), wrapping)
            jax.block_until_ready(fn(state, operand))  # compiled here, so that a timed call is steady state
            if wait == "dispatch":
                self.calls[structure] = lambda fn=fn, state=state, operand=operand: fn(state, operand)
            else:
                self.calls[structure] = lambda fn=fn, state=state, operand=operand: jax.block_until_ready(
                    fn(state, operand)
                )

    def time_tree_at(self, wrapping, wait):
        self.calls["tree_at"]()

    def time_tuple(self, wrapping, wait):
        self.calls["tuple"]()
