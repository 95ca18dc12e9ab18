"""benchtools/judging/explain.py: the pieces of an explanation (function names, the diff of two profiles, its table
and its sentence), a profile made by asv in the profiles' own environment (a tiny suite in this Python, nothing
installed), and the cause of a change, named: a real history with a known injected change, benchmarked and
profiled by asv.

The history is Equinox 0.13.7 and 0.13.8 from PyPI (conftest's ``history``)
and a copy of 0.13.8 whose tree_at first makes 100 calls to a new function,
``_detector_trial_noop`` (benchtools/trial/detector.py's ``inject``).  scripts/bench
measures the cost in a real asv virtualenv; the gate, with --explain,
profiles one update in both commits on asv's machinery and must name the
function.
"""

import ast
import cProfile
import json
import locale
import marshal
import os
import shutil
import sys
import textwrap

import pytest

from benchtools import util
from benchtools.errors import Failed
from benchtools.judging import explain
from benchtools.project import ROOT, SETUP_PYTHONS
from benchtools.running import bench
from benchtools.trial import detector
from tests.asv_sites import git
from tests.helpers import ASV_SIDE_ENVS, script
from tests.test_confirm import asv_project, installs

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


def test_a_profile_is_summarized_per_function_in_microseconds_and_a_c_function_without_its_address():
    stats = {  # cProfile's: (file, line, name): (primitive calls, calls, own s, cumulative s, callers)
        ("~", 0, "<built-in method builtins.len>"): (2, 2, 0.25, 0.5, {}),
        ("~", 0, "<built-in method __new__ of type object at 0x7f00>"): (1, 1, 0.125, 0.25, {}),
        ("~", 0, "<built-in method __new__ of type object at 0x7f08>"): (3, 3, 0.125, 0.375, {}),
        ("~", 0, "<method 'append' of 'list' objects>"): (1, 1, 0.5, 0.5, {}),
    }
    assert explain.summarize(marshal.dumps(stats)) == {
        "builtins.len": [2, 500_000.0, 250_000.0],
        "__new__ of type object": [4, 625_000.0, 250_000.0],
        "<method 'append' of 'list' objects>": [1, 500_000.0, 500_000.0],
    }


NESTED = """\
import functools  # timed in µs


@functools.cache
def cached(n):
    return n


def outer(items):
    def inner(item):
        return item

    return sorted(items, key=inner)


def squares(items): return [item * item for item in items]


class Tree:
    class Node:
        def walk(self):
            return [x for x in ()]
"""


def test_code_is_named_by_the_innermost_function_around_its_line_from_a_decorator_to_the_last_line(tmp_path):
    source = tmp_path / "lib" / "python3.11" / "site-packages" / "pkg" / "_tree.py"
    source.parent.mkdir(parents=True)
    source.write_text(NESTED, encoding="utf-8")
    expected = {
        (4, "cached"): "pkg._tree.cached",  # a decorated function's code starts at its decorator
        (9, "outer"): "pkg._tree.outer",
        (10, "inner"): "pkg._tree.outer.<locals>.inner",
        (11, "<genexpr>"): "pkg._tree.outer.<locals>.inner.<locals>.<genexpr>",
        (16, "<listcomp>"): "pkg._tree.squares.<locals>.<listcomp>",  # on its function's first line
        (21, "walk"): "pkg._tree.Tree.Node.walk",
        (22, "<listcomp>"): "pkg._tree.Tree.Node.walk.<locals>.<listcomp>",  # on its function's last line
        (1, "<module>"): "pkg._tree.<module>",
    }
    previous, cache = locale.setlocale(locale.LC_CTYPE), {}
    locale.setlocale(locale.LC_CTYPE, "C")  # a user's ASCII locale: the source is read as UTF-8 all the same
    try:
        found = {(line, name): explain.key_of(str(source), line, name, cache) for line, name in expected}
    finally:
        locale.setlocale(locale.LC_CTYPE, previous)
    assert found == expected
    (tmp_path / "broken.py").write_text("def broken(:\n")
    unread = [explain.key_of(str(tmp_path / name), 1, "f", {}) for name in ("gone.py", "broken.py")]
    assert unread == ["gone.f", "broken.f"]  # named by the file alone where the source cannot be read
    assert explain.module_of("/usr/lib/python3.11/json/__init__.py") == "json"
    assert explain.module_of("/opt/python3.12/lib/python3.12/json/decoder.py") == "json.decoder"
    assert explain.module_of("/venv/lib/python3.11/site-packages/equinox/_tree.py") == "equinox._tree"


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


def test_a_function_that_appeared_replaces_one_function_that_vanished_and_no_more():
    before, after = {"m.a": [20, 100.0, 1.0], "m.b": [20, 90.0, 1.0]}, {"m.c": [20, 95.0, 1.0]}
    explained = explain.Explanation("env", "a", "b", explain.diff(before, after), before, after)
    assert explained.sentence(most=8) == "`m.b`: 20 → 0 calls per update; `m.a` replaced by `m.c` (20 calls)"


def test_a_function_starts_at_its_first_decorator():
    assert list(explain.definitions(ast.parse("x = 1\n@dec\n@other\ndef f():\n    pass\n"))) == [(2, 5, "f")]


def test_the_profiles_environment_is_one_of_the_run_s_alone_in_a_configuration_whose_paths_hold_anywhere(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("PATH", "/usr/bin")  # env_config puts setup's Pythons first, where asv profile looks
    config, cache = tmp_path / "site" / "asv.conf.json", tmp_path / "cache"
    conf = {
        "version": 1,
        "project": "demo",
        "repo": "https://example.org/equinox.git",
        "environment_type": "virtualenv",
        "pythons": ["3.11"],
        "matrix": {"req": {"jax": ["0.4.33", "0.4.35"]}},
        "exclude": [{"python": "3.9"}],
        "benchmark_dir": "benchmarks",
        "html_dir": "/srv/html",
    }
    wanted = {"python": "3.11", "jax": "0.4.35", "machine": "m"}  # the machine is no requirement
    kept = {key: value for key, value in conf.items() if key != "exclude"} | {"matrix": {"req": {"jax": "0.4.35"}}}
    relative = {"repo": "../equinox", "env_dir": "env", "results_dir": "results", "html_dir": "html"}
    env = explain.env_config(config, conf | relative, wanted, cache)
    assert os.environ["PATH"] == f"{SETUP_PYTHONS / 'bin'}{os.pathsep}/usr/bin"
    name = "virtualenv-py3.11-jax0.4.35"
    assert env == (name, cache / "configs" / f"{name}.conf.json", config.parent / explain.PROFILE_ENVS)
    # Made absolute beside the original, as asv read them there.
    absolute = {key: str((config.parent / value).resolve()) for key, value in relative.items()}
    assert json.loads(env.config.read_text()) == kept | absolute | {"benchmark_dir": str(config.parent / "benchmarks")}
    # A URL and an absolute path are kept; without an env_dir, asv's own (env, beside the configuration) is the one
    # beside which profiles are made.
    env = explain.env_config(config, conf, wanted, cache)
    assert env.root == config.parent / explain.PROFILE_ENVS
    assert json.loads(env.config.read_text()) == kept | {"benchmark_dir": str(config.parent / "benchmarks")}
    with pytest.raises(Failed) as failed:
        explain.env_config(config, conf, {"python": "3.11", "jax": "0.4.34"}, cache)
    assert str(failed.value) == f"no environment of {config} has {{'python': '3.11', 'jax': '0.4.34'}}"


CALLS = """\
def helper():
    pass


class Calls:
    params = [1, 3]

    def time_calls(self, n):
        for _ in range(n):
            helper()
"""
CALLED = "bench_calls.Calls.time_calls(3)"


def profiled_site(tmp_path, monkeypatch) -> tuple[explain.ProfileEnv, list[str], list[tuple[str, str]]]:
    """A repository of two commits whose suite (left beside the configuration, as asv.conf.json leaves it) calls
    ``helper`` n times, profiled in this Python by asv (nothing installed): the profiles' environment, the commits,
    and the (folder, commit) of each install."""
    config, commits = asv_project(tmp_path, pythons=[sys.executable])
    (tmp_path / "benchmarks" / "bench_calls.py").write_text(CALLS)
    installed = installs(monkeypatch)
    env = explain.env_config(config, util.load_asv_config(config), {"python": sys.executable}, tmp_path / "profiles")
    return env, commits, installed


def test_a_change_is_explained_by_one_profile_per_commit_made_once_in_the_profiles_own_environment(
    tmp_path, monkeypatch, capsys
):
    env, (before, after), installed = profiled_site(tmp_path, monkeypatch)
    cache = tmp_path / "profiles"
    assert explain.explain(env, before, after, cache, cached_only=True, profiled=CALLED) is None
    kept = explain.cached_profile(cache, env.name, before, CALLED)
    # Kept per environment and commit; any other benchmark than the gate's own in a folder of its own.
    assert kept == cache / env.name / "bench_calls.Calls.time_calls_3" / f"{before}.json"
    assert explain.cached_profile(cache, env.name, before, explain.PROFILED) == cache / env.name / f"{before}.json"
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({"bench_calls.helper": [1, 0.5, 0.5], "bench_calls.Calls.time_calls": [1, 2.0, 1.0]}))
    explained = explain.explain(env, before, after, cache, profiled=CALLED)
    # Only the commit not yet profiled is installed, in the profiles' environment, and profiled there.
    assert installed == [("profiled", after)] * 2 and env.root == tmp_path / explain.PROFILE_ENVS
    assert capsys.readouterr().err.splitlines()[0] == f"profiling {after[:8]} in {env.name}: {CALLED}"
    assert (explained.env_name, explained.before, explained.after) == (env.name, before, after)
    suite = {r.function: r.calls for r in explained.rows if r.function.startswith("bench_calls.")}
    assert suite == {"bench_calls.helper": (1, 3)}  # the benchmark itself was called once in both
    assert explained.after_summary == json.loads(explain.cached_profile(cache, env.name, after, CALLED).read_text())
    assert explained.after_summary["bench_calls.Calls.time_calls"][0] == 1
    assert explain.explain(env, before, after, cache, cached_only=True, profiled=CALLED) == explained
    assert capsys.readouterr().err == ""  # kept: nothing profiled again


def test_a_benchmark_the_suite_lacks_or_a_commit_asv_cannot_install_is_not_profiled_and_fails_naming_it(
    tmp_path, monkeypatch, capsys
):
    env, (_, commit), _ = profiled_site(tmp_path, monkeypatch)
    cache, other = tmp_path / "profiles", "bench_calls.Calls.time_calls(4)"
    with pytest.raises(Failed) as failed:
        explain.profile_commits(env, {commit: {CALLED, other}}, cache)
    assert str(failed.value) == "bench_calls.Calls.time_calls has no params (4) in the suite, so it cannot be profiled"
    assert capsys.readouterr().err.startswith(f"profiling {commit[:8]} in {env.name}: {CALLED}, {other}\n")
    # What was profiled before is kept.
    assert explain.cached_profile(cache, env.name, commit, CALLED).is_file()
    assert not explain.cached_profile(cache, env.name, commit, other).exists()
    with pytest.raises(Failed, match=rf"^bench_calls.gone is not in the suite at {commit[:8]}, so it cannot be "):
        explain.profile_commits(env, {commit: {"bench_calls.gone"}}, cache)
    broken = env._replace(config=tmp_path / "missing.conf.json")
    with pytest.raises(Failed, match=rf"^cannot install {commit[:8]} in {env.name} to profile it: .*missing\.conf"):
        explain.profile_commits(broken, {commit: {"bench_calls.gone"}}, cache)


def test_the_diff_ranks_by_change_of_time_then_of_calls_then_name_and_counts_a_missing_function_as_never_called():
    before = {"m.gone": [2, 10.0, 1.0], "m.same": [5, 50.0, 5.0], "m.slow": [1, 0.0, 0.0], "m.fewer": [10, 30.0, 3.0]}
    before |= {"m.b": [1, 20.0, 1.0], "m.a": [1, 20.0, 1.0], "m.c": [7, 20.0, 2.0]}
    after = {"m.new": [1, 10.0, 1.0], "m.same": [5, 80.0, 5.0], "m.slow": [2, 100.0, 1.0], "m.fewer": [4, 20.0, 3.0]}
    after |= {"m.b": [3, 30.0, 1.0], "m.a": [3, 30.0, 1.0], "m.c": [8, 30.0, 2.0]}
    rows = explain.diff(before, after)
    assert rows == [
        explain.FunctionChange("m.slow", (1, 2), (0.0, 100.0)),
        explain.FunctionChange("m.fewer", (10, 4), (30.0, 20.0)),
        explain.FunctionChange("m.a", (1, 3), (20.0, 30.0)),
        explain.FunctionChange("m.b", (1, 3), (20.0, 30.0)),
        explain.FunctionChange("m.gone", (2, 0), (10.0, 0.0)),
        explain.FunctionChange("m.c", (7, 8), (20.0, 30.0)),
        explain.FunctionChange("m.new", (0, 1), (0.0, 10.0)),
    ]  # m.same, called as often, is no change whatever its time
    explained = explain.Explanation("env", "a", "b", rows, before, after)
    assert explained.markdown(shown=6) == [
        "Function calls per update, all functions: 27 → 26. 7 functions changed; the 6 with the largest change of "
        "time:",
        "",
        "| function | calls per update | cumulative µs per update (cProfile) |",
        "|---|---|---|",
        "| `m.slow` | 1 → 2 | 0 → 100 |",
        "| `m.fewer` | 10 → 4 | 30 → 20 |",
        "| `m.a` | 1 → 3 | 20 → 30 |",
        "| `m.b` | 1 → 3 | 20 → 30 |",
        "| `m.gone` | 2 → 0 | 10 → 0 |",
        "| `m.c` | 7 → 8 | 20 → 30 |",
    ]
    assert explained.markdown(shown=7)[0] == "Function calls per update, all functions: 27 → 26."
    unchanged = explain.Explanation("env", "a", "b", [], before, before).markdown()
    assert unchanged == [
        "Function calls per update, all functions: 27 → 27.",
        "",
        "No function's number of calls changed.",
    ]


def test_the_sentence_names_the_largest_changes_then_at_least_one_function_replaced_by_another_called_as_often():
    before = {"m.x": [1, 0.0, 0.0], "m.y": [1, 0.0, 0.0], "m.z": [1, 0.0, 0.0], "m.w": [1, 0.0, 0.0]}
    before |= {"m.old1": [4, 10.0, 0.0], "m.old2": [6, 12.0, 0.0], "m.dropped": [3, 1.0, 0.0]}
    after = {"m.x": [2, 50.0, 0.0], "m.y": [3, 40.0, 0.0], "m.z": [4, 30.0, 0.0], "m.w": [5, 20.0, 0.0]}
    after |= {"m.new1": [4, 10.0, 0.0], "m.new2": [6, 12.0, 0.0], "m.newer": [9, 5.0, 0.0]}
    explained = explain.Explanation("env", "a", "b", explain.diff(before, after), before, after)
    x, y, z, w = (f"`m.{f}`: 1 → {n} calls per update" for f, n in zip("xyzw", (2, 3, 4, 5), strict=True))
    first, second = "`m.old2` replaced by `m.new2` (6 calls)", "`m.old1` replaced by `m.new1` (4 calls)"
    assert explained.sentence() == f"{x}; {y}; {z}; {first}"
    assert explained.sentence(per="call of flatten", most=2) == (
        "`m.x`: 1 → 2 calls per call of flatten; `m.y`: 1 → 3 calls per call of flatten; " + first
    )
    vanished = "`m.newer`: 0 → 9 calls per update; `m.dropped`: 3 → 0 calls per update"  # no function as often
    assert explained.sentence(most=8) == f"{x}; {y}; {z}; {w}; {vanished}; {first}; {second}"
