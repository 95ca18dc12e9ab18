"""Reading every field of every node, by attribute on the Module (its own ``__getattribute__`` since Equinox
0.13.0) and by index on the tuple."""

from .module_ops import AttributeAccess
from .params import DEFAULT_DEPTH, DEFAULT_STATE_SIZE, DEPTHS
from .twins import _Costs, _InTreeMapPasses, _ModuleAndTuple, _ModuleAndTupleTimes, _Times
from .workloads import build_state


class _Access:
    def prepare(self, depth):
        self.operations = {
            "module": AttributeAccess(build_state("tree_at", DEFAULT_STATE_SIZE, depth)),
            "tuple": AttributeAccess(build_state("tuple", DEFAULT_STATE_SIZE, depth)),
        }
        self.warm_up()


class AccessCost(_Access, _ModuleAndTuple, _Costs):
    params = [list(DEPTHS)]
    param_names = ["depth"]

    def setup(self, depth):
        self.prepare(depth)


class AccessInTreeMapPasses(_Access, _ModuleAndTuple, _InTreeMapPasses):
    """At the default depth."""

    def setup(self):
        self.prepare(DEFAULT_DEPTH)


class AccessTime(_Access, _ModuleAndTupleTimes, _Times):
    """One read of every field at the default depth."""

    def setup(self):
        self.prepare(DEFAULT_DEPTH)
