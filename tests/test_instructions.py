"""Instruction counts (benchmarks/callgrind.py, bench_instructions) and how the gate judges them.

The instrument runs under the real valgrind and counts the real Equinox in .venv; the gate's rules run
over real asv sites (tests/asv_sites.py).
"""

import itertools
import json
import math
import re
import shutil
import statistics
import sys
from pathlib import Path

import pytest

from benchmarks import callgrind, metrics
from benchmarks.bench_instructions import Instructions
from benchmarks.instruction_ops import OPERATIONS, TWINS
from benchtools import settings
from benchtools.errors import BadInput, Failed
from benchtools.judging import confirm, explain, gate, instructions, pairs, recheck, render, verdicts
from benchtools.judging.changes import Change
from benchtools.judging.finding import LARGE_IMPROVEMENT
from benchtools.judging.sources import Source
from benchtools.publishing import instruction_history, operation_markdown
from tests.asv_sites import CONSTRUCTION_PASSES, INSTRUCTIONS, MACHINE, MODULE_COST, git, make_site
from tests.helpers import ROOT, command, needs_valgrind, squeezed
from tests.test_confirm import asv_project

FLAT = [[480_000.0, 320_000.0]] * 2


def quick_look(config):
    return command("regressions", "--config", config, "--machine", MACHINE, "--no-confirm")


def test_every_operation_is_exact_its_module_twin_alerts_and_the_floor_lies_above_the_spread():
    for name in OPERATIONS:
        module, tuple_ = (metrics.entry(f"bench_instructions.Instructions.track_{twin}", repr(name)) for twin in TWINS)
        assert metrics.kind(module) == metrics.kind(tuple_) == metrics.INSTRUCTIONS
        # The tuple twin runs no Equinox code: only noise moves it within an environment.
        assert metrics.alerts(module) and not metrics.alerts(tuple_)
    assert metrics.INSTRUCTIONS_FLOOR > metrics.INSTRUCTIONS_SPREAD


def test_each_module_twin_s_floor_is_twice_the_spread_scripts_instruction_spread_measured():
    """The floors come from the measured spread, written by the command that measured it, not from a typed 1%."""
    kept = json.loads((ROOT / "benchmarks" / "instruction_spread.json").read_text())
    assert len(kept["runs"]) >= 6 and kept["environment"]["valgrind"].startswith("valgrind-")
    for name in OPERATIONS:
        counts = [run["counts"][name]["module"] for run in kept["runs"] if name in run["counts"]]
        assert len(counts) >= 6, name
        floor = metrics.threshold(f"bench_instructions.Instructions.track_module({name!r})")
        assert floor == pytest.approx(metrics.SPREAD_MARGIN * (max(counts) / min(counts) - 1), rel=1e-12), name
    assert metrics.INSTRUCTIONS_FLOOR == metrics.SPREAD_MARGIN * metrics.INSTRUCTIONS_SPREAD


def test_a_module_operation_s_cost_is_shown_but_never_counts_while_tree_at_s_still_does():
    assert not metrics.alerts("bench_construct.ConstructionCost.track_module('default', 2, 4)")
    assert metrics.alerts("bench_counts.PythonCost.track_tree_at(4)")


@pytest.mark.parametrize(("times_floor", "counted"), [(0.5, False), (2.0, True)])
def test_an_instruction_count_counts_above_its_floor(tmp_path, times_floor, counted):
    floor = metrics.threshold("bench_instructions.Instructions.track_module('construct(default)')")
    config = make_site(tmp_path, {INSTRUCTIONS: FLAT + [[480_000.0 * (1 + times_floor * floor), 320_000.0]] * 2})
    result = quick_look(config)
    assert result.returncode == (1 if counted else 0), result.stdout + result.stderr
    assert ("| instructions | `bench_instructions.Instructions.track_module` |" in result.stdout) is counted


def test_a_rise_of_a_module_operation_s_cost_alone_is_no_regression(tmp_path):
    config = make_site(tmp_path, {MODULE_COST: [[7000.0]] * 2 + [[7700.0]] * 2})
    result = quick_look(config)
    assert result.returncode == 0, result.stdout + result.stderr


def confirmed_judge(config, monkeypatch, time_change: float, compare=None):
    """The confirmed gate over ``config`` (or its comparison ``compare``), its side-by-side measurement replaced
    by one whose time changed by ``time_change`` (tests/test_confirm.py measures for real)."""
    asked = []

    def measured(config_, conf, suspects, max_pairs=pairs.MAX_PAIRS, **_):
        asked.extend(suspects)
        found = pairs.Interval(time_change, time_change - 0.03, time_change + 0.03, 12, 0.01, 0.999)
        return [confirm.Confirmation(s, pairs.decide(found), found, 12.34) for s in suspects]

    monkeypatch.setattr(confirm, "confirmations", measured)
    verdict = gate.judge(Source(config=config, machine=MACHINE), compare)
    return verdict, asked


def instruction_rise_site(tmp_path):
    return make_site(
        tmp_path,
        {
            INSTRUCTIONS: FLAT + [[520_000.0, 320_000.0]] * 2,
            CONSTRUCTION_PASSES: [[30.0]] * 2 + [[20.0]] * 2,
        },
    )


def test_an_instruction_rise_whose_time_is_decided_faster_never_counts(tmp_path, monkeypatch):
    verdict, asked = confirmed_judge(instruction_rise_site(tmp_path), monkeypatch, -0.30)
    assert [(c.benchmark, c.params) for c in asked] == [(CONSTRUCTION_PASSES, "'default'")]
    assert not verdict.regression
    ((rise, timed),) = verdict.overruled
    assert rise.benchmark == INSTRUCTIONS and rise.params == "'construct(default)'" and timed.faster
    verdicts.write(tmp_path / "verdict.json", verdicts.data(verdict))
    document = verdicts.read(tmp_path / "verdict.json")  # the whole judged shape, checked
    assert document["regression"] is False and document["overruled"][0]["time"]["high"] < 0
    (suspect,) = document["suspects"]  # the timing re-measured, as the fake measured it
    assert suspect["benchmark"] == CONSTRUCTION_PASSES and suspect["threshold"] == verdict.source.thresholds(
        timed.change
    )
    assert {key: suspect[key] for key in ("verdict", "pairs", "confidence", "seconds", "note")} == {
        "verdict": timed.verdict,
        "pairs": 12,
        "confidence": 0.999,
        "seconds": 12.3,
        "note": "the time of an instruction rise",
    }
    assert "Instruction rises that do not count" in render.markdown(verdict)


@pytest.mark.parametrize("time_change", [0.0, 0.25])
def test_an_instruction_rise_counts_when_its_time_is_not_decided_faster(tmp_path, monkeypatch, time_change):
    verdict, _ = confirmed_judge(instruction_rise_site(tmp_path), monkeypatch, time_change)
    assert [c.benchmark for c in verdict.counted] == [INSTRUCTIONS] and not verdict.overruled


def test_an_operation_with_no_time_counts_on_its_instructions_alone(tmp_path, monkeypatch):
    config = make_site(tmp_path, {INSTRUCTIONS: FLAT + [[480_000.0, 400_000.0]] * 2})
    verdict, asked = confirmed_judge(config, monkeypatch, -0.30)
    assert asked == [] and [c.params for c in verdict.counted] == ["'dispatch(jit)'"]


SPREAD_COUNTS = ROOT / "benchmarks" / "instruction_spread.json"  # Python 3.11.7's (.venv), scripts/instruction-spread
OTHER_PYTHON_COUNTS = ROOT / "docs" / "instruction-spread-py3.11.2.json"  # the same code under Debian's 3.11.2
SITE_OPERATIONS = ("construct(default)", "dispatch(jit)")  # tests/asv_sites.py's params of INSTRUCTIONS


def measured(path):
    """Each Module twin's median count per call of the runs ``path`` keeps, and the environment that made them."""
    kept = json.loads(path.read_text())
    counts = {
        name: statistics.median(run["counts"][name]["module"] for run in kept["runs"] if name in run["counts"])
        for name in OPERATIONS
    }
    return counts, kept["environment"]


def recounted_in(monkeypatch, count_at):
    """The gate's recount made by ``count_at(commit) -> {operation: Module twin's count}`` in place of valgrind's
    processes (tests/test_explain.py installs and counts commits for real); the commits asked, in order."""
    asked = []

    def counts_at(env, commit, names):
        asked.append(commit)
        # Both sides count the operations of the rises, and only those (recheck.counted_operations).
        assert names and names == sorted(set(names) & OPERATIONS.keys())
        counts = {name: {"module": {"instructions": count}} for name, count in count_at(commit).items()}
        return counts, measured(SPREAD_COUNTS)[1]

    monkeypatch.setattr(
        explain,
        "env_config",
        lambda config, conf, env_params, cache_dir: explain.ProfileEnv("counting-env", config, cache_dir),
    )
    monkeypatch.setattr(instructions, "counts_at", counts_at)
    return asked


def test_a_night_whose_python_patch_changed_and_whose_code_did_not_counts_nothing(tmp_path, monkeypatch):
    """One commit's code at every tag, counted by scripts/instruction-spread under Python 3.11.2 (v0, v1: an
    earlier night's runner) and 3.11.7 (v2, v3: tonight's).  Compared as stored, the environments' difference
    passes the floor; counted again side by side tonight, it is gone, and the report says what moved."""
    older, _ = measured(OTHER_PYTHON_COUNTS)
    tonight, environment = measured(SPREAD_COUNTS)
    config = make_site(
        tmp_path,
        {
            INSTRUCTIONS: [[older[name] for name in SITE_OPERATIONS]] * 2
            + [[tonight[name] for name in SITE_OPERATIONS]] * 2,
            CONSTRUCTION_PASSES: [[30.0]] * 4,
        },
    )
    stored = gate.judge(Source(config=config, machine=MACHINE), ("v1", "v3"), confirm=False)
    assert [c.benchmark for c in stored.counted] == [INSTRUCTIONS] * len(stored.counted) and stored.counted
    asked = recounted_in(monkeypatch, lambda commit: tonight)
    verdict, _ = confirmed_judge(config, monkeypatch, 0.0, ("v1", "v3"))
    assert not verdict.regression and len(verdict.overruled) == len(stored.counted)
    assert all(isinstance(why, recheck.Recount) for _, why in verdict.overruled)
    assert set(asked) == {verdict.source.resolve("v1"), verdict.source.resolve("v3")}
    # Placed at their commit as the re-judgement places the stored rise, so that the alert matches the two.
    assert [(c.good, c.bad) for c, _ in verdict.overruled] == [(c.good, c.bad) for c in stored.counted]
    assert stored.counted[0].bad == verdict.source.resolve("v2")
    verdicts.write(tmp_path / "verdict.json", verdicts.data(verdict))
    document = verdicts.read(tmp_path / "verdict.json")
    ((rise, recount), *_) = verdict.overruled
    assert document["overruled"][0]["recount"] == {
        "before": recount.before,
        "after": recount.after,
        "environment": environment,
    }
    report = render.markdown(verdict)
    assert "## Instruction changes that do not count: counted again side by side, they are gone" in report
    # The stored fall of the other operation is the interpreter's too: no large improvement once counted again.
    assert [c.params for c in stored.improved] == ["'construct(default)'"] and verdict.improved == []
    assert [c.params for c, _ in verdict.not_improved] == ["'construct(default)'"]
    assert "Python 3.11.7" in report and "valgrind-3.19.0" in report


def test_a_rise_that_the_side_by_side_recount_carries_counts(tmp_path, monkeypatch):
    config = make_site(tmp_path, {INSTRUCTIONS: FLAT + [[480_000.0, 330_000.0]] * 2})
    v1 = git(tmp_path / "repo", "rev-parse", "v1")
    asked = recounted_in(
        monkeypatch, lambda commit: {name: 320_000.0 if commit == v1 else 330_000.0 for name in OPERATIONS}
    )
    verdict, _ = confirmed_judge(config, monkeypatch, 0.0, ("v1", "v3"))
    assert [c.params for c in verdict.counted] == ["'dispatch(jit)'"] and not verdict.overruled
    assert len(asked) == 2


def test_a_rise_that_cannot_be_counted_again_counts_as_stored_saying_why(tmp_path, monkeypatch):
    config = make_site(tmp_path, {INSTRUCTIONS: FLAT + [[480_000.0, 330_000.0]] * 2})

    def cannot(commit):
        raise Failed(f"cannot install {commit[:8]} to count instructions")

    recounted_in(monkeypatch, cannot)
    verdict, _ = confirmed_judge(config, monkeypatch, 0.0, ("v1", "v3"))
    assert [c.params for c in verdict.counted] == ["'dispatch(jit)'"] and not verdict.overruled
    [said] = verdict.explain_errors
    assert "could not be counted again, so it counts as stored: cannot install" in said


def test_without_valgrind_the_benchmarks_skip_saying_why(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind, no setarch
    counts = Instructions().setup_cache()
    assert "valgrind is not installed" in counts["unavailable"]
    with pytest.raises(NotImplementedError, match="instructions are not counted here: valgrind"):
        Instructions().setup(counts, "flatten")


@needs_valgrind
@pytest.mark.slow(minutes=3)
def test_fresh_processes_of_identical_code_agree_and_the_count_sees_the_work_in_c():
    """An A/A of the instrument on the Equinox in .venv: two processes, every operation, the first as on a
    fresh clone (no compiled module of the suite)."""
    shutil.rmtree(ROOT / "benchmarks" / "__pycache__", ignore_errors=True)
    first, second = (callgrind.count(list(OPERATIONS)) for _ in range(2))
    for name in OPERATIONS:
        for twin in TWINS:
            a, b = first[name][twin]["instructions"], second[name][twin]["instructions"]
            assert a > 0 and b > 0
            if twin == "module":  # the twin that alerts: identical code never passes its floor
                entry = metrics.entry(f"bench_instructions.Instructions.track_{twin}", repr(name))
                assert abs(b / a - 1) <= metrics.threshold(entry), (name, a, b)
    # The Module's operations do more work than their tuple twins, and the count names C functions.
    for name in ("construct(default)", "flatten", "tree_at(4)"):
        assert first[name]["module"]["instructions"] > 2 * first[name]["tuple"]["instructions"]
    # jaxlib's C++ flatten itself, by name: work no Python count sees (any PyObject_* function of CPython's would
    # be named by a count that saw the interpreter alone).
    functions = first["flatten"]["module"]["functions"]
    flatten_in_cpp = [f for f in functions if "PyTreeDef::FlattenImpl" in f]
    assert flatten_in_cpp and all(functions[f] > 0 for f in flatten_in_cpp), sorted(functions)
    assert sum(functions.values()) <= first["flatten"]["module"]["instructions"] * 1.01


def twin_counts(total, functions):
    return {"instructions": total, "functions": functions}


def test_a_cause_names_the_functions_whose_own_instructions_moved_most_c_included():
    before = twin_counts(147_700, {"builtin_dir": 68_800, "_PyEval_EvalFrameDefault": 40_000, "tupledealloc": 500})
    after = twin_counts(74_600, {"_PyEval_EvalFrameDefault": 41_000, "tupledealloc": 500, "_PyType_Lookup": 800})
    before["builtins"] = {"builtin_dir": 69_012.0, "builtin_isinstance": 300.0}
    after["builtins"] = {"builtin_isinstance": 310.0}
    words = instructions.cause(before, after, per="construction", shown=3).split("; ")
    # dir's whole C work first; isinstance's 10 instructions are under the 1% that names a builtin.
    assert words[0] == "`builtin_dir` with all it called: 69,012 → 0 instructions per construction"
    assert words[1] == "`builtin_dir`: 68,800 → under 500 instructions per construction"
    assert words[2] == "`_PyEval_EvalFrameDefault`: 40,000 → 41,000 instructions per construction"
    explained = instructions.Explanation("env", "a" * 40, "b" * 40, "construct(default)", "module", (before, after))
    table = explained.markdown()
    assert table[0] == "Instructions per call of `construct(default)` (module): 147,700 → 74,600."
    assert table[1:6] == [
        "",
        "| function | own instructions per call |",
        "|---|---|",
        "| `builtin_dir` with all it called | 69,012 → 0 |",
        "| `builtin_dir` | 68,800 → under 500 |",
    ]
    assert len(words) == 3 and explained.sentence("construction") == "; ".join(words)
    assert explained.sentence() == instructions.cause(before, after)
    assert instructions.cause(before, after, "construction", shown=1).split("; ") == words[:2]  # and still a function
    # A builtin is named by its share of the count before: 15 of 1,000 is 1%, though under 1% of 2,000.
    grew = twin_counts(1_000.0, {"f": 300.0, "g": 200.0, "h": 100.0}) | {"builtins": {"builtin_dir": 100.0}}
    doubled = twin_counts(2_000.0, {"f": 700.0, "g": 500.0, "h": 300.0}) | {"builtins": {"builtin_dir": 115.0}}
    assert [word.split(":")[0] for word in instructions.cause(grew, doubled).split("; ")] == [
        "`builtin_dir` with all it called",
        "`f`",
        "`g`",
    ]
    moved_most = twin_counts(0, {"f": 100.0, "g": 1_000.0})  # each function against its own count before
    assert instructions.function_changes(twin_counts(0, {"f": 100.0, "g": 100.0}), moved_most)[0] == ("g", 100, 1_000)


def test_builtins_are_named_by_how_far_their_c_work_moved_ties_by_name():
    before = twin_counts(100_000, {"f": 10.0})
    after = twin_counts(100_000, {"f": 10.0})
    before["builtins"] = {"builtin_z": 1_000.0, "builtin_b": 9_000.0, "builtin_m": 3_000.0, "builtin_s": 5_000.0}
    after["builtins"] = {"builtin_z": 5_000.0, "builtin_b": 6_000.0, "builtin_s": 5_500.0, "builtin_new": 2_000.0}
    after["builtins"]["builtin_1%"] = 1_000.0
    assert instructions.builtin_changes(before, after) == [  # builtin_s moved under 1% of 100,000, builtin_1% by 1%
        ("builtin_z", 1_000.0, 5_000.0),
        ("builtin_b", 9_000.0, 6_000.0),
        ("builtin_m", 3_000.0, 0.0),
        ("builtin_new", 0.0, 2_000.0),
        ("builtin_1%", 0.0, 1_000.0),
    ]


def test_a_side_that_kept_no_function_shows_the_other_s_as_under_zero():
    before, after = twin_counts(1_000, {"f": 500.0}), twin_counts(400, {})
    assert instructions.cause(before, after) == "`f`: 500 → under 0 instructions per call"


def test_a_step_s_table_shows_its_eight_largest_changes():
    before = twin_counts(10_000, {f"f{i}": 100.0 * i for i in range(10)})
    after = twin_counts(10_000, {f"f{i}": 0.0 for i in range(10)})
    explained = instructions.Explanation("env", "a" * 40, "b" * 40, "flatten", "module", (before, after))
    assert [row.split(" |")[0] for row in explained.markdown()[4:]] == [f"| `f{i}`" for i in range(9, 1, -1)]


def test_a_count_is_kept_per_environment_commit_and_set_of_operations_in_any_order(tmp_path):
    env = explain.ProfileEnv("py311-jax", tmp_path / "config.json", tmp_path)
    path = instructions.kept(env, "c" * 40, ["flatten", "construct(default)"])
    assert path == tmp_path / "instructions" / "py311-jax" / f"{'c' * 40}-7498ec7f772c.json"
    assert instructions.kept(env, "c" * 40, ["construct(default)", "flatten"]) == path
    assert instructions.kept(env, "c" * 40, ["flatten"]) != path


def test_a_recount_and_an_explanation_count_the_operations_of_the_instruction_changes_only():
    def change(benchmark, params):
        return Change(benchmark, params, "env", 1.0, 2.0, "a", "b", True, "")

    changes = [
        change(INSTRUCTIONS, "'flatten'"),
        change(INSTRUCTIONS.replace("module", "tuple"), "'construct(default)'"),
        change(INSTRUCTIONS, "'flatten'"),
        change(MODULE_COST, "'default', 2, 4"),
    ]
    assert recheck.counted_operations(changes) == ["construct(default)", "flatten"]
    assert recheck.counted_operations(changes[3:]) == []


def test_both_sides_of_a_step_share_a_kept_set_of_operations_that_holds_what_is_asked(tmp_path):
    env = explain.ProfileEnv("py311-jax", tmp_path / "config.json", tmp_path)
    before, after, wide = "a" * 40, "b" * 40, ["access", "construct(default)", "flatten"]

    def keep(commit, names):
        path = instructions.kept(env, commit, names)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({name: {} for name in names}))
        path.with_suffix(instructions.ENVIRONMENT_SUFFIX).write_text(json.dumps({"valgrind": "3.22"}))

    assert instructions.pair_names(env, (before, after), ["flatten"]) == ["flatten"]  # nothing kept: count these
    keep(after, wide)
    assert instructions.pair_names(env, (before, after), ["flatten"]) == ["flatten"]  # kept at one side only
    keep(before, wide)
    assert instructions.pair_names(env, (before, after), ["flatten", "access"]) == wide
    assert instructions.pair_names(env, (after, before), ["flatten"]) == wide
    assert instructions.pair_names(env, (before, after), ["flatten", "unflatten"]) == ["flatten", "unflatten"]
    for commit, names in itertools.product((before, after), (["flatten", "unflatten"], ["unflatten"])):
        keep(commit, names)
    # A set kept that is exactly what is asked is taken as it is, though a wider one holds it too.
    assert instructions.kept(env, before, ["unflatten"]) < instructions.kept(env, before, ["flatten", "unflatten"])
    assert instructions.pair_names(env, (before, after), ["unflatten"]) == ["unflatten"]


def test_a_kept_count_is_read_again_with_its_environment_and_explains_a_step(tmp_path):
    env = explain.ProfileEnv("py311-jax", tmp_path / "config.json", tmp_path)
    names = sorted(OPERATIONS)
    for commit, total in [("a" * 40, 1_000), ("b" * 40, 1_500)]:
        counted = {name: {twin: twin_counts(total, {"f": total / 2}) for twin in TWINS} for name in names}
        path = instructions.kept(env, commit, names)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(counted))
    path.with_suffix(instructions.ENVIRONMENT_SUFFIX).write_text(json.dumps({"valgrind": "3.22"}))
    assert instructions.counts_at(env, "a" * 40, names)[1] is None  # kept before its environment was recorded
    assert instructions.counts_at(env, "b" * 40, names)[1] == {"valgrind": "3.22"}
    explained = instructions.explain(env, "a" * 40, "b" * 40, names[0], TWINS[-1], names)
    assert (explained.env_name, explained.before, explained.after) == ("py311-jax", "a" * 40, "b" * 40)
    assert (explained.operation, explained.twin) == (names[0], TWINS[-1])
    assert explained.counts == (twin_counts(1_000, {"f": 500}), twin_counts(1_500, {"f": 750}))


def test_the_agreement_of_instruction_steps_with_their_time_is_tabled_per_operation():
    def step(relative, estimate, low, high):
        found = pairs.Interval(estimate, low, high, 12, 0.01, 0.9975)
        return instruction_history.InstructionStep(
            "env", "construction", "construct(default)", "a", "b", (100.0, 100.0 * (1 + relative)), found, ""
        )

    found = {
        "construction": [step(-0.49, -0.32, -0.37, -0.29), step(0.10, 0.09, 0.05, 0.12), step(0.05, -0.1, -0.2, -0.05)]
    }
    assert [operation_markdown.agreement(s) for s in found["construction"]] == [
        operation_markdown.LESS,
        operation_markdown.AS_COST,
        operation_markdown.CONTRADICTS,
    ]
    sentence, _, header, _, row = squeezed(instruction_history.tracking_markdown(found)).splitlines()
    assert sentence == (
        "Of the 3 steps, 3 have a time decided either way (its interval excludes no change); "
        "2 of those move the way their instruction count does."
    )
    assert "time change ÷ instructions change" in header and "as the instructions say" in header
    assert row.startswith("| construction | 3 | 3 | 1 | 1 | 0 | 0 | 0 | 1 |")


def test_the_history_s_tables_are_made_again_from_the_data_the_command_keeps(tmp_path):
    """docs/instructions.md's history tables come from counts in a cache that does not travel (issue 37, item 16):
    --data keeps what they are made from, and --from makes the same tables from it alone."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "perf: fewer dir() (#1140)",
    )
    after = git(repo, "rev-parse", "HEAD")
    found = {
        "construction": [
            instruction_history.InstructionStep(
                "Python 3.11, jax 0.4.33",
                "construction",
                "construct(default)",
                "a" * 40,
                after,
                (664_527.0, 380_694.0),
                pairs.Interval(-0.358, -0.421, -0.301, 12, 0.01, 0.9975),
                "`builtin_dir` with all it called: 69,012 → 0 instructions per call",
            )
        ]
    }
    rows = instruction_history.data(found, repo)
    (tmp_path / "steps.json").write_text(json.dumps(rows))
    page = tmp_path / "page.md"
    page.write_text(
        "".join(
            f"<!-- {name}:start -->\n<!-- {name}:end -->\n" for name in ("instruction-history", "instruction-tracking")
        )
    )
    ran = command("instruction-history", "--from", tmp_path / "steps.json", "--readme", page)
    assert ran.returncode == 0, ran.stderr
    written = page.read_text()
    kept = instruction_history.from_data(json.loads(json.dumps(rows)))
    assert instruction_history.markdown(kept, "https://github.com/patrick-kidger/equinox") in written
    assert "| 664,527 → 380,694 (-42.7%) | -35.8% (-42.1% to -30.1%) |" in written and "(#1140)" not in written
    assert "[#1140](https://github.com/patrick-kidger/equinox/pull/1140)" in written
    (tmp_path / "steps.json").write_text("[{}]")
    bad = command("instruction-history", "--from", tmp_path / "steps.json")
    assert bad.returncode == 2 and "steps.json: not the steps of scripts/instruction-history --data" in bad.stderr


def kept_run(path, number, module_count, environment=None):
    counts = {
        name: {twin: {"instructions": module_count if twin == "module" else 1000.0, "functions": {}} for twin in TWINS}
        for name in OPERATIONS
    }
    path.mkdir(exist_ok=True)
    run = {"counts": counts, "seconds": 60.0, "load": [1.0, 1.1], "environment": environment or callgrind.environment()}
    (path / f"run-{number:02d}.json").write_text(json.dumps(run))


CONSTRUCTION_FLOOR = metrics.threshold("bench_instructions.Instructions.track_module('construct(default)')")
LOWEST_FLOOR = min(metrics.threshold(f"bench_instructions.Instructions.track_module({name!r})") for name in OPERATIONS)


@needs_valgrind
@pytest.mark.parametrize(("times_floor", "code"), [(0.5, 0), (1.5, 1)])
def test_the_spread_of_kept_runs_is_tabled_and_a_spread_beyond_the_floor_exits_1(tmp_path, times_floor, code):
    second = 100_000.0 * (1 + times_floor * LOWEST_FLOOR)  # every operation's count moves alike
    kept_run(tmp_path / "kept", 0, 100_000.0)
    kept_run(tmp_path / "kept", 1, second)
    ran = command("instruction-spread", "--runs", 2, "--kept", tmp_path / "kept", "--data", tmp_path / "data.json")
    assert ran.returncode == code, ran.stdout + ran.stderr
    rows = [line for line in ran.stdout.splitlines() if line.startswith("| construct(default) | module |")]
    spread = f"{second / 100_000 - 1:.3%}"
    assert rows == [f"| construct(default) | module | 100,000 | {second:,.0f} | {spread} | {CONSTRUCTION_FLOOR:.3%} |"]
    # The file holds what the table is made from: tabled again from it, counting nothing, it is the same table.
    again = command("instruction-spread", "--from", tmp_path / "data.json")
    assert again.returncode == code and again.stdout == ran.stdout.split("\n", 1)[1], again.stderr


@needs_valgrind
def test_a_kept_run_that_is_not_json_is_bad_input_naming_it(tmp_path):
    kept_run(tmp_path / "kept", 0, 100_000.0)
    (tmp_path / "kept" / "run-01.json").write_text("{half")
    ran = command("instruction-spread", "--runs", 2, "--kept", tmp_path / "kept")
    assert ran.returncode == 2 and "run-01.json" in ran.stderr


@needs_valgrind
def test_a_kept_run_counted_in_another_environment_is_bad_input(tmp_path):
    kept_run(tmp_path / "kept", 0, 100_000.0)
    kept_run(tmp_path / "kept", 1, 100_000.0, {**callgrind.environment(), "python": "Python 3.11.2"})
    ran = command("instruction-spread", "--runs", 2, "--kept", tmp_path / "kept")
    assert ran.returncode == 2 and "run-01.json: counted in another environment" in ran.stderr


def test_the_spread_block_of_the_docs_is_the_command_s_table_of_the_committed_counts(tmp_path):
    """docs/instructions.md's spread and environments blocks are written by the command from the counts the
    repository holds, so they can be made again, and a hand edit shows (issue 37, item 16)."""
    page = tmp_path / "instructions.md"
    shutil.copy(ROOT / "docs" / "instructions.md", page)
    ran = command(
        "instruction-spread",
        "--from",
        ROOT / "benchmarks" / "instruction_spread.json",
        "--across",
        ROOT / "docs" / "instruction-spread-py3.11.2.json",
        "--readme",
        page,
    )
    assert ran.returncode == 0, ran.stderr
    assert page.read_text() == (ROOT / "docs" / "instructions.md").read_text()


@pytest.mark.parametrize(
    ("module_counts", "placed"),
    [
        # The night's counts repeat within the spread, then step: the step is placed at its commit.
        ([480_000.0, 480_400.0, 479_800.0, 530_000.0, 530_300.0], ("v2", "v3")),
        # One count between is off both levels by more than the spread: the span stays.
        ([480_000.0, 480_000.0, 500_000.0, 530_000.0, 530_000.0], ("v0", "v4")),
    ],
)
def test_a_night_s_instruction_step_is_placed_at_its_commit_through_the_spread(tmp_path, module_counts, placed):
    config = make_site(tmp_path, {INSTRUCTIONS: [[count, 320_000.0] for count in module_counts]})
    verdict = tmp_path / "verdict.json"
    ran = command("regressions", "--config", config, "--machine", MACHINE, "--no-confirm", "--compare", "v0", "v4",
                  "--verdict", verdict)  # fmt: skip
    assert ran.returncode == 1, ran.stdout + ran.stderr
    [counted] = json.loads(verdict.read_text())["counted"]
    tags = {git(tmp_path / "repo", "rev-parse", f"v{i}"): f"v{i}" for i in range(5)}
    assert (tags[counted["good"]], tags[counted["bad"]]) == placed


def test_the_jax_history_marks_each_change_beyond_the_floor_per_environment():
    counts = {("flatten", "module"): 62_000.0, ("flatten", "tuple"): 9_000.0}
    moved = {("flatten", "module"): 80_000.0, ("flatten", "tuple"): 9_040.0}
    table = instruction_history.jax_markdown(
        [("v0.4.33", "Python 3.11", counts), ("v0.4.38", "Python 3.11", moved), ("v0.10.2", "Python 3.13", counts)]
    )
    table = squeezed(table).splitlines()
    assert table[0].startswith(f"Instructions per call, Equinox {settings.load().reference_equinox} (the Module twin")
    assert table[5].startswith("| Python 3.11 | v0.4.38 | 80,000 (+29.0%) | 9,040 | — |")
    assert table[6].startswith("| Python 3.13 | v0.10.2 | 62,000 | 9,000 |")  # a new environment starts afresh


def test_a_pull_request_summary_names_an_instruction_count_by_its_operation():
    from benchtools.judging import pr_summary

    construction = pr_summary.words(INSTRUCTIONS, "'construct(default)'")
    assert construction.operation == "construction, generated `__init__`, instructions"
    assert (
        construction.rank == pr_summary.words("bench_construct.ConstructionCost.track_module", "'default', 2, 4").rank
    )
    assert pr_summary.words(INSTRUCTIONS.replace("module", "tuple"), "'flatten'").operation == (
        "flatten, tuple twin, instructions"
    )
    assert pr_summary.words(INSTRUCTIONS, "'dispatch(filter_jit)'").operation.startswith("`eqx.filter_jit` dispatch")


def test_the_docs_history_tables_are_what_the_committed_data_makes_with_no_cache(tmp_path):
    """Issue 37, item 16: the history's tables are rebuilt from the repository alone: scripts/instruction-history
    --from docs/instruction-history.json rewrites them in docs/instructions.md and docs/commit-history.md as
    they stand."""
    for name in ("instructions.md", "commit-history.md"):
        page = tmp_path / name
        shutil.copy(ROOT / "docs" / name, page)
        ran = command("instruction-history", "--from", ROOT / "docs" / "instruction-history.json", "--readme", page)
        assert ran.returncode == 0, ran.stderr
        assert page.read_text() == (ROOT / "docs" / name).read_text(), f"docs/{name}'s history tables"


def test_the_docs_jax_history_block_says_the_floor_the_script_applies():
    """Issue 37, item 16: the JAX history's block was written before the floors came from the measured spread,
    and still said "the 1% floor"; it is written again by the script that applies today's floor."""
    text = (ROOT / "docs" / "instructions.md").read_text()
    block = text.split("<!-- instruction-jax-history:start -->")[1].split("<!-- instruction-jax-history:end -->")[0]
    assert block.strip().splitlines()[0] == instruction_history.jax_markdown([]).splitlines()[0]


def test_a_commit_that_cannot_be_installed_to_count_fails_naming_it(tmp_path, capsys):
    env = explain.ProfileEnv("py311-jax", tmp_path / "missing.conf.json", tmp_path)
    with pytest.raises(Failed, match=r"^cannot install cccccccc in py311-jax to count instructions: .*missing\.conf"):
        instructions.counts_at(env, "c" * 40, ["flatten", "construct(default)"])
    assert "counting instructions at cccccccc in py311-jax: construct(default), flatten" in capsys.readouterr().err
    assert not instructions.kept(env, "c" * 40, ["flatten", "construct(default)"]).exists()


HERE, ELSEWHERE = {"python": "3.11", "jax": "0.4.33"}, {"python": "3.9"}  # the site's environment; one it lacks
TUPLE_INSTRUCTIONS = INSTRUCTIONS.replace("module", "tuple")


def counting_site(tmp_path) -> tuple[Source, explain.ProfileEnv, str, str]:
    """A site whose one environment (Python 3.11) keeps counts and profiles where the gate reads them: its source,
    that environment, and the two commits compared (v1, v3)."""
    config = make_site(tmp_path, {INSTRUCTIONS: FLAT * 2})
    config.write_text(json.dumps(json.loads(config.read_text()) | {"pythons": ["3.11"]}))
    source = Source(output=tmp_path, config=config, machine=MACHINE)
    env = explain.env_config(config, source.conf, HERE, source.profiles)
    return source, env, source.resolve("v1"), source.resolve("v3")


def keep_counts(env, commit: str, counts: dict, environment=None) -> None:
    """``counts`` ({operation: {twin: instructions}}) kept at ``commit`` as a count of all their operations."""
    path = instructions.kept(env, commit, sorted(counts))
    path.parent.mkdir(parents=True, exist_ok=True)
    twins = {name: {twin: {"instructions": n, "functions": {}} for twin, n in c.items()} for name, c in counts.items()}
    path.write_text(json.dumps(twins))
    if environment:
        path.with_suffix(instructions.ENVIRONMENT_SUFFIX).write_text(json.dumps(environment))


def judged(benchmark, params, good, bad, env_params=HERE, unit="instructions") -> Change:
    change = Change(benchmark, params, "Python 3.11, jax 0.4.33", 100.0, 200.0, good, bad, False, unit)
    change.env_params = env_params
    return change


def test_a_recount_reads_each_change_s_own_twin_where_its_environment_keeps_it_and_passes_the_rest_on(tmp_path):
    source, env, v1, v3 = counting_site(tmp_path)
    other_kind = judged(MODULE_COST, "'default'", v1, v3, unit="weighted instructions")
    uncountable = judged(INSTRUCTIONS, "'flatten'", v1, v3, ELSEWHERE)
    gone = judged(INSTRUCTIONS, "'dispatch alone(jit)'", v1, v3)  # the operation's name holds a space
    held = judged(TUPLE_INSTRUCTIONS, "'flatten'", v1, v3)
    # Each twin read as the other would turn its verdict round.
    keep_counts(
        env, v1, {"dispatch alone(jit)": {"module": 100, "tuple": 100}, "flatten": {"module": 100, "tuple": 100}}
    )
    tonight = {"valgrind": "valgrind-3.22.0"}
    counts = {"dispatch alone(jit)": {"module": 100, "tuple": 200}, "flatten": {"module": 100, "tuple": 150}}
    keep_counts(env, v3, counts, tonight)
    kept, overruled, errors = recheck.recount(source, [other_kind, uncountable, gone, held])
    assert kept == [other_kind, uncountable, held]
    assert overruled == [(gone, recheck.Recount(100, 100, tonight))]
    assert errors == [
        f"{uncountable.entry} could not be counted again, so it counts as stored: no environment of "
        f"{source.config} has {ELSEWHERE}"
    ]
    # Without the run's configuration nothing is counted again: only the instruction changes are said to stand.
    unconfigured = Source(results=tmp_path / "results", html=tmp_path / "html", machine=MACHINE)
    assert recheck.recount(unconfigured, [other_kind]) == ([other_kind], [], [])
    assert recheck.recount(unconfigured, [gone]) == (
        [gone],
        [],
        ["the instruction rises count as stored: no asv configuration to count them again"],
    )


def test_a_recount_exactly_at_the_floor_is_no_rise_and_exactly_at_a_large_improvement_is_one():
    rise = judged(INSTRUCTIONS, "'flatten'", "a" * 40, "b" * 40)
    floor = metrics.threshold(rise.entry)
    assert not recheck.Recount(100.0, 100.0 * (1 + floor), None).counts(rise)
    assert recheck.Recount(100.0, 100.0 * (1 + floor) * 1.000001, None).counts(rise)
    assert recheck.Recount(100.0, 100.0 * (1 - LARGE_IMPROVEMENT), None).improves(rise)
    assert not recheck.Recount(100.0, 100.0 * (1 - LARGE_IMPROVEMENT) * 1.000001, None).improves(rise)


def test_asv_params_are_split_and_unquoted_whole():
    assert recheck.split_params("'dispatch alone(jit)'") == ["dispatch alone(jit)"]
    assert recheck.split_params("'default', 2, 4") == ["default", "2", "4"]
    assert recheck.split_params("") == []


def test_each_instruction_rise_s_time_is_its_own_twin_s_between_the_same_commits_in_the_same_environment():
    good, bad = "a" * 40, "b" * 40
    untimed = judged(INSTRUCTIONS, "'dispatch(jit)'", good, bad)  # no time measures a dispatch
    unnamed = judged(INSTRUCTIONS, "", good, bad)  # no operation: nothing to look up
    tuple_rise = judged(TUPLE_INSTRUCTIONS, "'construct(default)'", good, bad)
    unrecorded = judged(INSTRUCTIONS, "'access'", good, bad)
    twin_time = CONSTRUCTION_PASSES.replace("module", "tuple")
    times = [
        Change(CONSTRUCTION_PASSES, "'default'", tuple_rise.env, 30.0, 20.0, good, bad, False, "tree_map passes"),
        Change(twin_time, "'default'", "another environment", 30.0, 40.0, good, bad, False, "tree_map passes"),
        Change(twin_time, "'default'", tuple_rise.env, 30.0, 25.0, good, bad, False, "tree_map passes"),
    ]
    checks = recheck.time_checks([untimed, unnamed, tuple_rise, unrecorded], times)
    assert [rise for rise, _ in checks] == [tuple_rise, unrecorded]
    fields = [(c.benchmark, c.params, c.env, c.good, c.bad, c.single_commit, c.unit, c.env_params) for _, c in checks]
    assert fields == [
        (twin_time, "'default'", tuple_rise.env, good, bad, False, "tree_map passes", HERE),
        ("bench_access.AccessInTreeMapPasses.track_module", "", unrecorded.env, good, bad, False, "", HERE),
    ]
    (_, timed), (_, missing) = checks
    assert (timed.before, timed.after) == (30.0, 25.0) and math.isnan(missing.before) and math.isnan(missing.after)


def test_each_exact_change_and_improvement_is_explained_by_its_own_twin_s_count_or_its_profile(tmp_path):
    source, env, v1, v3 = counting_site(tmp_path)
    cost = judged(MODULE_COST, "'default'", v1, v3, unit="weighted instructions")
    timing = judged(CONSTRUCTION_PASSES, "'default'", v1, v3, unit="tree_map passes")  # not exact: not explained
    rise, fall = judged(INSTRUCTIONS, "'flatten'", v1, v3), judged(TUPLE_INSTRUCTIONS, "'flatten'", v1, v3)
    elsewhere = judged(INSTRUCTIONS, "'access'", v1, v3, ELSEWHERE)
    # What both commits count and profile, kept as the gate keeps it: nothing is counted or profiled here.
    counted = {name: {"module": 100 * i, "tuple": 90 * i} for i, name in enumerate(["access", "flatten"], 1)}
    keep_counts(env, v1, counted)
    keep_counts(env, v3, {name: {twin: 2 * n for twin, n in c.items()} for name, c in counted.items()})
    profiles = {v1: {"equinox.f": [1, 2.0, 1.0]}, v3: {"equinox.f": [3, 6.0, 3.0]}}
    for commit, profile in profiles.items():
        path = explain.cached_profile(source.profiles, env.name, commit, explain.PROFILED)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(profile))
    errors = recheck.attach_explanations(source, [cost, timing, rise, elsewhere], [fall])
    assert errors == [f"v1 → v3: no environment of {source.config} has {ELSEWHERE}"]
    assert timing.explanation is None and elsewhere.explanation is None
    for row, twin, before in ((rise, "module", 200), (fall, "tuple", 180)):
        counts = tuple({"instructions": n, "functions": {}} for n in (before, 2 * before))
        assert row.explanation == instructions.Explanation(env.name, v1, v3, "flatten", twin, counts)
    assert (cost.explanation.env_name, cost.explanation.before, cost.explanation.after) == (env.name, v1, v3)
    assert (cost.explanation.before_summary, cost.explanation.after_summary) == (profiles[v1], profiles[v3])
    with pytest.raises(BadInput, match=r"^--explain needs the asv configuration of the run \(--output or --config\)$"):
        recheck.attach_explanations(Source(results=tmp_path / "results", html=tmp_path / "html"), [cost], [])


@pytest.mark.parametrize(
    ("raised", "said"),
    [
        (None, None),
        (callgrind.Unavailable("valgrind is missing"), "cannot count instructions here: valgrind is missing"),
        (RuntimeError("callgrind exited 1"), "counting instructions at {} failed: callgrind exited 1"),
    ],
)
def test_a_count_is_made_with_its_commit_s_own_python_kept_with_its_environment_and_read_again_or_fails_saying_why(
    tmp_path, monkeypatch, capsys, raised, said
):
    """A count installs its commit as the ``counted`` side of the run's environment and counts the operations asked,
    sorted, with that side's Python; it is kept with its counting environment and read again from there. valgrind's
    count is planted here: test_fresh_processes_of_identical_code_agree_and_the_count_sees_the_work_in_c counts."""
    from asv.environment import ExistingEnvironment

    config, (commit, _) = asv_project(tmp_path)
    env, names = explain.ProfileEnv("existing", config, tmp_path / "profile-env"), ["flatten", "access"]
    planted, environment, asked, pythons = {"flatten": {"module": {"instructions": 1}}}, {"valgrind": "3.22"}, [], {}

    def install(asv_env, conf, repo, installed):  # the commit's own Python, as a virtualenv's install leaves it
        python = Path(conf.env_dir) / asv_env.dir_name / "bin" / "python"
        python.parent.mkdir(parents=True, exist_ok=True)
        python.unlink(missing_ok=True)
        python.symlink_to(sys.executable)
        pythons[(Path(conf.env_dir).name, repo.get_hash_from_name(installed))] = str(python)

    def count(names, python):
        asked.append((names, python))
        if raised:
            raise raised
        return planted

    monkeypatch.setattr(ExistingEnvironment, "install_project", install)
    monkeypatch.setattr(callgrind, "count", count)
    monkeypatch.setattr(callgrind, "environment", lambda python: asked.append(python) or environment)
    if said:
        with pytest.raises(Failed, match=f"^{re.escape(said.format(commit[:8]))}$"):
            instructions.counts_at(env, commit, names)
        assert not instructions.kept(env, commit, names).exists()
        return
    assert instructions.counts_at(env, commit, names) == (planted, environment)
    [python] = pythons.values()
    assert list(pythons) == [("counted", commit)] and asked == [(["access", "flatten"], python), python]
    assert f"counted: {commit[:8]} in existing-" in capsys.readouterr().err
    assert instructions.counts_at(env, commit, names) == (planted, environment) and len(asked) == 2  # kept: not again


def test_a_recount_environment_is_one_table_cell_of_plain_characters():
    """The run job, which runs upstream code, wrote it: what could break the table or render is replaced."""
    assert render.environment_text(None) == render.environment_text({}) == "not recorded"
    environment = {"valgrind": "valgrind-3.19.0", "python": "3.11.7 <b>|`x`", "jaxlib": ""}
    assert render.environment_text(environment) == "python 3.11.7 ?b???x?; valgrind valgrind-3.19.0"
