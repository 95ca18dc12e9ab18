"""The ways to update the deepest node's first field, beside each other: ``eqx.tree_at``, ``dataclasses.replace``
or new Modules down the path, and rebuilding the tuples.  ``replace`` does not apply to a Module with a custom
``__init__`` (``module_ops.way_applies``): asv shows those values as skipped.
"""

from .module_ops import FieldUpdate
from .params import DEFAULT_DEPTH, DEFAULT_N_FIELDS, DEPTHS, INITS, UPDATE_WAYS
from .twins import _Costs, _InTreeMapPasses, _Times


class _UpdateOperations:
    def prepare(self, way, init, n_fields, depth):
        # FieldUpdate raises NotImplementedError where the way does not apply: asv's skip.
        self.operations = {way: FieldUpdate(way, n_fields, depth, init)}
        self.warm_up()


class _Update(_UpdateOperations):
    def track_update(self, way, *params):
        return self.measure(way)


class UpdateCost(_Update, _Costs):
    """By depth; ``n_fields`` fixed at its default: ``bench_construct`` and ``bench_flatten`` show what more fields
    cost, and every asv value here is a process of its own."""

    params = [list(UPDATE_WAYS), list(INITS), list(DEPTHS)]
    param_names = ["way", "init", "depth"]

    def setup(self, way, init, depth):
        self.prepare(way, init, DEFAULT_N_FIELDS, depth)


class UpdateInTreeMapPasses(_Update, _InTreeMapPasses):
    """At the default fields and depth, with the generated ``__init__`` (the cost covers both)."""

    params = [list(UPDATE_WAYS)]
    param_names = ["way"]

    def setup(self, way):
        self.prepare(way, INITS[0], DEFAULT_N_FIELDS, DEFAULT_DEPTH)


class UpdateTime(_UpdateOperations, _Times):
    """One update at the default fields and depth, with the generated ``__init__``."""

    params = [list(UPDATE_WAYS)]
    param_names = ["way"]

    def setup(self, way):
        self.prepare(way, INITS[0], DEFAULT_N_FIELDS, DEFAULT_DEPTH)

    def time_update(self, way):
        self.call(way)
