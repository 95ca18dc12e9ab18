"""The Module's own operations beside their tuple twins, at the suite's defaults, as stored results hold them."""

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
    source: str  # benchmarks/SOURCE.py
    stem: str
    module: Side
    tuple_: Side

    @property
    def cost(self) -> str:
        return f"{self.source}.{self.stem}Cost"

    @property
    def time(self) -> str:
        return f"{self.source}.{self.stem}InTreeMapPasses"

    @property
    def timed(self) -> tuple[str, str]:
        """(benchmark, params) of the Module side's time in tree_map passes."""
        return f"{self.time}.{self.module.method}", asv_params(self.module.time_params)

    @property
    def profiled(self) -> str:
        """The Module side's one call, "module.Class.time_method(params)"."""
        method = self.module.method.replace("track_", "time_", 1)
        return metrics.entry(f"{self.source}.{self.stem}Time.{method}", asv_params(self.module.time_params))

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


def _twins(
    label: str, source: str, stem: str, cost: tuple, time: tuple = (), methods=("track_module", "track_tuple")
) -> Operation:
    return Operation(label, source, stem, *(Side(method, cost, time) for method in methods))


WAY_LABELS = {"tree_at": "`eqx.tree_at`", "replace": "`dataclasses.replace`", "construct": "new Modules"}


def _update(way: str) -> Operation:
    return Operation(
        f"update one field: {WAY_LABELS[way]}",
        "bench_update",
        "Update",
        Side("track_update", (way, "default", DEPTH), (way,)),
        Side("track_update", ("tuple", "default", DEPTH), ("tuple",)),
    )


OPERATIONS = (
    *(
        _twins(f"construction, {kind} `__init__`", "bench_construct", "Construction", (init, FIELDS, DEPTH), (init,))
        for init, kind in (("default", "generated"), ("custom", "custom"))
    ),
    *(_update(way) for way in params.UPDATE_WAYS if way != "tuple"),
    _twins("attribute access", "bench_access", "Access", (DEPTH,)),
    *(
        _twins(way, "bench_flatten", "Flatten", (FIELDS, DEPTH), methods=(f"track_{way}_module", f"track_{way}_tuple"))
        for way in ("flatten", "unflatten")
    ),
)


def figures(result) -> dict[str, tuple]:
    found = {operation.label: operation.figures(result) for operation in OPERATIONS}
    return {label: figures for label, figures in found.items() if any(value is not None for value in figures)}
