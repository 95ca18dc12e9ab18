"""Overhead ratios: ``tree_at`` time over tuple time, the twins interleaved in one process.

A ratio taken within one process cancels the drift between processes and
runs that makes absolute times from different runs incomparable.  Bigger is
worse, as asv's regression detection expects; 1.0 means no overhead.
"""

import jax.numpy as jnp

from .common import (
    DEFAULT_DEPTH, DEFAULT_N_CALLS, DEFAULT_STATE_SIZE, WRAPPINGS, Surgery,
    build_state, interleaved_ratio, make_runner, trace_fresh_step,
)


class SteadyStateRatio:
    """At the default sizes, per wrapping (the headline number per wrapping)."""

    params = [list(WRAPPINGS)]
    param_names = ["wrapping"]
    unit = "ratio"

    def setup(self, wrapping):
        sizes = (DEFAULT_STATE_SIZE, DEFAULT_DEPTH, DEFAULT_N_CALLS)
        self.run_tree_at = make_runner("tree_at", wrapping, *sizes)
        self.run_tuple = make_runner("tuple", wrapping, *sizes)

    def track_overhead_ratio(self, wrapping):
        return interleaved_ratio(self.run_tree_at, self.run_tuple)


class EagerSurgeryRatio:
    """Pure eager surgery (no arithmetic) at the default sizes: the cost users ask about."""

    unit = "ratio"

    def setup(self):
        sizes = (DEFAULT_STATE_SIZE, DEFAULT_DEPTH, DEFAULT_N_CALLS)
        self.run_tree_at = Surgery("tree_at", *sizes)
        self.run_tuple = Surgery("tuple", *sizes)

    def track_overhead_ratio(self):
        return interleaved_ratio(self.run_tree_at, self.run_tuple)


class TracingRatio:
    """Tracing a fresh step at the default sizes: ``tree_at``'s cost under ``jit``."""

    unit = "ratio"

    def setup(self):
        delta = jnp.float32(0.5)
        sizes = (DEFAULT_DEPTH, DEFAULT_N_CALLS)
        tree_at_state = build_state("tree_at", DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
        tuple_state = build_state("tuple", DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
        self.trace_tree_at = lambda: trace_fresh_step("tree_at", tree_at_state, delta, *sizes)
        self.trace_tuple = lambda: trace_fresh_step("tuple", tuple_state, delta, *sizes)

    def track_overhead_ratio(self):
        return interleaved_ratio(self.trace_tree_at, self.trace_tuple)
