"""Machine instructions per operation of ``instruction_ops.OPERATIONS``, each beside its tuple twin, counted under
valgrind's callgrind (benchmarks/callgrind.py): the exact metric that also sees the work done in C.  One valgrind
process per environment and commit counts them all; where valgrind is missing, every value is skipped.
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
