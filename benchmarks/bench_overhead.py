"""What the answer (bench_answer) does not time, each as tree_at's twin over another, interleaved in one process:
tracing a fresh step, and one eager update in tree_map passes, the gate's steady unit.

A ratio taken within one process cancels the drift between processes and runs that makes absolute times from
different runs incomparable.  Bigger is worse, as asv's regression detection expects.
"""

import jax.numpy as jnp

from .instruments import interleaved_ratio
from .params import DEFAULT_DEPTH, DEFAULT_N_CALLS, DEFAULT_STATE_SIZE
from .workloads import Surgery, build_state, trace_fresh_step, tree_map_pass


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


class EagerSurgeryInTreeMapPasses:
    """One eager update at the default sizes in ``workloads.tree_map_unit`` passes, timed right beside it: the unit
    runs the same kind of code as ``tree_at``, so it follows the machine's speed swings (docs/detector.md).  Timed
    twice as long as the other ratios: the gate holds it to the tightest threshold."""

    unit = "tree_map passes"
    seconds = 2.0

    def setup(self):
        sizes = (DEFAULT_STATE_SIZE, DEFAULT_DEPTH, DEFAULT_N_CALLS)
        self.tree_at_surgery = Surgery("tree_at", *sizes)
        self.tuple_surgery = Surgery("tuple", *sizes)
        plain_state = build_state("plain", DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
        self.one_pass = lambda: tree_map_pass(plain_state)

    def track_tree_at(self):
        return interleaved_ratio(self.tree_at_surgery, self.one_pass, self.seconds) / DEFAULT_N_CALLS

    def track_tuple(self):
        return interleaved_ratio(self.tuple_surgery, self.one_pass, self.seconds) / DEFAULT_N_CALLS
