"""benchtools/judging/explain.py: the pieces of an explanation (function names, the diff of two profiles), and
the cause of a change, named: a real history with a known injected change, benchmarked and profiled by asv.

The history is Equinox 0.13.7 and 0.13.8 from PyPI (conftest's ``history``)
and a copy of 0.13.8 whose tree_at first makes 100 calls to a new function,
``_detector_trial_noop`` (benchtools/trial/detector.py's ``inject``).  scripts/bench
measures the cost in a real asv virtualenv; the gate, with --explain,
profiles one update in both commits on asv's machinery and must name the
function.
"""

import cProfile
import shutil
import sys
import textwrap

import pytest

from benchtools.judging import explain
from benchtools.running import bench
from benchtools.trial import detector
from tests.asv_sites import ROOT, git
from tests.helpers import ASV_SIDE_ENVS, script

INJECTED = 100


@pytest.mark.slow(minutes=1.5, group=ASV_SIDE_ENVS)
def test_the_explanation_names_the_function_that_an_injected_change_calls(tmp_path, history, asv_env_dir):
    repo = tmp_path / "repo"
    shutil.copytree(history, repo)
    git(repo, "checkout", "-q", "-B", "trial", "v0.13.8")
    tree = repo / "equinox" / "_tree.py"
    tree.write_text(detector.inject(tree.read_text(), INJECTED))
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "tree_at calls a no-op 100 times")
    git(repo, "tag", "injected")

    output = tmp_path / "out"
    status = bench.bench(
        bench.Options(
            repo=str(repo),
            branch="trial",
            jax=["0.4.33"],
            machine="explain-test",
            output=output,
            env_dir=asv_env_dir,
            range="v0.13.8^..trial",
            quick=True,
            bench=[r"bench_counts\.PythonCost"],
        )
    )
    assert status == 0

    def explained():
        return script("regressions", "--output", output, "--compare", "v0.13.8", "injected", "--explain")

    gate = explained()
    assert gate.returncode == 1, gate.stdout + gate.stderr[-3000:]
    assert "| cost | `bench_counts.PythonCost.track_tree_at` | 4 |" in gate.stdout
    assert "## What changed in the code that ran" in gate.stdout
    assert f"| `equinox._tree._detector_trial_noop` | 0 → {INJECTED} |" in gate.stdout, gate.stdout
    # The profiles are cached per (environment, commit): a rerun profiles nothing.
    cached = [p for p in (output / ".asv" / "profiles").glob("*/*.json") if p.parent.name != "configs"]
    assert sorted(p.stem for p in cached) == sorted(git(repo, "rev-parse", tag) for tag in ("v0.13.8", "injected"))
    again = explained()
    assert gate.stderr.count("profiling ") == 2
    assert again.stdout == gate.stdout and "profiling " not in again.stderr


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
    summary = explain.summarize(profile.read_bytes())
    assert summary["pkg._tree.Wrapper.__init__"][0] == 3
    assert summary["pkg._tree.walk"][0] == 1
    assert "pkg._tree.walk.<locals>.<listcomp>" in summary
    assert explain.module_of("/usr/lib/python3.11/functools.py") == "functools"
    assert explain.module_of(str(ROOT / "benchmarks" / "workloads.py")) == "benchmarks.workloads"
    assert explain.key_of("~", 0, "<built-in method builtins.isinstance>", {}) == "builtins.isinstance"
    new = explain.key_of("~", 0, "<built-in method __new__ of type object at 0x7efcd7a5ea00>", {})
    assert explain.merged([(new, 1, 2.0, 1.0)]) == {"__new__ of type object": [1, 2.0, 1.0]}
    # no address, which differs from one process to the next


def test_the_diff_lists_the_functions_whose_calls_changed_largest_time_first():
    before = {
        "jax.tree_util.tree_map": [3, 30.0, 1.0],
        "equinox._tree.tree_at": [1, 60.0, 2.0],
        "builtins.isinstance": [40, 4.0, 4.0],
    }
    after = {
        "jax.tree_util.tree_map": [5, 50.0, 1.0],
        "equinox._tree.tree_at": [1, 95.0, 2.0],
        "builtins.isinstance": [48, 5.0, 5.0],
        "equinox._tree._DistinctTuple.__init__": [2, 1.0, 1.0],
    }
    rows = explain.diff(before, after)
    assert [r.function for r in rows] == [
        "jax.tree_util.tree_map",
        "builtins.isinstance",
        "equinox._tree._DistinctTuple.__init__",
    ]
    explained = explain.Explanation("env", "a", "b", rows, before, after)
    assert explained.sentence(most=1) == "`jax.tree_util.tree_map`: 3 → 5 calls per update"
    table = explained.markdown()
    assert table[0] == "Function calls per update, all functions: 44 → 56."
    assert "| `equinox._tree._DistinctTuple.__init__` | 0 → 2 | 0 → 1 |" in table


def test_a_function_replaced_by_another_is_told_as_a_move_after_the_net_changes():
    before = {"m.old_flatten": [20, 200.0, 5.0], "m.Module.__getattribute__": [0, 0.0, 0.0]}
    after = {"m.new_flatten": [20, 190.0, 5.0], "m.Module.__getattribute__": [49, 85.0, 40.0]}
    rows = explain.diff(before, after)
    assert explain.Explanation("env", "a", "b", rows, before, after).sentence() == (
        "`m.Module.__getattribute__`: 0 → 49 calls per update; `m.old_flatten` replaced by `m.new_flatten` (20 calls)"
    )
