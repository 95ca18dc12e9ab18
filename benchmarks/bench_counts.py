"""Deterministic metrics: counts that machine noise cannot move.

A change in any of them is a real change in the code that ran, so a
regression gate can trust them where it must doubt timings.  ``PythonCost``
is the one the gate judges Python work on; ``PythonCalls`` and
``BytecodeInstructions`` are the diagnostics it is made of (metrics.py).
"""

from .instruments import count_bytecodes, count_python_calls, jaxpr_equation_count, python_cost
from .params import DEFAULT_DEPTH, DEFAULT_STATE_SIZE, DEPTHS, N_CALLS, WRAPPINGS
from .workloads import Surgery, build_state, make_step, wrap


class _SurgeryCount:
    """One eager update (``n_calls=1``), so that a count is per ``tree_at`` call;
    ``tree_at`` walks the whole tree, so its counts grow with ``depth``."""

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
    """The exact cost of one eager ``tree_at`` update, and of its tuple twin, in weighted instructions:
    bytecode instructions + ``metrics.CALL_WEIGHT`` (16) x Python calls.

    Noise-free like the counts, and proportional to the time: the weight was
    fitted against tree_at's measured time over every release (docs/cost-metric.md).
    """

    unit = "weighted instructions"
    count = staticmethod(python_cost)


class JaxprExcessEquations:
    """|equations of the ``tree_at`` program - equations of the tuple program|.

    Expected to be 0 under every tracing wrapping: any other value means
    pytree surgery leaked into the compiled program.  Nested jaxprs (the jit
    and scan bodies) are counted too.  ``depth`` is fixed: a deeper state only
    adds leaves that both programs pass through untouched, while each update
    adds an equation, so ``n_calls`` is the dimension that could expose a leak.
    """

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
