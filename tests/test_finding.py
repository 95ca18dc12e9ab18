"""The gate's functions over a site's files, or a real site's with the slow steps replaced: fast, so that mutmut,
which runs a mutant's test files quickest first (tests/conftest.py), kills a mutant here before it reaches the
integration tests of tests/test_gate.py."""

import json
import types

import pytest

from benchtools.errors import BadInput
from benchtools.judging import confirm, finding, pairs, recheck, render, verdicts
from benchtools.judging.changes import Change
from benchtools.judging.gate import judge
from benchtools.judging.sources import Source
from tests.asv_sites import (
    ABSOLUTE,
    BYTECODES,
    CONSTRUCTION_PASSES,
    COST,
    COUNT,
    INSTRUCTIONS,
    MACHINE,
    TIMING,
    TIMING_TWIN,
    commit,
    make_site,
)
from tests.helpers import ROOT


def improvements_site(tmp_path, graphs, depths=("1", "4")):
    """tree_at's cost in each of ``graphs`` ({path: [(revision, (value at each depth))]}), as improvements reads it."""
    for graph in graphs:
        (tmp_path / graph).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / graph).touch()
    return types.SimpleNamespace(
        html=tmp_path,
        machine="m",
        benchmarks={COST: {"params": [list(depths)]}},
        units={COST: "weighted"},
        hash_of_revision={rev: f"commit{rev}" for rev in (1, 3, 4, 5, 7)},  # 2: a revision the index does not list
        series=lambda graph, index: [(rev, values[index]) for rev, values in graphs[graph]],
    )


def test_a_large_fall_of_tree_at_s_cost_is_an_improvement_in_each_graph_of_the_judged_machine(tmp_path):
    here, newer, elsewhere = (
        f"graphs/machine-{m}/python-{p}/{COST}.json" for m, p in [("m", 3.11), ("m", 3.12), ("n", 3.11)]
    )
    fallen = [(1, (10, 1000)), (2, (10, 1000)), (3, (10, 800)), (4, (10, 800))]  # at depth 4; depth 1 stays
    graphs = {
        here: fallen,
        newer: [(4, (10, 1000)), (5, (10, 1000)), (7, (10, 890))],  # revision 6 unmeasured
        elsewhere: fallen,
        f"graphs/summary/{COST}.json": fallen,
    }
    found = finding.improvements(improvements_site(tmp_path, graphs), [], compared=False)
    fields = [(c.env, c.before, c.after, c.good, c.bad, c.single_commit, c.latest, c.unit, c.graph) for c in found]
    assert fields == [
        ("python 3.11", 1000, 800, "", "commit3", True, 800, "weighted", (here, 1, 2, 3)),
        ("python 3.12", 1000, 890, "commit5", "commit7", False, 890, "weighted", (newer, 1, 5, 7)),
    ]
    assert {c.params for c in found} == {"4"} and found[1].env_params == {"machine": "m", "python": "3.12"}
    # A fall under 10%, only at another depth, or where no graph, listing or depth is: nothing.
    graphs[here] = graphs[newer] = [(1, (10, 1000)), (3, (10, 910))]
    assert finding.improvements(improvements_site(tmp_path, graphs), [], compared=False) == []
    for site in (improvements_site(tmp_path / "none", {}), improvements_site(tmp_path, {here: fallen}, ("1", "2"))):
        assert finding.improvements(site, [], compared=False) == []
    unlisted = improvements_site(tmp_path, {here: fallen})
    unlisted.benchmarks = {}
    assert finding.improvements(unlisted, [], compared=False) == []


def test_an_improvement_s_environment_is_named_by_every_parameter_that_varies_and_by_a_dash_where_none_does(tmp_path):
    fallen = [(1, (10, 1000)), (3, (10, 800))]
    alone = improvements_site(tmp_path / "alone", {f"graphs/machine-m/jax-0.4.33/python-3.11/{COST}.json": fallen})
    alone.units = {}  # a listing without a unit: the improvement has none, not "None"
    assert [(c.env, c.unit) for c in finding.improvements(alone, [], compared=False)] == [("—", "")]
    graphs = {f"graphs/machine-m/jax-{jax}/python-{python}/{COST}.json": fallen for jax, python in [(1, 2), (3, 4)]}
    found = finding.improvements(improvements_site(tmp_path / "two", graphs), [], compared=False)
    assert [c.env for c in found] == ["jax 1, python 2", "jax 3, python 4"]
    failed = {f"graphs/machine-m/{COST}.json": [(1, (None, None)), (3, (None, None))]}  # failed at every commit
    assert finding.improvements(improvements_site(tmp_path / "failed", failed), [], compared=False) == []


def test_a_comparison_s_improvements_are_tree_at_s_cost_at_the_default_depth_and_every_instruction_count():
    def change(name, params, after):
        return Change(name, params, "env", 1000.0, after, "a", "b", True, "")

    kept = [change(COST, "4", 899.0), change(INSTRUCTIONS, "'flatten'", 900.0)]
    left = [change(COST, "4", 901.0), change(COST, "1", 500.0), change(INSTRUCTIONS, "'flatten'", 901.0)]
    left.append(change("bench_construct.ConstructCost.track_cost", "", 500.0))
    assert finding.improvements(None, kept + left, compared=True) == kept


def test_a_cost_change_gets_its_diagnostics_at_its_own_two_commits_from_its_graphs_or_its_comparison(tmp_path):
    calls, bytecodes = COUNT, BYTECODES
    folder = "graphs/machine-m"
    series = {f"{folder}/{calls}.json": [(1, (5, 400)), (2, (5, 440)), (3, (5, None))]}
    series[f"{folder}/{bytecodes}.json"] = [(1, (50, 8000)), (3, (50, 5000))]  # nothing at revision 2
    for graph in series:
        (tmp_path / graph).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / graph).touch()
    site = types.SimpleNamespace(html=tmp_path, series=lambda graph, index: [(r, v[index]) for r, v in series[graph]])

    def cost(graph=None, params="4", env="env"):
        return Change(COST, params, env, 100.0, 90.0, "a", "b", True, "", graph=graph)

    stepped, later, missing = (
        cost((f"{folder}/{COST}.json", 1, 1, 2)),
        cost((f"{folder}/{COST}.json", 1, 2, 3)),
        cost(("graphs/none/x.json", 1, 1, 2)),
    )
    ratio = Change(TIMING, "'jit'", "env", 1.0, 2.0, "a", "b", True, "", graph=(f"{folder}/{TIMING}.json", 0, 1, 2))
    finding.attach_diagnostics(site, [stepped, later, missing, ratio], [])
    assert stepped.diagnostics == [(calls, 400, 440)]  # bytecodes: none at revision 2
    assert later.diagnostics == missing.diagnostics == ratio.diagnostics == []  # calls: none at revision 3
    compared = cost()
    twins = [
        Change(calls, "4", "env", 400.0, 440.0, "a", "b", True, ""),
        Change(calls, "4", "env", 1.0, 1.0, "a", "b", True, ""),  # a second of the kind: the first is read
        Change(bytecodes, "4", "other env", 8000.0, 5000.0, "a", "b", True, ""),
        Change(bytecodes, "1", "env", 8000.0, 5000.0, "a", "b", True, ""),
    ]
    finding.attach_diagnostics(site, [compared], twins)
    assert compared.diagnostics == [(calls, 400.0, 440.0)]


def test_only_a_confirmed_comparison_counts_its_instruction_changes_again_its_falls_as_falls(tmp_path, monkeypatch):
    """The quick look takes the stored counts; the confirmed comparison recounts a rise as a rise and a fall as a
    fall (another runner's counts move both ways), and explains what it counted and found improved."""
    # construct +20%, dispatch -50%; construction's time +2%, below its threshold, is what the rise's time check reads
    config = make_site(tmp_path, {INSTRUCTIONS: [[1e6, 2e6], [1.2e6, 1e6]], CONSTRUCTION_PASSES: [[10.0], [10.2]]})
    recounted, suspected = [], []

    def recount(source, changes, holds=recheck.Recount.counts):
        recounted.append(([c.params for c in changes], holds))
        return changes, [], [f"not recounted: {holds.__name__}"]

    def explained(source, counted, improved):
        return [f"not profiled: {len(counted)} and {len(improved)} of {source.machine}"]

    def same(config, conf, suspects, max_pairs):
        suspected.extend((s.benchmark, s.params, s.before, s.after) for s in suspects)
        return [confirm.Confirmation(suspect, pairs.SAME, None, 0.0) for suspect in suspects]

    monkeypatch.setattr(recheck, "recount", recount)
    monkeypatch.setattr(confirm, "confirmations", same)
    monkeypatch.setattr(recheck, "attach_explanations", explained)
    source = Source(config=config, machine=MACHINE)
    quick = judge(source, ("v0", "v1"), confirm=False)
    assert recounted == [] and quick.confirmations is None
    confirmed = judge(source, ("v0", "v1"), explain=True)
    rise, fall = ["'construct(default)'"], ["'dispatch(jit)'"]
    assert recounted == [(rise, recheck.Recount.counts), (fall, recheck.Recount.improves)]
    assert ([c.params for c in confirmed.counted], [c.params for c in confirmed.improved]) == (rise, fall)
    assert suspected == [(CONSTRUCTION_PASSES, "'default'", 10.0, 10.2)]  # the counted rise's time alone
    # Every error met on the way, in its order: the recounts', then the explanations'.
    errors = ["not recounted: counts", "not recounted: improves", f"not profiled: 1 and 1 of {MACHINE}"]
    assert confirmed.explain_errors == errors and quick.explain_errors == []


def test_a_comparison_is_named_as_asked_and_lists_what_failed_at_its_two_commits(tmp_path):
    config = make_site(tmp_path, {COST: [[100, 100], [None, None], [None, None]], COUNT: [[100, 400]] * 3})
    v0, v2 = commit(config, "v0"), commit(config, "v2")
    verdict = judge(Source(config=config, machine=MACHINE), ("v0", v2[:10]), confirm=False)
    assert verdict.mode == f"v0 → {v2[:10]}"
    assert {(c.benchmark, c.good, c.bad, c.single_commit) for c in verdict.changes} == {(COUNT, v0, v2, False)}
    assert [(failed.commit, failed.benchmarks) for failed in verdict.failed] == [(v2, (COST,))]  # v1's is not judged


def test_timings_beyond_their_threshold_that_do_not_alert_are_listed_largest_first_and_one_at_it_is_not(tmp_path):
    # Times of 2 → 3 (+50%, at a 50% threshold exactly), 1 → 2 and 1 → 4 (beyond), and 1 → 1.
    config = make_site(tmp_path, {ABSOLUTE: [[2.0, 1.0], [3.0, 2.0]], TIMING_TWIN: [[1.0, 1.0], [4.0, 1.0]]})
    verdict = judge(Source(config=config, machine=MACHINE, time_threshold=0.5), ("v0", "v1"), confirm=False)
    assert [(c.benchmark, c.params, c.ratio) for c in verdict.not_alerting] == [
        (TIMING_TWIN, "'jit'", 4.0),
        (ABSOLUTE, "'scan'", 2.0),
    ]


def test_a_comparison_leaves_unjudged_an_environment_and_a_benchmark_that_one_commit_lacks(tmp_path):
    config = make_site(tmp_path, {COST: [[100, 100], [100, 110]], COUNT: [[10, 40]] * 2})
    v0 = commit(config, "v0")
    [first] = (tmp_path / "results" / MACHINE).glob(f"{v0[:8]}-*.json")
    document = json.loads(first.read_text())
    document["env_name"], document["params"]["python"] = "virtualenv-py3.12-jax0.4.33", "3.12"
    (first.parent / f"{v0[:8]}-{document['env_name']}.json").write_text(json.dumps(document))
    document = json.loads(first.read_text())
    del document["results"][COUNT]  # added at v1
    first.write_text(json.dumps(document))
    changes, unjudged = finding.compare_changes(Source(config=config, machine=MACHINE), "v0", "v1")
    older, newer = "Python 3.11, jax 0.4.33", "Python 3.12, jax 0.4.33"
    assert [(c.params, c.before, c.after, c.env) for c in changes] == [("1", 100, 100, older), ("4", 100, 110, older)]
    assert unjudged == [finding.Unjudged("", "", newer, finding.GONE), finding.Unjudged(COUNT, "", older, finding.NEW)]


def test_commits_that_two_runners_timed_compare_nothing(tmp_path):
    """asv_runner 0.3 changed what a sample is: one runner's timing is no baseline for another's."""
    config = make_site(
        tmp_path, {COST: [[100, 100], [100, 110]]}, runners=("asv-0.6.6-asv_runner-0.2.1", "asv-0.6.6-asv_runner-0.3.2")
    )
    with pytest.raises(BadInput, match=r"^v0 → v1: .* nothing can be judged \(2 not comparable\);"):
        finding.compare_changes(Source(config=config, machine=MACHINE), "v0", "v1")


@pytest.mark.equivalent(
    "benchtools.judging.finding.x_compare_changes__mutmut_35", "benchtools.judging.finding.x_compare_changes__mutmut_37"
)
def test_nights_on_alternating_runners_place_an_exact_change_where_one_runner_does(tmp_path):
    """asv stamps each night with its runner's cpu: an environment's exact figures stay one series across runners."""
    costs = [[100, 100], [100, 100], [100, 100], [100, 160], [100, 160]]
    config = make_site(tmp_path, {COST: costs, COUNT: [[10, 40]] * 5}, cpus=("AMD EPYC", "Intel Xeon") * 3)
    source = Source(config=config, machine=MACHINE)
    changes, _ = finding.compare_changes(source, "v0", "v4")
    [change] = [c for c in changes if c.benchmark == COST and c.before != c.after]
    assert change.env_params == {"machine": MACHINE, "python": "3.11", "jax": "0.4.33"}  # the same from either side
    finding.place_exact_steps(source, [change])
    assert (change.good, change.bad, change.single_commit) == (commit(config, "v2"), commit(config, "v3"), True)


def test_a_value_one_side_lacks_is_unjudged_saying_which_and_the_next_params_are_still_compared(tmp_path):
    config = make_site(tmp_path, {COST: [[None, 100], [None, None]], COUNT: [[None, 40], [10, 44]]})
    described = tmp_path / "results" / "benchmarks.json"
    listed = json.loads(described.read_text())
    del listed[COUNT]  # a benchmark the suite no longer holds: no unit to read
    described.write_text(json.dumps(listed))
    changes, unjudged = finding.compare_changes(Source(config=config, machine=MACHINE), "v0", "v1")
    assert [(c.benchmark, c.params, c.before, c.after, c.unit) for c in changes] == [(COUNT, "4", 40, 44, "")]
    assert [(u.benchmark, u.params, u.reason) for u in unjudged] == [
        (COUNT, "1", "not measured (before)"),
        (COST, "1", "not measured (before and after)"),
        (COST, "4", "not measured (after)"),
    ]


def test_a_judged_commit_with_no_results_has_no_failed_benchmark_and_is_no_error():
    def results_of(commit, missing_ok=False):
        if not missing_ok:
            raise BadInput(f"no results for commit {commit}")
        return []

    site = types.SimpleNamespace(revision_of_hash={"a": 0}, results_of=results_of)
    assert finding.failed_commits(site, ["a", "a", "unlisted"]) == []


def test_text_from_upstream_is_fenced_longer_than_its_longest_run_of_backticks():
    assert render.as_text("a ` b ````` c") == "``````text\na ` b ````` c\n``````"
    assert render.as_text("plain") == "```text\nplain\n```"


@pytest.mark.equivalent("benchtools.judging.verdicts.148:4: a call's statement dropped")
@pytest.mark.parametrize("status", ["judged", "failed"])
def test_a_verdict_of_an_unknown_status_is_refused_naming_its_status_whatever_its_shape(tmp_path, status):
    judged = json.loads((ROOT / "tests" / "golden" / "verdicts.json").read_text())[0]
    document = judged if status == "judged" else verdicts.failure("gate", 3, "the night's run failed")
    (tmp_path / "verdict.json").write_text(json.dumps({**document, "status": "bogus"}))
    with pytest.raises(BadInput, match=r"verdict.json: status: must be one of \['judged', 'failed'\]$"):
        verdicts.read(tmp_path / "verdict.json")
