"""benchtools/judging/changes.py: a change, its kind, and the thresholds that decide whether it counts."""

import json
import math
import shutil

import pytest

from benchmarks import metrics
from benchtools.errors import BadInput
from benchtools.judging import changes, sources, verdicts
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
    # A configuration whose regexes match nothing leaves asv's own default; where several match, the largest, as asv.
    assert changes.Thresholds({}, {})(ratio) == changes.ASV_DEFAULT_THRESHOLD == 0.05
    assert changes.Thresholds({"bench_overhead": 0.3, "bench_over": 0.1, "bench_counts": 0.5}, {})(ratio) == 0.3
    # An override is the suspect threshold too, over the lower one its benchmark declares (0.0).
    assert thresholds.suspect(ratio) == 0.2 and changes.Thresholds(metrics.asv_thresholds(), {}).suspect(ratio) == 0.0
    with pytest.raises(BadInput, match="threshold"):
        Source(time_threshold=-0.1)


def test_a_change_from_zero_is_infinite_and_from_zero_to_zero_is_no_change():
    def change(before, after):
        return changes.Change("bench_counts.PythonCalls.track_tree_at", "", "", before, after, "", "x", True, "")

    assert change(0, 2).ratio == change(0, 0.5).ratio == math.inf and change(0, 0).ratio == 1.0
    assert change(2, 3).ratio == 1.5
    # A verdict gives no relative change from zero, not even from zero to zero.
    assert [verdicts.change_data(change(*ends))["change"] for ends in ((0, 2), (0, 0), (2, 3))] == [None, None, 0.5]


def test_a_threshold_that_is_no_number_is_bad_input_naming_its_configuration_regex_and_value():
    with pytest.raises(BadInput) as refused:
        changes.Thresholds({"bench_.*": "lots"}, {}, "asv.conf.json")
    assert str(refused.value) == (
        "regressions_thresholds in the asv configuration asv.conf.json is invalid: "
        "threshold of 'bench_.*' 'lots': not a number"
    )


def test_the_changes_that_count_come_by_kind_then_worst_first():
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {})
    ratio = "bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at"  # a ratio that alerts
    small, large, unchanged = (changes.Change(ratio, "", "", 1.0, after, "", "x", True, "") for after in (1.5, 3, 1))
    assert thresholds.counted([small, unchanged, large]) == [large, small]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A published site of three tagged commits, the last with no results; returns its configuration."""
    from tests.asv_sites import TIMING, make_site

    return make_site(tmp_path_factory.mktemp("site"), {TIMING: [[1.00e-3, 2.00e-3]] * 3}, skip_results=(2,))


def test_a_source_reads_its_site_its_commits_by_tag_or_prefix_and_their_results(site, tmp_path):
    from tests.asv_sites import MACHINE

    source = Source(output=tmp_path, config=site)
    assert (source.machine, source.results, source.html) == (MACHINE, site.parent / "results", site.parent / "html")
    assert source.profiles == tmp_path / ".asv" / "profiles" and source.conf["repo"] == str(site.parent / "repo")
    first, _, last = (source.resolve(f"v{i}") for i in range(3))
    assert source.resolve(first[:7]) == first and [source.label(first), source.label("f" * 40)] == ["v0", "ffffffff"]
    assert source.results_of(first) and source.results_of(last, missing_ok=True) == []
    for name, refusal in [
        ("nope", "unknown commit 'nope': no tag or results commit matches it"),
        ("", "commit '' is ambiguous"),
    ]:
        with pytest.raises(BadInput) as refused:
            source.resolve(name)
        assert str(refused.value) == refusal
    with pytest.raises(BadInput) as refused:
        source.results_of(last)
    assert (
        str(refused.value) == f"no results for commit v2 on machine {MACHINE!r} in {site.parent / 'results' / MACHINE}"
    )
    source.index["tags"]["v9"] = 9
    with pytest.raises(BadInput) as refused:
        source.resolve("v9")
    assert str(refused.value) == (
        f"asv site index {site.parent / 'html' / 'index.json'}: tag 'v9' names revision 9, which it lists no commit for"
    )


def test_a_prefix_that_two_commits_share_is_ambiguous():
    source = Source.__new__(Source)
    source.index, source.hash_of_revision = {"tags": {}}, {0: "abc1", 1: "abc2", 2: "def3"}
    assert source.resolve("abc1") == "abc1"
    with pytest.raises(BadInput, match="^commit 'abc' is ambiguous$"):
        source.resolve("abc")


def test_a_graph_s_series_is_numbers_or_gaps_and_anything_else_is_refused_saying_where(tmp_path):
    (tmp_path / "graphs").mkdir()
    source = Source.__new__(Source)
    source.html = tmp_path

    def series(points, index=None):
        (tmp_path / "graphs" / "g.json").write_text(json.dumps(points))
        return source.series("graphs/g.json", index)

    assert series([[1, 2.5], [2, None], [3, 4]]) == [(1, 2.5), (2, None), (3, 4)]
    assert series([[1, [1.5, 2.5]], [2, [3.5]], [3, None]], 1) == [(1, 2.5), (2, None), (3, None)]
    path = tmp_path / "graphs" / "g.json"
    for points, shown in [([[1, 2.0], [2, True]], "true"), ([[7, "x" * 99]], json.dumps("x" * 99)[:60])]:
        with pytest.raises(BadInput) as refused:
            series(points)
        revision = points[-1][0]
        assert (
            str(refused.value)
            == f"asv graph file has the wrong shape: {path}: revision {revision}: {shown} is not a number"
        )
    with pytest.raises(BadInput) as refused:
        series({"not": "a list"})
    assert str(refused.value).startswith(f"asv graph file has the wrong shape: {path}: ")


def test_an_entry_and_a_graph_path_give_their_params():
    assert sources.split_entry("a.B.c('jit', 8)") == ("a.B.c", "'jit', 8")
    # An entry whose brackets do not close it is a name alone.
    assert [sources.split_entry(entry) for entry in ("a.B.c", "a.B(c", "a.B)")] == [
        ("a.B.c", ""),
        ("a.B(c", ""),
        ("a.B)", ""),
    ]
    graph = "graphs/arch-x86_64/machine-site-tests/python-3.11/jax-0.4.33/bench.Name.json"
    assert sources.params_of_graph(graph) == {
        "arch": "x86_64",
        "machine": "site-tests",
        "python": "3.11",
        "jax": "0.4.33",
    }


def test_a_source_takes_its_folders_machine_and_thresholds_from_the_latest_run_or_as_given(site, tmp_path):
    from tests.asv_sites import MACHINE, TIMING, TIMING_TWIN

    for name, value, shown in [("threshold", -1, "-1"), ("time_threshold", math.nan, "nan")]:
        with pytest.raises(BadInput) as refused:
            Source(**{name: value})
        assert (
            str(refused.value) == f"--{name.replace('_', '-')} {shown}: a threshold must be a finite number, 0 or more"
        )
    folders = {key: tmp_path / "site" / key for key in ("results", "html")}
    for folder in folders.values():
        shutil.copytree(site.parent / folder.name, folder)
    (folders["results"] / "other-machine").mkdir()
    ratio, time = (changes.Change(name, "'jit'", "", 1.0, 1.0, "", "x", True, "") for name in (TIMING, TIMING_TWIN))
    asv = changes.Thresholds(metrics.asv_thresholds(), {})
    # The run's configuration names no folders and no thresholds: the run's record and metrics.py's give them.
    run_config = tmp_path / "runs" / ".asv" / "configs" / "run.json"
    run_config.parent.mkdir(parents=True)
    run_config.write_text(json.dumps({"version": 1, "repo": "."}))
    (tmp_path / ".asv").mkdir()
    (tmp_path / ".asv" / "last-run.json").write_text(
        json.dumps(
            {"config": str(run_config), "commits": ["a"], "unchanged": ["b"], "machine": MACHINE}
            | {f"{key}_dir": str(folder) for key, folder in folders.items()}
        )
    )
    source = Source(output=tmp_path)
    assert (source.config, source.results, source.html, source.machine) == (run_config, *folders.values(), MACHINE)
    assert (source.run_commits, source.run_unchanged) == (["a"], ["b"])
    assert source.profiles == tmp_path / "runs" / ".asv" / "profiles"
    assert (source.thresholds(ratio), source.thresholds(time)) == (asv(ratio), asv(time))
    with pytest.raises(BadInput) as refused:
        Source(output=tmp_path / "site", results=folders["results"])  # --html too, or the run's record
    assert (
        str(refused.value) == f"the latest scripts/bench run record not found: {tmp_path / 'site/.asv/last-run.json'}"
    )
    with pytest.raises(BadInput) as refused:
        Source(output=tmp_path, config=run_config)
    assert str(refused.value) == f"asv configuration {run_config}: no results_dir"
    given = Source(output=tmp_path / "site", **folders, machine=MACHINE, threshold=0.3, time_threshold=0.4)
    assert (given.config, given.conf, given.run_commits) == (None, {}, [])
    assert (given.thresholds(ratio), given.thresholds(time)) == (0.3, 0.4)
    assert Source(config=run_config, **folders, machine=MACHINE).results == folders["results"]
    run_config.write_text(json.dumps({"version": 1, "regressions_thresholds": {".*": 0.7}}))
    assert Source(config=run_config, **folders, machine=MACHINE).thresholds(time) == 0.7
    for thresholds, refusal in [
        ([0.7], f"asv configuration has the wrong shape: {run_config}: regressions_thresholds"),
        ({"(": 0.7}, f"regressions_thresholds in the asv configuration {run_config} is invalid: "),
    ]:
        run_config.write_text(json.dumps({"version": 1, "regressions_thresholds": thresholds}))
        with pytest.raises(BadInput) as refused:
            Source(config=run_config, **folders, machine=MACHINE)
        assert str(refused.value).startswith(refusal)
    for missing, refusal in [
        ({"results": tmp_path / "none"}, f"name the machine with --machine; {tmp_path / 'none'} holds none"),
        ({"html": tmp_path / "none", "machine": MACHINE}, f"asv site index not found: {tmp_path / 'none/index.json'}"),
        ({"results": tmp_path, "machine": MACHINE}, f"asv benchmark list not found: {tmp_path / 'benchmarks.json'}"),
    ]:
        with pytest.raises(BadInput) as refused:
            Source(output=tmp_path / "site", **(folders | missing))
        assert str(refused.value) == refusal
