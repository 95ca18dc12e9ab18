"""The cost fit (benchtools/cost_fit.py), on synthetic releases, and the explanation's pieces (benchtools/explain.py)."""

import cProfile
import subprocess
import sys
import textwrap

import pytest

from benchtools.judging import cost_fit, explain
from tests.asv_sites import ROOT


def releases(weight: float, scale: float, noise=()) -> list[cost_fit.Point]:
    """Three code versions whose time is exactly scale x (bytecodes + weight x calls), times (1 + noise)."""
    versions = [(240, 6920), (378, 11183), (396, 6023)]
    points = []
    for i, (calls, bytecodes) in enumerate(versions * 2):
        wobble = noise[i] if i < len(noise) else 0.0
        points.append(cost_fit.Point(f"v{i}", calls, bytecodes, scale * (bytecodes + weight * calls) * (1 + wobble)))
    return points


def test_the_fit_finds_the_weight_the_times_were_made_with():
    result = cost_fit.fit(releases(weight=16, scale=0.00163))
    assert result.best_weight == pytest.approx(16, rel=1e-6)
    assert result.best_error == pytest.approx(0, abs=1e-9)
    assert result.scale == pytest.approx(0.00163)
    assert len(result.versions) == 3 and all(abs(e) < 1e-9 for *_, e in result.versions)
    assert result.bytecodes_error > 0.05 and result.calls_error > 0.05  # neither count alone is the time


def test_each_version_weighs_once_and_each_release_shows_its_error():
    # Two releases of one version, 4% apart: the version's time is their median, each release keeps its error.
    result = cost_fit.fit(releases(weight=16, scale=0.002, noise=[0.0, 0.0, 0.0, 0.04, 0.0, 0.0]), weight=16)
    errors = {point.label: error for point, error in result.points}
    assert (1 + errors["v0"]) / (1 + errors["v3"]) == pytest.approx(1.04)
    first = result.versions[0]
    assert first[0] == ["v0", "v3"] and first[3] == pytest.approx(0.002 * (6920 + 16 * 240) * 1.02)
    text = cost_fit.markdown(result, "jax 0.4.33")
    assert "With the weight in use, 16:" in text and "| v0 … v3 (2) | 240 | 6,920 | 10,760 |" in text


def test_one_code_version_is_too_few_to_fit():
    with pytest.raises(cost_fit.BadInput):
        cost_fit.fit([cost_fit.Point("a", 1, 10, 1.0), cost_fit.Point("b", 1, 10, 1.1)])


def test_fit_cost_reads_an_asv_results_folder(tmp_path):
    from tests.asv_sites import BENCHMARKS, BYTECODES, COUNT, PASSES, make_site

    points = releases(weight=16, scale=0.002)
    config = make_site(tmp_path, {COUNT: [[1, p.calls] for p in points],
                                  BYTECODES: [[1, p.bytecodes] for p in points],
                                  PASSES: [[p.passes] for p in points]})
    assert config.exists() and BENCHMARKS[COUNT]["params"] == [["1", "4"]]
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "fit-cost"), "--results", str(tmp_path / "results"),
                           "--repo", str(tmp_path / "repo")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "bytecodes + **16.0** × calls" in done.stdout and "| v5 |" in done.stdout


def test_functions_are_named_by_module_and_qualified_name_not_by_line(tmp_path):
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages" / "pkg"
    site.mkdir(parents=True)
    source = textwrap.dedent("""\
        import functools


        class Wrapper:
            def __init__(self, value):
                self.value = value


        @functools.lru_cache(maxsize=None)
        def cached(n):
            return n


        def walk(items):
            return [Wrapper(item) for item in items]
        """)
    (site / "_tree.py").write_text(source)
    (site / "__init__.py").write_text("")
    sys.path.insert(0, str(site.parent))
    try:
        from pkg import _tree
        profile = tmp_path / "one.prof"
        profiler = cProfile.Profile()
        profiler.runcall(_tree.walk, range(3))
        profiler.dump_stats(str(profile))
    finally:
        sys.path.remove(str(site.parent))
        sys.modules.pop("pkg._tree", None)
        sys.modules.pop("pkg", None)
    summary = explain.summarize(profile)
    assert summary["pkg._tree.Wrapper.__init__"][0] == 3
    assert summary["pkg._tree.walk"][0] == 1
    assert "pkg._tree.walk.<locals>.<listcomp>" in summary
    assert explain.module_of("/usr/lib/python3.11/functools.py") == "functools"
    assert explain.module_of(str(ROOT / "benchmarks" / "workloads.py")) == "benchmarks.workloads"
    assert explain.key_of("~", 0, "<built-in method builtins.isinstance>", {}) == "builtins.isinstance"
    assert explain.key_of("~", 0, "<built-in method __new__ of type object at 0x7efcd7a5ea00>", {}) == \
        "__new__ of type object"  # no address, which differs from one process to the next


def test_the_diff_lists_the_functions_whose_calls_changed_largest_time_first():
    before = {"jax.tree_util.tree_map": [3, 30.0, 1.0], "equinox._tree.tree_at": [1, 60.0, 2.0],
              "builtins.isinstance": [40, 4.0, 4.0]}
    after = {"jax.tree_util.tree_map": [5, 50.0, 1.0], "equinox._tree.tree_at": [1, 95.0, 2.0],
             "builtins.isinstance": [48, 5.0, 5.0], "equinox._tree._DistinctTuple.__init__": [2, 1.0, 1.0]}
    rows = explain.diff(before, after)
    assert [r.function for r in rows] == ["jax.tree_util.tree_map", "builtins.isinstance",
                                          "equinox._tree._DistinctTuple.__init__"]
    assert explain.sentence(rows, most=1) == "`jax.tree_util.tree_map`: 3 → 5 calls per update"
    table = explain.markdown(rows, before, after)
    assert table[0] == "Function calls per update, all functions: 44 → 56."
    assert "| `equinox._tree._DistinctTuple.__init__` | 0 → 2 | 0 → 1 |" in table


def test_a_function_replaced_by_another_is_told_as_a_move_after_the_net_changes():
    before = {"m.old_flatten": [20, 200.0, 5.0], "m.Module.__getattribute__": [0, 0.0, 0.0]}
    after = {"m.new_flatten": [20, 190.0, 5.0], "m.Module.__getattribute__": [49, 85.0, 40.0]}
    rows = explain.diff(before, after)
    assert explain.sentence(rows) == ("`m.Module.__getattribute__`: 0 → 49 calls per update; "
                                      "`m.old_flatten` replaced by `m.new_flatten` (20 calls)")
