"""benchtools/judging/confirm.py: discovering the suspects' benchmarks, and the gate confirming through a fake
measurement, with its exit codes.

Nothing here times anything: the values are made up, so that the verdict
they must give is known (tests/test_pairs.py tests the statistics).  The one
real measurement is the slow end-to-end test at the end.
"""

import functools
import itertools
import json
import math
import os
import random
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks import metrics, params
from benchtools import cli, util
from benchtools.asvtools import sides
from benchtools.asvtools.sides import LAUNCH_METHOD, Side, discovery_regex, param_index
from benchtools.errors import BadInput, ExitCode, Failed
from benchtools.judging import changes, confirm, pairs, render
from tests.asv_sites import COST, COUNT, MACHINE, PASSES, TIMING, FakeSide, fake_sides, make_site
from tests.golden import assert_golden
from tests.helpers import ASV_SIDE_ENVS, command, git


def test_discovery_selects_exactly_the_suspects_benchmarks_parameterized_or_not():
    from asv.benchmarks import Benchmarks

    listed = [
        {"name": name, "params": params}
        for name, params in (
            (TIMING, [["'jit'", "'scan'"]]),
            (TIMING + "_other", [["'jit'"]]),
            (PASSES, []),
            (PASSES + "2", []),
        )
    ]
    found = Benchmarks(SimpleNamespace(benchmark_dir="benchmarks"), listed, regex=discovery_regex([TIMING, PASSES]))
    assert sorted(found) == sorted([TIMING, PASSES])
    assert param_index(found[TIMING], "'scan'") == 1 and param_index(found[PASSES], "") is None


# The gate, confirming through a fake measurement (nothing is installed or run).


def run_gate(capsys, config, *args) -> tuple[int, str, str]:
    code = cli.run("regressions", ["--config", str(config), "--machine", MACHINE, *map(str, args)])
    out = capsys.readouterr()
    return int(code), out.out, out.err


FLAT_TIMING = [[1.00e-3, 2.00e-3]] * 2
FLAT_COUNT = [[100, 400]] * 2


@pytest.mark.parametrize("factor, verdict, code", [(1.5, "**slower**", ExitCode.FOUND), (1.0, "same", ExitCode.OK)])
def test_only_a_confirmed_slowdown_counts(tmp_path, monkeypatch, capsys, factor, verdict, code):
    config = make_site(tmp_path, {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT})
    log = []
    fake_sides(monkeypatch, {TIMING: factor}, log)
    exit_code, out, _err = run_gate(capsys, config, "--compare", "v0", "v1")
    assert exit_code == code, out
    suspect = [line for line in out.splitlines() if line.startswith(f"| {verdict} | ratio | `{TIMING}` | 'jit' |")]
    assert len(suspect) == 1, out
    assert "v0 → v1" in suspect[0]
    # Balanced order, one value per process, index of 'jit' in the params.
    assert log[:4] == [(1.0, TIMING, 0), (factor, TIMING, 0), (factor, TIMING, 0), (1.0, TIMING, 0)]
    counted = [line for line in out.splitlines() if line.startswith("| ratio |")]
    assert len(counted) == (1 if code == ExitCode.FOUND else 0)


def test_an_undecided_suspect_does_not_count_and_the_cap_is_honoured(tmp_path, monkeypatch, capsys):
    config = make_site(tmp_path, {PASSES: [[20.0], [20.2]], COUNT: FLAT_COUNT})
    log = []
    fake_sides(monkeypatch, {}, log)
    rng = random.Random(0)
    monkeypatch.setattr(
        FakeSide,
        "value",
        lambda self, name, index, hash_seed=None: (log.append(name), 20 * math.exp(rng.gauss(0.015, 0.08)))[1],
    )
    exit_code, out, _err = run_gate(capsys, config, "--compare", "v0", "v1", "--confirm-max-pairs", 12)
    assert exit_code == ExitCode.OK, out
    [row] = [line for line in out.splitlines() if line.startswith("| undecided | ratio |")]
    assert row.split("|")[-3].strip() == "12" and len(log) == 24
    # A +1% change of the tree_map-pass metric is a suspect (any increase); the quick look ignores it.
    assert "+10%" not in row


def test_a_configuration_named_by_a_relative_path_is_found_from_any_folder(tmp_path, monkeypatch):
    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    monkeypatch.chdir(config.parent)
    given = []

    def prepare(config, *args):
        given.append(config)
        raise OSError("stop here")

    monkeypatch.setattr(confirm, "prepare", prepare)
    change = changes.Change(TIMING, "'jit'", "env", 1.0, 1.1, "a" * 40, "b" * 40, True, "")
    with pytest.raises(Exception, match="stop here"):
        confirm.confirmations(config.relative_to(config.parent), util.load_asv_config(config), [change])
    assert given == [config.resolve()]  # prepare reads it after changing into the configuration's folder


def test_an_environment_named_with_the_device_it_ran_on_is_found_among_the_configurations(tmp_path):
    """A result carries the device it ran on (asvtools/device.py) and the gate names an environment by every param
    but the machine's ("Python 3.11, device cpu, driver unknown, jax 0.4.33, jaxlib 0.4.33"). The confirm step
    looked for an asv environment that installs "device cpu", found none, and failed the night's gate (exit 2):
    the instruction kind's replay met it on its first rise (docs/replay.md)."""
    from asv import environment
    from asv.config import Config

    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    [env] = environment.get_environments(Config.load(str(config)), None, verbose=False)
    declared = sides.env_requirements(env)
    label = ", ".join(sorted(declared) + ["device gpu-NVIDIA-H200", "driver unknown"])
    assert declared >= sides.label_requirements(label) == declared
    assert not declared >= sides.label_requirements(label.replace("Python 3.11", "Python 3.13"))


def test_exact_changes_count_without_confirming(tmp_path, monkeypatch, capsys):
    config = make_site(tmp_path, {COST: [[100, 400], [100, 440]], COUNT: FLAT_COUNT})
    monkeypatch.setattr(confirm, "prepare", lambda *args: pytest.fail("nothing to confirm"))
    exit_code, out, _err = run_gate(capsys, config, "--compare", "v0", "v1")
    assert exit_code == ExitCode.FOUND and "| cost |" in out and "No timing suspect." in out


def test_without_the_configuration_confirming_exits_2_unless_no_confirm(tmp_path):
    make_site(tmp_path, {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT})
    folders = ["--results", tmp_path / "results", "--html", tmp_path / "html", "--machine", MACHINE]
    refused = command("regressions", *folders)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "asv configuration" in refused.stderr and "--no-confirm" in refused.stderr
    assert "Traceback" not in refused.stderr
    quick = command("regressions", *folders, "--no-confirm")
    assert quick.returncode == 1 and "unconfirmed" in quick.stdout, quick.stdout + quick.stderr


def test_a_missing_repository_exits_2(tmp_path, capsys):
    config = make_site(tmp_path, {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT})
    (tmp_path / "repo").rename(tmp_path / "gone")
    exit_code, _out, err = run_gate(capsys, config, "--compare", "v0", "v1")
    assert exit_code == ExitCode.BAD_INPUT and "repository" in err and "--no-confirm" in err


def test_suspects_are_the_alerting_timings_beyond_their_threshold_largest_change_first():
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {metrics.RATIO: 0.25})

    def change(name, after):
        return changes.Change(name, "'jit'", "env", 2.0, after, "a" * 40, "b" * 40, True, "")

    # 2.0 → 2.5 lies exactly at +25%: not beyond it; a diagnostic is never a suspect, however far it moves.
    found = [change(TIMING, after) for after in (2.5, 3.0, 4.0, 1.0, 1.4, 1.5)] + [change(COUNT, 9.0)]
    assert [c.after for c in confirm.suspects(found, thresholds)] == [4.0, 3.0]
    assert [c.after for c in confirm.suspects(found, thresholds, faster=True)] == [1.0, 1.4]


def test_a_suspect_gone_from_the_suite_is_undecided_saying_why_and_measures_nothing():
    log = []
    benchmarks = {TIMING: {"params": [["'jit'", "'scan'"]]}}
    sides = {"before": FakeSide(1.0, benchmarks, log), "after": FakeSide(1.5, benchmarks, log)}
    for benchmark, asked, note in [
        (PASSES, "", "not in the suite any more"),
        (TIMING, "'vmap'", "params not in the suite"),
    ]:
        change = changes.Change(benchmark, asked, "env", 1.0, 1.5, "a" * 40, "b" * 40, True, "")
        found = confirm.confirmation(change, sides, pairs.MAX_PAIRS, 1)
        assert found == confirm.Confirmation(change, pairs.UNDECIDED, None, 0.0, note=note)
    assert log == []


def test_a_suspect_is_measured_at_its_params_at_the_confidence_of_its_night_s_suspects(monkeypatch, capsys):
    log = []
    benchmarks = {TIMING: {"params": [["'jit'", "'scan'"]]}}
    sides = {"before": FakeSide(1.0, benchmarks, log), "after": FakeSide(1.5, benchmarks, log)}
    monkeypatch.setattr(confirm, "time", SimpleNamespace(monotonic=iter([100.0, 107.0]).__next__))
    change = changes.Change(TIMING, "'scan'", "env", 1.0, 1.5, "a" * 40, "b" * 40, True, "")
    found = confirm.confirmation(change, sides, 12, 3)
    assert (found.verdict, found.seconds, found.interval.pairs) == (pairs.SLOWER, 7.0, 12)
    assert found.interval.confidence == pairs.look_confidence(3, 12)
    assert {index for _factor, _name, index in log} == {1}
    # The values kept are the ones the interval rests on, each side's own: after is 1.5 times before.
    assert pairs.interval(found.before, found.after, found.interval.confidence) == found.interval
    assert all(1.4 < a / b < 1.6 for b, a in zip(found.before, found.after, strict=True))
    interval = found.interval
    assert capsys.readouterr().err == (
        f"confirm: {change.entry}: slower, {interval.estimate:+.1%} [{interval.low:+.1%}, {interval.high:+.1%}], "
        "12 pairs, 7 s\n"
    )


def test_each_commit_pair_is_installed_once_beside_the_environments_and_every_suspect_answered_in_order(
    tmp_path, monkeypatch, capsys
):
    config = tmp_path / "conf" / "asv.conf.json"
    config.parent.mkdir()
    config.write_text("{}")
    (tmp_path / "disk" / "env").mkdir(parents=True)
    (config.parent / "env").symlink_to(tmp_path / "disk" / "env")  # the environments on another disk
    prepared, log = [], []

    def prepare(*args):
        prepared.append(args)
        benchmarks = {TIMING: {"params": [["'jit'", "'scan'"]]}, PASSES: {"params": []}}
        return {"before": FakeSide(1.0, benchmarks, log), "after": FakeSide(1.5, benchmarks, log)}

    monkeypatch.setattr(confirm, "prepare", prepare)
    monkeypatch.setattr(confirm, "time", SimpleNamespace(monotonic=functools.partial(next, itertools.count(100, 3))))
    first = changes.Change(PASSES, "", "env", 1.0, 1.5, "", "b" * 40, True, "")  # the first commit benchmarked
    slowed = [
        changes.Change(name, params, "env", 1.0, 1.5, "a" * 40, "b" * 40, True, "")
        for name, params in [(PASSES, ""), (TIMING, "'jit'")]
    ]
    slowed.insert(1, first)
    answered = []
    found = confirm.confirmations(config, {"repo": str(tmp_path)}, slowed, max_pairs=12, measured=answered.append)
    assert [c.change for c in found] == slowed
    assert found[1] == confirm.Confirmation(first, pairs.UNDECIDED, None, 0.0, note="no earlier commit to compare with")
    assert answered == [found[0], found[2]] and [c.verdict for c in answered] == [pairs.SLOWER] * 2
    assert {c.interval.confidence for c in answered} == {pairs.look_confidence(3, 12)}
    root = tmp_path / "disk" / "confirm-env"
    assert confirm.env_root(config, {"env_dir": "../envs/asv"}) == tmp_path / "envs" / "confirm-env"
    commits = {"before": "a" * 40, "after": "b" * 40}
    assert prepared == [(config, "env", commits, [PASSES, TIMING], root)] and (root / ".scripts-bench.lock").is_file()
    assert (
        capsys.readouterr().err.splitlines()[0]
        == "confirm: 2 suspect(s) of aaaaaaaa → bbbbbbbb (env); environments ready in 3 s"
    )


def test_confirming_without_its_configuration_or_repository_or_installation_fails_in_one_sentence(
    tmp_path, monkeypatch
):
    change = changes.Change(TIMING, "'jit'", "env", 1.0, 1.5, "a" * 40, "b" * 40, True, "")
    assert confirm.confirmations(None, {}, []) == []  # nothing to confirm needs nothing
    with pytest.raises(BadInput) as refused:
        confirm.confirmations(None, {}, [change])
    assert str(refused.value) == (
        "confirming timing suspects needs the asv configuration of the run (the latest scripts/bench run's "
        ".asv/last-run.json, --output or --config), not only --results and --html; or pass --no-confirm for the "
        "unconfirmed quick look"
    )
    config = tmp_path / "asv.conf.json"
    with pytest.raises(BadInput) as refused:
        confirm.confirmations(config, {}, [change])
    assert (
        str(refused.value) == f"confirming needs the asv configuration {config}, which is missing; or pass --no-confirm"
    )
    config.write_text("{}")
    for conf, named in [({"repo": str(tmp_path / "gone")}, repr(str(tmp_path / "gone"))), ({}, "''")]:
        with pytest.raises(BadInput) as refused:  # asv would refuse a configuration that names none
            confirm.confirmations(config, conf, [change])
        assert str(refused.value) == (
            f"confirming needs the benchmarked repository {named}, which is missing; or pass --no-confirm"
        )
    monkeypatch.setattr(confirm, "prepare", lambda *args: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(Failed) as failed:  # a remote repository is fetched, not looked for here
        confirm.confirmations(config, {"repo": "https://github.com/patrick-kidger/equinox"}, [change])
    assert str(failed.value) == "cannot install aaaaaaaa and bbbbbbbb to confirm: disk full"


@pytest.mark.slow(minutes=2.5, group=ASV_SIDE_ENVS)
def test_the_real_confirm_step_confirms_a_slowdown_and_not_identical_code(history, asv_env_dir, tmp_path):
    from benchtools import git
    from benchtools.running import bench
    from benchtools.trial import detector

    repo = tmp_path / "equinox"
    git.run("clone", "-q", git.END, history, repo)
    release = git.out("rev-parse", "v0.13.8", repo=repo).strip()
    commits = {}
    # Unused keyword arguments that C copies at each call: 1,000 doubled a tree_at call here, 10,000 made it 54 times
    # as long, far beyond what load does to a ratio of interleaved batches. A fixed count, never one calibrated by
    # timing: at load 4, calibrating read "padding alone costs +212.7%"; at load 15, twice as long was "undecided".
    pads = 10000
    for name in ("aa", "slowed"):
        git.run("checkout", "-q", release, "--", ".", repo=repo)
        tree_file = repo / "equinox" / "_tree.py"
        if name == "slowed":
            tree_file.write_text(detector.inject_c_work(tree_file.read_text(), pads))
        (repo / "VARIANT").write_text(name)
        git.run("add", "-A", repo=repo)
        git.run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name, repo=repo)
        commits[name] = git.out("rev-parse", "HEAD", repo=repo).strip()
    # The confirm step's environments beside the clone's (confirm-env), as a nightly's: made by the first test
    # that confirms in this clone, the commits installed again in them.
    target = bench.Target(bench.Options(repo=str(repo), output=tmp_path, env_dir=asv_env_dir))
    config = target.config(
        {
            ("python", None): "3.11",
            ("req", "jax"): "0.4.33",
            ("req", "jaxlib"): "0.4.33",
            ("req", "jaxtyping"): "",
            ("req", "typing_extensions"): "",
            ("req", "wadler_lindig"): "",
            ("req", "hatchling"): "",
        }
    )
    env = "Python 3.11, jax 0.4.33, jaxlib 0.4.33"

    def change(benchmark, params, after):
        return changes.Change(benchmark, params, env, 1.0, 1.1, release, commits[after], True, "")

    # A quarter of a second of interleaved batches a process (PASSES times two seconds): the slowed tree_at's update.
    update = "bench_update.UpdateInTreeMapPasses.track_update"
    suspects = [change(update, "'tree_at'", "slowed"), change(update, "'tree_at'", "aa")]
    found = confirm.confirmations(config, util.load_asv_config(config), suspects, max_pairs=pairs.START_PAIRS)
    passes, aa = found
    assert passes.verdict == pairs.SLOWER and passes.interval.estimate > 0.3, passes
    assert aa.verdict != pairs.SLOWER, aa
    assert len(passes.before) == len(passes.after) == passes.interval.pairs == pairs.START_PAIRS
    root = confirm.env_root(config, util.load_asv_config(config))
    assert root == asv_env_dir.parent / "confirm-env" and (root / "before").is_dir() and (root / "after").is_dir()
    text = render.confirmations_section(found)
    assert text.count("| **slower** |") == 1
    # A time_ benchmark's value is the median of its samples, in seconds, from the environments just made
    # (one eager update): one process a side, since absolute times are never confirmed.
    eager = "bench_eager.EagerSurgery.time_tree_at"
    sides = confirm.prepare(config, env, {"before": release, "after": commits["slowed"]}, [eager], root)
    for side in sides.values():
        side.open()
    try:
        before, after = (side.value(eager, param_index(side.benchmarks[eager], "")) for side in sides.values())
    finally:
        for side in sides.values():
            side.close()
    assert 0 < before < after < 1  # +100% of a call, in seconds


def test_each_measured_process_draws_its_own_hash_seed_unless_a_pair_shares_one(monkeypatch):
    # A seed set for this process would make every benchmark process alike: the confirm step unsets it.
    import subprocess
    import sys

    from asv import runner

    monkeypatch.setenv("PYTHONHASHSEED", "0")
    program = [sys.executable, "-c", "print(hash('equinox'))"]

    def one_process(*_args, **_kwargs):
        out = subprocess.run(program, capture_output=True, text=True, check=True).stdout
        return SimpleNamespace(result=[abs(float(out))], samples=[None], number=[None], errcode=0, stderr="")

    monkeypatch.setattr(runner, "_run_benchmark_single_param", one_process)
    sides = {}
    for side in ("before", "after"):
        sides[side] = Side(None, SimpleNamespace(_default_benchmark_timeout=60), {}, side * 5)
        sides[side].benchmarks = {"b": {"params": [], "timeout": 60}}
        sides[side].open = sides[side].close = lambda: None
    fresh = confirm.measure_pairs(sides, "b", None)(0, 3)
    assert len({value for pair in fresh for value in pair}) == 6  # six processes, six seeds
    paired = confirm.measure_pairs(sides, "b", None, random.Random(1))(0, 3)
    assert all(before == after for before, after in paired) and len(set(paired)) == 3
    assert one_process().result == one_process().result  # outside, this process's fixed seed is back


def test_a_night_of_pairs_draws_a_hash_seed_per_pair_from_all_of_python_s():
    seeds = []
    side = SimpleNamespace(open=list, close=list, value=lambda name, index, seed: seeds.append(seed) or 1.0)
    confirm.measure_pairs({"before": side, "after": side}, "b", None, random.Random(0))(0, 100)
    assert seeds[::2] == seeds[1::2] and len(set(seeds)) == 100 and all(0 <= int(s) < 2**32 for s in seeds)


def test_each_batch_of_pairs_opens_both_sides_first_and_closes_them_after_even_when_a_measurement_fails():
    events = []

    def side(name, fails=False):
        def value(*_):
            events.append(f"{name} measured")
            if fails:
                raise RuntimeError("a benchmark process failed")
            return 1.0

        opened, closed = (lambda what=what: events.append(f"{name} {what}") for what in ("opened", "closed"))
        return SimpleNamespace(open=opened, close=closed, value=value)

    confirm.measure_pairs({"before": side("before"), "after": side("after")}, "b", None)(0, 1)
    assert events == [
        "before opened",
        "after opened",
        "before measured",
        "after measured",
        "before closed",
        "after closed",
    ]
    events.clear()
    with pytest.raises(RuntimeError):
        confirm.measure_pairs({"before": side("before"), "after": side("after", fails=True)}, "b", None)(0, 1)
    assert events[-2:] == ["before closed", "after closed"]


def test_every_process_is_a_fresh_interpreter_whatever_the_configuration_says():
    from asv import runner

    side = Side(SimpleNamespace(launch_method="forkserver"), SimpleNamespace(), SimpleNamespace(), "a" * 40)
    side.benchmarks = SimpleNamespace(benchmark_dir="benchmarks")
    side.open()
    assert type(side.spawner) is runner.Spawner and LAUNCH_METHOD == "spawn"
    assert side.spawner.env is side.env  # its processes run in the side's environment


def test_a_benchmark_s_params_are_found_at_their_flat_index_and_missing_ones_at_minus_one(capsys):
    benchmark = {"params": [["1", "2"], ["'a'", "'b'"]]}
    assert [param_index(benchmark, text) for text in ("1, 'a'", "2, 'b'", "3, 'a'")] == [0, 3, -1]
    assert param_index({"params": []}, "") is None
    sides.log("before: aaaaaaaa")
    assert capsys.readouterr() == ("", "before: aaaaaaaa\n")  # stdout stays the report's


def test_a_label_s_requirements_are_its_python_and_packages_without_the_machine_s_params():
    label = "Python 3.11, jax 0.4.33, , —, device gpu-NVIDIA-H200, driver NVIDIA 550.54, runner ci"
    assert sides.label_requirements(label) == {"Python 3.11", "jax 0.4.33"}
    env = SimpleNamespace(python="3.11", requirements={"jax": "0.4.33", "equinox": ""})
    assert sides.env_requirements(env) == {"Python 3.11", "jax 0.4.33"}


def test_a_floor_under_one_percent_shows_its_figure_not_a_rounded_one():
    from benchmarks import metrics

    def text(kind, threshold):
        return render.threshold_text(SimpleNamespace(thresholds=lambda change: threshold), SimpleNamespace(kind=kind))

    assert text(metrics.COST, 0.0064) == "+0.64% (floor)"
    assert text(metrics.INSTRUCTIONS, 0.005) == "+0.5% (floor)"
    assert text(metrics.COST, 0.01) == "+1% (floor)"
    assert text(metrics.TIME, 0.034) == "+3%"  # from 1% on, a whole percent
    assert text(metrics.TIME, 0.05) == "+5%"


def test_a_figure_of_the_answer_is_re_measured_as_its_step_alone_and_any_other_benchmark_as_it_is():
    answer = {"params": [["'eager'", "'jit'"], ["'median'", "'low'", "'high'"]]}
    assert sides.answer_step(metrics.ANSWER_RATIO, answer, 3) == {params.ONE_STEP_VARIABLE: "jit"}
    assert sides.answer_step(metrics.ANSWER_RATIO, answer, 0) == {params.ONE_STEP_VARIABLE: "eager"}
    assert sides.answer_step(TIMING, {"params": [["'jit'", "'scan'"]]}, 1) == {}
    assert sides.answer_step("bench_answer.AnswerSweep.track_ratio", {"params": [["'jit'", "'scan'"]]}, 1) == {}


def fake_processes(monkeypatch, *results):
    """asv's one process replaced by ``results`` in turn (errcode, result, samples, number, stderr[, the profile data
    when one is asked: b"pstats"]), recording what each was asked: (timeout, param index, profile, extra params, cwd,
    the one-step variable)."""
    from asv import runner

    asked, results = [], iter(results)

    def one_process(benchmark, spawner, param_index, profile, extra_params, cwd):
        step = os.environ.get(params.ONE_STEP_VARIABLE)
        asked.append((benchmark["timeout"], spawner, param_index, profile, extra_params, cwd, step))
        errcode, result, samples, number, stderr, *profiled = next(results)
        outcome = {"result": [result], "samples": [samples], "number": [number], "stderr": stderr}
        return SimpleNamespace(errcode=errcode, profile=(profiled or [b"pstats"])[0] if profile else None, **outcome)

    monkeypatch.setattr(runner, "_run_benchmark_single_param", one_process)
    return asked


def side_of(benchmarks, cache_dir="/tmp/cache"):
    caches = []
    spawner = SimpleNamespace(create_setup_cache=lambda *args: caches.append(args) or (cache_dir, "boom"))
    side = Side(None, SimpleNamespace(_default_benchmark_timeout=60), benchmarks, "a" * 40, spawner)
    return side, caches


def test_a_side_runs_each_process_at_its_params_in_its_one_setup_cache_with_asv_s_default_timeout(monkeypatch):
    asked = fake_processes(monkeypatch, *[(0, 1.0, None, None, "")] * 3)
    cached = {"params": [["1", "2"]], "setup_cache_key": "k", "timeout": None}
    side, caches = side_of({"cached": cached, "plain": {"params": [], "timeout": 5}})
    side.run("cached", 1)
    side.run("cached", 0, profile=True, extra_params=sides.QUICK)
    side.run("plain", 3)
    assert caches == [("cached", 60, "{}")]  # once for its key
    assert asked == [
        (60, side.spawner, 1, False, {}, "/tmp/cache", None),
        (60, side.spawner, 0, True, sides.QUICK, "/tmp/cache", None),
        (5, side.spawner, None, False, {}, None, None),
    ]


def test_a_side_s_profile_is_one_quick_process_s_and_closing_it_removes_its_caches_and_its_spawner(
    monkeypatch, tmp_path, capsys
):
    asked = fake_processes(monkeypatch, (0, 1.0, None, None, ""), (0, 1.0, None, None, "", None))
    side, _ = side_of({"plain": {"params": [], "timeout": 5}, "two": {"params": [["1", "2"]], "timeout": 5}})
    assert side.profile("two", 1) == b"pstats"
    assert asked == [(5, side.spawner, 1, True, sides.QUICK, None, None)]
    with pytest.raises(Failed) as failed:
        side.profile("plain", None)
    assert str(failed.value) == "plain gave no profile at aaaaaaaa"
    cache = tmp_path / "cache"
    cache.mkdir()
    side.cache_dirs = {"k": str(cache)}
    side.spawner.close = lambda: print("asv's spawner closed")
    side.close()
    assert not cache.exists() and side.cache_dirs == {} and side.spawner is None
    assert capsys.readouterr() == ("", "asv's spawner closed\n")  # stdout stays the report's


def test_a_side_s_failure_names_the_benchmark_the_commit_and_the_end_of_asv_s_error(monkeypatch):
    fake_processes(monkeypatch, (1, 1.0, None, None, None), (0, None, None, None, "x" * 100 + "y" * 500 + "\n"))
    side, _ = side_of({"plain": {"params": [], "timeout": 5}, "cached": {"params": [], "setup_cache_key": "k"}})
    with pytest.raises(Failed) as failed:
        side.run("plain", None)
    assert str(failed.value) == "plain failed at aaaaaaaa (exit 1): "
    with pytest.raises(Failed) as failed:
        side.run("plain", None)
    assert str(failed.value) == "plain failed at aaaaaaaa (exit 0): " + "y" * 500
    side, _ = side_of({"cached": {"params": [], "setup_cache_key": "k", "timeout": 5}}, cache_dir=None)
    with pytest.raises(Failed) as failed:
        side.run("cached", None)
    assert str(failed.value) == "cached: setup_cache failed at aaaaaaaa: boom"


def test_a_side_s_value_is_its_samples_median_or_its_track_value_and_a_positive_number(monkeypatch):
    bad = [0, 0.0, -1.0, True, "n/a"]
    good = [(0, True, [3.0, 1.0, 2.0, 5.0, 4.0], 10, ""), (0, 5.0, None, None, ""), (0, 0.5, None, None, "")]
    fake_processes(monkeypatch, *good, *[(0, value, None, None, "") for value in bad])
    side, _ = side_of({"plain": {"params": [], "timeout": 5}})
    assert [side.value("plain", None) for _ in good] == [3.0, 5.0, 0.5]
    for value in bad:
        with pytest.raises(Failed) as failed:
            side.value("plain", None)
        assert str(failed.value) == f"plain gave {value!r} at aaaaaaaa: a confirmable value must be a positive number"


def test_a_side_s_value_of_the_answer_measures_its_wrapping_s_step_alone_in_a_fresh_setup_cache(monkeypatch, tmp_path):
    asked = fake_processes(monkeypatch, *[(0, 1.5, None, None, "")] * 2)
    answer = {"params": [["'eager'", "'jit'"], ["'median'", "'low'"]], "setup_cache_key": "k", "timeout": 5}
    cache = tmp_path / "cache"
    side, caches = side_of({metrics.ANSWER_RATIO: answer}, cache_dir=str(cache))
    cache.mkdir()
    assert side.value(metrics.ANSWER_RATIO, 2) == 1.5
    assert not cache.exists() and side.cache_dirs == {}
    assert side.value(metrics.ANSWER_RATIO, 3) == 1.5
    steps = [(index, cwd, step) for _, _, index, _, _, cwd, step in asked]
    assert (
        steps == [(2, str(cache), "jit"), (3, str(cache), "jit")] and os.environ.get(params.ONE_STEP_VARIABLE) is None
    )
    assert len(caches) == 2  # each value's step measured anew


def asv_project(tmp_path, **config) -> tuple[Path, list[str]]:
    """A repository of two commits and an asv configuration over it, in an environment that asv uses as it is (this
    Python, nothing installed), whose benchmarks are two tracks named alike; its commits."""
    repo, benchmarks = tmp_path / "repo", tmp_path / "benchmarks"
    repo.mkdir(), benchmarks.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commits = [new_commit(repo) for _ in range(2)]
    (benchmarks / "__init__.py").write_text("")
    (benchmarks / "bench_tiny.py").write_text("def track_a():\n    return 1\n\n\ndef track_ab():\n    return 2\n")
    path = tmp_path / "asv.conf.json"
    layout = {"version": 1, "project": "demo", "repo": str(repo), "branches": ["main"], "benchmark_dir": "benchmarks"}
    path.write_text(json.dumps(layout | {"environment_type": "existing"} | config))
    return path, commits


def new_commit(repo: Path) -> str:
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "a commit")
    return git(repo, "rev-parse", "HEAD")


def installs(monkeypatch) -> list[tuple[str, str]]:
    """(folder of the side, commit as the side's repository resolves it) of each commit asv installs."""
    from asv.environment import ExistingEnvironment

    installed = []

    def install(_env, conf, repo, commit):
        installed.append((Path(conf.env_dir).name, repo.get_hash_from_name(commit)))

    monkeypatch.setattr(ExistingEnvironment, "install_project", install)
    return installed


def existing_label() -> str:
    return f"Python {os.path.abspath(sys.executable)}"  # what asv names an existing environment by


def test_each_side_is_its_commit_installed_in_its_own_folder_with_the_benchmarks_asked_alone(
    tmp_path, monkeypatch, capsys
):
    config, (first, second) = asv_project(tmp_path)
    installed = installs(monkeypatch)
    label = existing_label() + ", device cpu, driver unknown"
    prepared = sides.prepare(config, label, {"before": first, "after": second}, ["bench_tiny.track_a"], tmp_path)
    assert {side: (Path(s.conf.env_dir), s.commit) for side, s in prepared.items()} == {
        "before": (tmp_path / "before", first),
        "after": (tmp_path / "after", second),
    }
    before, after = prepared.values()
    assert before.env.name == after.env.name and sides.env_requirements(before.env) == {existing_label()}
    assert list(before.benchmarks) == ["bench_tiny.track_a"] and after.benchmarks is before.benchmarks
    # Each side installs its commit in its folder; the benchmarks are found in the first side's.
    assert installed == [("before", first), ("after", second), ("before", first)]
    assert capsys.readouterr() == (
        "",
        f"before: {first[:8]} in {before.env.name} ({tmp_path / 'before'})\n"
        f"after: {second[:8]} in {after.env.name} ({tmp_path / 'after'})\n",
    )


def test_a_remote_repository_is_fetched_again_before_its_newest_commit_is_installed(tmp_path, monkeypatch):
    """asv.conf.json names Equinox by its URL, whose mirror asv keeps: it must learn tonight's commits before they are
    installed. Here the remote is a bare repository served over HTTP on 127.0.0.1, as git serves one."""
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    config, (first, _) = asv_project(tmp_path)
    served = tmp_path / "served" / "repo.git"
    git(tmp_path, "clone", "-q", "--bare", tmp_path / "repo", served)
    git(served, "update-server-info")
    quiet = type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda *_: None})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(quiet, directory=str(served.parent)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    installed = installs(monkeypatch)
    try:
        url = f"http://127.0.0.1:{server.server_port}/repo.git"
        config.write_text(json.dumps(json.loads(config.read_text()) | {"repo": url}))
        sides.prepare(config, existing_label(), {"before": first}, ["bench_tiny.track_a"], tmp_path)
        newest = new_commit(tmp_path / "repo")  # after asv's mirror was made
        git(tmp_path / "repo", "push", "-q", served, "main")
        git(served, "update-server-info")
        sides.prepare(config, existing_label(), {"after": newest}, ["bench_tiny.track_a"], tmp_path)
    finally:
        server.shutdown()
    assert installed[-2:] == [("after", newest)] * 2


def test_an_environment_the_configuration_cannot_make_is_refused_in_one_sentence(tmp_path, caplog, capsys):
    config, commits = asv_project(tmp_path, environment_type="virtualenv", pythons=["1.9"])
    with pytest.raises(BadInput) as refused:
        sides.prepare(config, "Python 1.9", {"before": commits[0]}, ["bench_tiny.track_a"], tmp_path)
    assert str(refused.value) == f"confirming needs the environment 'Python 1.9', which {config} does not declare"
    assert caplog.messages == [] and capsys.readouterr() == ("", "")  # asv says nothing of the Python it skips


def test_the_re_measured_suspects_read_as_their_golden_file():
    """The report's section of re-measured timings (tests/golden/confirmations.md): each suspect's verdict, slower in
    bold, its note, its commits by label (a hash cut to 8 by default), its interval's figures or dashes where none was
    made; none: said so."""
    base, head = "a" * 40, "b" * 40
    ratio = changes.Change(TIMING, "'jit'", "py3.12", 1.0, 1.3, base, head, False, "")
    passes = changes.Change(PASSES, "", "py3.13", 20.0, 20.1, "", head, True, "tree_map passes")
    found = [
        confirm.Confirmation(
            ratio, pairs.SLOWER, pairs.Interval(0.25, 0.125, 0.375, 24, 0.01, 0.99875), 61.4, note="n"
        ),
        confirm.Confirmation(passes, pairs.SAME, pairs.Interval(0.004, -0.01, 0.015, 12, 0.01, 0.995), 30.5),
        confirm.Confirmation(passes, pairs.UNDECIDED, None, 2.0, note="no pair ran"),
    ]
    labels = {base: "v1", head: "v2"}.get
    sections = [render.confirmations_section(found, labels), render.confirmations_section(found[1:])]
    assert_golden("confirmations.md", "".join([*sections, render.confirmations_section([])]))
