"""The Module's own operations beside their tuple twins, at the suite's defaults, as stored results hold them.

Each operation names its exact cost benchmark and its tree_map-pass time benchmark
(benchmarks/bench_construct.py, bench_update.py, bench_access.py, bench_flatten.py),
and for each twin the method and the params of both.
"""

from dataclasses import dataclass

from benchmarks import params

from .results import values

FIELDS, DEPTH = str(params.DEFAULT_N_FIELDS), str(params.DEFAULT_DEPTH)


@dataclass(frozen=True)
class Side:
    method: str
    cost_params: tuple
    time_params: tuple


@dataclass(frozen=True)
class Operation:
    label: str
    cost: str  # module.Class of the exact cost
    time: str  # module.Class of the time in tree_map passes
    module: Side
    tuple_: Side

    def figures(self, result) -> tuple:
        """(Module cost, tuple cost, Module passes, tuple passes) in one asv result; None where not measured."""
        return tuple(
            values(result, f"{benchmark}.{side.method}").get(getattr(side, f"{measure}_params"))
            for benchmark, measure in ((self.cost, "cost"), (self.time, "time"))
            for side in (self.module, self.tuple_)
        )


def _construction(init: str, label: str) -> Operation:
    cost, time = (init, FIELDS, DEPTH), (init,)
    return Operation(
        label,
        "bench_construct.ConstructionCost",
        "bench_construct.ConstructionInTreeMapPasses",
        Side("track_module", cost, time),
        Side("track_tuple", cost, time),
    )


WAY_LABELS = {"tree_at": "`eqx.tree_at`", "replace": "`dataclasses.replace`", "construct": "new Modules"}


def _update(way: str) -> Operation:
    return Operation(
        f"update one field: {WAY_LABELS[way]}",
        "bench_update.UpdateCost",
        "bench_update.UpdateInTreeMapPasses",
        Side("track_update", (way, "default", DEPTH), (way,)),
        Side("track_update", ("tuple", "default", DEPTH), ("tuple",)),
    )


def _flatten(direction: str) -> Operation:
    return Operation(
        direction,
        "bench_flatten.FlattenCost",
        "bench_flatten.FlattenInTreeMapPasses",
        Side(f"track_{direction}_module", (FIELDS, DEPTH), ()),
        Side(f"track_{direction}_tuple", (FIELDS, DEPTH), ()),
    )


OPERATIONS = (
    _construction("default", "construction, generated `__init__`"),
    _construction("custom", "construction, custom `__init__`"),
    *(_update(way) for way in params.UPDATE_WAYS if way != "tuple"),
    Operation(
        "attribute access",
        "bench_access.AccessCost",
        "bench_access.AccessInTreeMapPasses",
        Side("track_module", (DEPTH,), ()),
        Side("track_tuple", (DEPTH,), ()),
    ),
    _flatten("flatten"),
    _flatten("unflatten"),
)


def figures(result) -> dict[str, tuple]:
    """{operation label: its four figures} for the operations this result measured at all."""
    found = {operation.label: operation.figures(result) for operation in OPERATIONS}
    return {label: figures for label, figures in found.items() if any(value is not None for value in figures)}
