"""The survivors of docs/mutants.toml in scripts/benchtools/judging (explain, finding, instructions, pairs, pr_render,
pr_summary, render, verdicts) that it judges equivalent, each shown so: the original and the mutant run on generated
inputs and give the same answer, or, where the mutation changes only a layout the readers never see, the one fact the
judgement rests on, asserted against the project's real objects and the real libraries."""

import codecs
import contextlib
import cProfile
import dataclasses
import datetime
import functools
import itertools
import json
import marshal
import math
import shutil
import sys
import types
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import callgrind, metrics
from benchmarks.instruction_ops import OPERATIONS, TWINS
from benchtools.asvtools import sides, suite
from benchtools.judging import (
    explain,
    finding,
    gate,
    instructions,
    pairs,
    pr_render,
    pr_summary,
    recheck,
    render,
    steps,
    verdicts,
)
from benchtools.judging.changes import Change, Thresholds
from tests.asv_sites import COST, INSTRUCTIONS, PASSES, RATIO
from tests.helpers import mutated

SETTINGS = settings(
    deadline=None,
    derandomize=True,
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@functools.cache
def cached_mutant(function, old: str, new: str):
    """``mutated``, made once for all of a property's examples (for functions whose globals no test patches)."""
    return mutated(function, old, new)


def outcome(function, *args, **kwargs):
    """What a call gives: ("gave", its answer), or ("raised", the exception's type and message)."""
    try:
        return "gave", function(*args, **kwargs)
    except Exception as error:  # the original and the mutant must fail alike too
        return "raised", type(error), str(error)


# verdicts.py


def verdict_documents() -> list[dict]:
    """Documents of each status, as the gate writes them."""
    return [
        verdicts.nothing_judged("no new commit", "results", "m", unchanged=["a" * 40]),
        verdicts.failure("run", 3, "it broke: µ ``` ✓"),
        verdicts.failure("judge", None, "unknown"),
    ]


@pytest.mark.equivalent(
    "benchtools.judging.verdicts.x_write__mutmut_7",
    "benchtools.judging.verdicts.x_write__mutmut_10",
    "benchtools.judging.verdicts.x_write__mutmut_12",
)
@pytest.mark.parametrize("indent", ["indent=None", "indent=2"])
def test_a_verdict_written_at_any_indent_is_read_back_the_same(tmp_path, indent):
    mutant = mutated(verdicts.write, "indent=1", indent)
    for number, document in enumerate(verdict_documents()):
        verdicts.write(tmp_path / f"{number}.json", document)
        mutant(tmp_path / f"{number}-mutant.json", document)
        assert verdicts.read(tmp_path / f"{number}-mutant.json") == verdicts.read(tmp_path / f"{number}.json")


@pytest.mark.equivalent("benchtools.judging.verdicts.x_write__mutmut_8")
def test_a_verdict_with_nan_is_refused_alike_whether_allow_nan_is_false_or_none(tmp_path):
    mutant = mutated(verdicts.write, "allow_nan=False", "allow_nan=None")
    for value in (math.nan, math.inf, 1.5):
        document = {**verdict_documents()[0], "machine": value}
        assert outcome(mutant, tmp_path / "mutant.json", document) == outcome(
            verdicts.write, tmp_path / "original.json", document
        )
        assert (tmp_path / "mutant.json").exists() == (tmp_path / "original.json").exists()
        if (tmp_path / "original.json").exists():
            assert (tmp_path / "mutant.json").read_bytes() == (tmp_path / "original.json").read_bytes()


# pairs.py

paired = st.integers(2, 20).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.5, 2.0), min_size=n, max_size=n),
        st.lists(st.floats(0.5, 2.0), min_size=n, max_size=n),
        st.one_of(st.sampled_from([0.0, 0.5, 0.9, 0.99, 1 - 2**-12, 0.9999, 1.0]), st.floats(-0.99, 1.0)),
    )
)


@pytest.mark.equivalent(
    "benchtools.judging.pairs.x_interval__mutmut_20",
    "benchtools.judging.pairs.x_interval__mutmut_23",
    "benchtools.judging.pairs.x_interval__mutmut_24",
)
@pytest.mark.parametrize("strict", ["strict=None", "", "strict=False"])
@SETTINGS
@given(case=paired, extra=st.integers(-2, 2))
def test_an_interval_is_the_same_whatever_zip_s_strict(strict, case, extra):
    before, after, confidence = case
    after = after[: len(after) + extra] if extra < 0 else after + [1.0] * extra  # unequal lengths too
    mutant = cached_mutant(pairs.interval, "strict=True", strict)
    assert outcome(mutant, before, after, confidence) == outcome(pairs.interval, before, after, confidence)


@pytest.mark.equivalent("benchtools.judging.pairs.72:46: a range's end one further")
@SETTINGS
@given(case=paired)
def test_an_interval_is_the_same_with_one_more_first_index_of_the_walsh_averages(case):
    before, after, confidence = case
    mutant = cached_mutant(pairs.interval, "for i in range(n) for j", "for i in range(n + 1) for j")
    assert outcome(mutant, before, after, confidence) == outcome(pairs.interval, before, after, confidence)


@pytest.mark.equivalent("benchtools.judging.recheck.102:53: two names passed swapped")
@SETTINGS
@given(
    lists=st.lists(
        st.lists(
            st.builds(
                types.SimpleNamespace,
                kind=st.sampled_from(metrics.KINDS),
                params=st.sampled_from(["", "'access'", "'flatten', 'module'", "'unflatten', 'tuple'", "'eager'"]),
            ),
            max_size=5,
        ),
        min_size=2,
        max_size=2,
    )
)
def test_the_operations_counted_are_the_same_whichever_list_comes_first(lists):
    counted, improved = lists
    assert recheck.counted_operations(recheck.to_explain(improved, counted)) == recheck.counted_operations(
        recheck.to_explain(counted, improved)
    )


@pytest.mark.equivalent(
    "benchtools.judging.pairs.x_interval__mutmut_42",
    "benchtools.judging.pairs.x_interval__mutmut_43",
    "benchtools.judging.pairs.x_interval__mutmut_44",
)
@pytest.mark.parametrize("bound", ["k - 1 < len(cdf)", "k + 2 < len(cdf)", "k + 1 <= len(cdf)"])
@SETTINGS
@given(case=paired)
def test_an_interval_is_the_same_whatever_the_bound_of_its_search_of_the_cdf(bound, case):
    before, after, confidence = case
    mutant = cached_mutant(pairs.interval, "k + 1 < len(cdf)", bound)
    assert outcome(mutant, before, after, confidence) == outcome(pairs.interval, before, after, confidence)


@pytest.mark.equivalent(
    "benchtools.judging.pairs.x_interval__mutmut_42",
    "benchtools.judging.pairs.x_interval__mutmut_43",
    "benchtools.judging.pairs.x_interval__mutmut_44",
)
def test_the_signed_rank_cdf_ends_at_exactly_one():
    """Above any tail (1 - confidence) / 2 of a confidence above -1: the search stops before the cdf's end."""
    for n in range(1, pairs.MAX_PAIRS + 1):
        cdf = pairs.signed_rank_cdf(n)
        assert cdf[-1] == 1.0 and all(value < 1.0 for value in cdf[:-1])


# render.py


@pytest.mark.equivalent("benchtools.judging.render.x_as_text__mutmut_24")
@SETTINGS
@given(text=st.text(alphabet="`a \n"))
def test_text_is_fenced_alike_whatever_the_default_of_its_longest_backticks(text):
    assert cached_mutant(render.as_text, "default=0", "default=1")(text) == render.as_text(text)


@pytest.mark.equivalent("benchtools.judging.render.x_human__mutmut_13")
@SETTINGS
@given(
    value=st.one_of(
        st.sampled_from([1000, -1000, 1000.0, -1000.0, 999.5, 1000.5, -999.99, math.nan, math.inf]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-5000, 5000),
        st.floats(-2000, 2000),
    ),
    unit=st.sampled_from(["", "instructions", "weighted", "tree_map passes"]),
)
def test_a_value_is_shown_alike_at_and_beyond_a_thousand(value, unit):
    mutant = cached_mutant(render.human, "abs(value) >= 1000", "abs(value) > 1000")
    assert outcome(mutant, value, unit) == outcome(render.human, value, unit)


@pytest.mark.equivalent("benchtools.judging.render.x_threshold_text__mutmut_9")
@SETTINGS
@given(
    threshold=st.one_of(st.sampled_from([0.01, 0.0064, 0.0099999, 0.0100001, 0.1, 0.0]), st.floats(0, 1)),
    benchmark=st.sampled_from([COST, INSTRUCTIONS, PASSES, RATIO]),
)
def test_a_threshold_is_shown_alike_at_exactly_one_percent(threshold, benchmark):
    source = types.SimpleNamespace(thresholds=lambda change: threshold)
    change = Change(benchmark, "4", "env", 1.0, 2.0, "a", "b", True, "")
    mutant = cached_mutant(render.threshold_text, "threshold >= 0.01", "threshold > 0.01")
    assert mutant(source, change) == render.threshold_text(source, change)


# explain.py


@pytest.mark.equivalent(
    "benchtools.judging.explain.x_merged__mutmut_16",
    "benchtools.judging.explain.x_merged__mutmut_19",
    "benchtools.judging.explain.x_merged__mutmut_27",
)
@pytest.mark.parametrize("strict", ["strict=None", "", "strict=False"])
@SETTINGS
@given(
    entries=st.lists(
        st.tuples(
            st.sampled_from(["f", "g", "__new__ of type object at 0x7f00", "__new__ of type object at 0x7f08"]),
            st.integers(0, 100),
            st.floats(0, 1e6),
            st.floats(0, 1e6),
        )
    )
)
def test_profile_entries_of_three_values_merge_alike_whatever_zip_s_strict(strict, entries):
    assert cached_mutant(explain.merged, "strict=True", strict)(entries) == explain.merged(entries)


summaries = st.dictionaries(
    st.sampled_from(["a.f", "a.g", "b.h", "builtins.len", "c.k"]),
    st.tuples(st.integers(0, 5), st.floats(0, 100), st.floats(0, 100)).map(list),
)


@pytest.mark.equivalent("benchtools.judging.explain.x_diff__mutmut_10", "benchtools.judging.explain.x_diff__mutmut_17")
@pytest.mark.parametrize(
    "old, new",
    [
        ("before.get(key, [0, 0.0, 0.0])", "before.get(key, [0, 0.0, 1.0])"),
        ("after.get(key, [0, 0.0, 0.0])", "after.get(key, [0, 0.0, 1.0])"),
    ],
)
@SETTINGS
@given(before=summaries, after=summaries)
def test_the_diff_is_the_same_whatever_a_missing_function_s_own_time(old, new, before, after):
    assert cached_mutant(explain.diff, old, new)(before, after) == explain.diff(before, after)


@pytest.mark.equivalent("benchtools.judging.explain.x_key_of__mutmut_20")
def test_a_source_file_is_read_alike_as_utf_8_in_either_case():
    """explain.py itself holds characters beyond ASCII (µ, →): each of its lines is named alike."""
    assert codecs.lookup("UTF-8") is codecs.lookup("utf-8")
    path = explain.__file__
    source = Path(path).read_text(encoding="utf-8")
    assert not source.isascii()
    mutant = mutated(explain.key_of, 'encoding="utf-8"', 'encoding="UTF-8"')
    lines, mutant_cache, cache = range(1, source.count("\n") + 2), {}, {}
    named = [explain.key_of(path, line, "x", cache) for line in lines]
    assert [mutant(path, line, "x", mutant_cache) for line in lines] == named
    assert mutant_cache == cache and cache[path]


NESTED = """\
def top(x):
    def inner(y):
        return y

    return inner(x)


class Outer:
    @staticmethod
    def method():
        pass

    class Inner:
        def method(self):
            def deeper():
                pass

            return deeper


def a_b(x): return x
"""


@pytest.mark.equivalent(
    "benchtools.judging.explain.x_key_of__mutmut_38", "benchtools.judging.explain.x_key_of__mutmut_42"
)
@pytest.mark.parametrize("maxsplit", ['rsplit(".", )', 'rsplit(".", 2)'])
def test_a_function_is_named_alike_whatever_the_maxsplit_of_its_qualified_name(tmp_path, maxsplit):
    """Every line of nested functions and classes, and of explain.py itself, asked under each name defined there."""
    nested = tmp_path / "nested.py"
    nested.write_text(NESTED)
    mutant = mutated(explain.key_of, 'rsplit(".", 1)', maxsplit)
    mutant_cache, cache = {}, {}
    for path in (str(nested), explain.__file__):
        found = list(explain.definitions(explain.ast.parse(Path(path).read_text(encoding="utf-8"))))
        names = sorted({qualified.rsplit(".", 1)[-1] for _, _, qualified in found} | {"missing"})
        assert any("." in qualified for _, _, qualified in found)
        for line in range(1, max(last for _, last, _ in found) + 2):
            for name in names:
                assert mutant(path, line, name, mutant_cache) == explain.key_of(path, line, name, cache)


def profile_env_conf() -> dict:
    return {
        "version": 1,
        "project": "demo",
        "repo": "../equinox",
        "environment_type": "virtualenv",
        "pythons": ["3.11"],
        "matrix": {"req": {"jax": ["0.4.33", "0.4.35"]}},
        "exclude": [{"python": "3.9"}],
        "benchmark_dir": "benchmarks",
        "results_dir": "results",
        "html_dir": "/srv/html",
    }


@pytest.mark.equivalent("benchtools.judging.explain.x_env_config__mutmut_30")
@pytest.mark.parametrize("env_dir", [{}, {"env_dir": "env"}, {"env_dir": "/abs/env"}])
def test_the_profiles_configuration_leaves_the_caller_s_whole_with_a_shallow_copy_as_with_a_deep_one(
    tmp_path, monkeypatch, env_dir
):
    monkeypatch.setenv("PATH", "/usr/bin")
    config, wanted = tmp_path / "site" / "asv.conf.json", {"python": "3.11", "jax": "0.4.35"}
    mutant = mutated(explain.env_config, "copy.deepcopy(conf)", "copy.copy(conf)")
    conf, kept = profile_env_conf() | env_dir, profile_env_conf() | env_dir
    found = mutant(config, conf, wanted, tmp_path / "mutant")
    assert conf == kept  # nothing of the caller's changed, to any depth
    written = json.loads(found.config.read_text())
    original = explain.env_config(config, conf, wanted, tmp_path / "original")
    assert conf == kept and json.loads(original.config.read_text()) == written
    assert (found.name, found.root) == (original.name, original.root)


@pytest.mark.equivalent(
    "benchtools.judging.explain.x_env_config__mutmut_62",
    "benchtools.judging.explain.x_env_config__mutmut_64",
    "benchtools.judging.explain.x_env_config__mutmut_65",
)
@pytest.mark.parametrize("indent", ["indent=None", "", "indent=3"])
def test_the_profiles_configuration_at_any_indent_is_read_back_the_same_by_asv(tmp_path, monkeypatch, indent):
    from asv import util as asv_util

    monkeypatch.setenv("PATH", "/usr/bin")
    config, wanted = tmp_path / "site" / "asv.conf.json", {"python": "3.11", "jax": "0.4.33"}
    mutant = mutated(explain.env_config, "json.dumps(raw, indent=2)", f"json.dumps(raw, {indent})")
    found = mutant(config, profile_env_conf(), wanted, tmp_path / "mutant")
    original = explain.env_config(config, profile_env_conf(), wanted, tmp_path / "original")
    assert found.config.read_bytes() != original.config.read_bytes()
    assert json.loads(found.config.read_text()) == json.loads(original.config.read_text())
    assert asv_util.load_json(found.config, js_comments=True) == asv_util.load_json(original.config, js_comments=True)
    assert (found.name, found.root) == (original.name, original.root)


@pytest.mark.equivalent(
    "benchtools.judging.explain.x_env_config__mutmut_81", "benchtools.judging.explain.x_env_config__mutmut_82"
)
@pytest.mark.parametrize("default", ['"XXenvXX"', '"ENV"'])
@pytest.mark.parametrize("env_dir", [{}, {"env_dir": "env"}, {"env_dir": "deep/envs"}])
def test_the_profiles_root_is_the_same_whatever_the_name_of_the_default_env_folder(
    tmp_path, monkeypatch, default, env_dir
):
    monkeypatch.setenv("PATH", "/usr/bin")
    config, wanted = tmp_path / "site" / "asv.conf.json", {"python": "3.11"}
    mutant = mutated(explain.env_config, 'config.parent / "env"', f"config.parent / {default}")
    conf = profile_env_conf() | env_dir
    assert mutant(config, conf, wanted, tmp_path) == explain.env_config(config, conf, wanted, tmp_path)


@pytest.mark.equivalent("benchtools.judging.explain.x_cached_profile__mutmut_16")
def test_every_profiled_call_is_kept_alike_whatever_else_strip_takes(tmp_path):
    """The calls profiled: the gate's, each Module operation's (pr_summary.profiled) and operation_history's."""
    from benchtools.asvtools import operations
    from benchtools.publishing import operation_history

    names = {explain.PROFILED} | {op.profiled for op in operations.OPERATIONS}
    names |= {tracked.profiled for tracked in operation_history.TRACKED}
    assert len(names) > 2
    mutant = mutated(explain.cached_profile, '.strip("_")', '.strip("XX_XX")')
    for name in sorted(names):
        assert mutant(tmp_path, "env", "c" * 40, name) == explain.cached_profile(tmp_path, "env", "c" * 40, name)


def busy(n: int) -> list[int]:
    return [len(str(i)) for i in sorted(range(n), key=str)]


def real_summary(n: int) -> dict:
    """explain.summarize of a real cProfile dump (as asv profile writes it: the stats dict marshalled)."""
    profile = cProfile.Profile()
    profile.enable()
    busy(n)
    profile.disable()
    profile.create_stats()
    return explain.summarize(marshal.dumps(profile.stats))


@pytest.mark.equivalent(
    "benchtools.judging.explain.x_profile_commits__mutmut_53",
    "benchtools.judging.explain.x_profile_commits__mutmut_56",
    "benchtools.judging.explain.x_profile_commits__mutmut_63",
    "benchtools.judging.explain.x_profile_commits__mutmut_54",
    "benchtools.judging.explain.x_profile_commits__mutmut_57",
    "benchtools.judging.explain.x_profile_commits__mutmut_64",
)
@pytest.mark.parametrize(
    "options, keywords",
    [
        ("indent=None, sort_keys=True", {"indent": None, "sort_keys": True}),
        ("sort_keys=True", {"sort_keys": True}),
        ("indent=1, sort_keys=True", {"indent": 1, "sort_keys": True}),
        ("indent=0, sort_keys=None", {"indent": 0, "sort_keys": None}),
        ("indent=0, ", {"indent": 0}),
        ("indent=0, sort_keys=False", {"indent": 0, "sort_keys": False}),
    ],
)
def test_a_kept_profile_explains_alike_whatever_its_layout_and_the_order_of_its_functions(tmp_path, options, keywords):
    """Both profiles kept as profile_commits keeps them, and as the mutant would (its functions in the profile's
    order, and that order reversed), read by explain: the same explanation, table and sentence."""
    mutated(explain.profile_commits, "indent=0, sort_keys=True", options)  # the mutation, as it stands in the code
    env, before, after, profiled = (
        explain.ProfileEnv("env", tmp_path / "conf.json", tmp_path),
        "b" * 40,
        "a" * 40,
        "x.X",
    )
    profiles = {before: real_summary(30), after: real_summary(300)}
    assert all(list(summary) != sorted(summary) for summary in profiles.values())

    def explained(cache, **kwargs):
        for commit, summary in profiles.items():
            path = explain.cached_profile(cache, env.name, commit, profiled)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(summary, **kwargs))
        found = explain.explain(env, before, after, cache, cached_only=True, profiled=profiled)
        return found, found.markdown(), found.markdown(shown=2), found.sentence()

    original = explained(tmp_path / "original", indent=0, sort_keys=True)
    assert original[0].rows
    assert explained(tmp_path / "mutant", **keywords) == original
    profiles = {commit: dict(reversed(summary.items())) for commit, summary in profiles.items()}
    assert explained(tmp_path / "reversed", **keywords) == original


# instructions.py


def planted_count(names: list[str]) -> dict:
    """A count as callgrind.count makes it, its functions and builtins in no sorted order."""
    return {
        name: {
            twin: {
                "instructions": 150_000.0 + 1000 * number,
                "functions": {"tupledealloc": 500.0, "_PyEval_EvalFrameDefault": 40_000.0 + number, "builtin_dir": 9.0},
                "builtins": {"builtin_isinstance": 300.0 * number, "builtin_dir": 69_012.0},
            }
            for twin in TWINS
        }
        for number, name in enumerate(names)
    }


def counting(monkeypatch, counts: dict, environment: dict) -> None:
    """counts_at's install and valgrind replaced: the commit installed nowhere, the counts and environment planted."""

    @contextlib.contextmanager
    def installed(*args, **kwargs):
        yield types.SimpleNamespace(env=types.SimpleNamespace(find_executable=lambda name: sys.executable))

    monkeypatch.setattr(sides, "installed", installed)
    monkeypatch.setattr(callgrind, "count", lambda names, python: counts[tuple(names)])
    monkeypatch.setattr(callgrind, "environment", lambda python: environment)


@pytest.mark.equivalent(
    "benchtools.judging.instructions.x_counts_at__mutmut_61",
    "benchtools.judging.instructions.x_counts_at__mutmut_64",
    "benchtools.judging.instructions.x_counts_at__mutmut_66",
    "benchtools.judging.instructions.x_counts_at__mutmut_62",
    "benchtools.judging.instructions.x_counts_at__mutmut_65",
    "benchtools.judging.instructions.x_counts_at__mutmut_67",
    "benchtools.judging.instructions.x_counts_at__mutmut_52",
    "benchtools.judging.instructions.x_counts_at__mutmut_54",
    "benchtools.judging.instructions.x_counts_at__mutmut_55",
)
@pytest.mark.parametrize(
    "old, new",
    [
        ("json.dumps(counted, indent=0, sort_keys=True)", f"json.dumps(counted, {options})")
        for options in ("indent=None, sort_keys=True", "sort_keys=True", "indent=1, sort_keys=True")
        + ("indent=0, sort_keys=None", "indent=0, ", "indent=0, sort_keys=False")
    ]
    + [
        ("json.dumps(counted_in, sort_keys=True)", f"json.dumps(counted_in, {options})")
        for options in ("sort_keys=None", "", "sort_keys=False")
    ],
)
def test_a_kept_count_and_its_environment_read_and_explain_alike_whatever_their_layout_and_order(
    tmp_path, monkeypatch, old, new
):
    """Counted, kept and read again, by the original and by the mutant: the same counts and environment, the same
    explanation of a step (its table and sentence) and the same environment's cell of a recount."""
    names = sorted(OPERATIONS)[:3]
    before, after = "a" * 40, "b" * 40
    environment = {"valgrind": "valgrind-3.22.0", "python": "Python 3.11.7", "cpu": "AMD EPYC", "glibc": "2.36"}
    mutant = mutated(instructions.counts_at, old, new)

    def kept_and_read(root, count_at):
        later = planted_count(names)
        later[names[0]][TWINS[0]] = {**later[names[0]][TWINS[0]], "instructions": 300_000.0, "functions": {"f": 1e5}}
        counting(monkeypatch, {tuple(names): planted_count(names)}, environment)
        env = explain.ProfileEnv("env", tmp_path / "conf.json", root)
        first = count_at(env, before, names)
        counting(monkeypatch, {tuple(names): later}, dict(reversed(environment.items())))
        second = count_at(env, after, names)
        assert count_at(env, after, names) == second  # read again from where it was kept
        step = instructions.explain(env, before, after, names[0], TWINS[0], names)
        return first, second, render.environment_text(second[1]), step, step.markdown(), step.sentence()

    original = kept_and_read(tmp_path / "original", instructions.counts_at)
    assert original[1][1] == environment and original[3].counts[0] != original[3].counts[1]
    assert kept_and_read(tmp_path / "mutant", mutant) == original


def keep_both(env, commits, names, environment):
    for commit in commits:
        path = instructions.kept(env, commit, names)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(planted_count(names)))
        path.with_suffix(instructions.ENVIRONMENT_SUFFIX).write_text(json.dumps(environment))


def real_environment(monkeypatch) -> dict:
    """callgrind.environment as it reads this machine, whatever valgrind it finds (its keys are what matters)."""
    monkeypatch.setattr(callgrind, "valgrind", lambda: shutil.which("true"))
    return callgrind.environment(sys.executable)


@pytest.mark.equivalent(
    "benchtools.judging.instructions.x_pair_names__mutmut_4",
    "benchtools.judging.instructions.x_pair_names__mutmut_9",
    "benchtools.judging.instructions.x_pair_names__mutmut_12",
)
@pytest.mark.parametrize(
    "old, new",
    [
        ("kept(env, commits[0], names).parent", "kept(env, None, names).parent"),
        ("kept(env, commits[0], names).parent", "kept(env, commits[1], names).parent"),
        (
            "if path.name.endswith(ENVIRONMENT_SUFFIX) else",
            "if (path.name.endswith(ENVIRONMENT_SUFFIX)) and False else",
        ),
    ],
)
def test_both_sides_of_a_step_share_the_same_kept_set_whatever_the_mutation(tmp_path, monkeypatch, old, new):
    """Every set of one to three operations asked, where sets of them are kept at both commits, one commit or none,
    each beside its counting environment (callgrind.environment's real keys)."""
    mutant = mutated(instructions.pair_names, old, new)
    environment = real_environment(monkeypatch)
    assert environment and not set(environment) & set(OPERATIONS)
    env, before, after = explain.ProfileEnv("env", tmp_path / "conf.json", tmp_path), "a" * 40, "b" * 40
    operations_ = sorted(OPERATIONS)[:4]
    keep_both(env, (before, after), operations_[:3], environment)
    keep_both(env, (before, after), operations_[1:2], environment)
    keep_both(env, (after,), operations_[2:], environment)
    asked = [list(c) for size in (1, 2, 3) for c in itertools.combinations(operations_, size)]
    for commits in ((before, after), (after, before), (before, "c" * 40)):
        for names in asked:
            assert mutant(env, commits, names) == instructions.pair_names(env, commits, names)


# render.py, pr_summary.py and pr_render.py over the suite's real benchmarks


@pytest.fixture(scope="module")
def listing() -> dict:
    """The suite as asv describes it (benchmarks.json): each benchmark's params as asv writes them."""
    return {name: entry for name, entry in json.loads(suite.description()).items() if isinstance(entry, dict)}


def asv_params(entry: dict) -> list[str]:
    """Every combination of a benchmark's params as asv names it ("'jit', 'median'"), and none."""
    return ["", *(", ".join(combo) for combo in itertools.product(*entry.get("params", [])))]


def named(benchmark: str, before: float, after: float, params: str = "", **fields) -> Change:
    return Change(benchmark, params, "Python 3.11", before, after, "a" * 40, "b" * 40, False, "", **fields)


def diagnosed(listing: dict) -> list[Change]:
    """Each cost change of the suite with its diagnostics, named as finding.attach_diagnostics names them."""
    costs = [name for name in listing if metrics.kind(metrics.entry(name, "")) == metrics.COST]
    assert costs
    return [
        named(
            cost,
            100.0,
            120.0,
            latest=110.0,
            diagnostics=[
                (f"{prefix}.{cost.rsplit('.', 1)[1]}", before, 40.0)
                for prefix in finding.DIAGNOSTICS
                for before in (0.0, 10.0, 40.0)
            ],
        )
        for cost in costs
    ]


TABLE_SOURCE = types.SimpleNamespace(label=lambda commit: commit[:8], thresholds=lambda change: 0.01)


@pytest.mark.equivalent(
    "benchtools.judging.render.x_changes_table__mutmut_92",
    "benchtools.judging.render.x_changes_table__mutmut_89",
    "benchtools.judging.render.x_changes_table__mutmut_90",
    "benchtools.judging.render.x_changes_table__mutmut_102",
)
@pytest.mark.parametrize(
    "old, new",
    [
        ("name.rsplit('.', 2)[-2]", "name.rsplit('.', 3)[-2]"),
        ("name.rsplit('.', 2)[-2]", "name.rsplit('.', )[-2]"),
        ("name.rsplit('.', 2)[-2]", "name.split('.', 2)[-2]"),
        ("float('inf')", "float('INF')"),
    ],
)
def test_every_cost_s_diagnostics_are_tabled_alike(listing, old, new):
    """Each of the suite's costs with its diagnostics (finding.DIAGNOSTICS' benchmarks), from 0 and from a count."""
    changes = diagnosed(listing)
    mutant = mutated(render.changes_table, old, new)
    for judged in (True, False):
        table = render.changes_table(TABLE_SOURCE, changes, newest=True, judged=judged)
        assert "PythonCalls 0 → 40 (+inf%)" in table
        assert mutant(TABLE_SOURCE, changes, newest=True, judged=judged) == table


@pytest.mark.equivalent("benchtools.judging.render.x_markdown__mutmut_169")
def test_the_report_of_large_improvements_is_the_same_with_judged_none_or_false(listing):
    source = types.SimpleNamespace(results="results", machine="m", config=None, run_unchanged=[], **vars(TABLE_SOURCE))
    improved = [dataclasses.replace(change, after=80.0) for change in diagnosed(listing)]
    verdict = gate.Verdict(source, finding.STEP_MODE, improved, [], improved, confirmations=None)
    text = render.markdown(verdict)
    assert "## Large improvements" in text
    assert mutated(render.markdown, "judged=False", "judged=None")(verdict) == text


def every_benchmark(listing: dict) -> list[tuple[str, str]]:
    """(benchmark, params) of the whole suite, each instruction count at each operation too, and one unknown."""
    found = [(name, params) for name, entry in listing.items() for params in asv_params(entry)]
    counts = [name for name in listing if name.startswith(instructions.BENCHMARK + ".track_")]
    assert counts
    found += [(name, repr(operation)) for name in counts for operation in [*OPERATIONS, "unknown(op)"]]
    return found + [("bench_new.New.track_new", ""), ("bench_new.New.track_new", "1, 'x'")]


@pytest.mark.equivalent(
    "benchtools.judging.pr_summary.x_words__mutmut_7", "benchtools.judging.pr_summary.x_words__mutmut_106"
)
@pytest.mark.parametrize(
    "old, new",
    [('params.strip("\'")', 'params.strip("XX\'XX")'), ("benchmark.split('.', 1)[-1]", "benchmark.split('.', 1)[+1]")],
)
def test_every_benchmark_of_the_suite_is_worded_alike(listing, old, new):
    mutant = mutated(pr_summary.words, old, new)
    for benchmark, params in every_benchmark(listing):
        assert mutant(benchmark, params) == pr_summary.words(benchmark, params)


@pytest.mark.equivalent(
    "benchtools.judging.pr_summary.x_words__mutmut_81",
    "benchtools.judging.pr_summary.x_words__mutmut_108",
    "benchtools.judging.pr_summary.x_words__mutmut_109",
    "benchtools.judging.pr_summary.x_words__mutmut_110",
)
@pytest.mark.parametrize(
    "old, new",
    [("(0, number, 1)", "(0, number, 2)")] + [("(2, 0, 0)", rank) for rank in ("(3, 0, 0)", "(2, 1, 0)", "(2, 0, 1)")],
)
def test_every_benchmark_of_the_suite_is_ranked_in_the_same_order(listing, old, new):
    """Sorted by their words' ranks (as pr_summary.summarize sorts its rows), the suite's benchmarks at every params
    keep one order, ties included, and the same words."""
    mutant = mutated(pr_summary.words, old, new)
    found = every_benchmark(listing)
    original = [pr_summary.words(benchmark, params) for benchmark, params in found]
    changed = [mutant(benchmark, params) for benchmark, params in found]
    assert [w.operation for w in changed] == [w.operation for w in original]
    assert original != changed  # the mutation is reached

    def order(words):
        return sorted(range(len(words)), key=lambda i: words[i].rank)

    def ties(words):
        return [words[i].rank == words[j].rank for i, j in itertools.pairwise(order(words))]

    assert order(changed) == order(original) and ties(changed) == ties(original)


def exact_verdict(listing: dict) -> gate.Verdict:
    """A comparison of every benchmark of the suite at its first params: the same, a rise, a fall below and beyond
    a floor; the rises counted."""
    thresholds = Thresholds(metrics.asv_thresholds(), {})
    source = types.SimpleNamespace(thresholds=thresholds, label=lambda commit: commit[:8])
    changes = [
        named(name, 100.0, after, asv_params(entry)[-1])
        for name, entry in listing.items()
        for after in (100.0, 130.0, 99.5, 50.0)
    ]
    counted = [c for c in changes if c.after > c.before and c.kind in metrics.EXACT_KINDS][::2]
    return gate.Verdict(source, "v0 → v1", changes, counted, [], confirmations=None)


@pytest.mark.equivalent("benchtools.judging.pr_summary.x_changed_exact__mutmut_5")
def test_the_exact_changes_shown_changed_are_the_same_with_no_confirmations(listing):
    verdict = exact_verdict(listing)
    found = pr_summary.changed_exact(verdict)
    assert found and {c.kind for c in found} >= {metrics.COST} and len(found) < len(verdict.changes)
    assert (
        mutated(pr_summary.changed_exact, "section_of(c, verdict, {})", "section_of(c, verdict, None)")(verdict)
        == found
    )


@pytest.mark.equivalent("benchtools.judging.pr_summary.x_data__mutmut_28")
def test_the_quiet_verdict_file_is_the_same_whatever_reason_nothing_judged_is_given():
    summary = pr_summary.Summary("#7", [], nothing_to_measure="only docs/ changed", base="a" * 40, head="b" * 40)
    document = pr_summary.data(summary)
    assert document["summary"] == "nothing to measure: only docs/ changed"
    assert mutated(pr_summary.data, "nothing_judged(nothing, ", "nothing_judged(None, ")(summary) == document


def placed_rows(listing: dict, changed: int, unchanged: int, cause: str) -> list[pr_summary.PlacedChange]:
    costs = [name for name in listing if metrics.kind(metrics.entry(name, "")) == metrics.COST]
    rows = []
    for number in range(changed + unchanged):
        change = named(costs[number % len(costs)], 100.0, 130.0 if number < changed else 100.0, str(number))
        section = (pr_summary.SLOWER_, pr_summary.FASTER)[number % 2] if number < changed else pr_summary.UNCHANGED
        words = pr_summary.words(change.benchmark, change.params)
        rows.append(pr_summary.PlacedChange(change, section, words, cause=cause * (number % 3)))
    return rows


@pytest.mark.equivalent(
    "benchtools.judging.pr_render.x_fitted__mutmut_10",
    "benchtools.judging.pr_render.x_fitted__mutmut_17",
    "benchtools.judging.pr_render.x_fitted__mutmut_19",
)
@pytest.mark.parametrize(
    "old, new",
    [
        ('shown["changes"] = max(0, ', 'shown["changes"] = max(1, '),
        ("text = markdown(summary, shown)\n    while", "text = markdown(summary, None)\n    while"),
        ("text = markdown(summary, shown)\n    while", "text = markdown(summary, )\n    while"),
    ],
)
@settings(SETTINGS, max_examples=40)
@given(
    changed=st.integers(0, pr_render.TABLE_ROWS + 6),
    unchanged=st.integers(0, 6),
    unjudged=st.integers(0, 6),
    cut=st.sampled_from([0, 1, 200, 2000, 10**9]),
)
def test_a_comment_fitted_to_any_limit_is_the_same(listing, old, new, changed, unchanged, unjudged, cut):
    """Summaries of any number of changes (within the table's rows and beyond), unchanged and unjudged rows, fitted
    to their whole length, a little less, much less, and more than enough: the same comment, or the same refusal."""
    mutant = cached_mutant(pr_render.fitted, old, new)
    summary = pr_summary.Summary(
        "#7",
        placed_rows(listing, changed, unchanged, "`f` calls "),
        [finding.Unjudged(f"bench_new.New.track_{i}", "", "py3.12", "new") for i in range(unjudged)],
        base="a" * 40,
        head="b" * 40,
    )
    limit = max(0, len(pr_render.markdown(summary).encode()) - cut)
    assert outcome(mutant, summary, limit) == outcome(pr_render.fitted, summary, limit)


# finding.py

levels = st.tuples(st.sampled_from([8.0, 10.0, 15.0, 20.0]), st.integers(1, 3), st.integers(0, 2))
series_points = st.one_of(
    st.lists(st.sampled_from([None, 8.0, 10.0, 10.0, 12.0, 15.0, 15.5]), min_size=2, max_size=10),
    # runs of one level, each followed by failed commits or none
    st.tuples(st.integers(0, 1), st.lists(levels, min_size=2, max_size=4)).map(
        lambda drawn: [None] * drawn[0] + [v for level, n, gap in drawn[1] for v in [level] * n + [None] * gap]
    ),
)


def asv_regressions(values: list, threshold: float) -> list:
    """regressions.json's one entry for a series (value at revision i, None where it failed), made as asv publish
    makes it: its graph's steps, its jumps, and a jump over one commit given no revision before."""
    from asv.graph import _compute_graph_steps
    from asv.step_detect import detect_regressions

    steps = _compute_graph_steps([(rev, value, None) for rev, value in enumerate(values)])
    last, best, jumps = detect_regressions(steps, threshold)
    if last is None:
        return []
    jumps = [(None if after - before == 1 else before, after, *levels) for before, after, *levels in jumps]
    return [["bench_x.Cost.track", "graphs/machine-m/x.json", {}, None, last, best, jumps]]


@pytest.mark.equivalent(
    "benchtools.judging.finding.x_step_changes__mutmut_62",
    "benchtools.judging.finding.x_step_changes__mutmut_79",
    "benchtools.judging.finding.x_step_changes__mutmut_81",
    "benchtools.judging.finding.76:63: a range's end one further",
)
@pytest.mark.parametrize(
    "old, new",
    [
        ("set(range(rev_before + 1, after_rev))", "set(range(rev_before + 1, after_rev + 1))"),
        ("before_rev if before_rev is not None else", "before_rev if (before_rev is not None) and False else"),
        ("after_rev - 1 if rev_before is None else", "after_rev - 1 if (rev_before is None) or True else"),
        ("after_rev - 1 if rev_before is None else", "after_rev - 2 if rev_before is None else"),
    ],
)
@settings(SETTINGS, max_examples=80)
@given(values=series_points, threshold=st.sampled_from([0.0, 0.05, 0.2]))
def test_asv_s_jumps_become_the_same_changes(tmp_path, old, new, values, threshold):
    regressions = asv_regressions(values, threshold)
    if measured := [rev for rev, value in enumerate(values) if value is not None]:  # a jump at the first commit
        regressions.append(["bench_y.New.track", "graphs/y.json", {}, None, 1.0, 1.0, [[None, measured[0], 0.5, 1.0]]])
    (tmp_path / "regressions.json").write_text(json.dumps({"regressions": regressions}))
    points = list(enumerate(values))
    source = types.SimpleNamespace(
        html=tmp_path,
        machine="m",
        hash_of_revision={rev: f"commit{rev}" for rev in range(len(values))},
        units={},
        series=lambda graph, index: points,
    )
    mutant = cached_mutant(finding.step_changes, old, new)
    assert outcome(mutant, source) == outcome(finding.step_changes, source)


@pytest.mark.equivalent(
    "benchtools.judging.finding.x_step_changes__mutmut_62",
    "benchtools.judging.finding.x_step_changes__mutmut_79",
    "benchtools.judging.finding.x_step_changes__mutmut_81",
)
def test_the_generated_series_make_jumps_of_every_kind():
    """Series as above reach what the mutations change: asv's jumps with a revision before, over failed commits, and
    over one commit, given none (the jump from the first commit measured is added beside them)."""
    jumps = [
        jump
        for values in ([10.0, 10.0, None, 15.0, 15.0], [10.0, 10.0, 15.0, 15.0], [None, 10.0, 10.0, 15.0, 15.0])
        for regression in asv_regressions(values, 0.0)
        for jump in regression[-1]
    ]
    assert {jump[0] is None for jump in jumps} == {True, False}
    assert any(jump[0] is not None and jump[1] - jump[0] > 1 for jump in jumps)


PLACE_MUTANTS = [
    ('rsplit("_", 1)[-1]', 'rsplit("_", )[-1]'),
    ('rsplit("_", 1)[-1]', 'rsplit("_", 2)[-1]'),
    ('rsplit("_", 1)[-1]', 'rsplit("_", 1)[+1]'),
    ('change.params.strip("\'")', 'change.params.strip("XX\'XX")'),
    ('spread * abs(at)), "x")', 'spread * abs(at)), "XXxXX")'),
    ('spread * abs(at)), "x")', 'spread * abs(at)), "X")'),
]


def exact_benchmarks(listing: dict) -> tuple[list, list]:
    """(benchmark, params) of every exact benchmark of the suite at its params, and of its instruction counts."""
    exact = [
        (name, params)
        for name, params in every_benchmark(listing)
        if metrics.kind(metrics.entry(name, params)) in metrics.EXACT_KINDS and params
    ]
    return exact, [
        (name, params) for name, params in exact if metrics.kind(metrics.entry(name, params)) == metrics.INSTRUCTIONS
    ]


def placed_both(monkeypatch, old, new, name, params, marks, near) -> list:
    """The change of ``name`` at ``params`` placed by the original and by the mutant, over commits whose values are
    at its level before (b) or after (a), off it by ``near`` times the operation's own spread (B, A), at another
    level (x), or missing (-)."""
    twin = name.rsplit("_", 1)[-1]
    own = metrics.instruction_spread(params.strip("'"), twin) if name.startswith(instructions.BENCHMARK) else 0.0
    commits = [f"commit{rev}" for rev in range(len(marks))]
    off = 1 + near * (own or 0.001)
    levels = {"b": 1000.0, "a": 2000.0, "x": 1500.0, "B": 1000.0 * off, "A": 2000.0 * off, "-": None}
    values = {commit: levels[mark] for commit, mark in zip(commits, marks, strict=True)}
    monkeypatch.setattr(finding, "value_at", lambda source, commit, change: values[commit])
    source = types.SimpleNamespace(
        revision_of_hash={commit: rev for rev, commit in enumerate(commits)},
        hash_of_revision=dict(enumerate(commits)),
    )
    placed = []
    for place in (finding.place_exact_steps, mutated(finding.place_exact_steps, old, new)):
        change = named(name, 1000.0, 2000.0, params)
        change.good, change.bad = commits[0], commits[-1]
        placed.append((outcome(place, source, [change]), change))
    return placed


@pytest.mark.equivalent(
    "benchtools.judging.finding.x_place_exact_steps__mutmut_24",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_27",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_28",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_31",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_62",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_63",
)
@pytest.mark.parametrize("old, new", PLACE_MUTANTS)
@settings(SETTINGS, max_examples=35)
@given(
    marks=st.lists(st.sampled_from("bbaa-xBA"), min_size=2, max_size=7),
    pick=st.integers(0, 10**6),
    near=st.sampled_from([0.5, 1.5, -1.5, 40.0]),
)
def test_an_exact_change_of_every_benchmark_is_placed_alike(monkeypatch, listing, old, new, marks, pick, near):
    """Each exact benchmark of the suite at its params, each instruction count at each operation (half the cases)."""
    exact, counts = exact_benchmarks(listing)
    name, params = counts[pick % len(counts)] if pick % 2 else exact[pick % len(exact)]
    original, mutant = placed_both(monkeypatch, old, new, name, params, marks, near)
    assert mutant == original


@pytest.mark.equivalent(
    "benchtools.judging.finding.x_place_exact_steps__mutmut_24",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_27",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_28",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_31",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_62",
    "benchtools.judging.finding.x_place_exact_steps__mutmut_63",
)
@pytest.mark.parametrize("old, new", PLACE_MUTANTS)
def test_every_instruction_count_is_placed_alike_within_and_beyond_its_own_spread(monkeypatch, listing, old, new):
    """Each count of each operation, a commit between its levels off one by half and by one and a half times its
    own spread (the widest spread, which a wrong twin or operation would read, takes both as that level)."""
    _, counts = exact_benchmarks(listing)
    narrow = [
        (name, params)
        for name, params in counts
        if metrics.instruction_spread(params.strip("'"), name.rsplit("_", 1)[-1]) < metrics.INSTRUCTIONS_SPREAD / 2
    ]
    assert narrow
    for (name, params), marks, near in itertools.product(counts, ("bBa", "bAa", "b-Ba"), (0.5, 1.5)):
        original, mutant = placed_both(monkeypatch, old, new, name, params, marks, near)
        assert mutant == original


def asv_result(listing: dict, commit: str, cpu: str, scale: float):
    """asv's result of one night at ``commit`` on a runner asv stamps as ``cpu``: every benchmark of the suite, a
    value per params (one failed, None, and one skipped, NaN)."""
    from asv import results as asv_results
    from asv import runner

    params = {"machine": "m", "python": "3.11", "jax": "0.4.33", "cpu": cpu, "arch": "x86_64", "num_cpu": "2"}
    measured_at = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    result = asv_results.Results(params, {"jax": "0.4.33"}, commit, 1767312000000, "3.11", "virtualenv-py3.11", {})
    for number, name in enumerate(sorted(listing)):
        entry = listing[name]
        count = len(asv_params(entry)) - 1 if entry.get("params") else 1
        values = [
            None if (number + i) % 7 == 0 else math.nan if (number + i) % 11 == 0 else scale * (i + 1)
            for i in range(count)
        ]
        done = runner.BenchmarkResult(
            result=values, samples=[[v] for v in values], number=[1] * count, errcode=0, stderr="", profile=None
        )
        result.add_result(entry, done, started_at=measured_at)
    return result


@pytest.mark.equivalent("benchtools.judging.finding.x_values_by_combo__mutmut_5")
def test_every_benchmark_s_values_are_read_alike_with_plain_none_or_false(listing):
    result = asv_result(listing, "a" * 40, "AMD EPYC", 1.0)
    mutant = mutated(finding.values_by_combo, "plain=False", "plain=None")
    assert any("'" in combo for name in listing for combo in finding.values_by_combo(result, name))
    for name in listing:
        assert mutant(result, name) == finding.values_by_combo(result, name)


@pytest.mark.equivalent(
    "benchtools.judging.finding.x_compare_changes__mutmut_35", "benchtools.judging.finding.x_compare_changes__mutmut_37"
)
@pytest.mark.parametrize(
    "old, new",
    [
        ("env_label(results[0].params)", "env_label(results[1].params)"),
        ("environment(results[0].params)", "environment(results[1].params)"),
    ],
)
def test_two_nights_on_other_runners_compare_alike_from_either_side_s_params(listing, old, new):
    """The code now reads project.environment where the record's mutation read dict(): the same mutation of either
    side, on nights that asv stamped with another runner's hardware."""
    good, bad = "a" * 40, "b" * 40
    nights = {good: asv_result(listing, good, "AMD EPYC", 1.0), bad: asv_result(listing, bad, "Intel Xeon", 1.5)}
    source = types.SimpleNamespace(
        resolve=lambda name: name,
        revision_of_hash={good: 0, bad: 2},
        results_of=lambda commit: [nights[commit]],
        units={},
    )
    changes, unjudged = finding.compare_changes(source, good, bad)
    assert changes and unjudged and changes[0].env_params == {"machine": "m", "python": "3.11", "jax": "0.4.33"}
    assert mutated(finding.compare_changes, old, new)(source, good, bad) == (changes, unjudged)


def improvements_site(tmp_path, listing: dict, values: list[tuple]) -> types.SimpleNamespace:
    """One graph of tree_at's cost on machine m, ``values`` at revisions 0, 1, ... (a value per depth), listed as
    the suite lists it."""
    graph = f"graphs/machine-m/python-3.11/{metrics.COST_TREE_AT}.json"
    (tmp_path / graph).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / graph).touch()
    return types.SimpleNamespace(
        html=tmp_path,
        machine="m",
        benchmarks={metrics.COST_TREE_AT: listing[metrics.COST_TREE_AT]},
        units={metrics.COST_TREE_AT: "weighted"},
        hash_of_revision={rev: f"commit{rev}" for rev in range(len(values))},
        series=lambda graph, index: [(rev, depths[index]) for rev, depths in enumerate(values)],
    )


costs = st.lists(
    st.sampled_from([None, 1000.0, 900.0, 899.0, 800.0, 1000.0 * (1 - 0.1), 1200.0]), min_size=2, max_size=8
)


@pytest.mark.equivalent("benchtools.judging.finding.x_improvements__mutmut_21")
@settings(SETTINGS, max_examples=40)
@given(values=costs)
def test_tree_at_s_improvements_are_found_alike_whatever_joins_its_one_param(tmp_path, listing, values):
    assert len(listing[metrics.COST_TREE_AT]["params"]) == 1  # its depth, alone
    site = improvements_site(tmp_path, listing, [(value,) * 3 for value in values])
    mutant = cached_mutant(finding.improvements, '", ".join(combo)', '"XX, XX".join(combo)')
    assert mutant(site, [], compared=False) == finding.improvements(site, [], compared=False)


@pytest.mark.equivalent("benchtools.judging.finding.x_improvements__mutmut_94")
@settings(SETTINGS, max_examples=60)
@given(values=costs)
def test_tree_at_s_improvements_are_found_alike_at_and_below_ten_percent(tmp_path, listing, values):
    site = improvements_site(tmp_path, listing, [(value,) * 3 for value in values])
    mutant = cached_mutant(
        finding.improvements, "step.relative <= -LARGE_IMPROVEMENT", "step.relative < -LARGE_IMPROVEMENT"
    )
    assert mutant(site, [], compared=False) == finding.improvements(site, [], compared=False)


@pytest.mark.equivalent("benchtools.judging.finding.x_improvements__mutmut_94")
@SETTINGS
@given(before=st.floats(1e-300, 1e300), after=st.floats(0, 1e300))
def test_no_step_s_relative_change_is_exactly_minus_ten_percent(before, after):
    """after / before - 1 is exact for a quotient in [0.5, 2] (Sterbenz), and 1 - 0.1 is no double: the quotient
    that would give -0.1 does not exist, so <= and < decide every step alike."""
    tenth = Fraction(finding.LARGE_IMPROVEMENT)
    assert Fraction(float(1 - tenth)) != 1 - tenth
    relative = steps.Step(0, 1, before, after).relative
    assert relative != -finding.LARGE_IMPROVEMENT
    assert (relative <= -finding.LARGE_IMPROVEMENT) == (relative < -finding.LARGE_IMPROVEMENT)
