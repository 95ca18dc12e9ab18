"""The workloads: pytree builders, update steps and wrappings for the whole suite.

Every benchmark compares two *structures* that hold the same arrays: ``"tree_at"``, a chain of ``depth`` nested
``eqx.Module`` nodes (``Node``) updated with ``eqx.tree_at``, and ``"tuple"``, the same chain of tuples
``(a, b, child)`` rebuilt along the path to the changed leaf.  Each node holds two array leaves of ``state_size``
elements; the deepest node's child is ``None``.

No JAX backend starts at import time: asv's forkserver imports the suite once and forks a child per benchmark, which is
only safe while the parent has no XLA thread pool.
"""

from __future__ import annotations

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
from jax import lax

from .params import DEFAULT_DEPTH, DEFAULT_N_CALLS, DEFAULT_STATE_SIZE, SCAN_LENGTH, STRUCTURES, WRAPPINGS


class Node(eqx.Module):
    a: jax.Array
    b: jax.Array
    child: Node | None


class PlainNode:
    """A node that JAX flattens through Python callbacks, as it does a Module, but with no Equinox code: the tree
    that ``tree_map_pass`` walks."""

    __slots__ = ("a", "b", "child")

    def __init__(self, a, b, child):
        self.a, self.b, self.child = a, b, child


jax.tree_util.register_pytree_node(
    PlainNode, lambda node: ((node.a, node.b, node.child), None), lambda _, children: PlainNode(*children)
)


def _leaf(state_size: int, level: int, field: int) -> jax.Array:
    # Distinct values per leaf: a step that updates the wrong leaf cannot produce its twin's arrays.
    return jnp.arange(state_size, dtype=jnp.float32) + (2 * level + field)


def build_state(structure: str, state_size: int, depth: int):
    """The initial state: a chain of ``depth`` nodes, root first; ``structure`` is one of ``STRUCTURES``, or
    ``"plain"`` (``PlainNode``)."""
    make_node = {"tree_at": Node, "tuple": lambda a, b, child: (a, b, child), "plain": PlainNode}[structure]
    node = None
    for level in reversed(range(depth)):
        node = make_node(_leaf(state_size, level, 0), _leaf(state_size, level, 1), node)
    return node


def leaves(state) -> list:
    return jax.tree_util.tree_leaves(state)


def descend(node, level: int):
    """The node ``level`` steps below ``node``, along ``child``."""
    for _ in range(level):
        node = node.child
    return node


def _tree_at_update(state: Node, level: int, combine, operand) -> Node:
    new_leaf = combine(descend(state, level).a, operand)
    return eqx.tree_at(lambda s: descend(s, level).a, state, new_leaf)


def _tuple_update(state: tuple, level: int, combine, operand) -> tuple:
    a, b, child = state
    if level == 0:
        return (combine(a, operand), b, child)
    return (a, b, _tuple_update(child, level - 1, combine, operand))


_UPDATES = {"tree_at": _tree_at_update, "tuple": _tuple_update}


def replace(leaf, value):
    """Pure surgery: the new leaf is a ready array, so no array op runs."""
    return value


def accumulate(leaf, delta):
    """A state update with arithmetic, as in a time-stepping loop."""
    return leaf + delta


def updated_levels(depth: int, n_calls: int) -> list[int]:
    """Which node each update touches: the deepest first, then upwards, cycling."""
    return [depth - 1 - k % depth for k in range(n_calls)]


def make_step(structure: str, depth: int, n_calls: int, combine=accumulate) -> Callable:
    """A step ``step(state, operand) -> state`` of ``n_calls`` updates: a new function object at each call, so that
    JAX's trace caches, keyed on the function, never hide tracing work."""
    update = _UPDATES[structure]
    levels = updated_levels(depth, n_calls)

    def step(state, operand):
        for level in levels:
            state = update(state, level, combine, operand)
        return state

    return step


class Surgery:
    """One eager step of pure surgery on a fixed state: ``n_calls`` updates that write the root's ``b`` into a
    node's ``a``, so that no array op runs."""

    def __init__(self, structure: str, state_size: int, depth: int, n_calls: int):
        self.state = build_state(structure, state_size, depth)
        self._step = make_step(structure, depth, n_calls, combine=replace)
        self._value = leaves(self.state)[1]

    def __call__(self):
        return self._step(self.state, self._value)


def _identity(leaf):
    return leaf


def tree_map_pass(state):
    """One ``jax.tree_util.tree_map`` over ``state``: flatten, a Python call per leaf, unflatten."""
    return jax.tree_util.tree_map(_identity, state)


def tree_map_unit() -> Callable[[], object]:
    """One ``tree_map_pass`` over the default ``PlainNode`` state: the time unit of every ``...InTreeMapPasses``
    benchmark.  ``bench_overhead.EagerSurgeryInTreeMapPasses`` builds its own in its ``setup``, part of its asv
    version: editing it would hide its history."""
    plain_state = build_state("plain", DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
    return lambda: tree_map_pass(plain_state)


def trace_fresh_step(structure: str, state, delta, depth: int, n_calls: int):
    """``make_jaxpr`` of a step made just now, so that no trace cache can answer."""
    return jax.make_jaxpr(make_step(structure, depth, n_calls))(state, delta)


def scan_deltas(length: int = SCAN_LENGTH) -> jax.Array:
    return jnp.linspace(0.1, 1.0, length, dtype=jnp.float32)


def wrap(step: Callable, wrapping: str) -> tuple[Callable, jax.Array]:
    """``step`` run the way ``wrapping`` names, with its operand: one step on a scalar delta, or for the scans
    ``SCAN_LENGTH`` steps over a vector of deltas, their body one object for the wrapper's lifetime, because scan
    caches its trace on the body function."""
    if wrapping not in WRAPPINGS:
        raise ValueError(f"unknown wrapping {wrapping!r}; expected one of {WRAPPINGS}")
    if wrapping == "eager":
        return step, jnp.float32(0.5)
    if wrapping == "jit":
        return jax.jit(step), jnp.float32(0.5)
    if wrapping == "filter_jit":
        return eqx.filter_jit(step), jnp.float32(0.5)

    def body(carry, delta):
        return step(carry, delta), None

    def scan(carry, deltas):
        return lax.scan(body, carry, deltas)[0]

    return (jax.jit(scan) if wrapping == "jit_scan" else scan), scan_deltas()


def calls(wrapping: str, state_size: int, wait: bool = True) -> dict:
    """Each twin's step as a zero-argument call, waited for or (``wait`` False) dispatched alone."""
    found = {}
    for structure in STRUCTURES:
        state = build_state(structure, state_size, DEFAULT_DEPTH)
        fn, operand = wrap(make_step(structure, DEFAULT_DEPTH, DEFAULT_N_CALLS), wrapping)
        found[structure] = lambda fn=fn, state=state, operand=operand: fn(state, operand)
        if wait:
            found[structure] = lambda call=found[structure]: jax.block_until_ready(call())
    return found
