"""Tracing and compiling a step: where ``tree_at``'s Python work lands under ``jit``.

Every sample builds a fresh step function, because JAX caches traces and
executables on the function object and a cache hit would hide the work.
"""

import jax
import jax.numpy as jnp

from .common import DEFAULT_DEPTH, DEFAULT_STATE_SIZE, N_CALLS, build_state, make_step


class _FreshStep:
    params = [list(N_CALLS)]
    param_names = ["n_calls"]
    number = 1
    repeat = (3, 10, 10.0)

    def setup(self, n_calls):
        self.states = {
            structure: build_state(structure, DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
            for structure in ("tree_at", "tuple")
        }
        self.delta = jnp.float32(0.5)

    def _fresh(self, structure, n_calls):
        return make_step(structure, DEFAULT_DEPTH, n_calls), self.states[structure]


class Trace(_FreshStep):
    """``jax.make_jaxpr`` of a fresh step: pure tracing, no XLA."""

    def time_tree_at(self, n_calls):
        step, state = self._fresh("tree_at", n_calls)
        jax.make_jaxpr(step)(state, self.delta)

    def time_tuple(self, n_calls):
        step, state = self._fresh("tuple", n_calls)
        jax.make_jaxpr(step)(state, self.delta)


class Compile(_FreshStep):
    """``jax.jit(step).lower(...).compile()`` of a fresh step: tracing, lowering and XLA."""

    def time_tree_at(self, n_calls):
        step, state = self._fresh("tree_at", n_calls)
        jax.jit(step).lower(state, self.delta).compile()

    def time_tuple(self, n_calls):
        step, state = self._fresh("tuple", n_calls)
        jax.jit(step).lower(state, self.delta).compile()
