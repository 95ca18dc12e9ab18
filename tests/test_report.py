"""The overhead report never shows an absolute time bare: each comes with the spread asv kept for it."""

from asv import results, runner

from benchtools.publishing import report

EAGER = "bench_eager.EagerSurgery.time_{}"


def test_eager_times_are_shown_with_their_interquartile_range():
    result = results.Results({"machine": "m", "python": "3.11", "jax": "0.4.33"}, {"jax": "0.4.33"},
                             "0" * 40, 0, "3.11", "env", {})
    for twin, per_step in (("tree_at", 1.6e-3), ("tuple", 8e-6)):
        benchmark = {"name": EAGER.format(twin), "params": [["1", "4", "16"], ["1", "8", "64"]],
                     "param_names": ["depth", "n_calls"], "unit": "seconds", "type": "time", "version": "1"}
        samples = [[per_step * f for f in (0.8, 0.9, 1.0, 1.1, 1.2)]] * 9
        result.add_result(benchmark, runner.BenchmarkResult(result=[True] * 9, samples=samples, number=[1] * 9,
                                                            errcode=0, stderr="", profile=None))
    row = report.row_of(result, "v1")
    text = report.markdown(row)
    [line] = [line for line in text.splitlines() if line.startswith("| 4 |")]
    # 1.6 ms per step of 8 calls: 200 µs a call, the quartiles of the samples beside it.
    assert "| 200.0 (IQR 180.0–220.0) |" in line, line
    assert "IQR" in report.history_table([row])[2]
    assert "(IQR 180–220) µs in this run" in report.summary_sentence(row)
