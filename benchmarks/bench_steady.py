"""Steady-state time of a full step (surgery plus arithmetic) under each wrapping.

Each sample is a steady call, its ``number`` calibrated as timeit's (``instruments.Steady``): under ``jit``
and ``jit_scan`` what is left of ``tree_at`` is the flattening of the Module
at dispatch; under ``eager`` and ``scan`` its Python work runs every call.
"""

from .instruments import Steady
from .params import DEFAULT_N_CALLS, DEFAULT_STATE_SIZE, DEPTHS, STRUCTURES, WRAPPINGS
from .workloads import make_runner


class SteadyState(Steady):
    """Time of one workload (one step; ``SCAN_LENGTH`` steps for scans).

    ``depth`` sets how much a dispatch must flatten.  ``n_calls`` is fixed: it
    changes eager time, which ``EagerSurgery`` covers, and cannot change the
    compiled program.  ``state_size`` is fixed: it changes the arithmetic,
    which is the same for both twins.
    """

    params = [list(WRAPPINGS), list(DEPTHS)]
    param_names = ["wrapping", "depth"]

    def prepare(self, wrapping, depth):
        return {s: make_runner(s, wrapping, DEFAULT_STATE_SIZE, depth, DEFAULT_N_CALLS) for s in STRUCTURES}

    def time_tree_at(self, wrapping, depth):
        self.ready(wrapping, depth)["tree_at"]()

    def time_tuple(self, wrapping, depth):
        self.ready(wrapping, depth)["tuple"]()
