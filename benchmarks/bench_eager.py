"""One eager ``tree_at`` update at the default sizes, and its tuple twin, timed by asv, never counted: the call that
``asv profile`` profiles to explain a step of tree_at's cost, as ``twins._Times`` is for each Module operation.
"""

from .params import DEFAULT_DEPTH, DEFAULT_STATE_SIZE, STRUCTURES
from .workloads import Surgery


class EagerSurgery:
    def setup(self):
        self.surgeries = {twin: Surgery(twin, DEFAULT_STATE_SIZE, DEFAULT_DEPTH, 1) for twin in STRUCTURES}
        for surgery in self.surgeries.values():
            surgery()  # fills the caches (lazy imports, functools caches) that a single profiled call would pay

    def time_tree_at(self):
        self.surgeries["tree_at"]()

    def time_tuple(self):
        self.surgeries["tuple"]()
