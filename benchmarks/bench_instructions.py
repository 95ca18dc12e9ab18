"""Machine instructions per operation, counted under valgrind's callgrind: the exact metric that
also sees the work done in C (``dir()``, dicts and sets, jaxlib's pytree code), which the Python
cost cannot (benchmarks/callgrind.py).

Every operation of ``instruction_ops.OPERATIONS``: one ``tree_at`` update at each depth, the
Module's operations at the default fields and depth (construction with both ``__init__``, the
ways to update one field, attribute access, flatten, unflatten) and the dispatch of a jitted and
a ``filter_jit``-ted tiny step, waited for and alone, each beside its tuple twin.  One valgrind process per environment
and commit counts them all (``setup_cache``).  Where valgrind is missing, every value is skipped,
and asv's log says why.
"""

from . import callgrind
from .instruction_ops import OPERATIONS


class Instructions:
    params = [list(OPERATIONS)]
    param_names = ["operation"]
    unit = "instructions"
    timeout = 1800  # one valgrind process: about half a minute of JAX import, then every window

    def setup_cache(self):
        try:
            return callgrind.count(list(OPERATIONS))
        except callgrind.Unavailable as why:
            return {"unavailable": str(why)}

    setup_cache.timeout = timeout

    def setup(self, counts, operation):
        if "unavailable" in counts:
            raise NotImplementedError(f"instructions are not counted here: {counts['unavailable']}")
        if "failed" in counts[operation]:
            raise RuntimeError(f"{operation} failed in the callgrind process: {counts[operation]['failed']}")

    def track_module(self, counts, operation):
        return counts[operation]["module"]["instructions"]

    def track_tuple(self, counts, operation):
        return counts[operation]["tuple"]["instructions"]
