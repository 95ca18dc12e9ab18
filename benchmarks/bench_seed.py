"""The seed question, as its author wrote it: a ``State`` Module updated with two
``tree_at`` calls per step in a 1000-step ``lax.scan``, against the tuple version.
"""

from .common import interleaved_ratio, make_seed_runner


class SeedScenario:
    params = [["scan", "jit_scan"]]
    param_names = ["wrapping"]

    def setup(self, wrapping):
        jit = wrapping == "jit_scan"
        self.run_tree_at = make_seed_runner("tree_at", jit)
        self.run_tuple = make_seed_runner("tuple", jit)

    def time_tree_at(self, wrapping):
        self.run_tree_at()

    def time_tuple(self, wrapping):
        self.run_tuple()

    def track_overhead_ratio(self, wrapping):
        return interleaved_ratio(self.run_tree_at, self.run_tuple)

    track_overhead_ratio.unit = "ratio"
