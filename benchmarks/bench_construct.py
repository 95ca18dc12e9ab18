"""Building a state: a chain of Modules, ``State(...)``, against the same chain of tuples, ``(...)``, from ready
arrays (issue #899: 30 µs for a Module against 250 ns for a plain class), with either ``init`` (module_ops).
"""

from .module_ops import Construction
from .params import DEFAULT_DEPTH, DEFAULT_N_FIELDS, DEPTHS, INITS, N_FIELDS
from .twins import _Costs, _InTreeMapPasses, _ModuleAndTuple, _ModuleAndTupleTimes, _Times


class _Construction:
    def prepare(self, init, n_fields, depth):
        self.operations = {
            structure: Construction(structure, n_fields, depth, init) for structure in ("module", "tuple")
        }
        self.warm_up()


class ConstructionCost(_Construction, _ModuleAndTuple, _Costs):
    """By fields per node and nesting depth: the cost grows with both for the Module."""

    params = [list(INITS), list(N_FIELDS), list(DEPTHS)]
    param_names = ["init", "n_fields", "depth"]

    def setup(self, init, n_fields, depth):
        self.prepare(init, n_fields, depth)


class ConstructionInTreeMapPasses(_Construction, _ModuleAndTuple, _InTreeMapPasses):
    """At the default fields and depth."""

    params = [list(INITS)]
    param_names = ["init"]

    def setup(self, init):
        self.prepare(init, DEFAULT_N_FIELDS, DEFAULT_DEPTH)


class ConstructionTime(_Construction, _ModuleAndTupleTimes, _Times):
    """One construction at the default fields and depth."""

    params = [list(INITS)]
    param_names = ["init"]

    def setup(self, init):
        self.prepare(init, DEFAULT_N_FIELDS, DEFAULT_DEPTH)
