"""Eager pytree surgery: the Python cost of one step of updates on concrete arrays.

The step only swaps leaves for ready arrays (``workloads.Surgery``), so no array
operation runs and the time is the surgery alone.
"""

from .params import DEFAULT_STATE_SIZE, DEPTHS, N_CALLS
from .workloads import Surgery


class _EagerSurgery:
    def _prepare(self, state_size, depth, n_calls):
        self.tree_at_surgery = Surgery("tree_at", state_size, depth, n_calls)
        self.tuple_surgery = Surgery("tuple", state_size, depth, n_calls)
        # First calls fill caches (lazy imports, functools caches), so that even a single call
        # (asv profile runs the benchmark once) measures the steady cost.
        self.tree_at_surgery()
        self.tuple_surgery()

    def time_tree_at(self, *params):
        self.tree_at_surgery()

    def time_tuple(self, *params):
        self.tuple_surgery()


class EagerSurgery(_EagerSurgery):
    """Eager time per step against depth and number of updates.

    ``state_size`` is left out: surgery copies no array (``bench_memory``'s copied bytes), so it cannot matter.
    """

    params = [list(DEPTHS), list(N_CALLS)]
    param_names = ["depth", "n_calls"]

    def setup(self, depth, n_calls):
        self._prepare(DEFAULT_STATE_SIZE, depth, n_calls)
