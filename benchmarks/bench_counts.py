"""Deterministic metrics: counts that machine noise cannot move, so that the gate can trust them where it must doubt
timings.  ``PythonCost`` is the one it judges Python work on; the others explain it (metrics.py).
"""

from .instruments import count_bytecodes, count_python_calls, jaxpr_equation_count, python_cost
from .params import DEFAULT_DEPTH, DEFAULT_STATE_SIZE, DEPTHS, N_CALLS, WRAPPINGS
from .workloads import Surgery, build_state, make_step, wrap


class _SurgeryCount:
    """One eager update, so that a count is per ``tree_at`` call, which walks the whole tree: by ``depth``."""

    params = [list(DEPTHS)]
    param_names = ["depth"]

    def setup(self, depth):
        self.tree_at_surgery = Surgery("tree_at", DEFAULT_STATE_SIZE, depth, 1)
        self.tuple_surgery = Surgery("tuple", DEFAULT_STATE_SIZE, depth, 1)
        # First calls fill caches (lazy imports, functools caches) that later calls skip.
        self.tree_at_surgery()
        self.tuple_surgery()

    def track_tree_at(self, depth):
        return self.count(self.tree_at_surgery)

    def track_tuple(self, depth):
        return self.count(self.tuple_surgery)


class PythonCalls(_SurgeryCount):
    """Python function calls made by one eager ``tree_at`` update, and by its tuple twin."""

    unit = "calls"
    count = staticmethod(count_python_calls)


class BytecodeInstructions(_SurgeryCount):
    """Python bytecode instructions executed by one eager ``tree_at`` update, and by its tuple twin."""

    unit = "instructions"
    count = staticmethod(count_bytecodes)


class PythonCost(_SurgeryCount):
    """The exact cost of one eager ``tree_at`` update, and of its tuple twin: bytecode instructions +
    ``metrics.CALL_WEIGHT`` x Python calls, proportional to the time (docs/cost-metric.md)."""

    unit = "weighted instructions"
    count = staticmethod(python_cost)


class JaxprExcessEquations:
    """|equations of the ``tree_at`` program - the tuple program's|, nested jaxprs included: not 0 where pytree
    surgery leaked into the compiled program.  By ``n_calls``, not depth: each update adds an equation, a deeper
    state only leaves that both pass through untouched."""

    params = [[w for w in WRAPPINGS if w != "eager"], list(N_CALLS)]
    param_names = ["wrapping", "n_calls"]
    unit = "equations"

    def setup(self, wrapping, n_calls):
        self.counts = {}
        for structure in ("tree_at", "tuple"):
            fn, operand = wrap(make_step(structure, DEFAULT_DEPTH, n_calls), wrapping)
            state = build_state(structure, DEFAULT_STATE_SIZE, DEFAULT_DEPTH)
            self.counts[structure] = jaxpr_equation_count(fn, state, operand)

    def track_excess_equations(self, wrapping, n_calls):
        return abs(self.counts["tree_at"] - self.counts["tuple"])
