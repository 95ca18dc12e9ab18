"""Steady-state time of a full step (surgery plus arithmetic) under each wrapping.

Compilation happens in ``setup``, so each sample is a warm call: under ``jit``
and ``jit_scan`` what is left of ``tree_at`` is the flattening of the Module
at dispatch; under ``eager`` and ``scan`` its Python work runs every call.
"""

from .params import DEFAULT_N_CALLS, DEFAULT_STATE_SIZE, DEPTHS, WRAPPINGS
from .workloads import make_runner


class SteadyState:
    """Time of one workload (one step; ``SCAN_LENGTH`` steps for scans).

    ``depth`` sets how much a dispatch must flatten.  ``n_calls`` is fixed: it
    changes eager time, which ``EagerSurgery`` covers, and cannot change the
    compiled program.  ``state_size`` is fixed: it changes the arithmetic,
    which is the same for both twins.
    """

    params = [list(WRAPPINGS), list(DEPTHS)]
    param_names = ["wrapping", "depth"]

    def setup(self, wrapping, depth):
        self.run_tree_at = make_runner("tree_at", wrapping, DEFAULT_STATE_SIZE, depth, DEFAULT_N_CALLS)
        self.run_tuple = make_runner("tuple", wrapping, DEFAULT_STATE_SIZE, depth, DEFAULT_N_CALLS)

    def time_tree_at(self, wrapping, depth):
        self.run_tree_at()

    def time_tuple(self, wrapping, depth):
        self.run_tuple()
