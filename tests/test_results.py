"""benchtools/asvtools/results.py: values read from a real asv result, and ``only`` refusing several."""

import pytest
from asv import results, runner

from benchtools.asvtools.results import only, values
from benchtools.errors import BadInput


def result_with(name: str, params: list, value: list) -> results.Results:
    result = results.Results({"machine": "m", "python": "3.11"}, {}, "0" * 40, 0, "3.11", "env", {})
    benchmark = {
        "name": name,
        "params": params,
        "param_names": [f"p{i}" for i in range(len(params))],
        "unit": "unit",
        "type": "track",
        "version": "1",
    }
    result.add_result(
        benchmark,
        runner.BenchmarkResult(
            result=value, samples=[None] * len(value), number=[None] * len(value), errcode=0, stderr="", profile=None
        ),
    )
    return result


def test_only_gives_the_value_of_a_benchmark_without_parameters():
    result = result_with("bench_x.Passes.track_one", [], [7.5])
    assert values(result, "bench_x.Passes.track_one") == {(): 7.5}
    assert only(values(result, "bench_x.Passes.track_one")) == 7.5
    assert only(values(result, "bench_x.Passes.not_there")) is None


def test_only_refuses_a_benchmark_with_several_values():
    result = result_with("bench_x.Passes.track_depth", [["1", "4"]], [1.0, 2.0])
    with pytest.raises(BadInput, match=r"found 2: \[\('1',\), \('4',\)\]"):
        only(values(result, "bench_x.Passes.track_depth"))
