"""What the instruction-count benchmarks count: each operation's Module (or ``tree_at``) twin and its tuple twin.

The table is plain data (no JAX at import), read by asv's parameter list and the tools; ``build`` makes the twins
inside the process that valgrind runs (``benchmarks/callgrind.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .params import (
    DEFAULT_DEPTH,
    DEFAULT_N_CALLS,
    DEFAULT_N_FIELDS,
    DEFAULT_STATE_SIZE,
    DEPTHS,
    INITS,
    STRUCTURES,
    UPDATE_WAYS,
)

TWINS = ("module", "tuple")
STRUCTURE_OF = dict(zip(TWINS, STRUCTURES, strict=True))  # each twin's workloads structure
DISPATCH_ALONE = "dispatch alone"  # beside "dispatch", the same call waited for (block_until_ready)


@dataclass(frozen=True)
class Counted:
    """One operation: ``kind`` names its builder in ``build``, ``argument`` what it builds; ``timed``, each twin's
    benchmark that times it in tree_map passes, ``(benchmark, params)``, which the gate re-measures side by side
    before a rise of the count is a regression."""

    kind: str
    argument: str | int | None = None
    calls: int = 50  # calls in the shorter window; the longer makes twice as many
    timed: tuple[tuple[str, str], tuple[str, str]] | None = None  # (module twin's, tuple twin's)

    @property
    def name(self) -> str:
        return self.kind if self.argument is None else f"{self.kind}({self.argument})"


def _timed(benchmark: str, module: str, tuple_: str, params: tuple[str, str] = ("", "")):
    return (f"{benchmark}.{module}", params[0]), (f"{benchmark}.{tuple_}", params[1])


def _tree_at_timed(depth: int):
    if depth != DEFAULT_DEPTH:
        return None
    return _timed("bench_overhead.EagerSurgeryInTreeMapPasses", "track_tree_at", "track_tuple")


OPERATIONS = {
    counted.name: counted
    for counted in (
        *(
            Counted("tree_at", depth, calls=20 if depth > DEFAULT_DEPTH else 50, timed=_tree_at_timed(depth))
            for depth in DEPTHS
        ),
        *(
            Counted(
                "construct",
                init,
                timed=_timed(
                    "bench_construct.ConstructionInTreeMapPasses", "track_module", "track_tuple", (f"'{init}'",) * 2
                ),
            )
            for init in INITS
        ),
        *(
            Counted(
                "update",
                way,
                timed=_timed(
                    "bench_update.UpdateInTreeMapPasses", "track_update", "track_update", (f"'{way}'", "'tuple'")
                ),
            )
            for way in UPDATE_WAYS
            if way != "tuple"
        ),
        Counted("access", timed=_timed("bench_access.AccessInTreeMapPasses", "track_module", "track_tuple")),
        *(
            Counted(
                kind,
                timed=_timed("bench_flatten.FlattenInTreeMapPasses", f"track_{kind}_module", f"track_{kind}_tuple"),
            )
            for kind in ("flatten", "unflatten")
        ),
        Counted("dispatch", "jit", calls=20),
        Counted("dispatch", "filter_jit", calls=20),
        # Last: every window of the operations above keeps its place in the counting process.
        Counted(DISPATCH_ALONE, "jit", calls=20),
        Counted(DISPATCH_ALONE, "filter_jit", calls=20),
    )
}


def build(name: str) -> dict[str, Callable[[], object]]:
    """``{"module": ..., "tuple": ...}``, the two zero-argument calls of operation ``name``."""
    import jax

    from . import module_ops, workloads

    counted = OPERATIONS[name]
    if counted.kind == "tree_at":
        return {
            twin: workloads.Surgery(structure, DEFAULT_STATE_SIZE, counted.argument, 1)
            for twin, structure in STRUCTURE_OF.items()
        }
    if counted.kind == "construct":
        return {
            twin: module_ops.Construction(twin, DEFAULT_N_FIELDS, DEFAULT_DEPTH, counted.argument) for twin in TWINS
        }
    if counted.kind == "update":
        return {
            twin: module_ops.FieldUpdate(way, DEFAULT_N_FIELDS, DEFAULT_DEPTH, INITS[0])
            for twin, way in zip(TWINS, (counted.argument, "tuple"), strict=True)
        }
    states = {
        twin: workloads.build_state(structure, DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
        for twin, structure in STRUCTURE_OF.items()
    }
    if counted.kind == "access":
        return {twin: module_ops.AttributeAccess(state) for twin, state in states.items()}
    if counted.kind == "flatten":
        return {twin: (lambda state=state: module_ops.flatten(state)) for twin, state in states.items()}
    if counted.kind == "unflatten":
        return {twin: module_ops.Unflatten(state) for twin, state in states.items()}
    if counted.kind in ("dispatch", DISPATCH_ALONE):
        waited = counted.kind == "dispatch"
        return {twin: _dispatch(structure, counted.argument, jax, waited) for twin, structure in STRUCTURE_OF.items()}
    raise ValueError(f"unknown counted operation {name!r}; expected one of {sorted(OPERATIONS)}")


def _dispatch(structure: str, wrapping: str, jax, waited: bool) -> Callable[[], object]:
    """One call of a compiled tiny step (one-element leaves): the work a jitted call does around its computation,
    ``waited`` for (``block_until_ready``) or not.  Nothing queues behind an unwaited call: jaxlib (0.7.2 and 0.10.2
    measured) runs a computation this small in the calling thread before the call returns, so every call of a window
    meets the same state."""
    from . import workloads

    state = workloads.build_state(structure, 1, DEFAULT_DEPTH)
    fn, operand = workloads.wrap(workloads.make_step(structure, DEFAULT_DEPTH, DEFAULT_N_CALLS), wrapping)
    if waited:
        return lambda: jax.block_until_ready(fn(state, operand))
    return lambda: fn(state, operand)
