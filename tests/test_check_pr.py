"""scripts/check-pr: the summary's sections and rendering, the verdict file, the exit codes, real pull requests.

The summary is tested on verdicts the gate made of a real published asv site
(tests/asv_sites.py), its rendering on that structured data; the command on
real pull requests of the upstream bundle.  No timing is asserted.
"""

import dataclasses
import json
import re

import pytest

from benchmarks import metrics
from benchtools import cli
from benchtools.asvtools import operations, suite
from benchtools.commands import check_pr
from benchtools.errors import Failed
from benchtools.judging import confirm, explain, gate, pairs, pr_render, pr_summary, render, verdicts
from benchtools.judging.changes import Change
from benchtools.judging.finding import FailedCommit, Unjudged
from benchtools.judging.sources import Source
from benchtools.running import pr_check
from tests.asv_sites import (
    BYTECODES,
    COST,
    COUNT,
    EQUATIONS,
    INSTRUCTIONS,
    MACHINE,
    PASSES,
    RATIO,
    TIMING,
    make_site,
)
from tests.golden import assert_golden
from tests.helpers import ASV_SIDE_ENVS, PRIMARY_JAX, command, needs_valgrind

FLAT = {
    COST: [[3000, 12000]] * 2,
    COUNT: [[100, 400]] * 2,
    BYTECODES: [[1400, 5600]] * 2,
    EQUATIONS: [[0]] * 2,
    RATIO: [[2.0, 1.2]] * 2,
    TIMING: [[1.2, 1.1]] * 2,
    PASSES: [[20.0]] * 2,
}


def judged(tmp_path, changed: dict) -> gate.Verdict:
    """The gate's verdict, v0 → v1, on a real published site whose second commit holds ``changed``'s values."""
    series = {name: [values[0], changed.get(name, values[1])] for name, values in FLAT.items()}
    config = make_site(tmp_path, series)
    return gate.judge(Source(config=config, machine=MACHINE), ("v0", "v1"), confirm=False)


def sections(summary: pr_summary.Summary) -> dict[tuple[str, str], str]:
    return {(row.change.benchmark, row.change.params): row.section for row in summary.rows}


def test_every_measure_lands_in_exactly_one_section_by_its_kind(tmp_path):
    verdict = judged(
        tmp_path,
        {
            # -3.3%: faster; -1% exactly: below the cost's 1% floor, as a rise of exactly 1% would not count
            COST: [2900, 12000 * (1 - metrics.COST_FLOOR)],
            COUNT: [90, 400],  # a diagnostic: changed, never counted alone
            EQUATIONS: [1],  # deterministic, any increase counts: slower
            RATIO: [3.5, 1.2],  # an alerting ratio, judged unconfirmed here (--no-confirm)
            PASSES: [21.0],
        },
    )
    summary = pr_summary.summarize(verdict, "#1")
    assert len(summary.rows) == len(verdict.changes)
    assert sum(summary.counts().values()) == len(verdict.changes)
    found = sections(summary)
    assert found[COST, "1"] == pr_summary.FASTER
    assert found[COST, "4"] == pr_summary.BELOW_FLOOR
    assert found[COUNT, "1"] == pr_summary.NOT_COUNTED
    assert found[COUNT, "4"] == pr_summary.UNCHANGED
    assert found[EQUATIONS, "'jit'"] == pr_summary.SLOWER_
    assert found[BYTECODES, "1"] == pr_summary.UNCHANGED
    # The gate counts an unconfirmed ratio beyond its threshold: slower, as the exit code says.
    assert found[RATIO, "'eager', 'median'"] == pr_summary.SLOWER_
    assert found[RATIO, "'jit', 'median'"] == pr_summary.TIMING_UNCONFIRMED
    assert summary.regression == verdict.regression
    # The changes lead, slower before faster, before everything else.
    assert [row.section for row in summary.rows[:3]] == [pr_summary.SLOWER_, pr_summary.SLOWER_, pr_summary.FASTER]
    # The exact ones among them are those whose cause is looked for.
    assert {(c.benchmark, c.params) for c in pr_summary.changed_exact(verdict)} == {(COST, "1"), (EQUATIONS, "'jit'")}


def test_a_row_carries_its_own_cause_and_its_params_words():
    cost = Change(COST, "4", "env", 100.0, 120.0, "a", "b", True, "unit")
    other = Change(COST, "1", "env", 100.0, 110.0, "a", "b", True, "unit")
    verdict = gate.Verdict(
        None, "v0 → v1", changes=[cost, other], counted=[cost, other], improved=[], confirmations=None
    )
    summary = pr_summary.summarize(verdict, "#1", causes={(COST, "4", "env"): "builtin_dir"})
    assert [(row.words.operation, row.cause) for row in summary.rows] == [
        ("`eqx.tree_at` update, whole model (1)", None),
        ("`eqx.tree_at` update, whole model (4)", "builtin_dir"),
    ]


def test_the_profiled_call_is_the_operations_own_else_tree_at_s_else_none():
    def change(benchmark):
        return Change(benchmark, "", "env", 1.0, 2.0, "a", "b", True, "unit")

    flatten = next(op for op in operations.OPERATIONS if op.label == "flatten")
    assert pr_summary.profiled(change(f"{flatten.cost}.{flatten.module.method}")) == flatten.profiled
    assert pr_summary.profiled(change(flatten.timed[0])) == flatten.profiled
    assert pr_summary.profiled(change(metrics.PASSES_TREE_AT)) == explain.PROFILED
    assert pr_summary.profiled(change(EQUATIONS)) is None


def confirmation(change: Change, low: float, high: float, verdict: str) -> confirm.Confirmation:
    interval = pairs.Interval((low + high) / 2, low, high, 12, 0.01, 0.995)
    return confirm.Confirmation(change, verdict, interval, 1.0)


@pytest.mark.parametrize(
    "low, high, verdict, section",
    [
        (-0.20, -0.10, pairs.SAME, pr_summary.FASTER),
        (-0.01, 0.01, pairs.SAME, pr_summary.TIMING_SAME),
        (-0.15, 0.05, pairs.UNDECIDED, pr_summary.TIMING_UNDECIDED),
        (0.05, 0.10, pairs.SLOWER, pr_summary.SLOWER_),
        # At the edges: faster only wholly below -1%, the same only wholly above -2%, and only when decided so.
        (-0.03, -pairs.FLOOR, pairs.SAME, pr_summary.TIMING_UNDECIDED),
        (-0.005, 0.005, pairs.SAME, pr_summary.TIMING_SAME),
        (-pairs.SAME_BELOW, 0.005, pairs.SAME, pr_summary.TIMING_UNDECIDED),
        (-0.01, 0.03, pairs.UNDECIDED, pr_summary.TIMING_UNDECIDED),
    ],
)
def test_a_re_measured_timing_is_placed_by_its_interval(low, high, verdict, section):
    change = Change(PASSES, "", "env", 20.0, 18.0, "a", "b", True, "tree_map passes")
    found = confirmation(change, low, high, verdict)
    assert pr_summary.timing_section(found) == section
    row = pr_summary.PlacedChange(change, section, pr_summary.words(PASSES, ""), found)
    assert row.mde == pytest.approx(
        pairs.FLOOR
        + (found.interval.estimate - low if found.interval.estimate >= 0 else high - found.interval.estimate)
    )


def test_the_module_operations_lead_in_the_words_users_know():
    construction = pr_summary.words("bench_construct.ConstructionCost.track_module", "'default', 2, 4")
    flatten = pr_summary.words("bench_flatten.FlattenCost.track_flatten_module", "2, 4")
    other_depth = pr_summary.words("bench_flatten.FlattenCost.track_flatten_module", "2, 16")
    tree_at = pr_summary.words(metrics.COST_TREE_AT, "4")
    unknown = pr_summary.words("bench_update.UpdateTime.time_update", "'tree_at'")
    assert construction.operation == "construction, generated `__init__`"
    assert flatten.operation == "flatten" and other_depth.operation == "flatten (2, 16)"
    assert "tree_at" in tree_at.operation
    assert unknown.operation == "`UpdateTime.time_update` ('tree_at')"
    assert pr_summary.words(metrics.PASSES_TREE_AT, "").operation == "`eqx.tree_at` update, whole model"
    twin = pr_summary.words("bench_construct.ConstructionCost.track_tuple", "'default', 2, 4")
    passes = pr_summary.words("bench_construct.ConstructionInTreeMapPasses.track_module", "'default'")
    assert twin.operation == construction.operation + ", tuple twin" and passes == construction
    # An instruction count of no Module operation ranks with the other names users know, before the unnamed.
    counted = pr_summary.words(INSTRUCTIONS, "'x'")
    assert counted == pr_summary.Words("x, instructions", tree_at.rank) and counted.rank < unknown.rank
    assert sorted([unknown, tree_at, other_depth, flatten, construction], key=lambda w: w.rank) == [
        construction,
        flatten,
        other_depth,
        tree_at,
        unknown,
    ]


def test_the_rendering_shows_every_section_with_its_count(tmp_path):
    verdict = judged(tmp_path, {COST: [2900, 12050], COUNT: [90, 400], EQUATIONS: [1]})
    summary = pr_summary.summarize(verdict, "#7", base="a" * 40, head="b" * 40, environments=["env"])
    text = pr_render.fitted(summary)
    counts = summary.counts()
    assert text.splitlines()[0] == pr_render.MARKER
    assert text.splitlines()[1].startswith(
        f"**Merging #7: {counts[pr_summary.FASTER]} faster, {counts[pr_summary.SLOWER_]} slower, "
        f"{counts[pr_summary.UNCHANGED]} unchanged**"
    )
    changed = [r for r in summary.rows if r.section in pr_summary.CHANGED]
    table = [line for line in text.split("<details>")[0].splitlines() if line.startswith("| ") and "---" not in line]
    assert len(table) == 1 + len(changed)  # the header, then one row per change
    shown = dict(re.findall(r"<summary>(.+) \((\d+)\)</summary>", text))
    for name, count in counts.items():
        if name not in pr_summary.CHANGED and count:
            assert int(shown[name.capitalize()]) == count


def test_an_enormous_summary_still_fits_a_comment_and_says_what_it_left_out():
    change = Change(COST, "4", "Python 3.11, jax 0.4.33, jaxlib 0.4.33", 100.0, 100.0, "a", "b", True, "weighted")
    rows = [
        pr_summary.PlacedChange(
            Change(
                f"bench_x.Class{i}.track_{'y' * 80}",
                f"{i}",
                change.env,
                100.0,
                100.0 + (i % 3 - 1) * 10,
                "a",
                "b",
                True,
                "instructions",
            ),
            section,
            pr_summary.words(f"bench_x.Class{i}.track_y", f"{i}"),
            cause="`a.very.long.function.name`: 1 → 2 calls per update; " * 20,
        )
        for i in range(3_000)
        for section in [list(pr_summary.SECTIONS)[i % len(pr_summary.SECTIONS)]]
    ]
    summary = pr_summary.Summary("#9", rows, base="a" * 40, head="b" * 40)
    text = pr_render.fitted(summary)
    assert len(text.encode()) <= pr_render.COMMENT_BYTES
    # Every list either shows all its rows or says how many it left out: nothing silently.
    left_out = sum(int(n) for n in re.findall(r"… and (\d+) more, left out", text))
    shown_rows = sum(1 for line in text.splitlines() if line.startswith("| ") and not line.startswith("| operation"))
    assert shown_rows + left_out == len(rows)


def test_the_verdict_file_is_the_gates_shape_plus_what_merging_does(tmp_path):
    verdict = judged(tmp_path, {COST: [2900, 12000], EQUATIONS: [1], PASSES: [18.0]})
    passes = next(c for c in verdict.changes if c.benchmark == PASSES)
    cost = next(c for c in verdict.changes if c.benchmark == COST and c.after < c.before)
    ratio = next(c for c in verdict.changes if c.benchmark == RATIO)  # re-measured, no interval came of it
    faster = [confirmation(passes, -0.20, -0.05, pairs.SAME), confirm.Confirmation(ratio, pairs.UNDECIDED, None, 1.0)]
    facts = {"base": "a" * 40, "head": "b" * 40, "environments": ["env"], "seconds": 12.34, "load": (1.234, 0.5)}
    causes = {(cost.benchmark, cost.params, cost.env): "builtin_dir"}
    summary = pr_summary.summarize(verdict, "#3", causes, faster_confirmations=faster, **facts)
    document = pr_summary.data(summary)
    path = tmp_path / "verdict.json"
    verdicts.write(path, document)
    read = verdicts.read(path)  # what scripts/open-regression-issue reads, checked as it checks it
    assert read["regression"] is True and read["counted"][0]["benchmark"] == EQUATIONS
    assert read["check"] == {"title": "#3", **facts, "seconds": 12.3, "load": [1.23, 0.5]}
    assert sorted(row["benchmark"] for row in read["faster"]) == sorted([COST, PASSES])
    (cost_row,) = [row for row in read["faster"] if row["benchmark"] == COST]
    assert cost_row["cause"] == "builtin_dir" and cost_row["threshold"] == verdict.source.thresholds(cost) > 0
    remeasured, unresolved = read["remeasured"]
    assert remeasured["benchmark"] == PASSES and remeasured["exact"] is False
    assert remeasured["section"] == pr_summary.FASTER and remeasured["cause"] is None
    assert remeasured["confirmation"] == {
        **{"verdict": pairs.SAME, "estimate": pytest.approx(-0.125), "low": -0.2, "high": -0.05},
        **{"pairs": 12, "confidence": 0.995, "mde": pytest.approx(pairs.FLOOR + 0.075)},
    }
    assert unresolved["benchmark"] == RATIO and unresolved["section"] == pr_summary.TIMING_UNDECIDED
    assert unresolved["confirmation"] == {
        **{"verdict": pairs.UNDECIDED, "estimate": None, "low": None, "high": None},
        **{"pairs": 0, "confidence": None, "mde": None},
    }
    assert [row["benchmark"] for row in read["slower"]] == [EQUATIONS]
    assert read["untouched"] == summary.counts()[pr_summary.UNCHANGED] > 0
    assert read["sections"] == summary.counts()
    assert all(row["operation"] for row in read["faster"])


def test_a_change_with_nothing_to_measure_writes_a_quiet_verdict_saying_why(tmp_path):
    summary = pr_summary.Summary("#4", [], nothing_to_measure="it touches no package path", base="a", head="b")
    path = tmp_path / "verdict.json"
    verdicts.write(path, pr_summary.data(summary))
    read = verdicts.read(path)
    empty = ("counted", "improvements", "overruled", "not_alerting", "unjudged", "unchanged_commits")
    assert read == {
        **{"schema": verdicts.SCHEMA, "status": verdicts.JUDGED, "regression": False},
        **{"summary": "nothing to measure: it touches no package path", "mode": verdicts.NOTHING_JUDGED},
        **{"confirmed": False, "results": "", "machine": "", "suspects": None, "failed_commits": []},
        **dict.fromkeys(empty, []),
        "explain_errors": [],
        "check": {"title": "#4", "base": "a", "head": "b", "environments": [], "seconds": 0.0, "load": [0.0, 0.0]},
        **{"sections": dict.fromkeys(pr_summary.SECTIONS, 0), "faster": [], "slower": [], "untouched": 0},
        "remeasured": [],
    }


# ---- the command


def test_bad_arguments_exit_2_naming_what_is_wrong():
    for args, wanted in (
        ((), "name a pull request N"),
        (("--merge", "--head", "x"), "--merge needs a pull request N"),
        (("5", "--head", "x"), "not both"),
        (("--base", "x"), "--base needs --head"),
        (("0",), "0: at least 1"),
    ):
        ran = command("check-pr", *args)
        assert ran.returncode == 2, (args, ran.stderr)
        assert wanted in ran.stderr, (args, ran.stderr)


@pytest.mark.parametrize("code, regression", [(0, False), (1, True)])
def test_the_exit_code_is_the_verdicts(tmp_path, capsys, code, regression):
    """The command's telling of a real verdict: 1 exactly when a regression counts, the summary and verdict
    written. (pr_check.check itself runs on real pull requests below.)"""
    verdict = judged(tmp_path, {EQUATIONS: [1]} if regression else {COST: [2900, 12000]})
    request = pr_check.Request(upstream=str(tmp_path), number=5)
    summary_of_check = pr_summary.summarize(
        verdict, request.name, base="a" * 40, head="b" * 40, touched=["equinox/_module.py"]
    )
    summary, verdict_file = tmp_path / "summary.md", tmp_path / "verdict.json"
    args = cli.parse(
        "check-pr", ["5", "--upstream", str(tmp_path), "--summary", str(summary), "--verdict", str(verdict_file)]
    )
    assert check_pr.tell(args, request, summary_of_check) == code
    assert summary.read_text() == capsys.readouterr().out
    assert verdicts.read(verdict_file)["regression"] is regression


def test_a_side_that_fails_writes_a_failed_verdict_and_says_why_in_the_summary(tmp_path):
    error = Failed("#5: the head bbbbbbbb measured nothing (it did not build, install or import) in env")
    summary, verdict_file = tmp_path / "summary.md", tmp_path / "verdict.json"
    args = cli.parse(
        "check-pr", ["5", "--upstream", str(tmp_path), "--summary", str(summary), "--verdict", str(verdict_file)]
    )
    check_pr.tell(args, pr_check.Request(upstream=str(tmp_path), number=5), None, error)
    document = verdicts.read(verdict_file)
    assert document["status"] == verdicts.FAILED and document["exit"] == 3 and document["regression"] is False
    assert summary.read_text().startswith(pr_render.MARKER) and "did not build" in summary.read_text()


# ---- real pull requests of the upstream bundle


@pytest.mark.parametrize("args", [("1245",), ("873",), ("873", "--merge")])
def test_a_change_outside_the_package_is_nothing_to_measure_at_once(pulls, tmp_path, args):
    verdict_file = tmp_path / "verdict.json"
    ran = command("check-pr", *args, "--upstream", pulls, "--output", tmp_path / "out", "--verdict", verdict_file)
    assert ran.returncode == 0, ran.stderr
    assert "nothing to measure" in ran.stdout.splitlines()[1]
    assert not (tmp_path / "out" / "exact" / "results").exists()  # no benchmark ran
    document = verdicts.read(verdict_file)
    assert document["regression"] is False and document["summary"].startswith("nothing to measure")


def test_an_unknown_pull_request_is_bad_input(pulls, tmp_path):
    ran = command("check-pr", "99999", "--upstream", pulls, "--output", tmp_path / "out")
    assert ran.returncode == 2 and "refs/pull/99999/head" in ran.stderr


@needs_valgrind
@pytest.mark.history
@pytest.mark.slow(minutes=5.5, group=ASV_SIDE_ENVS)
def test_pull_request_1140_checked_end_to_end_then_judged_as_the_nightly_judges(pulls, asv_env_dir, tmp_path):
    """#1140 ("perf: localize init check"): no dir() in __init__, one more getattr per field. Its Python cost of
    construction rose 3.8%, but it made construction about a third faster: its instruction count, which the
    alarm follows, falls, so no regression counts (exit 0), and the cause names dir's C work.  The two sides
    check-pr measured, judged again by scripts/regressions as the nightly judges, say the same.  One test, as
    checking #1140 takes minutes and pytest-xdist cannot promise two tests one worker's session fixture."""
    verdict, output = tmp_path / "verdict.json", tmp_path / "out"
    ran = command(
        "check-pr", "1140", "--upstream", pulls, "--jax", PRIMARY_JAX, "--no-confirm",
        "--output", output, "--verdict", verdict, "--env-dir", asv_env_dir,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    document = verdicts.read(verdict)
    assert document["regression"] is False and document["slower"] == []
    assert all(row["exact"] for row in document["faster"])
    construction = next(
        row for row in document["faster"] if row["operation"] == "construction, generated `__init__`, instructions"
    )
    assert construction["section"] == pr_summary.FASTER and "builtin_dir" in construction["cause"]

    checked = document["check"]
    [config] = (output / pr_check.EXACT / ".asv" / "configs").glob("repo-*-1.conf.json")
    judged_file = tmp_path / "judged.json"
    judged = command(
        "regressions", "--config", config, "--machine", pr_check.Request.machine, "--compare", checked["base"],
        checked["head"], "--explain", "--verdict", judged_file,
    )  # fmt: skip
    assert judged.returncode == 0, judged.stdout + judged.stderr
    judged_document = verdicts.read(judged_file)
    assert judged_document["regression"] is False and judged_document["counted"] == []
    [counted_construction] = [
        row
        for row in judged_document["improvements"]
        if row["benchmark"] == INSTRUCTIONS and row["params"] == "'construct(default)'"
    ]
    assert counted_construction["change"] < -0.10
    assert "builtin_dir" in counted_construction["cause"], counted_construction["cause"]


# ---- the proof's record and table


def test_the_proof_sets_each_change_beside_the_historys_decided_time(tmp_path):

    faster = {"before": 100.0, "after": 90.0}
    decided_faster = {"estimate": -0.2, "low": -0.3, "high": -0.1}
    assert pr_check.agreement(faster, decided_faster).startswith("agrees")
    assert pr_check.agreement({"before": 100.0, "after": 110.0}, decided_faster).startswith("**differs**")
    assert pr_check.agreement(faster, {"estimate": 0.01, "low": -0.05, "high": 0.06}).startswith("time undecided")
    assert pr_check.agreement(faster, None) == "no time in the history"
    record = tmp_path / "record.json"
    failed = {"title": "#5", "number": 5, "merge": False, "mode": "exact", "jax": ["0.4.33"], "changes": []}
    pr_check.append(record, {**failed, "failure": "exit 3: the head measured nothing"})
    pr_check.append(record, {**failed, "failure": "exit 3: again"})  # the same check replaces the earlier one
    assert [entry["failure"] for entry in pr_check.read(record)] == ["exit 3: again"]
    times = tmp_path / "times.json"
    times.write_text("{}")
    (row,) = [line for line in pr_check.table(pr_check.read(record), times).splitlines() if line.startswith("| #5")]
    assert "failed: exit 3: again" in row


def test_a_head_whose_benchmarks_crash_fails_the_check_and_says_so_beyond_its_first_line(tmp_path):
    """A benchmark that fails on the head and not on the base measures nothing: it was "No measure changed
    beyond its threshold" and exit 0 (issue 37, item 7). Merging breaks it: the check fails and says which."""
    verdict = judged(tmp_path, {EQUATIONS: [None]})
    [failed] = verdict.failed
    summary = pr_summary.summarize(verdict, "#8", base="a" * 40, head=failed.commit, environments=["env"])
    assert summary.broken() == [(failed.env, EQUATIONS)] and summary.regression
    text = pr_render.fitted(summary)
    assert "1 benchmark(s) broken" in text.splitlines()[1]
    assert "No measure changed beyond its threshold." not in text and "merging breaks benchmarks" in text
    # The same failure on the base too is no news of this pull request.
    both = pr_summary.summarize(verdict, "#8", base=failed.commit, head=failed.commit)
    assert both.broken() == [] and not both.regression


@pytest.mark.parametrize(("operation", "spread"), [("flatten", "0.4%"), ("dispatch alone(jit)", "3.6%"), ("x", "3.6%")])
def test_how_sure_says_what_was_measured_of_an_instruction_count(operation, spread):
    """An instruction count is not the same every run (issue 37, item 15): fresh processes of identical code
    differ up to the measured spread of its operation, which its floor was made of, and "how sure" quotes that one
    (issue 54: it quoted the widest, dispatch alone's, beside every verdict); one never measured has the widest. A
    Python cost count is the same every run."""
    instructions = Change(INSTRUCTIONS, f"'{operation}'", "env", 1000.0, 1100.0, "a", "b", True, "instructions")
    cost = Change(COST, "4", "env", 1000.0, 1100.0, "a", "b", True, "weighted")
    said = {
        change.kind: pr_render.how_sure(
            pr_summary.PlacedChange(change, pr_summary.SLOWER_, pr_summary.words(COST, "4"))
        )
        for change in (instructions, cost)
    }
    assert f"±{spread} between processes (measured)" in said[metrics.INSTRUCTIONS]
    assert "the same every run" not in said[metrics.INSTRUCTIONS]
    assert said[metrics.COST] == "counted, the same every run"


def test_without_confirmation_no_benchmark_of_the_answer_runs_its_fresh_processes():
    """The answer's exact figures (its jaxprs, its provenance) come from the processes that time it: a check that
    confirms no timing takes none of them; one that does takes the answer's alerting × and its exact figures."""
    names = sorted(json.loads(suite.description()))
    answer = [name for name in names if name.startswith("bench_answer.")]
    assert answer and not set(answer) & set(pr_check.measured(names, confirmed=False))
    with_timings = pr_check.measured(names, confirmed=True)
    assert metrics.ANSWER_RATIO in with_timings and "bench_answer.AnswerJaxprs.track_jaxprs_differ" in with_timings
    assert "bench_instructions.Instructions.track_module" in pr_check.measured(names, confirmed=False)


def placed(change: Change, section: str, confirmation=None, cause=None) -> pr_summary.PlacedChange:
    return pr_summary.PlacedChange(
        change, section, pr_summary.words(change.benchmark, change.params), confirmation, cause
    )


def comment_summary(rows=(), unjudged=(), failed=(), **fields) -> pr_summary.Summary:
    return pr_summary.Summary("#7", list(rows), list(unjudged), list(failed), base="a" * 40, head="b" * 40, **fields)


def fixed_summary() -> pr_summary.Summary:
    """A check with a change of each kind of "how sure", a failed commit on each side and two unjudged measures."""
    base, head = "a" * 40, "b" * 40
    slower = Change(PASSES, "", "py3.12", 20.0, 22.0, base, head, True, "tree_map passes")
    faster = Change(INSTRUCTIONS, "'construct(default)'", "py3.12", 1e6, 9e5, base, head, True, "instructions")
    same = Change(COST, "4", "py3.13", 3000.0, 3000.0, base, head, True, "weighted")
    ratio = Change(RATIO, "'jit', 'median'", "py3.12", 1.5, 1.8, base, head, True, "")
    remeasured = confirm.Confirmation(slower, pairs.SLOWER, pairs.Interval(0.1, 0.06, 0.14, 24, 0.01, 0.995), 30.0)
    rows = [
        placed(slower, pr_summary.SLOWER_, remeasured, "`f` | `g`: 1 → 2 calls"),
        placed(faster, pr_summary.FASTER),
        placed(same, pr_summary.UNCHANGED),
        placed(
            ratio, pr_summary.TIMING_UNCONFIRMED, confirm.Confirmation(ratio, pairs.UNDECIDED, None, 0.0, note="cap")
        ),
        placed(dataclasses.replace(ratio, params="'eager', 'median'"), pr_summary.TIMING_UNCONFIRMED),
    ]
    failed = [FailedCommit(head, "py3.12", ("bench_a.A.track_a", "bench_b.B.time_b"))]
    failed.append(FailedCommit(base, "py3.13", ("bench_c.C.track_c",)))
    unjudged = [Unjudged("bench_new.New.track_new", "", "py3.12", "new | renamed"), Unjudged("", "", "py3.14", "gone")]
    verdict = gate.Verdict(None, "a → b", [], [], [], confirmations=[])
    return comment_summary(
        rows, unjudged, failed, environments=["py3.12", "py3.13"], seconds=600.0, load=(1.5, 2.25), verdict=verdict
    )


def test_the_comment_reads_as_its_golden_file():
    """The whole comment a reviewer reads (tests/golden/pr-comment.md): the verdict line with every count beside the
    three main ones, each change's "how sure" in its own terms (an interval, an operation's own measured spread, exact,
    one run), the failed commits, every section collapsed with its count; then a check with nothing beside its three
    counts, and one with nothing to measure."""
    text = pr_render.markdown(fixed_summary())
    assert pr_render.fitted(fixed_summary()) == text
    nothing = comment_summary()
    skipped = comment_summary(nothing_to_measure="only docs/ changed")
    assert_golden("pr-comment.md", "\n".join([text, pr_render.fitted(nothing), pr_render.fitted(skipped)]))


def test_a_head_that_only_breaks_benchmarks_says_so_instead_of_a_table():
    summary = comment_summary(failed=[FailedCommit("b" * 40, "py3.12", ("bench_a.A.track_a",))])
    assert (
        "No measure changed beyond its threshold, but merging breaks benchmarks (below): they fail on the head and not "
        "on the base, so they measure nothing."
    ) in pr_render.markdown(summary).splitlines()


def test_changes_beyond_the_table_are_collapsed_below_it_with_their_causes():
    change = Change(COST, "4", "py3.12", 3000.0, 3300.0, "a", "b", True, "weighted")
    summary = comment_summary([placed(change, pr_summary.SLOWER_, cause="`f`")] * (pr_render.TABLE_ROWS + 3))
    text = pr_render.markdown(summary, {"changes": 1})
    more = text.split("<summary>More changes (3)</summary>\n\n")[1].split("\n\n</details>")[0]
    assert more.splitlines()[0].endswith("| how sure | cause |") and more.count("| `f` |") == 1
    assert more.endswith(
        "\n\n… and 2 more, left out here to fit a comment: the verdict file (--verdict) holds every one."
    )
    assert text.count("| `f` |") == pr_render.TABLE_ROWS + 1


def left_out(text: str) -> dict[str, int]:
    """{list title: rows left out} of a comment."""
    found = (
        re.search(r"<summary>(.+) \(\d+\)</summary>.*… and (\d+) more", b, re.DOTALL) for b in text.split("</details>")
    )
    return {title: int(count) for title, count in (f.groups() for f in found if f)}


def test_a_comment_over_its_limit_halves_its_longest_list_first_and_no_more_than_it_must():
    base = "a" * 40
    same = [
        placed(Change(COST, f"{i}", "py3.12", 3.0, 3.0, base, base, True, "w"), pr_summary.UNCHANGED) for i in range(10)
    ]
    unjudged = [Unjudged(f"bench_new.New.track_{i}", "", "py3.12", "new") for i in range(40)]
    summary = comment_summary(same, unjudged)
    whole = pr_render.markdown(summary)
    assert pr_render.fitted(summary, len(whole.encode())) == whole  # exactly at the limit: whole
    assert left_out(pr_render.fitted(summary, len(whole.encode()) - 1)) == {"Not comparable": 20}
    # The changes' collapsed list is measured by its own rows, beyond the table's.
    slower = placed(Change(COST, "4", "py3.12", 3.0, 3.3, base, base, True, "w"), pr_summary.SLOWER_)
    summary = comment_summary([slower] * (pr_render.TABLE_ROWS + 3) + same[:4])
    limit = len(pr_render.markdown(summary).encode()) - 1
    assert left_out(pr_render.fitted(summary, limit)) == {"Unchanged": 2}


def test_a_comment_cuts_a_list_to_nothing_before_it_gives_up_saying_why():
    summary = comment_summary(unjudged=[Unjudged("bench_new.New.track_new", "", "py3.12", "new " * 100)])
    whole = len(pr_render.markdown(summary).encode())
    assert left_out(pr_render.fitted(summary, whole - 1)) == {"Not comparable": 1}
    with pytest.raises(ValueError, match=r"^the summary is \d+ bytes with every list cut: over 100$"):
        pr_render.fitted(summary, 100)


def test_a_cell_is_one_line_escaped_and_cut_to_its_length():
    assert pr_render.cell("a |\n b") == "a \\| b"
    assert pr_render.cell("x" * pr_render.CELL) == "x" * pr_render.CELL
    assert pr_render.cell("x" * (pr_render.CELL + 1)) == "x" * (pr_render.CELL - 1) + "…"
    assert pr_render.cell("x" * 400, None) == "x" * 400


def test_a_failed_check_quotes_its_reason_cut_to_2000_characters():
    text = pr_render.failed("#5", Failed("the reason: " + "x" * 3000))
    assert text.startswith(f"{pr_render.MARKER}\n**The benchmark check of #5 failed**: no verdict.\n")
    assert "the reason: " + "x" * 1988 + "\n```" in text


def test_a_long_list_that_fits_a_comment_is_shown_whole():
    """A list's rows can be short (an unjudged measure's): more of them than a first guess allowed still fit, and
    the comment must not say that it left out to fit what fitted."""
    summary = comment_summary(unjudged=[Unjudged(f"b.C.t{i}", "", "e", "new") for i in range(1100)])
    text = pr_render.fitted(summary)
    assert text == pr_render.markdown(summary) and len(text.encode()) <= pr_render.COMMENT_BYTES


@pytest.mark.parametrize(("reason", "fence"), [("plain", "```"), ("a ``` fence", "````"), ("`````", "``````")])
def test_a_failed_checks_reason_is_fenced_beyond_any_backticks_it_holds(reason, fence):
    """Upstream code wrote the reason: a fence longer than any run of backticks in it keeps it from rendering."""
    said = pr_render.failed("#5", Failed(reason)).split("\n\n", 1)[1]
    assert said == f"{fence}text\n{reason}\n{fence}\n"


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (0.0015, "seconds", "1.50ms"),  # asv's own units
        (2048.0, "bytes", "2.05k"),
        (1000.5, "instructions", "1,000 instructions"),  # a count from a thousand: its whole number
        (999.5, "instructions", "999.5 instructions"),
        (3.0, "", "3"),
        (1.5, "", "1.5"),
    ],
)
def test_a_value_is_shown_in_its_unit_a_count_whole(value, unit, shown):
    assert render.human(value, unit) == shown


@pytest.mark.parametrize(("before", "after", "shown"), [(0.0, 0.0, "±0%"), (0.0, 5.0, "from 0"), (2.0, 3.0, "+50.0%")])
def test_a_change_from_nothing_is_said_in_words(before, after, shown):
    assert render.percent(Change(COST, "4", "env", before, after, "a", "b", True, "weighted")) == shown
