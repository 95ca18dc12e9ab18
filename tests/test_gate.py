"""benchtools/judging/gate.py: scripts/regressions over results that asv itself wrote and published
(docs/gate.md).

Each test makes a real git history, writes results for chosen values through
asv's own Results class, runs the real `asv publish` (which does the step
detection), then runs the gate's command in-process, as the executable runs it. The levels on both
sides of asv's jumps (judging/steps.py) are tested on series directly.
"""

import dataclasses
import json
import math
import re
import types
from pathlib import Path

import pytest

from benchmarks import metrics
from benchtools.errors import BadInput
from benchtools.judging import confirm, explain, finding, pairs, recheck, render, steps, verdicts
from benchtools.judging.changes import Change
from benchtools.judging.finding import FailedCommit, Unjudged
from benchtools.judging.gate import Verdict, find_command
from benchtools.judging.sources import Source
from benchtools.project import VENV
from tests.asv_sites import (
    ABSOLUTE,
    BYTECODES,
    COST,
    COUNT,
    ENV,
    EQUATIONS,
    INSTRUCTIONS,
    MACHINE,
    NOT_ALERTING_RATIO,
    PASSES,
    RATIO,
    TIMING,
    commit,
    git,
    make_site,
)
from tests.golden import assert_golden
from tests.helpers import command


def gate(config, *args):
    """The gate's quick look (--no-confirm): these sites are written, not measured, so nothing can be re-run.

    tests/test_confirm.py tests the confirmed gate.
    """
    return command("regressions", "--config", config, "--machine", MACHINE, "--no-confirm", *args)


def judged(config, *args) -> tuple:
    """The quick look's run and the verdict document it wrote beside the site."""
    verdict = config.parent / "verdict.json"
    result = gate(config, *args, "--verdict", verdict)
    return result, json.loads(verdict.read_text())


def kinds(report: str) -> list[str]:
    """The kind of each counted row of a gate report, in order."""
    return [
        line.split("|")[1].strip()
        for line in report.splitlines()
        if line.startswith(("| deterministic |", "| cost |", "| ratio |", "| time |"))
    ]


def rows_of(report: str) -> list[str]:
    return [
        line
        for line in report.splitlines()
        if line.startswith(("| deterministic", "| cost", "| ratio", "| time", "| diagnostic"))
    ]


FLAT_TIMING = [[1.00e-3, 2.00e-3]] * 6
FLAT_COUNT = [[100, 400]] * 6
FLAT_COST = [[3000, 10000]] * 6


def test_a_jump_is_reported_with_the_commit_that_made_it(tmp_path):
    timing = FLAT_TIMING[:3] + [[1.60e-3, 2.00e-3]] * 3  # 'jit' +60% from v3 on
    cost = FLAT_COST[:4] + [[3000, 10400]] * 2  # depth 4: +4% from v4 on
    config = make_site(tmp_path, {TIMING: timing, ABSOLUTE: timing, COST: cost, COUNT: FLAT_COUNT})
    result, verdict = judged(config)
    assert result.returncode == 1, result.stdout + result.stderr

    def step(row):
        return row["kind"], row["benchmark"], row["params"], row["before"], row["after"], row["bad"], row["latest"]

    cost_step, ratio_step = verdict["counted"]
    assert step(cost_step) == ("cost", COST, "4", 10_000, 10_400, commit(config, "v4"), 10_400)
    assert cost_step["change"] == pytest.approx(0.04) and cost_step["threshold"] == pytest.approx(0.01)
    assert step(ratio_step) == ("ratio", TIMING, "'jit'", 1.0e-3, 1.6e-3, commit(config, "v3"), 1.6e-3)
    assert ratio_step["change"] == pytest.approx(0.6) and ratio_step["threshold"] == pytest.approx(0.5)
    # The report shows each counted step as one row, in the verdict's order.
    counted, _, not_alerting = result.stdout.partition("## Beyond their threshold, not alerting")
    assert [row.split(" | ")[1] for row in rows_of(counted)] == [f"`{COST}`", f"`{TIMING}`"]
    # The absolute time made the same step: listed apart, not counted.
    (shown,) = verdict["not_alerting"]
    assert step(shown) == ("time", ABSOLUTE, "'jit'", 1.0e-3, 1.6e-3, commit(config, "v3"), 1.6e-3)
    assert shown["change"] == pytest.approx(0.6) and shown["threshold"] == pytest.approx(0.5)
    assert [row.split(" | ")[1] for row in rows_of(not_alerting)] == [f"`{ABSOLUTE}`"]


def test_not_alerting_leads_with_what_could_decide_and_folds_the_single_runs_absolute_times(tmp_path):
    """A ratio that does not alert yet and an absolute time, both +60% at v3: the verdict marks which could
    decide; the report shows the ratio first and the absolute time only in a collapsed list, saying why."""
    timing = FLAT_TIMING[:3] + [[1.60e-3, 2.00e-3]] * 3
    ratio = [[1.0]] * 3 + [[1.6]] * 3
    config = make_site(tmp_path, {ABSOLUTE: timing, NOT_ALERTING_RATIO: ratio, COST: FLAT_COST})
    verdict = tmp_path / "verdict.json"
    result = gate(config, "--verdict", verdict)
    assert result.returncode == 0, result.stdout + result.stderr
    listed = json.loads(verdict.read_text())["not_alerting"]
    decides = {(row["benchmark"], row["params"]): row["could_decide"] for row in listed}
    assert decides == {(NOT_ALERTING_RATIO, ""): True, (ABSOLUTE, "'jit'"): False}
    _, _, section = result.stdout.partition("## Beyond their threshold, not alerting")
    lines = section.splitlines()
    opened, closed = lines.index("<details>"), lines.index("</details>")
    assert [row.split(" | ")[1] for row in rows_of("\n".join(lines[:opened]))] == [f"`{NOT_ALERTING_RATIO}`"]
    folded = "\n".join(lines[opened:closed])
    assert [row.split(" | ")[1] for row in rows_of(folded)] == [f"`{ABSOLUTE}`"]
    assert "<summary>1 absolute time(s) of one run beyond their threshold: not findings</summary>" in folded
    assert "Not findings: an absolute time of one run is a single draw" in folded


def test_absolute_times_alone_beyond_their_threshold_leave_no_ratio_to_show(tmp_path):
    config = make_site(tmp_path, {ABSOLUTE: FLAT_TIMING[:3] + [[1.60e-3, 2.00e-3]] * 3, COST: FLAT_COST})
    result = gate(config)
    _, _, section = result.stdout.partition("## Beyond their threshold, not alerting")
    assert (result.returncode, section.split("<details>")[0].strip().splitlines()[-1]) == (
        0,
        "No ratio beyond its threshold.",
    ), result.stdout


def test_a_step_is_its_own_size_and_what_is_left_of_it_is_shown_apart(tmp_path):
    # +60% at v2, partly undone at v4: asv's jump says 10,000 -> best after 12,000 (+20%).
    cost = [[3000, 10000]] * 2 + [[3000, 16000]] * 2 + [[3000, 12000]] * 2
    config = make_site(tmp_path, {COST: cost, COUNT: [[10, 240]] * 2 + [[10, 378]] * 4})
    jumps = json.loads((tmp_path / "html" / "regressions.json").read_text())["regressions"]
    assert [jump[2:] for entry in jumps for jump in entry[6]] == [[10000, 12000]]  # asv's own record
    result, verdict = judged(config)
    assert result.returncode == 1, result.stdout + result.stderr
    (row,) = verdict["counted"]
    assert (row["before"], row["after"], row["bad"], row["latest"]) == (10_000, 16_000, commit(config, "v2"), 12_000)
    assert row["change"] == pytest.approx(0.6)
    # The diagnostic at the same two commits.
    assert row["diagnostics"] == [{"benchmark": COUNT, "before": 240, "after": 378}]
    assert len(rows_of(result.stdout)) == 1


def test_diagnostics_never_count_and_a_cheaper_update_is_no_regression(tmp_path):
    # Calls rise by 10% at v3 while the bytecodes and the cost fall by 20%: tree_at got cheaper.
    calls = [[10, 400]] * 3 + [[10, 440]] * 3
    bytecodes = [[100, 8000]] * 3 + [[100, 5360]] * 3
    cost = [[260, 14400]] * 3 + [[260, 12400]] * 3
    config = make_site(tmp_path, {COUNT: calls, BYTECODES: bytecodes, COST: cost})
    listed = json.loads((tmp_path / "html" / "regressions.json").read_text())["regressions"]
    assert listed == []  # not even asv's Regressions tab lists the diagnostics
    for args in ((), ("--compare", "v0", "v5")):
        result = gate(config, *args)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "No regression counts." in result.stdout
        assert "## Large improvements" in result.stdout and "| -13.9% |" in result.stdout
        assert "PythonCalls 400 → 440 (+10.0%); BytecodeInstructions 8,000 → 5,360 (-33.0%)" in result.stdout


@pytest.mark.parametrize("after, counted", [(10090, False), (10150, True)])
def test_the_cost_counts_above_its_floor_of_one_percent(tmp_path, after, counted):
    cost = FLAT_COST[:3] + [[3000, after]] * 3
    result = gate(make_site(tmp_path, {COST: cost}), "--compare", "v0", "v5")
    assert result.returncode == int(counted), result.stdout + result.stderr
    assert kinds(result.stdout) == (["cost"] if counted else [])


def test_an_exact_check_counts_at_any_increase(tmp_path):
    result = gate(make_site(tmp_path, {EQUATIONS: [[0]] * 5 + [[1]]}))
    assert result.returncode == 1, result.stdout + result.stderr
    (row,) = rows_of(result.stdout)
    assert row.startswith("| deterministic |") and "| 0 equations | 1 equations | from 0 | any increase | v5 |" in row


@pytest.mark.parametrize("step", [False, True])
def test_identical_code_raises_no_alarm_though_its_noise_nears_the_threshold(tmp_path, step):
    """Identical code whose timing jumps up and down by 90% of the threshold from commit to commit raises
    nothing; a step of 110% of the threshold on the same metric counts, so that the quiet case can fail."""
    threshold = metrics.threshold(f"{TIMING}('jit')")
    if step:
        timing = FLAT_TIMING[:3] + [[1.00e-3 * (1 + 1.1 * threshold), 2.00e-3]] * 3
    else:
        timing = [[1.00e-3 * (1 + 0.9 * threshold * (i % 2)), 2.00e-3] for i in range(6)]
    result = gate(make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT}))
    assert result.returncode == int(step), result.stdout + result.stderr
    assert ("No regression counts." in result.stdout) is not step


def test_each_kind_of_metric_has_its_own_threshold_and_an_absolute_time_never_counts(tmp_path):
    timing = FLAT_TIMING[:3] + [[1.08e-3, 2.00e-3]] * 3  # +8%
    ratio = [[10.0, 1.2]] * 3 + [[10.8, 1.2]] * 3  # 'eager' +8%
    config = make_site(tmp_path, {ABSOLUTE: timing, RATIO: ratio, COUNT: FLAT_COUNT})
    compare = ("--compare", "v0", "v5")
    loose = gate(config, *compare, "--threshold", "0.10", "--time-threshold", "0.05")
    assert loose.returncode == 0, loose.stdout
    assert "No regression counts." in loose.stdout and f"| time | `{ABSOLUTE}` | 'jit' |" in loose.stdout
    ratio_only = gate(config, *compare, "--threshold", "0.05", "--time-threshold", "0.10")
    assert ratio_only.returncode == 1
    assert kinds(ratio_only.stdout) == ["ratio"] and "not alerting" not in ratio_only.stdout, ratio_only.stdout
    both = gate(config, *compare, "--threshold", "0.05", "--time-threshold", "0.05")
    counted, _, shown = both.stdout.partition("## Beyond their threshold, not alerting")
    assert kinds(counted) == ["ratio"] and kinds(shown) == ["time"], both.stdout


def test_thresholds_come_from_the_asv_configuration_per_benchmark(tmp_path):
    # +12% on both: beyond the tree_map-pass metric's 10%, within the tracing ratio's 50%.
    passes = [[22.0]] * 3 + [[24.64]] * 3
    tracing = FLAT_TIMING[:3] + [[1.12e-3, 2.00e-3]] * 3
    config = make_site(tmp_path, {PASSES: passes, TIMING: tracing, COUNT: FLAT_COUNT})
    result, verdict = judged(config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert [(row["benchmark"], row["threshold"]) for row in verdict["counted"]] == [(PASSES, 0.10)], verdict

    loosened = json.loads(config.read_text())
    loosened["regressions_thresholds"] = {".*": 0.15}
    config.write_text(json.dumps(loosened))
    assert gate(config, "--compare", "v0", "v5").returncode == 0
    overridden = gate(config, "--compare", "v0", "v5", "--threshold", "0.11").stdout
    assert kinds(overridden) == ["ratio", "ratio"], overridden


def test_a_bad_threshold_in_the_configuration_exits_2(tmp_path):
    config = make_site(tmp_path, {COUNT: FLAT_COUNT})
    broken = json.loads(config.read_text())
    broken["regressions_thresholds"] = {"bench_counts\\.(": 0}
    config.write_text(json.dumps(broken))
    result = gate(config, "--compare", "v0", "v5")
    assert result.returncode == 2
    assert "regressions_thresholds" in result.stderr and "Traceback" not in result.stderr


def test_compare_two_tags(tmp_path):
    timing = FLAT_TIMING[:5] + [[1.00e-3, 4.00e-3]]
    config = make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT})
    result = gate(config, "--compare", "v0", "v5")
    assert result.returncode == 1, result.stderr
    assert "| 'scan' |" in result.stdout
    assert "| 0.002 ratio | 0.004 ratio | +100.0% | +50% | v0..v5 | — |" in result.stdout
    assert "asv find" in result.stdout
    # Two commits compared have no levels around a step: the report does not speak of them.
    assert "a cost that went down never counts. \n" in result.stdout and "levels just before" not in result.stdout
    adjacent = gate(config, "--compare", "v4", "v5").stdout
    assert kinds(adjacent) == ["ratio"] and "| v5 |" in adjacent and "v4..v5" not in adjacent  # one commit made it
    assert gate(config, "--compare", "v0", "v4").returncode == 0


def test_a_change_over_several_commits_gives_the_asv_find_command(tmp_path):
    timing = FLAT_TIMING[:2] + [[2.00e-3, 2.00e-3]] * 4
    config = make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT}, skip_results={2, 3})
    result = gate(config)
    assert result.returncode == 1, result.stderr
    assert "v1..v4" in result.stdout
    find = [line for line in result.stdout.splitlines() if "asv find" in line]
    assert len(find) == 1 and "--config" in find[0] and re.escape(TIMING) in find[0]


@pytest.mark.parametrize("damage", ["corrupt-results", "missing-site", "unknown-commit", "corrupt-site"])
def test_bad_input_exits_2_naming_it(tmp_path, damage):
    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    args = []
    if damage == "corrupt-results":
        last_commit = git(tmp_path / "repo", "rev-parse", "v5")
        victim = tmp_path / "results" / MACHINE / f"{last_commit[:8]}-{ENV}.json"
        victim.write_text(victim.read_text()[:40])
        args = ["--compare", "v0", "v5"]
        named = victim.name
    elif damage == "missing-site":
        (tmp_path / "html" / "regressions.json").unlink()
        named = "regressions.json"
    elif damage == "corrupt-site":
        (tmp_path / "html" / "index.json").write_text("{")
        named = "index.json"
    else:
        args = ["--compare", "v0", "nope"]
        named = "nope"
    result = gate(config, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr
    assert "Traceback" not in result.stderr


# Valid JSON of the wrong shape, file by file: exit 2 naming the file, never a traceback.
WRONG_SHAPES = {
    "index is a list": ("html/index.json", []),
    "index without tags": ("html/index.json", {"revision_to_hash": {}}),
    "index revisions not a map": ("html/index.json", {"revision_to_hash": [], "tags": {}}),
    "index revision not a number": ("html/index.json", {"revision_to_hash": {"x": "abc"}, "tags": {}}),
    "index tag not a revision": ("html/index.json", {"revision_to_hash": {}, "tags": {"v0": "abc"}}),
    "regressions not a list": ("html/regressions.json", {"regressions": "x"}),
    "regression too short": ("html/regressions.json", {"regressions": [[1]]}),
    "regression jump of strings": (
        "html/regressions.json",
        {"regressions": [["a.b", "g", {}, 0, 1, 1, [["1", "2", "3", "4"]]]]},
    ),
    "regression at an unknown revision": (
        "html/regressions.json",
        {"regressions": [["a.b", "g", {}, 0, 1, 1, [[None, 999, 1.0, 2.0]]]]},
    ),
    "benchmarks a list": ("results/benchmarks.json", []),
    "benchmark a string": ("results/benchmarks.json", {"a.b": "x"}),
    "configuration a list": ("asv.conf.json", []),
    "thresholds a list": ("asv.conf.json", "regressions_thresholds=[]"),
    "threshold a string": ("asv.conf.json", "regressions_thresholds={'.*': 'x'}"),
    "threshold negative": ("asv.conf.json", "regressions_thresholds={'.*': -1}"),
    "results_dir a number": ("asv.conf.json", "results_dir=5"),
}


@pytest.mark.parametrize("case", sorted(WRONG_SHAPES))
def test_valid_json_of_the_wrong_shape_exits_2_naming_the_file(tmp_path, case):
    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    relative, content = WRONG_SHAPES[case]
    if isinstance(content, str):  # a change to the configuration: KEY=PYTHON VALUE
        key, value = content.split("=", 1)
        content = {**json.loads(config.read_text()), key: eval(value)}
    (tmp_path / relative).write_text(json.dumps(content))
    result = gate(config)
    assert result.returncode == 2, result.stdout + result.stderr
    assert relative.split("/")[-1] in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("content", [[], {}, {"config": 5}, "deep"])
def test_a_last_run_record_of_the_wrong_shape_exits_2(tmp_path, content):
    record = tmp_path / ".asv" / "last-run.json"
    record.parent.mkdir()
    record.write_text("[" * 50_000 + "]" * 50_000 if content == "deep" else json.dumps(content))
    result = command("regressions", "--output", tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "last-run.json" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("content", ["{}", "[]", '{"commit_hash": 5}', "[" * 50_000])
def test_a_results_file_of_the_wrong_shape_exits_2(tmp_path, content):
    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    victim = tmp_path / "results" / MACHINE / f"{git(tmp_path / 'repo', 'rev-parse', 'v5')[:8]}-{ENV}.json"
    victim.write_text(content)
    result = gate(config, "--compare", "v0", "v5")
    assert result.returncode == 2, result.stdout + result.stderr
    assert victim.name in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("option", ["--threshold", "--time-threshold"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "x"])
def test_a_threshold_must_be_finite_and_not_negative(tmp_path, option, value):
    result = command("regressions", "--output", tmp_path, f"{option}={value}")
    assert result.returncode == 2, result.stdout + result.stderr
    assert option in result.stderr and "Traceback" not in result.stderr


def test_a_nan_threshold_no_longer_hides_a_regression(tmp_path):
    ratio = [[10.0, 1.2]] * 3 + [[14.0, 1.2]] * 3  # +40%
    config = make_site(tmp_path, {RATIO: ratio, COUNT: FLAT_COUNT})
    assert gate(config, "--compare", "v0", "v5", "--threshold", "nan").returncode == 2
    assert gate(config, "--compare", "v0", "v5", "--threshold", "0.1").returncode == 1


def result_file(tmp_path, tag: str):
    commit = git(tmp_path / "repo", "rev-parse", tag)
    return tmp_path / "results" / MACHINE / f"{commit[:8]}-{ENV}.json"


def widen(path, name: str, values: list, params: list[str]) -> None:
    """Rewrite one benchmark of a stored result as a suite with more params would have written it."""
    data = json.loads(path.read_text())
    columns = data["result_columns"]
    row = data["results"][name]
    row[columns.index("result")], row[columns.index("params")] = values, [params]
    for column in ("stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat"):
        if columns.index(column) < len(row):
            row[columns.index(column)] = [1] * len(values)
    path.write_text(json.dumps(data))


def test_compare_judges_what_both_commits_measured_when_the_params_grew(tmp_path):
    """The nightly's compare after a suite change: [100, 100] at depths 1, 4 then [100, 200, 300] at 1, 4, 16."""
    config = make_site(tmp_path, {COST: [[100, 100], [100, 100]], COUNT: FLAT_COUNT[:2]})
    widen(result_file(tmp_path, "v1"), COST, [100, 200, 300], ["1", "4", "16"])
    verdict = tmp_path / "verdict.json"
    result = gate(config, "--compare", "v0", "v1", "--verdict", verdict)
    assert result.returncode == 1, result.stdout + result.stderr
    assert [row.split("|")[3].strip() for row in rows_of(result.stdout)] == ["4"]
    document = json.loads(verdict.read_text())
    assert [(c["benchmark"], c["params"], c["change"]) for c in document["counted"]] == [(COST, "4", 1.0)]
    assert {"benchmark": COST, "params": "16", "environment": "Python 3.11, jax 0.4.33", "reason": "only after"} in (
        document["unjudged"]
    )
    assert "## Not compared" in result.stdout and "| 16 |" in result.stdout


def test_the_night_after_filter_jit_joined_the_wrappings_still_judges_the_others(tmp_path):
    """The suite's own change: a ratio measured at 'jit' and 'scan', then at a value appended (filter_jit was appended
    to params.WRAPPINGS so): the old ones stay, and are judged."""
    from benchmarks import params

    assert params.WRAPPINGS[-1] == "filter_jit"
    config = make_site(tmp_path, {TIMING: [[1.0, 1.2], [1.0, 1.2]], COUNT: FLAT_COUNT[:2]})
    widen(result_file(tmp_path, "v1"), TIMING, [1.0, 2.0, 1.1], ["'jit'", "'scan'", "'filter_jit'"])  # scan +67%
    verdict = tmp_path / "verdict.json"
    result = gate(config, "--compare", "v0", "v1", "--verdict", verdict)
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads(verdict.read_text())
    assert [(c["benchmark"], c["params"]) for c in document["counted"]] == [(TIMING, "'scan'")]
    only_after = {u["params"] for u in document["unjudged"] if u["benchmark"] == TIMING}
    assert only_after == {"'filter_jit'"}


@pytest.mark.parametrize(
    "costs,skipped,good,bad,between",
    [
        # The night's commits hold the old level, then the new: the step is placed at its commit.
        ([[100, 100], [100, 100], [100, 160], [100, 160], [100, 160]], (), "v1", "v2", []),
        # A failed commit between: the step lands on the first commit at the new level, naming it.
        ([[100, 100], [100, 100], [100, None], [100, 160], [100, 160]], (), "v1", "v3", ["v2"]),
        # A skipped benchmark (asv's NaN) between is passed over in the same way.
        ([[100, 100], [100, 100], [100, math.nan], [100, 160], [100, 160]], (), "v1", "v3", ["v2"]),
        # A commit with no results at all (not built) is passed over in the same way.
        ([[100, 100], [100, 100], [100, 100], [100, 160], [100, 160]], (2,), "v1", "v3", ["v2"]),
        # Through a third level: no single commit made it, and the span stays.
        ([[100, 100], [100, 130], [100, 100], [100, 160], [100, 160]], (), "v0", "v4", []),
    ],
    ids=["step", "failed-between", "skipped-between", "no-results-between", "third-level"],
)
def test_a_night_s_exact_change_is_placed_at_the_commit_that_made_it(tmp_path, costs, skipped, good, bad, between):
    config = make_site(tmp_path, {COST: costs, COUNT: FLAT_COUNT[:5]}, skip_results=skipped)
    verdict = tmp_path / "verdict.json"
    result = gate(config, "--compare", "v0", "v4", "--verdict", verdict)
    assert result.returncode == 1, result.stdout + result.stderr
    [counted] = json.loads(verdict.read_text())["counted"]
    tags = {git(tmp_path / "repo", "rev-parse", f"v{i}"): f"v{i}" for i in range(5)}
    assert (tags[counted["good"]], tags[counted["bad"]]) == (good, bad)
    assert [tags[c] for c in counted["unmeasured_between"]] == between
    assert counted["single_commit"] == (good != "v0")
    where = (bad if good != "v0" else f"{good}..{bad}") + (
        f" ({', '.join(between)} between: no value)" if between else ""
    )
    [row] = rows_of(result.stdout)
    assert f"| {where} |" in row, row


def test_exact_changes_are_each_narrowed_within_their_own_span(monkeypatch):
    """A row left as it is (not exact, or from the first commit benchmarked) does not stop the rows after it, and the
    levels outside a change's own span, before its good commit or after its bad one, are not read. A cost repeats to
    the last digit: 1% off its level is a third level, not the instruction counts' spread."""
    commits = {rev: f"c{rev}" for rev in range(7)}
    source = types.SimpleNamespace(hash_of_revision=commits, revision_of_hash={c: r for r, c in commits.items()})
    costs = {"4": [130, 100, 100, 160, 160, 190, 190], "1": [100, 100, 101, 160, 160, 160, 160]}
    monkeypatch.setattr(finding, "value_at", lambda _, commit, change: costs[change.params][int(commit[1:])])
    ratio = Change(TIMING, "'jit'", ENV, 1.0, 2.0, "c1", "c4", False, "ratio")
    first = Change(COST, "4", ENV, 100, 160, "", "c4", False, "weighted")
    exact = Change(COST, "4", ENV, 100, 160, "c1", "c4", False, "weighted")
    near = Change(COST, "1", ENV, 100, 160, "c1", "c4", False, "weighted")
    finding.place_exact_steps(source, [ratio, first, exact, near])
    assert [(c.good, c.bad, c.single_commit) for c in (ratio, first, exact, near)] == [
        ("c1", "c4", False),
        ("", "c4", False),
        ("c2", "c3", True),
        ("c1", "c4", False),
    ]


def test_a_comparison_that_compares_nothing_is_bad_input_not_a_pass(tmp_path):
    config = make_site(tmp_path, {COST: [[100, 100], [100, 100]], COUNT: FLAT_COUNT[:2]})
    for name in (COST, COUNT):
        widen(result_file(tmp_path, "v1"), name, [100, 200], ["'a'", "'b'"])
    result = gate(config, "--compare", "v0", "v1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "v0 → v1: no benchmark was measured at both commits" in result.stderr
    assert "nothing can be judged" in result.stderr and "not a pass" in result.stderr


def test_a_value_that_failed_at_one_commit_is_listed_not_compared(tmp_path):
    config = make_site(tmp_path, {COST: [[100, 100], [100, None]], COUNT: FLAT_COUNT[:2]})
    verdict = tmp_path / "verdict.json"
    result = gate(config, "--compare", "v0", "v1", "--verdict", verdict)
    assert result.returncode == 0, result.stdout + result.stderr
    [unjudged] = [u for u in json.loads(verdict.read_text())["unjudged"] if u["benchmark"] == COST]
    assert unjudged["params"] == "4" and unjudged["reason"] == "not measured (after)"


def test_a_site_with_no_commit_is_bad_input(tmp_path):
    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    index = tmp_path / "html" / "index.json"
    index.write_text(json.dumps({**json.loads(index.read_text()), "revision_to_hash": {}, "tags": {}}))
    result = gate(config)
    assert result.returncode == 2 and f"asv site index {index} lists no commit: nothing to judge" in result.stderr


@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_a_step_that_is_not_a_number_is_bad_input(tmp_path, value):
    config = make_site(tmp_path, {COST: [[100, 100]] * 3 + [[100, 200]] * 3, COUNT: FLAT_COUNT})
    path = tmp_path / "html" / "regressions.json"
    text = path.read_text()
    data = json.loads(text)
    assert data["regressions"], "the site has a step to damage"
    entry = data["regressions"][0]
    entry[6][0][2] = "VALUE"
    path.write_text(json.dumps(data).replace('"VALUE"', value))
    result = gate(config)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "not a number" in result.stderr and "regressions.json" in result.stderr


def test_the_verdict_names_the_commits_the_run_left_out_as_unchanged(tmp_path):
    config = make_site(tmp_path, {COST: [[100, 100]] * 3, COUNT: FLAT_COUNT[:3]}, skip_results=[2])
    left_out = git(tmp_path / "repo", "rev-parse", "v2")
    record = tmp_path / "out" / ".asv" / "last-run.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"config": str(config), "machine": MACHINE, "commits": [], "unchanged": [left_out]}))
    verdict = tmp_path / "verdict.json"
    result = command("regressions", "--output", tmp_path / "out", "--no-confirm", "--verdict", verdict)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(verdict.read_text())["unchanged_commits"] == [left_out]
    assert "Not benchmarked, the package being their parent's" in result.stdout and "v2" in result.stdout


def test_a_step_across_a_failed_commit_lies_at_the_first_commit_at_the_new_level_naming_the_failed_one(tmp_path):
    series = [[100, 100]] * 3 + [[100, None]] + [[100, 200]] * 3
    config = make_site(tmp_path, {COST: series, COUNT: FLAT_COUNT[:7] + [[100, 400]]})
    verdict = tmp_path / "verdict.json"
    result = gate(config, "--verdict", verdict)
    assert result.returncode == 1, result.stdout + result.stderr
    [row] = [r for r in rows_of(result.stdout) if f"`{COST}`" in r]
    assert "v2..v4 (v3 between: no value)" in row
    [counted] = json.loads(verdict.read_text())["counted"]
    failed = git(tmp_path / "repo", "rev-parse", "v3")
    assert (counted["bad"], counted["unmeasured_between"]) == (git(tmp_path / "repo", "rev-parse", "v4"), [failed])


def test_another_machines_steps_do_not_count(tmp_path):
    """asv's regressions.json lists the steps of every machine the site holds: only the judged one's count."""
    import shutil

    cost = FLAT_COST[:4] + [[3000, 10400]] * 2
    config = make_site(tmp_path, {COST: cost, COUNT: FLAT_COUNT})
    path = tmp_path / "html" / "regressions.json"
    data = json.loads(path.read_text())
    elsewhere = []
    for entry in data["regressions"]:
        graph = entry[1].replace(f"machine-{MACHINE}", "machine-elsewhere")
        assert graph != entry[1]
        (tmp_path / "html" / graph).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "html" / entry[1], tmp_path / "html" / graph)
        elsewhere.append([entry[0], graph, {**entry[2], "machine": "elsewhere"}, *entry[3:]])
    data["regressions"] = elsewhere + data["regressions"]  # first: the judged machine's steps are read after them
    path.write_text(json.dumps(data))
    result = gate(config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(rows_of(result.stdout)) == 1, result.stdout


def steps_site(tmp_path, regressions, series):
    """A site's steps as step_changes reads them: regressions.json, and each graph's (revision, value) points."""
    (tmp_path / "regressions.json").write_text(json.dumps({"regressions": regressions}))
    commits = {rev: f"commit{rev}" for rev in range(8)}
    units = {"bench_x.Cost.track": "weighted"}
    return types.SimpleNamespace(
        html=tmp_path, machine="m", hash_of_revision=commits, units=units, series=lambda graph, _: series[graph]
    )


def test_asv_s_jumps_become_changes_between_the_sides_measured_and_from_the_first_commit_benchmarked(tmp_path):
    """Another machine's steps (listed first) are left out; a step over failed commits names those between its sides
    alone; a jump asv gives no revision before starts at the last one measured, or, with none, is the first commit's."""
    x, y, z = (
        "graphs/machine-m/bench_x.Cost.track.json",
        "graphs/machine-m/python-3.12/y.json",
        "graphs/machine-m/z.json",
    )
    series = {
        x: [(0, 10.0), (1, None), (2, 10.0), (3, None), (4, None), (5, 12.0), (6, 12.0)],
        y: [(0, 5.0), (1, 5.0), (2, None), (3, 6.0), (4, 6.0)],  # the last measured before the jump, not the first
        z: [(2, 9.1), (3, 9.0), (4, 9.2), (5, 9.0)],  # one piece: its level, 9.05, is no point's value
    }
    regressions = [
        [
            "bench_x.Cost.track(4)",
            x.replace("machine-m", "machine-n"),
            {"machine": "n"},
            0,
            1.0,
            1.0,
            [[6, 7, 1.0, 2.0]],
        ],
        ["bench_x.Cost.track(4)", x, {}, 0, 12.5, 12.0, [[2, 5, 10.0, 12.0]]],
        ["bench_y.Other.track", y, {"python": "3.12"}, None, 6.0, 6.0, [[None, 3, 5.0, 6.0]]],
        ["bench_z.New.track", z, {}, None, 9.0, 9.0, [[None, 2, 8.0, 9.1]]],
    ]
    found = finding.step_changes(steps_site(tmp_path, regressions, series))
    fields = ("benchmark", "params", "env", "before", "after", "good", "bad", "single_commit", "unit", "latest")
    assert [tuple(getattr(change, name) for name in fields) for change in found] == [
        ("bench_x.Cost.track", "4", "—", 10.0, 12.0, "commit2", "commit5", False, "weighted", 12.5),
        ("bench_y.Other.track", "", "Python 3.12", 5.0, 6.0, "commit1", "commit3", True, "", 6.0),
        ("bench_z.New.track", "", "—", 8.0, 9.05, "", "commit2", True, "", 9.0),
    ]
    assert [change.unmeasured for change in found] == [["commit3", "commit4"], ["commit2"], []]
    assert [change.graph for change in found] == [(x, 0, 2, 5), (y, None, 1, 3), (z, None, None, 2)]
    assert [change.env_params for change in found] == [
        {"machine": "m"},
        {"machine": "m", "python": "3.12"},
        {"machine": "m"},
    ]


def test_a_step_that_cannot_be_judged_names_the_file_and_its_entry_cut_at_80_characters(tmp_path):
    name = "bench_x.Cost.track(" + "p" * 100 + ")"
    regressions = [[name, "graphs/g.json", {}, 0, 1.0, 1.0, [[0, 1, math.nan, 1.0]]]]
    site = steps_site(tmp_path, regressions, {"graphs/g.json": [(0, 1.0), (1, 1.0)]})
    with pytest.raises(
        BadInput, match=rf"regressions.json: {re.escape(name[:80])} steps from nan to 1.0 at revision 1,"
    ):
        finding.step_changes(site)
    (tmp_path / "regressions.json").write_text(json.dumps({"regressions": "x"}))
    with pytest.raises(BadInput, match=r"^asv regressions file has the wrong shape: "):
        finding.step_changes(site)


def test_an_instruction_step_is_placed_within_its_own_operation_s_spread_not_the_widest(tmp_path):
    """construct(default) counts apart by under 1% between fresh processes, dispatch alone(jit) by 3.6%: a commit
    between at +2% of construct's count is a third level, so the step keeps its span, where the widest spread
    would have read it as the old level and placed the step at the next commit."""
    own = metrics.instruction_spread("construct(default)", "module")
    assert own < 0.02 < metrics.INSTRUCTIONS_SPREAD
    module = [480_000.0, 480_000.0 * 1.02, 520_000.0, 520_000.0, 520_000.0]
    config = make_site(tmp_path, {INSTRUCTIONS: [[count, 320_000.0] for count in module]})
    result, verdict = judged(config, "--compare", "v0", "v4")
    assert result.returncode == 1, result.stdout + result.stderr
    [counted] = verdict["counted"]
    assert counted["params"] == "'construct(default)'" and not counted["single_commit"]
    assert (counted["good"], counted["bad"]) == (commit(config, "v0"), commit(config, "v4"))


# A series of twenty commits, ten apart, that steps from 1 to 2 after its tenth: asv's pieces, levels the medians.
NOISE = [0.03, -0.02, 0.01, -0.03, 0.02, 0.0, -0.01, 0.03, -0.02, 0.01]
SERIES = [(10 * i, level + noise) for i, (level, noise) in enumerate((lv, n) for lv in (1.0, 2.0) for n in NOISE)]


def test_a_series_pieces_span_its_own_revisions_in_any_order():
    assert steps.pieces(SERIES[::-1]) == [steps.Piece(0, 91, 1.005), steps.Piece(100, 191, 2.005)]
    assert steps.pieces([(0, None), (10, math.nan)]) == []


@pytest.mark.parametrize(
    ("points", "rev_before", "rev_after", "after"),
    [
        (SERIES, 90, 100, 2.005),  # across two pieces: the level after
        ([(i, value) for i, (_, value) in enumerate(SERIES)], 9, 10, 2.005),  # the first piece ends where it starts
        (SERIES, 0, 10, 0.98),  # within one piece, from its first revision: the value at the jump's commit
        ([(rev, 1.0 + noise) for rev, noise in zip(range(0, 200, 10), NOISE * 2, strict=True)], 40, 50, 1.0),
        (SERIES, 90, 95, 0.9),  # a commit of no piece, and no value: the value before
        ([(0, None), (10, None)], 0, 10, 0.9),
    ],
)
def test_a_step_is_the_level_after_it_or_the_value_at_its_commit_where_the_pieces_join(
    points, rev_before, rev_after, after
):
    assert steps.true_step(points, rev_before, rev_after, 0.9) == steps.Step(rev_before, rev_after, 0.9, after)


def test_the_report_reads_as_its_golden_file(tmp_path):
    """The nightly report (tests/golden/report.md) with every section, on a real published site: the counted steps
    with the command that finds their first bad commit, the recounted and the time-overruled rises, the large
    improvements, the ratios beyond their threshold and the absolute times folded, the failed commits, the commits
    left out as unchanged, the unjudged measures, the causes found and not found, and the re-measured suspects;
    then a quick look (unconfirmed) with nothing counted; and both verdicts' documents (tests/golden/verdicts.json)."""
    config = make_site(tmp_path, {COST: FLAT_COST[:3], TIMING: FLAT_TIMING[:3], INSTRUCTIONS: [[1e6, 2e6]] * 3})
    source = Source(config=config, machine=MACHINE)
    v0, v1, v2 = (commit(config, f"v{i}") for i in range(3))
    source.run_unchanged = [v1, v0]

    def change(benchmark, params, before, after, unit="", good=v0, **fields):
        return Change(benchmark, params, ENV, before, after, good, v2, good == "", unit, **fields)

    cost = change(COST, "4", 10_000.0, 10_400.0, "weighted", latest=10_300.0, diagnostics=[(COUNT, 400.0, 420.0)])
    cost.unmeasured = [v1]
    cost.explanation = explain.Explanation(ENV, v0, v2, [], {"f": [3]}, {"f": [4]})
    improved = change(COST, "16", 40_000.0, 20_000.0, "weighted")
    improved.env, improved.explanation = "—", explain.Explanation("—", v0, v2, [], {}, {})
    improved.explanation.method = "Counted by callgrind."
    rise = change(INSTRUCTIONS, "'flatten'", 1e6, 1.1e6, "instructions")
    faster = confirm.Confirmation(rise, pairs.SAME, pairs.Interval(-0.2, -0.3, -0.1, 12, 0.01, 0.995), 9.0)
    verdict = Verdict(
        source,
        finding.STEP_MODE,
        [],
        counted=[cost, change(EQUATIONS, "'jit'", 0.0, 1.0, good="", explanation=cost.explanation)],
        improved=[improved],
        confirmations=[faster],
        not_alerting=[change(NOT_ALERTING_RATIO, "'jit'", 1.0, 1.5), change(ABSOLUTE, "", 1e-3, 2e-3, "seconds")],
        overruled=[(rise, recheck.Recount(1.0e6, 1.001e6, {"python": "3.11.7"})), (rise, faster)],
        unjudged=[Unjudged(TIMING, "'eager'", ENV, "new")],
        failed=[FailedCommit(v1, ENV, (COST, TIMING))],
        explain_errors=["no profile of v1"],
        not_improved=[(change(INSTRUCTIONS, "'access'", 2e6, 1e6, "instructions"), recheck.Recount(1e6, 1e6, None))],
    )
    # Its causes found and none not found: the section stands for what was found alone, one row in an environment.
    one_row = [dataclasses.replace(improved, env=ENV)]
    unconfirmed = dataclasses.replace(
        verdict, confirmations=None, counted=[], overruled=[], not_improved=[], explain_errors=[], improved=one_row
    )
    named = {str(tmp_path): "TMP", str(VENV): "VENV", v0: "V0-HASH", v1: "V1-HASH", v2: "V2-HASH"}

    def placeholders(text: str) -> str:
        for value, name in named.items():
            text = text.replace(value, name)
        return text

    report = "".join(map(render.markdown, [verdict, unconfirmed])) + render.nothing_judged("no results tonight")
    assert_golden("report.md", placeholders(report))
    # And the verdicts' documents, which the alarm and the pull request's check read as data.
    documents = json.dumps([verdicts.data(night) for night in (verdict, unconfirmed)], indent=1, sort_keys=True)
    assert_golden("verdicts.json", placeholders(documents) + "\n")


def test_a_change_from_zero_shows_its_newest_value_alone_and_its_diagnostics_from_zero_as_infinite():
    source = types.SimpleNamespace(label=str.upper, thresholds=lambda change: 0.05)
    change = Change(COST, "4", "—", 0.0, 10.0, "a", "d", False, "weighted", latest=12.0, diagnostics=[(COUNT, 0, 7)])
    change.unmeasured = ["b", "c"]
    [row] = rows_of(render.changes_table(source, [change], newest=True))
    assert row.endswith("| A..D (B, C between: no value) | 12 weighted | PythonCalls 0 → 7 (+inf%) |"), row


def test_the_asv_find_command_is_given_only_for_a_change_over_several_commits_after_a_known_good_one():
    site, no_site = (types.SimpleNamespace(config=config, machine="m") for config in (Path("asv.conf.json"), None))

    def change(single_commit, good):
        return Change("bench_a.B.time_c", "", "", 1.0, 2.0, good, "bad", single_commit, "seconds")

    assert find_command(site, change(False, "good")).endswith(r"good..bad '^bench_a\.B\.time_c$'")
    assert find_command(site, change(True, "good")) is find_command(site, change(False, "")) is None
    assert find_command(no_site, change(False, "good")) is None


def test_a_verdict_gives_a_change_s_cause_in_plain_words_where_it_was_explained():
    explained = Change("bench_a.B.time_c", "", "", 1.0, 2.0, "good", "bad", True, "seconds")
    assert verdicts.change_data(explained)["cause"] is None
    explained.explanation = types.SimpleNamespace(sentence=lambda: "f: 1 → 2 calls per update")
    assert verdicts.change_data(explained)["cause"] == "f: 1 → 2 calls per update"
