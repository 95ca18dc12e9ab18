"""benchtools/judging/changes.py: a change, its kind, and the thresholds that decide whether it counts."""

import pytest

from benchmarks import metrics
from benchtools.errors import BadInput
from benchtools.judging import changes
from benchtools.judging.sources import Source
from tests.helpers import EXAMPLES


def test_a_diagnostic_has_its_kind_and_never_counts():
    name = "bench_counts.PythonCalls.track_tree_at"
    assert metrics.kind(name) == metrics.kind(name + "(4)") == metrics.DIAGNOSTIC
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {})
    assert not thresholds.counts(changes.Change(name, "4", "", 1.0, 1e12, "", "x", True, ""))


def test_the_gate_judges_by_the_registry():
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {})
    for entry, (kind, threshold) in EXAMPLES.items():
        name, _, params = entry.partition("(")
        change = changes.Change(name, params.rstrip(")"), "", 1.0, 1.0 + threshold + 1e-9, "", "x", True, "")
        assert change.kind == kind
        assert thresholds(change) == threshold
        # Beyond its threshold, a change counts exactly when its benchmark alerts (an absolute time never does).
        assert thresholds.counts(change) == metrics.alerts(entry)
        assert metrics.alerts(entry) or kind in (metrics.TIME, metrics.RATIO, metrics.COST, metrics.INSTRUCTIONS)
        assert not thresholds.counts(
            changes.Change(name, params.rstrip(")"), "", 1.0, 1.0 + threshold, "", "x", True, "")
        )


def test_a_whole_kind_can_be_overridden_but_not_negative():
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {metrics.RATIO: 0.2, metrics.TIME: None})
    ratio = changes.Change("bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at", "", "", 1, 1, "", "x", True, "")
    count = changes.Change(
        "bench_counts.JaxprExcessEquations.track_excess_equations", "'jit', 8", "", 1, 1, "", "x", True, ""
    )
    assert thresholds(ratio) == 0.2 and thresholds(count) == 0.0
    with pytest.raises(BadInput, match="threshold"):
        Source(time_threshold=-0.1)
