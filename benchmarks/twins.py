"""What every benchmark of a Module operation measures of each twin (``self.operations``,
``{twin: zero-argument callable}``, built by its ``setup``): the exact cost, the
time in tree_map passes, and one call timed by asv.

The classes start with ``_`` so that asv looks for benchmarks only in their subclasses.
"""

from .instruments import interleaved_ratio, python_cost
from .workloads import tree_map_unit


class _Twins:
    def warm_up(self):
        # First calls fill caches (lazy imports, functools caches) that later calls skip.
        for operation in self.operations.values():
            operation()


class _Costs(_Twins):
    """The exact cost (``instruments.python_cost``) of one call of each twin."""

    unit = "weighted instructions"

    def measure(self, twin):
        return python_cost(self.operations[twin])


class _InTreeMapPasses(_Twins):
    """One call of each twin in ``tree_map_unit`` passes, timed right beside it for a quarter of a second: these
    do not alert (benchmarks/metrics.py)."""

    unit = "tree_map passes"
    seconds = 0.25

    def warm_up(self):
        super().warm_up()
        self.one_pass = tree_map_unit()

    def measure(self, twin):
        return interleaved_ratio(self.operations[twin], self.one_pass, self.seconds)


class _Times(_Twins):
    """One call of each twin, timed by asv, never counted: the call that ``asv profile`` profiles to explain a step of
    the operation's cost (judging/explain.py), since the counters are the interpreter's profile function."""

    def call(self, twin):
        self.operations[twin]()


class _ModuleAndTuple:
    """The twins as ``track_module`` and ``track_tuple``, from ``self.operations["module"]`` and ``["tuple"]``."""

    def track_module(self, *params):
        return self.measure("module")

    def track_tuple(self, *params):
        return self.measure("tuple")


class _ModuleAndTupleTimes:
    """The twins as ``time_module`` and ``time_tuple``, one call each (``_Times``)."""

    def time_module(self, *params):
        self.call("module")

    def time_tuple(self, *params):
        self.call("tuple")
