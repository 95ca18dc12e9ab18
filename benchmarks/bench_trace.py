"""Compiling a fresh step: where ``tree_at``'s Python work lands under ``jit``, in seconds.

Every sample builds a fresh step function, because JAX caches traces and
executables on the function object and a cache hit would hide the work.
Tracing alone, ``tree_at`` over the tuple, is ``bench_overhead.TracingRatio``'s
(a ratio within one process, steadier than two times); a second timing of it
here read by no page or gate was dropped.
"""

import jax.numpy as jnp

from .params import DEFAULT_DEPTH, DEFAULT_STATE_SIZE, N_CALLS
from .workloads import build_state, compile_fresh_step


class Compile:
    """``jax.jit(step).lower(...).compile()`` of a fresh step: tracing, lowering and XLA.

    ``n_calls`` is the dimension that matters: each update is traced.  ``depth``
    is fixed, since tracing cost per update follows eager surgery cost, which
    ``EagerSurgery`` covers against depth."""

    params = [list(N_CALLS)]
    param_names = ["n_calls"]
    number = 1
    repeat = (3, 10, 10.0)

    def setup(self, n_calls):
        self.tree_at_state = build_state("tree_at", DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
        self.tuple_state = build_state("tuple", DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
        self.delta = jnp.float32(0.5)

    def time_tree_at(self, n_calls):
        compile_fresh_step("tree_at", self.tree_at_state, self.delta, DEFAULT_DEPTH, n_calls)

    def time_tuple(self, n_calls):
        compile_fresh_step("tuple", self.tuple_state, self.delta, DEFAULT_DEPTH, n_calls)
