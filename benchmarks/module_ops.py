"""The Module's own operations, each beside its tuple twin: construction, the ways to update one field, attribute
access, flattening and unflattening.

A state is a chain of ``depth`` nodes, each with ``n_fields`` array fields ``f0, f1, ...`` and a ``child``: an
instance of ``module_class(n_fields, init)``, or the same chain of tuples.  Every operation takes ready arrays, so that
no array operation runs and the time is the Python work alone.  No JAX backend starts at import time.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp

from .params import UPDATE_WAYS
from .workloads import descend


def field_names(n_fields: int) -> tuple[str, ...]:
    return (*(f"f{index}" for index in range(n_fields)), "child")


@functools.cache
def module_class(n_fields: int, init: str) -> type:
    """A Module with ``n_fields`` array fields and a ``child``; ``init`` is ``"default"`` (the dataclass ``__init__``
    Equinox generates) or ``"custom"`` (one that assigns each field, as the seed discussion's ``State`` does)."""
    names = field_names(n_fields)
    namespace = {"__annotations__": dict.fromkeys(names, object), "__module__": __name__}
    if init == "custom":

        def __init__(self, *values):
            for name, value in zip(names, values, strict=True):
                setattr(self, name, value)

        namespace["__init__"] = __init__
    elif init != "default":
        raise ValueError(f"unknown init {init!r}; expected 'default' or 'custom'")
    name = f"Node{n_fields}{init.title()}Init"
    return types.new_class(name, (eqx.Module,), exec_body=lambda ns: ns.update(namespace))


def level_arrays(n_fields: int, depth: int) -> list[tuple[jax.Array, ...]]:
    """The arrays of each node, root first, all distinct: a twin that misplaces one cannot compute the same state."""
    return [
        tuple(jnp.full((1,), 1000 * level + field, dtype=jnp.float32) for field in range(n_fields))
        for level in range(depth)
    ]


def _tuple_node(*fields):
    return fields


def node_maker(structure: str, n_fields: int, init: str) -> Callable:
    return module_class(n_fields, init) if structure == "module" else _tuple_node


def build_chain(make_node: Callable, levels: list[tuple]) -> object:
    """The chain of nodes holding ``levels``' arrays, built deepest first as a user builds it."""
    node = None
    for arrays in reversed(levels):
        node = make_node(*arrays, node)
    return node


def build(structure: str, n_fields: int, depth: int, init: str = "default"):
    return build_chain(node_maker(structure, n_fields, init), level_arrays(n_fields, depth))


class Construction:
    """Building a whole state from ready arrays: ``State(...)`` against ``(...)``."""

    def __init__(self, structure: str, n_fields: int, depth: int, init: str):
        self.make_node = node_maker(structure, n_fields, init)
        self.levels = level_arrays(n_fields, depth)

    def __call__(self):
        return build_chain(self.make_node, self.levels)


# ---- the ways to update one field: f0 of the deepest node, set to a ready array


def _update_with_tree_at(state, level: int, value):
    return eqx.tree_at(lambda s: descend(s, level).f0, state, value)


def _update_with_replace(node, level: int, value):
    if level == 0:
        return dataclasses.replace(node, f0=value)
    return dataclasses.replace(node, child=_update_with_replace(node.child, level - 1, value))


def _update_by_construction(node, level: int, value, names: tuple[str, ...]):
    fields = [getattr(node, name) for name in names]
    if level == 0:
        fields[0] = value
    else:
        fields[-1] = _update_by_construction(node.child, level - 1, value, names)
    return type(node)(*fields)


def _update_tuple(node: tuple, level: int, value) -> tuple:
    if level == 0:
        return (value, *node[1:])
    return (*node[:-1], _update_tuple(node[-1], level - 1, value))


_UPDATES = {
    "tree_at": _update_with_tree_at,
    "replace": _update_with_replace,
    "construct": _update_by_construction,
    "tuple": _update_tuple,
}


def way_applies(way: str, init: str) -> bool:
    """``dataclasses.replace`` calls ``__init__`` with every field by name, which a custom
    ``__init__`` that takes its own arguments does not accept."""
    return not (way == "replace" and init == "custom")


def updater(way: str, n_fields: int) -> Callable:
    """``update(state, level, value)``: the state with ``f0`` at ``level`` set to ``value``, by ``way``."""
    if way not in UPDATE_WAYS:
        raise ValueError(f"unknown way {way!r}; expected one of {UPDATE_WAYS}")
    if way == "construct":
        # A new Module is built from each field read by name, as a user's code names them.
        return functools.partial(_update_by_construction, names=field_names(n_fields))
    return _UPDATES[way]


def structure_of(way: str) -> str:
    return "tuple" if way == "tuple" else "module"


class FieldUpdate:
    """One update of ``f0`` at the deepest node, by one of ``UPDATE_WAYS``, to the root's ``f0``: no new array."""

    def __init__(self, way: str, n_fields: int, depth: int, init: str):
        self._update = updater(way, n_fields)
        if not way_applies(way, init):
            raise NotImplementedError(f"{way} does not apply to a Module with a custom __init__")
        self.state = build(structure_of(way), n_fields, depth, init)
        self.level = depth - 1
        self.value = jax.tree_util.tree_leaves(self.state)[0]

    def __call__(self):
        return self._update(self.state, self.level, self.value)


# ---- reading fields, flattening and unflattening


class AttributeAccess:
    """Reading every field of every node of a ``workloads`` state: by attribute on the Module, by index on the
    tuple."""

    def __init__(self, state):
        self.state = state
        self._read = _read_attributes if isinstance(state, eqx.Module) else _read_items

    def __call__(self):
        return self._read(self.state)


def _read_attributes(node):
    read = []
    while node is not None:
        read.append(node.a)
        read.append(node.b)
        node = node.child
    return read


def _read_items(node):
    read = []
    while node is not None:
        read.append(node[0])
        read.append(node[1])
        node = node[2]
    return read


def flatten(state):
    return jax.tree_util.tree_flatten(state)


class Unflatten:
    """Rebuilding a state from its leaves and treedef, as ``jit`` does on each call's outputs."""

    def __init__(self, state):
        self.leaves, self.treedef = flatten(state)

    def __call__(self):
        return jax.tree_util.tree_unflatten(self.treedef, self.leaves)
