"""Flattening a state and unflattening it back: what ``jit`` pays at every call, for its arguments and outputs."""

from .module_ops import Unflatten, build, flatten
from .params import DEFAULT_DEPTH, DEFAULT_N_FIELDS, DEPTHS, N_FIELDS
from .twins import _Costs, _InTreeMapPasses, _Times


class _FlattenOperations:
    def prepare(self, n_fields, depth):
        module, tuple_ = (build(structure, n_fields, depth) for structure in ("module", "tuple"))
        self.operations = {
            "flatten_module": lambda: flatten(module),
            "flatten_tuple": lambda: flatten(tuple_),
            "unflatten_module": Unflatten(module),
            "unflatten_tuple": Unflatten(tuple_),
        }
        self.warm_up()


class _Flatten(_FlattenOperations):
    def track_flatten_module(self, *params):
        return self.measure("flatten_module")

    def track_flatten_tuple(self, *params):
        return self.measure("flatten_tuple")

    def track_unflatten_module(self, *params):
        return self.measure("unflatten_module")

    def track_unflatten_tuple(self, *params):
        return self.measure("unflatten_tuple")


class FlattenCost(_Flatten, _Costs):
    params = [list(N_FIELDS), list(DEPTHS)]
    param_names = ["n_fields", "depth"]

    def setup(self, n_fields, depth):
        self.prepare(n_fields, depth)


class FlattenInTreeMapPasses(_Flatten, _InTreeMapPasses):
    """At the default fields and depth."""

    def setup(self):
        self.prepare(DEFAULT_N_FIELDS, DEFAULT_DEPTH)


class FlattenTime(_FlattenOperations, _Times):
    """One flatten or unflatten at the default fields and depth."""

    def setup(self):
        self.prepare(DEFAULT_N_FIELDS, DEFAULT_DEPTH)

    def time_flatten_module(self):
        self.call("flatten_module")

    def time_flatten_tuple(self):
        self.call("flatten_tuple")

    def time_unflatten_module(self):
        self.call("unflatten_module")

    def time_unflatten_tuple(self):
        self.call("unflatten_tuple")
