"""The seed question, as its author wrote it: a ``State`` Module updated with two
``tree_at`` calls per step in a 1000-step ``lax.scan``, against the tuple version.

The scenario lives here, beside its only benchmark.  Its Module classes start
with ``_`` so that asv does not look for benchmarks in them.
"""

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
from jax import lax

from .instruments import Steady, interleaved_ratio


def update_y(x):
    return x**2


class _SeedState(eqx.Module):
    """The seed discussion's state, kept as its author wrote it."""

    x: jax.Array
    y: jax.Array

    def __init__(self, n_s):
        self.x = jnp.linspace(0, 1, n_s)
        self.y = update_y(self.x)


class _SeedModel(eqx.Module):
    def update_state(self, x, dx):
        x = x + dx
        return x, update_y(x)


SEED_STATE_SIZE = 1000
SEED_STEPS = 1000


def seed_time_stepping(structure: str) -> Callable:
    """The seed's scan body: ``tree_at`` on ``_SeedState``, or the plain tuple version."""
    model = _SeedModel()
    if structure == "tree_at":

        def time_stepping(state, dx):
            new_x, new_y = model.update_state(state.x, dx)
            state = eqx.tree_at(lambda t: t.x, state, new_x)
            state = eqx.tree_at(lambda t: t.y, state, new_y)
            return state, new_y

    else:

        def time_stepping(state, dx):
            x, y = state
            new_x, new_y = model.update_state(x, dx)
            return (new_x, new_y), new_y

    return time_stepping


def make_seed_runner(structure: str, jit: bool, jit_with: Callable = jax.jit) -> Callable:
    """The seed's ``lax.scan`` of ``SEED_STEPS`` steps, optionally inside ``jit_with``."""
    state = _SeedState(SEED_STATE_SIZE)
    if structure == "tuple":
        state = (state.x, state.y)
    dx_array = jnp.linspace(0.1, 1, SEED_STEPS)
    time_stepping = seed_time_stepping(structure)

    def scan(carry, xs):
        return lax.scan(time_stepping, carry, xs)

    fn = jit_with(scan) if jit else scan

    def run():
        return jax.block_until_ready(fn(state, dx_array))

    run()
    return run


class SeedScenario(Steady):
    params = [["scan", "jit_scan"]]
    param_names = ["wrapping"]

    def prepare(self, wrapping):
        return {s: make_seed_runner(s, wrapping == "jit_scan") for s in ("tree_at", "tuple")}

    def time_tree_at(self, wrapping):
        self.ready(wrapping)["tree_at"]()

    def time_tuple(self, wrapping):
        self.ready(wrapping)["tuple"]()

    def track_overhead_ratio(self, wrapping):
        calls = self.ready(wrapping)
        return interleaved_ratio(calls["tree_at"], calls["tuple"])

    track_overhead_ratio.unit = "ratio"


class SeedScenarioFilterJit(SeedScenario):
    """The seed's scan inside ``eqx.filter_jit``, as its users more often write it.

    A class of its own, not a value of ``SeedScenario``'s wrapping: a new value would change the params of
    ``scan`` and ``jit_scan``, and hide their history.
    """

    params = [["filter_jit_scan"]]

    def prepare(self, wrapping):
        return {s: make_seed_runner(s, True, jit_with=eqx.filter_jit) for s in ("tree_at", "tuple")}
