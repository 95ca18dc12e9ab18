"""benchmarks/metrics.py: the one declaration of each metric's kind and threshold."""

import json
import re

import pytest

from benchmarks import metrics
from tests.asv_sites import PASSES, TIMING
from tests.helpers import EXAMPLES


def test_an_entry_is_a_benchmark_at_its_params_as_asv_names_it():
    assert metrics.entry("bench_a.B.track_c", "'jit', 8") == "bench_a.B.track_c('jit', 8)"
    assert metrics.entry("bench_a.B.track_c", "") == "bench_a.B.track_c"


@pytest.mark.parametrize("entry", EXAMPLES)
def test_each_benchmark_has_one_kind_and_threshold(entry):
    name = entry.split("(")[0]
    kind, threshold = EXAMPLES[entry]
    assert metrics.kind(name) == metrics.kind(entry) == kind
    assert metrics.threshold(entry) == threshold


@pytest.mark.parametrize("entry", EXAMPLES)
@pytest.mark.parametrize("branch", ["", "@main"])
def test_asv_reads_the_derived_thresholds_as_the_registry_declares_them(entry, branch):
    # asv's step detection takes the largest threshold among the regexes that match "name(params)[@branch]".
    matching = [value for regex, value in metrics.asv_thresholds().items() if re.match(regex, entry + branch)]
    assert len(matching) == 1
    assert matching[0] == metrics.threshold(entry)


def test_the_tree_map_pass_metric_is_suspect_at_any_increase():
    assert metrics.suspect_threshold(PASSES) == 0.0
    assert metrics.threshold(PASSES) == 0.10  # the quick look keeps its threshold
    assert metrics.suspect_threshold(TIMING) is None


def test_every_rule_declares_whether_it_alerts_and_a_diagnostic_never_does():
    assert all(isinstance(rule.alerts, bool) for rule in metrics.RULES)
    # The Module operations' costs give way to their instruction counts; of the answer's figures the gate watches its
    # × at the median, per wrapping; the Module operations' tree_map-pass times wait for a measured MDE.
    not_alerting = [r.kind for r in metrics.RULES if not r.alerts]
    assert not_alerting == [
        metrics.INSTRUCTIONS,
        metrics.COST,
        metrics.DIAGNOSTIC,
        metrics.DETERMINISTIC,
        metrics.DIAGNOSTIC,
        *[metrics.RATIO] * 2,
        metrics.TIME,
    ]
    assert not metrics.alerting_timing("bench_update.UpdateInTreeMapPasses.track_update('tuple')")
    with pytest.raises(ValueError, match="never alerts"):
        metrics.Rule("bench_counts.PythonCalls.", metrics.DIAGNOSTIC, 1.0, alerts=True)
    assert not metrics.Rule("bench_counts.PythonCalls.", metrics.DIAGNOSTIC, 1.0, alerts=False).alerts
    assert metrics.Rule("bench_counts.PythonCost.", metrics.COST, 0.01, alerts=True).alerts
    answer = metrics.ANSWER_RATIO
    for wrapping in ("eager", "jit", "filter_jit", "scan", "jit_scan"):
        assert metrics.alerting_timing(f"{answer}({wrapping!r}, 'median')"), wrapping
        assert not metrics.alerting_timing(f"{answer}({wrapping!r}, 'low')"), wrapping
    assert metrics.suspect_threshold(f"{answer}('jit', 'median')") == 0.05
    assert metrics.alerting_timing(answer)  # by its name alone: check-pr runs it
    assert not metrics.alerting_timing("bench_eager.EagerSurgery.time_tree_at")
    assert not any(
        metrics.alerts(f"bench_answer.AnswerStep.track_{side}('jit', 'median')") for side in ("tree_at", "tuple")
    )
    assert not metrics.alerting_timing(metrics.COST_TREE_AT)  # exact: alerts, but is never re-measured


def test_an_operation_s_spread_is_measured_over_the_runs_that_counted_it(tmp_path):
    # The first run predates "dispatch": it is kept for "construct" and skipped for "dispatch".
    runs = [
        {"counts": {"construct": {"module": 100, "tuple": 50}}},
        {"counts": {"construct": {"module": 102, "tuple": 50}, "dispatch": {"module": 200, "tuple": 80}}},
        {"counts": {"construct": {"module": 101, "tuple": 51}, "dispatch": {"module": 210, "tuple": 80}}},
    ]
    path = tmp_path / "instruction_spread.json"
    path.write_text(json.dumps({"runs": runs, "environment": "3.11.7"}))
    assert metrics.measured_spreads(path) == pytest.approx(
        {
            ("construct", "module"): 0.02,
            ("construct", "tuple"): 0.02,
            ("dispatch", "module"): 0.05,
            ("dispatch", "tuple"): 0,
        }
    )


def test_an_operation_never_measured_gets_the_widest_module_spread_and_a_measured_one_its_own():
    assert metrics.instruction_spread("no such operation", "module") == metrics.INSTRUCTIONS_SPREAD > 0
    steadiest = min(metrics.INSTRUCTIONS_SPREADS, key=metrics.INSTRUCTIONS_SPREADS.get)
    assert (
        metrics.instruction_spread(*steadiest) == metrics.INSTRUCTIONS_SPREADS[steadiest] < metrics.INSTRUCTIONS_SPREAD
    )
