"""Memory: updating a large state (one node, two leaves of 64 MiB) must copy no array; a copy would raise the peak
by 64 MiB, and ``copied_bytes`` says the same deterministically.
"""

from .instruments import copied_bytes
from .params import DEFAULT_N_CALLS
from .workloads import Surgery

LARGE_STATE_SIZE = 16 * 1024 * 1024  # float32 elements per leaf: 64 MiB
LARGE_STATE_DEPTH = 1


class LargeStateUpdate:
    # Both structures are built for either twin, so that their baselines match.
    def setup(self):
        self.tree_at_surgery = Surgery("tree_at", LARGE_STATE_SIZE, LARGE_STATE_DEPTH, DEFAULT_N_CALLS)
        self.tuple_surgery = Surgery("tuple", LARGE_STATE_SIZE, LARGE_STATE_DEPTH, DEFAULT_N_CALLS)

    def peakmem_tree_at(self):
        self.tree_at_surgery()

    def peakmem_tuple(self):
        self.tuple_surgery()

    def track_copied_bytes_tree_at(self):
        return copied_bytes(self.tree_at_surgery.state, self.tree_at_surgery())

    def track_copied_bytes_tuple(self):
        return copied_bytes(self.tuple_surgery.state, self.tuple_surgery())

    track_copied_bytes_tree_at.unit = "bytes"
    track_copied_bytes_tuple.unit = "bytes"
