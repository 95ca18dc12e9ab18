"""benchtools/trial/headline.py: the headline figures over fresh processes, and the interval that holds a second
run's median (scripts/headline)."""

import json
import random
import statistics
import sys
import types

import pytest

from benchtools.trial import headline
from tests.helpers import command, table_cells


def test_the_negative_hypergeometric_is_a_distribution():
    for n, k in ((10, 1), (16, 2), (9, 3)):
        assert headline.below_probability(n, k, 0) == pytest.approx(1.0)
        # P(U >= u) falls as u grows.
        tail = [headline.below_probability(n, k, u) for u in range(n + 1)]
        assert tail == sorted(tail, reverse=True)


@pytest.mark.parametrize("n", [9, 10, 16, 20])
def test_a_second_run_s_median_falls_in_the_interval_as_often_as_it_claims(n):
    rng = random.Random(n)
    trials, held = 4000, 0
    for _ in range(trials):
        first = [rng.lognormvariate(0, 0.1) for _ in range(n)]
        second = [rng.lognormvariate(0, 0.1) for _ in range(n)]
        low, high = headline.second_run_interval(first)
        held += low <= statistics.median(second) <= high
    assert held / trials >= headline.CONFIDENCE - 0.01  # 4,000 trials: a 1% margin is 4 standard errors


def test_the_interval_is_the_narrowest_that_holds_and_too_few_processes_get_none():
    assert headline.second_run_interval([float(v) for v in range(8)]) is None
    assert headline.second_run_interval([float(v) for v in range(10)]) == (0.0, 9.0)  # [min, max]
    assert headline.second_run_interval([float(v) for v in range(16)]) == (1.0, 14.0)  # the 2nd of each end
    values = [5.0, 1.0, 3.0, 9.0, 7.0, 2.0, 8.0, 4.0, 6.0, 0.0]
    assert headline.second_run_interval(values) == (0.0, 9.0)  # the order of the processes does not matter


class FakeSide:
    """One environment whose every process gives the figure's next value from a list."""

    def __init__(self, benchmarks):
        self.benchmarks = benchmarks
        self.calls = []
        # Its Python is this one, with JAX: the device is asked of it for real.
        self.env = types.SimpleNamespace(_path=sys.prefix)

    def open(self):
        self.calls.append("open")

    def close(self):
        self.calls.append("close")

    def value(self, name, index):
        self.calls.append(name)
        return float(sum(1 for call in self.calls if call == name))  # 1, 2, 3, ... per figure


def test_a_campaign_interleaves_the_figures_and_measures_the_exact_cost_once(tmp_path, monkeypatch):
    from benchtools.asvtools import sides
    from benchtools.judging import confirm
    from benchtools.running import bench

    # Each figure's benchmark with the parameter values its figures name (SteadyStateRatio: each wrapping's).
    listed = {}
    for f in headline.FIGURES:
        values = [[v] for v in f.params.split(", ")] if f.params else []
        known = listed.setdefault(f.benchmark, {"params": values})["params"]
        if known != values:
            known[0] += values[0]
    side = FakeSide(listed)
    monkeypatch.setattr(bench, "releases", lambda target: [("0.13.8", "c" * 40)])
    entry = {("python", None): "3.11", ("req", "jax"): "0.4.33"}
    monkeypatch.setattr(bench, "environments", lambda target: [("env", entry)])
    (tmp_path / "conf.json").write_text("{}")  # a configuration that the campaign loads once
    monkeypatch.setattr(bench.Target, "config", lambda self, entry, suffix: tmp_path / "conf.json")
    monkeypatch.setattr(confirm, "env_root", lambda config, conf: tmp_path / "confirm-env")
    prepared = []
    monkeypatch.setattr(
        sides, "prepare", lambda config, label, commits, names, root: prepared.append((commits, root)) or {"": side}
    )
    record_path = tmp_path / "record.json"
    record = headline.campaign(headline.Options(processes=3, record=record_path))
    assert prepared == [({"before": "c" * 40}, tmp_path / "confirm-env")]  # the confirm step's own environment
    assert json.loads(record_path.read_text()) == record
    [env] = record["environments"]
    values = {f["label"]: f["values"] for f in env["figures"]}
    cost = next(f for f in headline.FIGURES if f.exact)
    assert values[cost.label] == [1.0]  # measured once
    passes = headline.FIGURES[1]
    assert values[passes.label] == [1.0, 2.0, 3.0]
    # Interleaved: each process round runs every timing figure before the next round starts.
    measured = [c for c in side.calls if c not in ("open", "close")]
    assert measured[: len(headline.FIGURES)] == [f.benchmark for f in headline.FIGURES]
    assert side.calls[0] == "open" and side.calls[-1] == "close"
    assert env["device"] == "cpu"
    text = headline.table(record)
    rows = [cells for cells in table_cells(text) if cells[0].startswith("Python")]
    assert all(row[:2] == ["Python 3.11, jax 0.4.33", "cpu"] for row in rows)
    assert [row[-1] for row in rows] == ["exact", "steady"] and rows[1][-2] == "too few processes"


def record_of(shift: float = 0.0) -> dict:
    """A headline record of one environment: the exact cost, and 10 values 1.00 + shift, 1.01 + shift, ... of
    every timing figure."""
    figures = [
        {"label": f.label, "benchmark": f.benchmark, "params": f.params, "exact": f.exact,
         "values": [12359.0] if f.exact else [1.0 + shift + i / 100 for i in range(10)]}
        for f in headline.FIGURES
    ]  # fmt: skip
    return {
        "schema": 1, "release": "0.13.8", "commit": "c" * 40, "processes": 10, "confidence": 0.95,
        "launch_method": "spawn", "load_before": [0.1, 0, 0], "load_after": [0.2, 0, 0],
        "environments": [{"environment": "Python 3.11, jax 0.4.33", "figures": figures}],
    }  # fmt: skip


def test_the_command_prints_and_publishes_a_record_without_measuring(tmp_path):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_of()))
    docs = tmp_path / "page.md"
    docs.write_text("before\n<!-- headline:start -->\nold\n<!-- headline:end -->\nafter\n")
    done = command("headline", "--from-record", "--record", path, "--docs", docs)
    assert done.returncode == 0, done.stderr
    # A record from before the device was recorded: measured in asv's own environments, on the CPU.
    steady = ["Python 3.11, jax 0.4.33", "cpu", "one tree_at update, in tree_map passes", "1.04", "1.00 to 1.09"]
    assert [*steady, "steady"] in table_cells(done.stdout)
    assert ["12,359", "—", "exact"] in [cells[3:] for cells in table_cells(done.stdout)]
    assert "\nold\n" not in docs.read_text() and docs.read_text().startswith("before\n")
    bad = command("headline", "--processes", "1")
    assert bad.returncode == 2 and "at least 2 processes" in bad.stderr


def test_two_runs_agree_when_each_median_lies_in_the_other_s_interval():
    base = [1.0 + i / 100 for i in range(10)]  # median 1.045, interval [1.00, 1.09]
    first = {("env", "ratio"): base, ("env", "shifted"): base, ("env", "few"): base[:5], ("env", "alone"): base}
    second = {("env", "ratio"): [v + 0.02 for v in base], ("env", "shifted"): [v + 0.2 for v in base]}
    second[("env", "few")] = base[:5]
    text = headline.agreement_table(first, second, "a and b")
    agree = {cells[1]: cells[-1] for cells in table_cells(text) if cells[0] == "env"}
    assert agree == {"ratio": "yes", "shifted": "**no**", "few": "—"}  # only what both runs measured
    assert ["env", "shifted", "1.045", "1 to 1.09", "1.245", "1.2 to 1.29", "**no**"] in table_cells(text)
    assert "Agree: 1 of 3." in text


def test_the_command_reads_a_timing_noise_record_as_two_runs(tmp_path):
    rows = [
        {"benchmark": "bench_overhead.SteadyStateRatio.track_overhead_ratio", "params": "'jit'",
         "before_values": [1.2 + i / 100 for i in range(10)], "after_values": [1.21 + i / 100 for i in range(10)]},
        {"benchmark": "bench_overhead.TracingRatio.track_overhead_ratio", "params": "",
         "before_values": [1.8] * 10, "after_values": [2.5] * 10},
    ]  # fmt: skip
    path = tmp_path / "noise.json"
    path.write_text(json.dumps({"schema": 1, "environment": "Python 3.11, jax 0.4.33", "benchmarks": rows}))
    done = command("headline", "--timing-noise", path)
    assert done.returncode == 0, done.stderr
    rows = table_cells(done.stdout)
    assert [cells[1:3] for cells in rows if cells[1] == "SteadyStateRatio.track_overhead_ratio('jit')"] == [
        ["SteadyStateRatio.track_overhead_ratio('jit')", "1.245"]
    ]
    assert ["TracingRatio.track_overhead_ratio", "1.8", "1.8 to 1.8", "2.5", "2.5 to 2.5", "**no**"] in [
        cells[1:] for cells in rows
    ]
    missing = command("headline", "--timing-noise", tmp_path / "none.json")
    assert missing.returncode == 2 and "none.json" in missing.stderr


def test_two_runs_compared_write_their_own_block_and_leave_the_timing_noise_pair_s_alone(tmp_path):
    first, second = tmp_path / "run1.json", tmp_path / "run2.json"
    first.write_text(json.dumps(record_of(0.0)))
    second.write_text(json.dumps(record_of(0.02)))
    docs = tmp_path / "page.md"
    docs.write_text(
        "<!-- headline-agreement:start -->\nnoise pair\n<!-- headline-agreement:end -->\n"
        "<!-- headline-runs:start -->\nold\n<!-- headline-runs:end -->\n"
    )
    done = command("headline", "--record", second, "--agree-with", first, "--docs", docs)
    assert done.returncode == 0, done.stderr
    text = docs.read_text()
    assert "\nnoise pair\n" in text and "\nold\n" not in text
    timing = sum(not f.exact for f in headline.FIGURES)
    assert f"Agree: {timing} of {timing}." in text and "run2.json and run1.json" in text


def test_a_finished_run_says_how_long_it_took():
    record = record_of() | {"started": "2026-12-01T17:52:59Z", "finished": "2026-12-01T18:04:11Z"}
    assert "the run took 11.2 min" in headline.table(record)
    assert "the run took" not in headline.table(record_of())


def test_a_record_carries_each_timing_s_median_and_interval_for_the_page():
    values = [1.0 + i / 100 for i in range(10)]
    passes = headline.FIGURES[1]
    found = headline.figure_record(passes, values)
    assert found["scale"] == 1.0 and found["median"] == statistics.median(values)
    assert found["interval"] == headline.second_run_interval(values)
    assert headline.figure_record(passes, values[:3])["interval"] is None  # too few processes for one
    assert "interval" not in headline.figure_record(headline.FIGURES[0], [12359.0])  # exact: no interval


def test_a_record_from_before_the_time_ratios_moved_to_the_answer_shows_none_of_them():
    record = record_of()
    old = {"label": "jit time ratio", "benchmark": "bench_overhead.SteadyStateRatio.track_overhead_ratio"}
    record["environments"][0]["figures"].append(old | {"params": "'jit'", "exact": False, "values": [1.85] * 10})
    text = headline.table(record)
    assert "jit time ratio" not in text and "1.85" not in text
    assert [row[2] for row in table_cells(text)[1:]] == [f.label for f in headline.FIGURES]
