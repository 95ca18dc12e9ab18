"""The Module's own operations beside their tuple twins, at the suite's defaults, as stored results hold them.

Each operation names its exact cost benchmark, its tree_map-pass time benchmark
and its one-call time benchmark (benchmarks/bench_construct.py, bench_update.py,
bench_access.py, bench_flatten.py), and for each twin the method and the params
of both.  The Module side's one call is what is profiled (judging/explain.py) to explain
a step of the operation's cost; its tree_map-pass time is what the confirm step
re-measures side by side.
"""

from dataclasses import dataclass

from benchmarks import metrics, params

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
    one_call: str  # module.Class of one call timed by asv: its time_ methods are the track_ ones of ``time``

    @property
    def timed(self) -> tuple[str, str]:
        """(benchmark, params) of the Module side's time in tree_map passes, as asv names them."""
        return f"{self.time}.{self.module.method}", asv_params(self.module.time_params)

    @property
    def profiled(self) -> str:
        """The Module side's one call, "module.Class.time_method(params)", as asv names it."""
        method = self.module.method.replace("track_", "time_", 1)
        return metrics.entry(f"{self.one_call}.{method}", asv_params(self.module.time_params))

    def figures(self, result) -> tuple:
        """(Module cost, tuple cost, Module passes, tuple passes) in one asv result; None where not measured."""
        return tuple(
            values(result, f"{benchmark}.{side.method}").get(getattr(side, f"{measure}_params"))
            for benchmark, measure in ((self.cost, "cost"), (self.time, "time"))
            for side in (self.module, self.tuple_)
        )


def asv_params(values: tuple) -> str:
    """Params as asv writes them in a benchmark's name: strings quoted, numbers bare."""
    return ", ".join(value if value.isdigit() else repr(value) for value in values)


def _construction(init: str, label: str) -> Operation:
    cost, time = (init, FIELDS, DEPTH), (init,)
    return Operation(
        label,
        "bench_construct.ConstructionCost",
        "bench_construct.ConstructionInTreeMapPasses",
        Side("track_module", cost, time),
        Side("track_tuple", cost, time),
        "bench_construct.ConstructionTime",
    )


WAY_LABELS = {"tree_at": "`eqx.tree_at`", "replace": "`dataclasses.replace`", "construct": "new Modules"}


def _update(way: str) -> Operation:
    return Operation(
        f"update one field: {WAY_LABELS[way]}",
        "bench_update.UpdateCost",
        "bench_update.UpdateInTreeMapPasses",
        Side("track_update", (way, "default", DEPTH), (way,)),
        Side("track_update", ("tuple", "default", DEPTH), ("tuple",)),
        "bench_update.UpdateTime",
    )


def _flatten(direction: str) -> Operation:
    return Operation(
        direction,
        "bench_flatten.FlattenCost",
        "bench_flatten.FlattenInTreeMapPasses",
        Side(f"track_{direction}_module", (FIELDS, DEPTH), ()),
        Side(f"track_{direction}_tuple", (FIELDS, DEPTH), ()),
        "bench_flatten.FlattenTime",
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
        "bench_access.AccessTime",
    ),
    _flatten("flatten"),
    _flatten("unflatten"),
)


def figures(result) -> dict[str, tuple]:
    """{operation label: its four figures} for the operations this result measured at all."""
    found = {operation.label: operation.figures(result) for operation in OPERATIONS}
    return {label: figures for label, figures in found.items() if any(value is not None for value in figures)}
