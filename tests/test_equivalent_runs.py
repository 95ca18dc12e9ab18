"""The survivors of docs/mutants.toml judged equivalent in the runs (running/bisection.py, asvtools' runs and sides,
history/probes.py) and in the answer's benchmarks (bench_answer.py, instruments.py): each mutant run beside the
original on the same inputs, or the fact its judgement rests on asserted of the real code or library."""

import contextlib
import functools
import io
import itertools
import json
import random
import sys
import types
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import bench_answer, instruments, params
from benchtools import util
from benchtools.asvtools import device, environments, runs, sides
from benchtools.history import probes
from benchtools.judging import bisect
from benchtools.project import env_label
from benchtools.running import bisection
from tests.helpers import ROOT, mutated
from tests.test_bisect import history, planted_git, planted_probes  # noqa: F401 - history: the planted JAX fixture

SETTINGS = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
# A mutant of a function that reads no patched global, made once for all of a property's examples.
cached_mutant = functools.cache(mutated)
STILL = types.SimpleNamespace(monotonic=lambda: 0.0)  # a clock that stands still: seconds said are 0 in every run


def outcome(call, *args, **kwargs):
    """What a call gives: its value, or the type and text of the error it raises."""
    try:
        return call(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - a refusal is an outcome to compare
        return type(error).__name__, str(error)


def printed(call, *args, **kwargs) -> tuple:
    """What a call returns, prints to stdout and prints to stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        returned = outcome(call, *args, **kwargs)
    return returned, out.getvalue(), err.getvalue()


# ---- running/bisection.py

FLUSHED = "flush=True)"
UNFLUSHED = ["flush=None)", ")", "flush=False)"]


def planted_search(repo: Path, folder: Path) -> bisect.Search:
    """A search over the planted history, its probes kept in ``folder`` (a new one: every probe made afresh)."""
    kept = planted_probes(repo, folder)
    return bisect.Search(kept, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.02)


def counted(count, repo: Path, folder: Path) -> tuple:
    """What ``count`` (count_history) prints counting every other commit from jax-v0.2 to jax-v0.3."""
    ends = [bisection.commit_of("jax", repo, tag) for tag in ("jax-v0.2", "jax-v0.3")]
    return printed(count, planted_search(repo, folder), ends, every=2, shard=None)


def bisected(bisecting, repo: Path, folder: Path) -> tuple:
    """What ``bisecting`` (bisect_range) prints bisecting jax-v0.1 to jax-v0.3, and the record it writes."""
    ends = [bisection.commit_of("jax", repo, tag) for tag in ("jax-v0.1", "jax-v0.3")]
    ran = printed(
        bisecting, planted_search(repo, folder), ends, jax_repo=repo, min_step=0.02, command="scripts/bisect",
        record_file=folder / "record.json", readmes=[], records=folder,
    )  # fmt: skip
    return ran, (folder / "record.json").read_text()


@pytest.fixture(scope="module")
def original_runs(history, tmp_path_factory) -> dict:  # noqa: F811
    """The original count_history's and bisect_range's runs over the planted history, the clock standing still."""
    repo, _ = history
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(probes, "time", STILL)
        patch.setattr(bisection, "time", STILL)
        return {
            "repo": repo,
            "count": counted(bisection.count_history, repo, tmp_path_factory.mktemp("count")),
            "bisect": bisected(bisection.bisect_range, repo, tmp_path_factory.mktemp("bisect")),
        }


@pytest.mark.equivalent(
    "benchtools.running.bisection.x_count_history__mutmut_16",
    "benchtools.running.bisection.x_count_history__mutmut_18",
    "benchtools.running.bisection.x_count_history__mutmut_20",
    "benchtools.running.bisection.x_count_history__mutmut_22",
    "benchtools.running.bisection.x_count_history__mutmut_24",
    "benchtools.running.bisection.x_count_history__mutmut_30",
)
@pytest.mark.parametrize("line", ['counting {len(chosen)}", ', "search.key), "])
@pytest.mark.parametrize("unflushed", UNFLUSHED)
def test_count_history_prints_the_same_text_unflushed(original_runs, tmp_path, monkeypatch, line, unflushed):
    monkeypatch.setattr(probes, "time", STILL)
    mutant = mutated(bisection.count_history, line + FLUSHED, line + unflushed)
    assert counted(mutant, original_runs["repo"], tmp_path) == original_runs["count"]
    assert original_runs["count"][1].count("\n") > 3


@pytest.mark.equivalent(
    "benchtools.running.bisection.x_bisect_range__mutmut_8",
    "benchtools.running.bisection.x_bisect_range__mutmut_10",
    "benchtools.running.bisection.x_bisect_range__mutmut_15",
    "benchtools.running.bisection.x_bisect_range__mutmut_50",
    "benchtools.running.bisection.x_bisect_range__mutmut_52",
    "benchtools.running.bisection.x_bisect_range__mutmut_56",
)
@pytest.mark.parametrize("line", ["search.key), ", '{skipped} skipped", '])
@pytest.mark.parametrize("unflushed", UNFLUSHED)
def test_bisect_range_prints_and_records_the_same_unflushed(original_runs, tmp_path, monkeypatch, line, unflushed):
    monkeypatch.setattr(probes, "time", STILL)
    monkeypatch.setattr(bisection, "time", STILL)
    mutant = mutated(bisection.bisect_range, line + FLUSHED, line + unflushed)
    assert bisected(mutant, original_runs["repo"], tmp_path) == original_runs["bisect"]
    assert "bisecting 0.1 → 0.2" in original_runs["bisect"][0][1]


@pytest.mark.equivalent("benchtools.running.bisection.x_repository__mutmut_25")
def test_a_clone_without_quiet_is_the_same_repository(history, tmp_path, monkeypatch):  # noqa: F811
    repo, _ = history
    monkeypatch.setattr(bisection, "BUNDLES", tmp_path)
    planted_git(repo, "bundle", "create", str(tmp_path / "jax.bundle"), "--all")
    mutant = mutated(bisection.repository, '"--bare", "--quiet", ', '"--bare", ')
    cloned = [clone(tmp_path / name / "jax.git", "jax") for name, clone in (("a", bisection.repository), ("b", mutant))]
    refs = [planted_git(path, "for-each-ref", "--format=%(refname) %(objectname)") for path in cloned]
    assert refs[0] == refs[1] and "refs/tags/jax-v0.3" in refs[0]
    assert [planted_git(path, "config", "core.bare") for path in cloned] == ["true", "true"]


ENDS = ("v0.1", "m1", "r1", "m2", "m8", "lonely", "jax-v0.2", "jax-v0.3")


@pytest.mark.equivalent("benchtools.running.bisection.x_ordered__mutmut_21")
def test_ordered_refuses_and_accepts_alike_with_check_none(history):  # noqa: F811
    repo, made = history
    mutant = mutated(bisection.ordered, "repo=repo, check=False).returncode", "repo=repo, check=None).returncode")
    commits = [bisection.commit_of("jax", repo, made.get(name, name)) for name in ENDS]
    outcomes = [
        (outcome(bisection.ordered, *ends), outcome(mutant, *ends)) for ends in itertools.product(commits, repeat=2)
    ]
    assert all(original == mutated_ for original, mutated_ in outcomes)
    assert {original is None for original, _ in outcomes} == {True, False}  # some ranges refused, some taken


@pytest.mark.equivalent(
    "benchtools.running.bisection.x_jaxlib_candidates__mutmut_22",
    "benchtools.running.bisection.x_jaxlib_candidates__mutmut_46",
)
@pytest.mark.parametrize(
    "new", ['repo=repo) if (identifiers) or True else ""', 'repo=repo) if identifiers else "XXXX"']
)
def test_jaxlib_candidates_name_the_same_with_the_diff_read_or_not(history, new):  # noqa: F811
    repo, _ = history
    mutant = mutated(bisection.jaxlib_candidates, 'repo=repo) if identifiers else ""', new)
    found = []
    for before, after in itertools.combinations(("0.1", "0.2", "0.3"), 2):
        for identifiers in ([], ["f"], ["int", "XXXX"], ["Lookup"]):
            original = bisection.jaxlib_candidates(repo, before, after, identifiers)
            assert mutant(repo, before, after, identifiers) == original
            found += original
    assert found  # the planted r1 changes jaxlib's host runtime


@st.composite
def walks(draw):
    """A first-parent log of commits that change files in and out of jax/, and which of them descend from the start."""
    names = draw(st.lists(st.sampled_from(["jax/a.py", "setup.py", "docs/x.md", "tests/t.py"]), max_size=3))
    rows = [(f"c{i}", f"s{i}", "2025-01-01", draw(st.just(names) | st.lists(st.just("jax/b.py"), max_size=1)))
            for i in range(draw(st.integers(0, 8)))]  # fmt: skip
    descendants = draw(st.sets(st.sampled_from([row[0] for row in rows]))) if rows else set()
    return rows, descendants


@pytest.mark.equivalent("benchtools.running.bisection.x_commits_between__mutmut_27")
@settings(SETTINGS, max_examples=60)
@given(walks())
def test_commits_between_walks_alike_from_none_as_from_zero(walk):
    rows, descendants = walk
    stand_in = types.SimpleNamespace(out=lambda *args, **kwargs: "\n".join(sorted(descendants)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bisection, "first_parent_log", lambda *args: list(rows))
        patch.setattr(bisection, "git", stand_in)
        mutant = mutated(bisection.commits_between, "descendants), 0) :]", "descendants), None) :]")
        ends = [bisect.Commit(probes.Source("jax", name, Path("r")), name, "2025-01-01") for name in ("start", "end")]
        assert mutant(*ends) == bisection.commits_between(*ends)


@pytest.mark.equivalent("benchtools.running.bisection.x_changing__mutmut_5")
@pytest.mark.parametrize("project", sorted(bisection.PACKAGE))
def test_a_ranges_second_commit_names_the_package_of_its_first(history, project):  # noqa: F811
    repo, made = history
    mutant = mutated(bisection.changing, "commits[0].source.project", "commits[1].source.project")
    for start, end in (("v0.1", "m1"), ("jax-v0.2", "jax-v0.3"), ("m2", "m8"), ("m8", "m9")):
        ends = [bisection.commit_of(project, repo, made.get(name, name)) for name in (start, end)]
        commits, _ = bisection.commits_between(*ends)
        assert mutant(commits) == bisection.changing(commits)


# ---- benchmarks/instruments.py


@pytest.mark.equivalent(
    "benchmarks.instruments.x_interleaved_pairs__mutmut_22",
    "benchmarks.instruments.x_interleaved_pairs__mutmut_25",
    "benchmarks.instruments.x_interleaved_pairs__mutmut_26",
)
@pytest.mark.parametrize("unstrict", ["strict=None)", ")", "strict=False)"])
@SETTINGS
@given(numerator=st.floats(1e-6, 1.0), denominator=st.floats(1e-6, 1.0), numbers=st.tuples(*[st.integers(1, 9)] * 2))
def test_interleaved_pairs_zip_two_callables_with_two_numbers(unstrict, numerator, denominator, numbers):
    """Batches timed by a stand-in that says each callable's value over its number: the pairs are the same."""
    calibrated = dict(zip((numerator, denominator), numbers, strict=True))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(instruments, "calibrated_number", lambda fn, seconds: calibrated[fn()])
        patch.setattr(instruments, "batch_time", lambda fn, number: fn() / number)
        mutant = mutated(instruments.interleaved_pairs, "numbers, strict=True)", "numbers, " + unstrict)
        callables = (lambda: numerator), (lambda: denominator)
        pairs = instruments.interleaved_pairs(*callables, seconds=0)
        assert mutant(*callables, seconds=0) == pairs and len(pairs) == 3


# ---- benchmarks/bench_answer.py


class Measured:
    """The answer's measurements stood in for by draws of one seeded generator: what a process's figures, shares
    returned before ready, timeits and jaxprs would be; a "fresh process" runs in this one."""

    def __init__(self, seed: int, on_cpu: bool):
        self.seed, self.on_cpu = seed, on_cpu
        self.again()

    def again(self):
        self.draw = random.Random(self.seed)

    def patch(self, patch):
        patch.setattr(bench_answer, "synchronous", lambda: None)
        patch.setattr(
            bench_answer, "jax", types.SimpleNamespace(default_backend=lambda: "cpu" if self.on_cpu else "tpu")
        )
        patch.setattr(bench_answer, "calls", lambda wrapping, size, wait=True: {"tree_at": wrapping, "tuple": size})
        patch.setattr(bench_answer, "returned_before_ready", lambda twins: self.draw.randint(0, 50) / 50)
        patch.setattr(bench_answer, "identical_jaxprs", lambda wrapping: self.draw.random() < 0.5)
        patch.setattr(bench_answer, "figure", self.figure)
        patch.setattr(bench_answer, "user_timeit", self.user_timeit)
        patch.setattr(bench_answer, "in_fresh_process", self.in_fresh_process)

    def figure(self, twins, seconds=bench_answer.SECONDS):
        pairs = [(self.draw.uniform(1e-6, 1e-3), self.draw.uniform(1e-6, 1e-3)) for _ in range(self.draw.randint(3, 9))]
        timed = {"tuple": [b for _, b in pairs], "tree_at": [a for a, _ in pairs], "ratio": [a / b for a, b in pairs]}
        spell = {side: bench_answer.median_interval(values) for side, values in timed.items()}
        return spell | {"pairs": len(pairs), "taken": self.draw.uniform(0, 2 * params.BUSY)}

    def user_timeit(self, repeats=params.TIMEIT_REPEATS):
        return {f"{w} {s}": self.draw.uniform(1, 100) for w in params.DEFAULT_WRAPPINGS for s in params.STRUCTURES}

    def in_fresh_process(self, call: str) -> dict:
        return json.loads(json.dumps(eval(call, vars(bench_answer))))  # the module's own call, as a process runs it


def unclocked(answer: dict) -> dict:
    """An answer without what the machine's clock and load say."""
    kept = {k: v for k, v in answer["provenance"].items() if k not in ("load before", "load after", "seconds")}
    return answer | {"provenance": kept}


@pytest.mark.equivalent("benchmarks.bench_answer.x_in_fresh_processes__mutmut_35")
@settings(SETTINGS, max_examples=40)
@given(seed=st.integers(0, 2**32), on_cpu=st.booleans(), count=st.integers(1, 3))
def test_a_share_never_measured_defaults_to_no_lowest_whether_one_or_two(seed, on_cpu, count):
    measured = Measured(seed, on_cpu)
    with pytest.MonkeyPatch.context() as patch:
        measured.patch(patch)
        mutant = mutated(
            bench_answer.in_fresh_processes, '"returned before ready"].get(w, 1)', '"returned before ready"].get(w, 2)'
        )
        answers = []
        for taking in (bench_answer.in_fresh_processes, mutant):
            measured.again()
            answers.append(unclocked(taking(count)))
    assert answers[0] == answers[1]
    shares = [answers[0]["provenance"][f"{w} returned before ready"] for w in params.DISPATCH_WRAPPINGS]
    assert all(0 <= share <= 1 for share in shares)


@pytest.mark.equivalent(
    "benchmarks.bench_answer.x_predicted__mutmut_14",
    "benchmarks.bench_answer.x_predicted__mutmut_17",
    "benchmarks.bench_answer.x_predicted__mutmut_22",
)
@pytest.mark.parametrize("unstrict", ["strict=None)]", ")]", "strict=False)]"])
@SETTINGS
@given(seed=st.integers(0, 2**32), count=st.integers(1, 4), wrapping=st.sampled_from(params.DEFAULT_WRAPPINGS))
def test_predicted_zips_the_twins_timeits_of_the_same_processes(unstrict, seed, count, wrapping):
    measured = Measured(seed, on_cpu=True)
    timed = [measured.user_timeit() for _ in range(count)]
    mutant = cached_mutant(bench_answer.predicted, 'values["tuple"], strict=True)]', 'values["tuple"], ' + unstrict)
    assert mutant(timed, wrapping) == bench_answer.predicted(timed, wrapping)


@pytest.mark.equivalent(
    "benchmarks.bench_answer.x_coverage__mutmut_74",
    "benchmarks.bench_answer.x_coverage__mutmut_76",
    "benchmarks.bench_answer.x_coverage__mutmut_82",
)
@pytest.mark.parametrize("indent", ["indent=None)", ")", "indent=2)"])
def test_the_coverage_record_reads_back_the_same_whatever_its_indent(tmp_path, indent):
    measured = Measured(7, on_cpu=True)
    written = []
    with pytest.MonkeyPatch.context() as patch:
        measured.patch(patch)
        mutant = mutated(bench_answer.coverage, "record}, indent=1)", "record}, " + indent)
        for run, covering in enumerate((bench_answer.coverage, mutant)):
            measured.again()
            returned = covering(2, str(tmp_path / f"{run}.json"), direct=2)
            record = json.loads((tmp_path / f"{run}.json").read_text())
            written.append((returned, record["within"], [unclocked(run) for run in record["runs"]]))
    assert written[0] == written[1] and written[0][1] == written[0][0]
    assert written[0][2][0]["user's timeit"]  # the µs key, not ASCII, read back too


@pytest.mark.equivalent(
    "benchmarks.bench_answer.xǁ_Twinsǁat__mutmut_11", "benchmarks.bench_answer.xǁ_Twinsǁat__mutmut_15"
)
@pytest.mark.parametrize(("old", "new"), [("params[:-1]", "params[:+1]"), ("[params[-1]]", "[params[+1]]")])
def test_every_twins_benchmark_has_two_params_so_plus_one_is_minus_one(old, new):
    """Each _Twins benchmark read at every combination of its params, some figures taken and some not (NaN)."""
    twins = [c for c in vars(bench_answer).values() if isinstance(c, type) and issubclass(c, bench_answer._Twins)]
    mutant = mutated(bench_answer._Twins.at, old, new)
    compared = []
    for cls in (c for c in twins if c is not bench_answer._Twins):
        answer = {
            "figures": {
                f"{cls.prefix} {wrapping}": {
                    side: {statistic: float(hash((side, statistic, wrapping))) for statistic in params.STATISTICS}
                    for side in bench_answer.SIDES
                }
                for wrapping in cls.params[0][::2]
            }
        }
        for combo, side in itertools.product(itertools.product(*cls.params), bench_answer.SIDES):
            original = cls().at(answer, side, combo)
            assert repr(mutant(cls(), answer, side, combo)) == repr(original)
            compared.append(original)
    assert len(twins) >= 4 and {value == value for value in compared} == {True, False}  # values taken and NaNs


# ---- asvtools/sides.py


@pytest.mark.equivalent(
    "benchtools.asvtools.sides.x_log__mutmut_3",
    "benchtools.asvtools.sides.x_log__mutmut_6",
    "benchtools.asvtools.sides.x_log__mutmut_7",
)
@pytest.mark.parametrize("unflushed", UNFLUSHED)
def test_a_side_logs_the_same_line_unflushed(unflushed):
    mutant = mutated(sides.log, "sys.stderr, flush=True)", "sys.stderr, " + unflushed)
    said = [printed(logging, "base: 0123abcd in env (root/base) — µs") for logging in (sides.log, mutant)]
    assert said[0] == said[1] == (None, "", "base: 0123abcd in env (root/base) — µs\n")


def labels():
    """Environment labels as project.env_label makes them, from requirements whose values may hold spaces."""
    words = st.text(st.sampled_from("abcjx0123456789.-_+=<>~ \t"), min_size=1, max_size=8).map(str.strip)
    names = st.sampled_from([*device.PARAMS, "jax", "jaxlib", "numpy", "python", "equinox"])
    return st.dictionaries(names, words.filter(bool), max_size=6).map(env_label)


@pytest.mark.equivalent("benchtools.asvtools.sides.x_label_requirements__mutmut_7")
@SETTINGS
@given(labels())
def test_a_labels_parts_split_alike_at_one_space_and_at_any_whitespace(label):
    mutant = cached_mutant(sides.label_requirements, 'part.split(" ", 1)[0]', "part.split(None, 1)[0]")
    assert mutant(label) == sides.label_requirements(label)


@pytest.mark.equivalent(
    "benchtools.asvtools.sides.x_label_requirements__mutmut_10",
    "benchtools.asvtools.sides.x_label_requirements__mutmut_13",
)
@pytest.mark.parametrize("new", ['part.split(" ", )[0]', 'part.split(" ", 2)[0]'])
@SETTINGS
@given(st.lists(st.sampled_from([" ", ",", "—", "\t", *device.PARAMS, "Python", "3.11", "jax", "a b"]), max_size=12))
def test_the_first_word_of_a_split_is_the_same_whatever_its_maxsplit(new, words):
    label = "".join(words)
    mutant = cached_mutant(sides.label_requirements, 'part.split(" ", 1)[0]', new)
    assert mutant(label) == sides.label_requirements(label)


@pytest.mark.equivalent("benchtools.asvtools.sides.x_answer_step__mutmut_19")
def test_no_answer_wrapping_begins_or_ends_with_x():
    """Every benchmark of bench_answer at every index, its params as asv gives them (repr'd): the same variable."""
    mutant = mutated(sides.answer_step, 'wrapping.strip("\'")', 'wrapping.strip("XX\'XX")')
    found = set()
    for name, cls in vars(bench_answer).items():
        if isinstance(cls, type) and getattr(cls, "params", None):
            benchmark = {"params": [[repr(value) for value in values] for values in cls.params]}
            for index in range(len(list(itertools.product(*cls.params)))):
                step = sides.answer_step(f"bench_answer.{name}.track_ratio", benchmark, index)
                assert mutant(f"bench_answer.{name}.track_ratio", benchmark, index) == step
                found |= set(step.values())
    assert set(params.WRAPPINGS) <= found


class Wrote:
    """A spawner whose benchmark process writes ``data`` as its result file and exits ``errcode``, for asv's own
    runner._run_benchmark_single_param to read."""

    def __init__(self, data, errcode: int = 0):
        self.data, self.errcode = data, errcode

    def run(self, *, result_file_name, **kwargs):
        Path(result_file_name).write_text(json.dumps(self.data))
        return "", self.errcode


samples = st.lists(st.floats(1e-7, 1e-2), min_size=1, max_size=9, unique=True)
written = st.one_of(
    st.floats(1e-3, 1e6),
    st.fixed_dictionaries({"samples": samples, "number": st.integers(1, 1000)}),
    st.fixed_dictionaries({"samples": samples, "number": st.integers(1, 1000)}),
    st.fixed_dictionaries({"samples": samples}),
    st.fixed_dictionaries({"number": st.integers(1, 1000)}),
    st.none(),
)


@pytest.mark.equivalent(
    "benchtools.asvtools.sides.xǁSideǁvalue__mutmut_20", "benchtools.asvtools.sides.xǁSideǁvalue__mutmut_25"
)
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("samples is not None and number", "samples is not None or number"),
        ("(samples, number)[0]", "(samples, None)[0]"),
    ],
)
@settings(SETTINGS, max_examples=40)
@given(data=written, errcode=st.sampled_from([0, 0, 1]))
def test_a_sides_value_is_the_same_from_what_asvs_runner_gives(old, new, data, errcode):
    """asv's runner reads the process's result file: samples and number come together or not at all, and the
    value is the samples' median whatever the number."""
    name = "bench_x.T.time_x"
    benchmark = {"name": name, "params": [], "timeout": 60.0, "setup_cache_key": None}
    side = sides.Side(conf=None, env=None, benchmarks={name: benchmark}, commit="0" * 40, spawner=Wrote(data, errcode))
    mutant = cached_mutant(sides.Side.value, old, new)
    assert outcome(mutant, side, name, None) == outcome(sides.Side.value, side, name, None)


@pytest.mark.equivalent("benchtools.asvtools.sides.xǁSideǁopen__mutmut_4")
def test_asvs_spawner_for_no_launch_method_is_spawns(monkeypatch):
    from asv import runner

    made = []
    monkeypatch.setattr(runner.Spawner, "__init__", lambda spawner, env, benchmark_dir: made.append(type(spawner)))
    mutant = mutated(sides.Side.open, "benchmark_dir, LAUNCH_METHOD)", "benchmark_dir, None)")
    for opening in (sides.Side.open, mutant):
        side = sides.Side(conf=None, env=None, benchmarks=types.SimpleNamespace(benchmark_dir="b"), commit="0" * 40)
        opening(side)
        assert type(side.spawner) is runner.Spawner
    assert made == [runner.Spawner, runner.Spawner] and sides.LAUNCH_METHOD == "spawn"


def asv_configs(tmp_path: Path) -> list[dict]:
    """asv configurations as a dict: of an existing Python, of a virtualenv, without an environment type, and the
    project's own (several environments)."""
    base = {"version": 1, "project": "p", "repo": str(tmp_path), "env_dir": str(tmp_path / "env")}
    base |= {name: str(tmp_path / name) for name in ("results_dir", "html_dir", "benchmark_dir")}
    own = util.load_asv_config(ROOT / "asv.conf.json") | {"env_dir": str(tmp_path / "env")}
    return [
        base | {"environment_type": "existing", "pythons": [sys.executable]},
        base | {"environment_type": "virtualenv", "pythons": ["3.11"]},
        base | {"pythons": [sys.executable]},
        own,
    ]


@pytest.mark.equivalent(
    "benchtools.asvtools.runs.x_environment_python__mutmut_5",
    "benchtools.asvtools.runs.x_environment_python__mutmut_8",
    "benchtools.asvtools.runs.x_environment_python__mutmut_9",
)
@pytest.mark.parametrize("verbose", ["verbose=None)", ")", "verbose=True)"])
def test_an_environments_python_is_the_same_whatever_asvs_verbose(tmp_path, verbose):
    mutant = mutated(runs.environment_python, "None, verbose=False)", "None, " + verbose)
    found = [(outcome(runs.environment_python, conf), outcome(mutant, conf)) for conf in asv_configs(tmp_path)]
    assert all(original == mutated_ for original, mutated_ in found)
    assert isinstance(found[0][0], Path) and found[2][0][0] == "RuntimeError"  # one found, one refused


@pytest.mark.equivalent("benchtools.asvtools.sides.x_prepare__mutmut_21")
def test_asvs_get_environments_reads_verbose_for_its_truth(tmp_path):
    """The environments and what asv says (its warning) are the same with verbose None as with False."""
    from asv import environment

    def names(conf, verbose) -> list[str]:
        return [env.name for env in environment.get_environments(conf, None, verbose=verbose)]

    said = [
        [printed(names, conf, verbose) for verbose in (False, None)]
        for conf in map(environments.asv_config, asv_configs(tmp_path))
    ]
    assert all(unverbose == none for unverbose, none in said)
    assert said[0][0][0] and said[2][0][0][0] == "RuntimeError"  # environments found, and a configuration refused


@pytest.mark.equivalent("benchtools.asvtools.runs.x_runner_constraint__mutmut_13")
def test_the_runner_constraint_names_the_same_version_in_any_case(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "CONSTRAINTS", tmp_path / "constraints.txt")
    mutant = mutated(runs.runner_constraint, "metadata.version('asv_runner')", "metadata.version('ASV_RUNNER')")
    written = [(write(), (tmp_path / "constraints.txt").read_text()) for write in (runs.runner_constraint, mutant)]
    assert written[0] == written[1] and written[0][1].startswith("asv_runner==")


@pytest.mark.equivalent("benchtools.asvtools.runs.x_range_hashes__mutmut_20")
def test_asv_finds_no_existing_hashes_in_a_missing_folder(tmp_path):
    from asv import results

    assert results.get_existing_hashes(str(tmp_path / "missing")) == []


MACHINE = "m"
MACHINE_JSON = {"machine": MACHINE, "arch": "x86_64", "cpu": "c", "num_cpu": "2", "os": "Linux", "ram": "1"}


def results_folder(root: Path, machine_json, benchmarks_json, result_ok: bool) -> Path:
    """A results folder as asv writes it (benchmarks.json, the machine's machine.json, a result saved by asv's
    Results), each file as given: None leaves it out, a str is its text."""
    from asv import results, runner

    folder = root / "results"
    (folder / MACHINE).mkdir(parents=True)
    benchmark = {"name": "bench_x.T.track_x", "params": [["'jit'", "'scan'"]], "param_names": ["wrapping"]}
    benchmark |= {"unit": "ratio", "type": "track", "version": "1"}
    saved = results.Results({"machine": MACHINE}, {}, "a" * 40, 0, "3.11", "env", {})
    saved.add_result(benchmark, runner.BenchmarkResult([1.5, None], [None, None], [None, None], 0, "", None))
    saved.save(str(folder))
    if not result_ok:
        for path in (folder / MACHINE).glob("*.json"):
            path.write_text(path.read_text()[:-20])
    for name, data in ((MACHINE + "/machine.json", machine_json), ("benchmarks.json", benchmarks_json)):
        if data is not None:
            (folder / name).write_text(data if isinstance(data, str) else json.dumps(data))
    return folder


FOLDERS = list(
    itertools.product(
        [MACHINE_JSON | {"version": 1}, MACHINE_JSON | {"version": 2}, "{", None],
        [{"bench_x.T.track_x": {"params": []}, "version": 2}, {"version": 1}, None],
        [True, False],
    )
)


def found_alike(call, mutant, *args) -> tuple:
    """Each call's outcome, errors told by their type and text; asserts they are the same."""
    said = [repr(outcome(each, *args)) for each in (call, mutant)]
    assert said[0] == said[1]
    return said[0]


@pytest.mark.equivalent(
    "benchtools.asvtools.runs.x_unreadable__mutmut_20", "benchtools.asvtools.runs.x_unreadable__mutmut_21"
)
@pytest.mark.parametrize("kind", ['"XXmachineXX"', '"MACHINE"'])
def test_asv_reads_any_kind_but_benchmarks_and_result_as_a_machine_json(tmp_path, kind):
    mutant = mutated(runs.unreadable, 'else "machine" if', f"else {kind} if")
    said = set()
    for index, files in enumerate(FOLDERS):
        folder = results_folder(tmp_path / str(index), *files)
        said.add(found_alike(runs.unreadable, mutant, folder, MACHINE))
    assert "[]" in said and len(said) > 4  # folders read whole, and folders of files set aside for different reasons


@pytest.mark.equivalent(
    "benchtools.asvtools.runs.x_summaries__mutmut_3",
    "benchtools.asvtools.runs.x_summaries__mutmut_9",
    "benchtools.asvtools.runs.x_summaries__mutmut_10",
    "benchtools.asvtools.runs.x_summaries__mutmut_11",
    "benchtools.asvtools.runs.x_summaries__mutmut_12",
)
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("if folder.is_dir() else []", "if (folder.is_dir()) or True else []"),
        ('("machine.json", "benchmarks.json")', '("XXmachine.jsonXX", "benchmarks.json")'),
        ('("machine.json", "benchmarks.json")', '("MACHINE.JSON", "benchmarks.json")'),
        ('("machine.json", "benchmarks.json")', '("machine.json", "XXbenchmarks.jsonXX")'),
        ('("machine.json", "benchmarks.json")', '("machine.json", "BENCHMARKS.JSON")'),
    ],
)
def test_results_are_summed_up_alike_with_asvs_other_files_loaded_and_refused(tmp_path, old, new):
    mutant = mutated(runs.summaries, old, new)
    assert found_alike(runs.summaries, mutant, tmp_path / "missing") == "[]"
    said = {
        found_alike(runs.summaries, mutant, results_folder(tmp_path / str(index), *files))
        for index, files in enumerate(FOLDERS)
        if isinstance(files[0], dict) and isinstance(files[1], dict)  # as asv writes them
    }
    assert "[]" in said and any("'ran': 1" in summed for summed in said)


@pytest.mark.equivalent("benchtools.asvtools.runs.x_value_at__mutmut_10")
def test_a_value_is_found_alike_with_plain_none_as_with_false(tmp_path):
    mutant = mutated(runs.value_at, "combinations(result, name, plain=False)", "combinations(result, name, plain=None)")
    root = tmp_path / "root"
    results_folder(root, MACHINE_JSON | {"version": 1}, {"version": 2}, True)
    said = [
        found_alike(runs.value_at, mutant, root, machine, commit, name, combo)
        for machine, commit in ((MACHINE, "a" * 40), (MACHINE, "b" * 40), ("other", "a" * 40))
        for name in ("bench_x.T.track_x", "bench_x.T.track_y")
        for combo in (("'jit'",), ("'scan'",), ("jit",), ())
    ]
    assert "1.5" in said and "None" in said


# ---- history/probes.py

OTHER_TAGS = ("None", "XX--listXX", "v0.2", "jaxlib-v0.2", "jax-v0.2rc1", "jax-v")  # tags no jax-v* release is


@pytest.mark.equivalent(
    "benchtools.history.probes.x_jaxlib_candidates__mutmut_28",
    "benchtools.history.probes.x_jaxlib_candidates__mutmut_34",
    "benchtools.history.probes.x_jaxlib_candidates__mutmut_35",
    "benchtools.history.probes.x_jaxlib_candidates__mutmut_41",
)
@pytest.mark.parametrize(
    "new",
    [
        'jax.commit, None, "jax-v*"',
        'jax.commit, "jax-v*"',
        'jax.commit, "--list"',
        'jax.commit, "XX--listXX", "jax-v*"',
    ],
)
def test_the_jaxlibs_to_try_are_the_same_from_any_listing_of_merged_tags(history, new):  # noqa: F811
    """Every commit of the planted history, its releases and others tagged beside them (named as the mutants'
    arguments are, and like a release): the same jaxlibs to try."""
    repo, made = history
    mutant = mutated(probes.jaxlib_candidates, 'jax.commit, "--list", "jax-v*"', new)
    for tag, commit in zip(OTHER_TAGS, itertools.cycle((made["m1"], made["r1"], made["m4"])), strict=False):
        planted_git(repo, "tag", tag, commit)
    try:
        sources = [probes.commit_source("jax", repo, made[name]) for name in made if name != "lonely"]
        sources += [probes.commit_source("jax", repo, f"jax-v0.{n}") for n in (1, 2, 3)]
        releases = ["0.1", "0.2", "0.3"]
        tried = [found_alike(probes.jaxlib_candidates, mutant, source, releases) for source in sources]
    finally:
        planted_git(repo, "tag", "-d", *OTHER_TAGS)
    assert {"['0.1', '0.2', '0.3']", "['0.2', '0.3']", "['0.3']"} <= set(tried)


@pytest.mark.equivalent("benchtools.history.probes.x_pull_request__mutmut_7")
@SETTINGS
@given(
    st.one_of(
        st.text(max_size=30),
        st.from_regex(probes.PULL_REQUEST, fullmatch=False),
        st.builds("{} (#{}){}".format, st.text(max_size=10), st.integers(0, 99999), st.sampled_from(["", " ", "\n"])),
        st.builds("Merge pull request #{} from {}".format, st.integers(0, 99999), st.text(max_size=10)),
    )
)
def test_a_subjects_pull_request_is_found_alike_without_a_default(subject):
    mutant = cached_mutant(probes.pull_request, "if number), None) if found", "if number), ) if found")
    assert outcome(mutant, subject) == outcome(probes.pull_request, subject)


# ---- asvtools/sides.py: prepare, on asv's own machinery over an existing Python


@pytest.fixture(scope="module")
def existing_project(tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """A configuration of one existing environment (this Python) over a two-commit repository, with a suite of one
    benchmark; the sides' commits; the root of the sides' environments."""
    tmp = tmp_path_factory.mktemp("sides")
    repo, suite = tmp / "repo", tmp / "suite"
    repo.mkdir()
    suite.mkdir()
    (suite / "__init__.py").write_text("")
    (suite / "bench_x.py").write_text("def track_x():\n    return 1.0\n")
    planted_git(repo, "init", "-q", "-b", "main")
    commits = {}
    for side in ("base", "head"):
        (repo / "f.txt").write_text(side)
        planted_git(repo, "add", "f.txt")
        planted_git(repo, "commit", "-qm", side)
        commits[side] = planted_git(repo, "rev-parse", "HEAD")
    conf = {"version": 1, "project": "p", "repo": str(repo), "branches": ["main"], "environment_type": "existing"}
    conf |= {"pythons": [sys.executable], "benchmark_dir": str(suite)}
    conf |= {name: str(tmp / name) for name in ("env_dir", "results_dir", "html_dir")}
    (tmp / "asv.conf.json").write_text(json.dumps(conf))
    return tmp / "asv.conf.json", commits, tmp / "root"


def prepared(prepare, existing_project) -> tuple:
    """What ``prepare`` printed, and each side it made: its commit, its configuration whole, its environment and the
    benchmarks found."""
    config, commits, root = existing_project
    returned, out, err = printed(prepare, config, "", commits, ["bench_x.track_x"], root)
    assert isinstance(returned, dict), returned
    made = [(n, s.commit, vars(s.conf), s.env.name, sorted(s.benchmarks)) for n, s in returned.items()]
    return made, out, err


@pytest.fixture(scope="module")
def original_prepared(existing_project) -> tuple:
    return prepared(sides.prepare, existing_project)


@pytest.mark.equivalent(
    "benchtools.asvtools.sides.x_prepare__mutmut_8", "benchtools.asvtools.sides.x_prepare__mutmut_15"
)
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("contextlib.redirect_stdout(sys.stderr):", "contextlib.redirect_stdout(None):"),
        ("copy.deepcopy(conf)", "copy.copy(conf)"),
    ],
)
def test_sides_are_prepared_alike_printing_nothing_to_stdout_and_from_a_shallow_copy(
    existing_project, original_prepared, old, new
):
    """Nothing asv prints in prepare for stdout (moved to stderr, or dropped: the same words), and the sides' two
    configurations keep apart, each its own env_dir, from a shallow copy as from a deep one."""
    made = [original_prepared, prepared(mutated(sides.prepare, old, new), existing_project)]
    assert made[0] == made[1]
    (base, head), out, err = made[0]
    assert out == "" and err.count("\n") == 2
    assert base[2]["env_dir"] != head[2]["env_dir"] and base[4] == head[4] == ["bench_x.track_x"]
