"""scripts/bisect: JAX commits as environments, probes kept and reused, and a bisection that finds a planted
step among real JAX commits, past a commit that does not build and one that does not import."""

import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from benchmarks import callgrind, metrics
from benchtools import cli
from benchtools.errors import BadInput, Failed
from benchtools.history import probes
from benchtools.judging import bisect, instructions
from benchtools.publishing import bisections, generated
from benchtools.running import bisection
from tests.helpers import ROOT, executable

JAX_BUNDLE = ROOT.parent / "shared" / "upstream" / "jax.bundle"
NEEDS_JAX_BUNDLE = pytest.mark.skipif(not JAX_BUNDLE.is_file(), reason="the JAX bundle is not in ../shared/upstream")
START = "jax-v0.8.0"  # a release whose jaxlib is on PyPI for Python 3.11, and the jaxlib of the planted commits
PLANTED = "planted: tree_flatten does more work"
TWINS = ("module", "tuple")


# ---- the search, over counts given by a stand-in for the probes


class Counted:
    """Probes that answer from a list: each commit's count, or None for a commit that fails."""

    series = "3.11"
    interpreter = {"version": "3.11.7 (planted)"}
    made = 3

    def __init__(self, values):
        self.values, self.asked = values, []

    def path(self, jax, equinox, run=0, jaxlib=None):
        return f"{jax.commit}-{run}-{jaxlib}"

    def probe(self, jax, equinox, run=0, jaxlib=None):
        index = int(jax.commit)
        self.asked.append((index, run))
        value = self.values[index]
        if value is None:
            return {"failed": "import: planted failure"}
        twins = {twin: {"instructions": value + run, "functions": {"f": value}, "builtins": {}} for twin in TWINS}
        return {"jaxlib": "0.8.0", "counts": {"flatten": twins}}


def search_over(values, spread=0.008):
    stand_in = Counted(values)
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", spread)
    commits = [bisect.Commit(probes.Source("jax", str(i)), f"commit {i}", "2025-01-01") for i in range(len(values))]
    return search, stand_in, search.steps(commits)


@pytest.mark.parametrize("at", [1, 5, 17, 31])
@pytest.mark.parametrize("after", [1100.0, 900.0])
def test_one_step_is_placed_at_its_commit_a_rise_or_a_fall(at, after):
    """A fall is a step as a rise is: fails where ``apart`` compares the signed change (it was run)."""
    values = [1000.0] * at + [after] * (32 - at)
    search, stand_in, steps = search_over(values)
    assert [(int(s.before.commit.source.commit), int(s.after.commit.source.commit), s.kind) for s in steps] == [
        (at - 1, at, "step")
    ]
    assert len({index for index, _ in stand_in.asked}) <= 8  # halving: about log2(32) + the ends


def test_two_steps_each_found_with_their_shares():
    values = [1000.0] * 10 + [1050.0] * 10 + [1150.0] * 12
    search, _, steps = search_over(values)
    assert [int(s.after.commit.source.commit) for s in steps] == [10, 20]
    assert bisect.shares(steps, 150.0, search.counted) == pytest.approx([1 / 3, 2 / 3])
    assert bisect.shares(steps, 0.0, search.counted) == [0.0, 0.0]  # no change over the range: no share


def test_changes_within_the_spread_are_no_step():
    search, stand_in, steps = search_over([1000.0, 1003.0, 1005.0, 1007.0])
    assert steps == [] and {index for index, _ in stand_in.asked} == {0, 3}
    assert search.flat == pytest.approx([0.007])  # what the page says the flat intervals differed by
    assert not bisect.apart(1.0, 1.5, 0.5) and bisect.apart(1.0, 0.25, 0.5)  # apart by more than the spread


@pytest.mark.parametrize(
    ("values", "found"), [([None, None, None], []), ([None], []), ([1000.0, 1100.0, None], [(0, 1)])]
)
def test_a_range_with_no_two_counted_commits_has_no_step_and_the_last_counted_ends_it(values, found):
    _, _, steps = search_over(values)
    assert [(int(s.before.commit.source.commit), int(s.after.commit.source.commit)) for s in steps] == found


def test_each_probe_read_is_kept_under_its_own_file_and_an_equinox_commit_runs_with_jax_held_fixed():
    search, stand_in, [step] = search_over([1000.0] * 4 + [1100.0] * 4)
    search.confirm(step)
    assert {key for key in search.used if not key.endswith("-0-None")} == {
        "3-1-None",
        "3-2-None",
        "4-1-None",
        "4-2-None",
    }
    asked = []

    class Held(Counted):
        def probe(self, jax, equinox, run=0, jaxlib=None):
            asked.append((jax.version, equinox.commit))
            return super().probe(probes.Source("jax", equinox.commit), equinox, run, jaxlib)

    held = bisect.Search(Held([1000.0]), None, probes.Source("jax", version="0.4.33"), "flatten", "tuple", 0.008)
    held.point(bisect.Commit(probes.Source("equinox", "0"), "commit 0", "2025-01-01"))
    assert asked == [("0.4.33", "0")]


def test_a_drift_is_reported_over_its_commits_not_as_a_step():
    values = [1000.0 + 3 * i for i in range(16)]  # +0.3% a commit: no commit steps, the whole moves 4.5%
    _, _, steps = search_over(values)
    assert {s.kind for s in steps} == {"drift"}
    assert int(steps[0].before.commit.source.commit) == 0 and int(steps[-1].after.commit.source.commit) == 15


@pytest.mark.equivalent("benchtools.running.bisection.32:4: a call's statement dropped")
def test_git_makes_the_folders_above_a_bare_clone_itself(tmp_path):
    """The fact that makes bisection.repository's own mkdir of the clone's parent an equivalent mutant."""
    subprocess.run(["git", "init", "-q", tmp_path / "origin"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", tmp_path / "origin", tmp_path / "a" / "b" / "clone"], check=True)
    assert (tmp_path / "a" / "b" / "clone" / "HEAD").is_file()


@pytest.mark.equivalent("benchtools.history.probes.248:12: a call's statement dropped")
def test_an_archive_unpacks_into_a_folder_that_it_makes(tmp_path):
    """The fact that makes probes.wheel's own mkdir of the source tree an equivalent mutant."""
    (tmp_path / "setup.py").write_text("")
    subprocess.run(["tar", "-cf", tmp_path / "source.tar", "-C", tmp_path, "setup.py"], check=True)
    shutil.unpack_archive(tmp_path / "source.tar", tmp_path / "jax")
    assert (tmp_path / "jax" / "setup.py").is_file()


def test_the_middle_of_an_even_gap_is_the_lower_commit_and_a_failed_middle_hands_over_to_the_one_below_first():
    # Between 0 and 5 the middle is 2, which failed, so 1 is tried before 3: the range splits at 108, and one drift
    # (3 to 5) is found. A middle of 2.5 would try 3 first, split at 116, and find two.
    _, stand_in, steps = search_over([100.0, 108.0, None, 116.0, 124.0, 132.0], spread=0.1)
    assert [(int(s.before.commit.source.commit), int(s.after.commit.source.commit), s.kind) for s in steps] == [
        (3, 5, "drift")
    ]


def test_failed_commits_are_never_values_and_a_step_behind_them_says_so():
    values = [1000.0] * 6 + [None, None] + [1100.0] * 8
    _, _, steps = search_over(values)
    [step] = steps
    assert (int(step.before.commit.source.commit), int(step.after.commit.source.commit)) == (5, 8)
    assert step.between == 2


def test_a_confirmed_step_lies_apart_in_fresh_processes():
    search, _, [step] = search_over([1000.0] * 4 + [1100.0] * 4)
    search.confirm(step)
    assert step.confirmation["confirmed"]
    assert step.confirmation["runs"] == {"before": [1000.0, 1001.0, 1002.0], "after": [1100.0, 1101.0, 1102.0]}


def test_the_pull_request_is_read_from_either_subject_form():
    assert probes.pull_request("Speed up dispatch (#31844)") == "31844"
    assert probes.pull_request("Merge pull request #31844 from jax-ml:postrelease-0.7.2") == "31844"
    assert probes.pull_request("Prepare for JAX release 0.8.1") is None


def test_jaxlib_candidates_leave_out_accelerator_code_tests_and_build_rules():
    assert bisection.host_runtime("jaxlib/py_array.cc")
    assert not bisection.host_runtime("jaxlib/mosaic/gpu/custom_call.cc")
    assert not bisection.host_runtime("jaxlib/BUILD")
    assert not bisection.host_runtime("jaxlib/pytree_test.py")
    for other in (
        "jaxlib/pjrt/BUILD",
        "jaxlib/xla/rules.bzl",
        "jaxlib/py/array_test.cc",
        "jaxlib/py/README.md",
        "BUILD",
    ):
        assert not bisection.host_runtime(other), other


def test_a_cpp_function_is_shown_without_its_template_arguments():
    assert bisections.short("a::map<k, v<w>>::find<k>") == "a::map<…>::find<…>"


# ---- real JAX commits


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit_change(work: Path, subject: str, path: str, edit) -> str:
    file = work / path
    file.write_text(edit(file.read_text()))
    git(work, "commit", "-qam", subject)
    return git(work, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """Upstream JAX at jax-v0.8.0 and seven commits on it: a no-op, a setup.py that fails, its repair, a jax that
    fails to import, its repair, the planted step, and a no-op that ends the range (tagged "end")."""
    if not JAX_BUNDLE.is_file():
        pytest.skip(f"the JAX bundle is not at {JAX_BUNDLE}")
    work = tmp_path_factory.mktemp("jax") / "jax"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(JAX_BUNDLE), str(work)], check=True)
    git(work, "checkout", "-q", "-b", "planted", START)
    git(work, "config", "user.email", "tests@example.invalid")
    git(work, "config", "user.name", "tests")
    comment = "jax/_src/tree_util.py", lambda text: text + "\n# a comment\n"
    made = {"noop": commit_change(work, "a comment", *comment)}
    made["unbuildable"] = commit_change(work, "break setup.py", "setup.py", lambda t: "raise SystemExit(1)\n" + t)
    made["built"] = commit_change(work, "repair setup.py", "setup.py", lambda t: t.split("\n", 1)[1])
    broken_import = "jax/__init__.py", lambda t: t + "\nraise ImportError('planted')\n"
    made["unimportable"] = commit_change(work, "break the import", *broken_import)
    made["imported"] = commit_change(work, "repair the import", "jax/__init__.py", lambda t: t.rsplit("\nraise", 1)[0])
    step = "  return default_registry.flatten(tree, is_leaf)\n"
    made["planted"] = commit_change(
        work, PLANTED, "jax/_src/tree_util.py", lambda t: t.replace(step, "  sum(range(300))\n" + step, 1)
    )
    made["end"] = commit_change(work, "another comment", *comment)
    git(work, "tag", "end")
    git(work, "branch", "-f", "main", "HEAD")  # the published history is main's
    return work, made


def planted_search(repo: Path, cache: Path) -> tuple[bisect.Search, list[bisect.Commit]]:
    kept = probes.Probes(cache, "python3.11", ("flatten",), jaxlib_releases=["0.8.0"])
    # The planted loop adds most of a tuple's flatten; 5% stands far above the spread between commits' processes.
    search = bisect.Search(kept, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.05)
    ends = [bisection.commit_of("jax", repo, revision) for revision in (START, "end")]
    commits, skipped = bisection.commits_between(*ends)
    assert skipped == 0 and len(commits) == 8
    return search, commits


@pytest.mark.history
@pytest.mark.slow(minutes=6)
@NEEDS_JAX_BUNDLE
def test_a_planted_step_is_found_confirmed_and_explained_and_every_probe_is_kept(planted, tmp_path):
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (scripts/setup installs it)")
    repo, made = planted
    search, commits = planted_search(repo, tmp_path / "cache")
    [step] = search.steps(commits)
    assert (step.before.commit.source.commit, step.after.commit.source.commit) == (made["imported"], made["planted"])
    assert step.kind == "step" and step.after.commit.subject == PLANTED
    search.confirm(step)
    assert step.confirmation["confirmed"], step.confirmation
    cause = instructions.cause(step.before.twin(*search.key), step.after.twin(*search.key))
    assert cause.startswith("`builtin_sum` with all it called: 0 → ")  # the planted sum(range(300))

    # The release ran with its own jaxlib, every commit with the jaxlib it admits; the jaxlib is in every record.
    assert {point.jaxlib for point in search.points.values() if "counts" in point.record} == {"0.8.0"}

    # A commit that does not build or import is a failure with its reason, never a count.
    for name, why in (("unbuildable", "build:"), ("unimportable", "import:")):
        record = search.probes.probe(probes.Source("jax", made[name], repo), search.equinox)
        assert record["failed"].startswith(why) and "counts" not in record
    assert "planted" in json.dumps(
        search.probes.probe(probes.Source("jax", made["unimportable"], repo), search.equinox)
    )

    # A second bisection over the same range counts nothing again: every probe is read back.
    kept = sorted(search.probes.cache.glob("probes/**/*.json"))
    stamps = [path.stat().st_mtime_ns for path in kept]
    again, commits = planted_search(repo, tmp_path / "cache")
    [found] = again.steps(commits)
    assert found.after.commit.source.commit == made["planted"]
    assert sorted(search.probes.cache.glob("probes/**/*.json")) == kept
    assert [path.stat().st_mtime_ns for path in kept] == stamps


def test_a_revision_that_is_no_commit_is_bad_input(tmp_path):
    # A repository whose one commit is tagged START: the planted JAX clone took 10 to 34 s to make for this alone.
    repo = tmp_path / "jax"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start")
    git(repo, "tag", START)
    done = subprocess.run(
        [ROOT / "scripts" / "bisect", START, "no-such-tag", "--jax-repo", repo, "--cache", tmp_path],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and f"'no-such-tag' is no commit of {repo}" in done.stderr


def test_a_release_that_failed_is_passed_over_between_its_neighbours():
    stand_in = Counted([1000.0, None, 1100.0, 1101.0])
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.008)
    points = [search.point(bisect.Commit(probes.Source("jax", str(i)), f"release {i}", "2025-01-01")) for i in range(4)]
    assert bisect.release_pairs(points, search.key, lambda b, a: bisect.apart(b, a, search.spread)) == [(0, 2)]


class TwoJaxlibs(Counted):
    """Commits 0-3 admit jaxlib 0.8.0 and count 1000 on it, commits 4-7 need 0.8.1; jaxlib 0.8.1 adds ``added``."""

    def __init__(self, python_part: float, added: float):
        super().__init__([1000.0] * 4 + [1000.0 + python_part] * 4)
        self.added = added

    def probe(self, jax, equinox, run=0, jaxlib=None):
        record = super().probe(jax, equinox, run)
        jaxlib = jaxlib or ("0.8.0" if int(jax.commit) < 4 else "0.8.1")
        if jaxlib == "0.8.1":
            for twin in record["counts"]["flatten"].values():
                twin["instructions"] += self.added
        return {**record, "jaxlib": jaxlib}


@pytest.mark.parametrize(("python_part", "jaxlib_carries"), [(0.0, True), (60.0, False)])
def test_a_step_across_two_jaxlibs_is_split_into_jaxlibs_part_and_jaxs(python_part, jaxlib_carries):
    stand_in = TwoJaxlibs(python_part, added=50.0)
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.008)
    commits = [bisect.Commit(probes.Source("jax", str(i)), f"commit {i}", "2025-01-01") for i in range(8)]
    [step] = search.steps(commits)
    search.split_jaxlib(step)
    assert step.jaxlib_split == {
        "side": "before", "jaxlib": "0.8.1", "count": 1051.0, "failed": {},  # the median of runs 0, 1 and 2
        "both": {"before": 1051.0, "after": 1001.0 + python_part},  # the later jax on the earlier jaxlib too
    }  # fmt: skip
    entry = {
        "jaxlib_split": step.jaxlib_split,
        **{side: {"count": point.value(*search.key)} for side, point in step.sides()},
    }
    assert bisections.jaxlib_carries(entry, search.spread) is jaxlib_carries


class SplitFails(TwoJaxlibs):
    """TwoJaxlibs, where each side's jax on the other side's jaxlib fails in the runs ``failing``."""

    def __init__(self, failing: set[int]):
        super().__init__(0.0, added=50.0)
        self.failing, self.split_runs = failing, []

    def probe(self, jax, equinox, run=0, jaxlib=None):
        self.split_runs += [run] if jaxlib else []
        if jaxlib and run in self.failing:
            return {"failed": f"import: planted, run {run}"}
        return super().probe(jax, equinox, run, jaxlib)


@pytest.mark.parametrize(("failing", "runs"), [({0}, [0, 0]), ({1}, [0, 1, 2, 0, 1, 2])])
def test_a_split_that_fails_takes_no_side_says_which_count_failed_and_never_recounts_a_failure(failing, runs):
    """Found by mutation testing (docs/mutants.md): a side that fails on the other jaxlib is counted once, the reason
    kept is the failed count's even where the first counted, and where no side counts none is chosen."""
    stand_in = SplitFails(failing)
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.008)
    commits = [bisect.Commit(probes.Source("jax", str(i)), f"commit {i}", "2025-01-01") for i in range(8)]
    [step] = search.steps(commits)
    search.split_jaxlib(step)
    said = f"import: planted, run {min(failing)}"
    assert step.jaxlib_split == {
        "side": None, "jaxlib": None, "count": None, "failed": {"before": said, "after": said},
        "both": {"before": None, "after": None},
    }  # fmt: skip
    assert stand_in.split_runs == runs


@pytest.mark.parametrize("shard", ["2/2", "a/2", "1-2", "-1/2"])
def test_a_shard_outside_its_count_is_refused(shard):
    with pytest.raises(SystemExit) as raised:
        cli.parse("bisect", ["jax-v0.8.0", "end", "--every", "1", "--shard", shard])
    assert raised.value.code == 2


def test_a_bisection_record_reads_back_as_the_page_says_it():
    stand_in = TwoJaxlibs(0.0, added=50.0)
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.008)
    commits = [bisect.Commit(probes.Source("jax", str(i)), f"commit {i} (#{100 + i})", "2025-01-01") for i in range(8)]
    points = [search.point(commits[0]), search.point(commits[-1])]
    [step] = search.steps(commits)
    search.confirm(step)
    search.split_jaxlib(step)
    pairs = [{"from": "0", "to": "7", "commits": 6, "skipped": 2}]
    candidates = [("c" * 40, "Speed up PyArray (#7)", ["Lookup"])]
    found = bisections.record(search, points, pairs, [step], "scripts/bisect A B", lambda step, named: candidates, 60.0)
    page = bisections.markdown([json.loads(json.dumps(found))])  # as read back from its JSON file
    assert "at `4` (2025-01-01) [#104](https://github.com/jax-ml/jax/pull/104) “commit 4 (#104)”, after `3`" in page
    assert "100% of the change" in page and "Counted again in fresh processes: confirmed" in page
    assert "the later jax on jaxlib 0.8.0 counts 1,001: jax's Python carries 1,001 → 1,001 (+0.0%)" in page
    other = {**found, "interpreter": "3.11.2 (Debian)", "python": "3.11"}  # the same Python, another build
    tables = [line for line in bisections.markdown([found, other]).splitlines() if line.startswith("Instructions")]
    assert [table.split(",")[1] for table in tables] == [" Python 3.11.7 (planted)", " Python 3.11.2 (Debian)"]
    assert (
        "jax's Python holds still: the step is jaxlib's" in page
        and "`cccccccccc` Speed up PyArray (#7) (names `Lookup`)" in page
    )


def test_the_same_function_of_two_jaxlib_builds_is_one_row_and_two_instances_stay_two_and_name_a_diff():
    """Fails where the names are folded by ``short``, template arguments and all (it was run)."""
    twin = {"instructions": 10.0, "functions": {"void a::T::F<absl::lts_20250512::V<x>>": 2.0, "_int_free": 3.0}}
    assert bisections.merged(twin)["functions"] == {"void a::T::F<absl::V<x>>": 2.0, "_int_free": 3.0}
    later = {"absl::lts_20250814::S<std::shared_ptr<B>, 1>::D": 1592.0, "absl::lts_20250814::S<E, 2>::D": 936.0}
    assert bisections.merged({**twin, "functions": later})["functions"] == {
        "absl::S<std::shared_ptr<B>, 1>::D": 1592.0, "absl::S<E, 2>::D": 936.0
    }  # fmt: skip
    moved = [("void a::T::F<…>", 2, 5), ("_int_free", 3, 4), ("x::y::operator()", 1, 2), ("b::Lookup", 1, 2)]
    assert bisections.moved_identifiers(moved) == ["F", "Lookup"]


@pytest.mark.parametrize(
    ("symbol", "name"),
    [
        ("xla::(anonymous namespace)::Foo(int)'2", "xla::(anonymous namespace)::Foo"),
        ("void a::F<b::(anonymous namespace)::T>(x)", "void a::F<b::(anonymous namespace)::T>"),
        ("a::{lambda(int)#1}::operator()(int) const", "a::{lambda(int)#1}::operator()"),
        ("std::function<void (int)>::operator()(int) const", "std::function<void (int)>::operator()"),
        ("bool a::operator<(a::B const&, a::B const&)", "bool a::operator<"),
        (
            "std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
            "std::ostream& std::operator<< <std::char_traits<char> >",
        ),
        ("a::B::operator->() const", "a::B::operator->"),
        ("jax::PyTreeRegistry::Lookup(nanobind::handle) const", "jax::PyTreeRegistry::Lookup"),
        ("(below main)", "(below main)"),
        ("_int_free", "_int_free"),
    ],
)
def test_a_function_keeps_its_anonymous_namespace_and_loses_its_parameters(symbol, name):
    """Cut at the first parenthesis, every function of ``xla::(anonymous namespace)`` was one row, ``xla::``, and
    every call operator ``operator``; ``operator<`` opened a template and kept its parameters."""
    assert callgrind.function_name(symbol) == name


def test_a_long_run_of_failing_commits_ends_the_search_without_probing_it_whole():
    values = [1000.0] + [None] * 30 + [1100.0]
    _, stand_in, steps = search_over(values)
    [step] = steps
    assert step.between == 30 and len({index for index, _ in stand_in.asked}) == 2 + bisect.FAILED_TRIES


# ---- a planted history: a release branch, a pull request's merge, a release tag off main, two jaxlibs


JAXLIB_ADDS = {"0.1": 0, "0.2": 100, "0.3": 100}  # what each planted jaxlib adds to a count


def planted_git(work: Path, *args: str) -> str:
    identity = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    done = subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, text=True, env=identity)
    return done.stdout.strip()


def planted_commit(work: Path, subject: str, cost: int | None = None, **files: str) -> str:
    """A commit that changes jax/: its Python's cost, or a note; ``files`` are written under jax/."""
    if cost is not None:
        files["cost.txt"] = str(cost)
    files.setdefault(f"note-{subject.split()[0]}.txt", subject)  # a file of its own: the branches merge cleanly
    for name, text in files.items():
        (work / "jax" / name).write_text(text)
    planted_git(work, "add", "-A")
    planted_git(work, "commit", "-qm", subject)
    return planted_git(work, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """main: v0.1 (tag jax-v0.1), m1, m2, m3, merge of the release branch, m4, m5, merge of a pull request's
    branch (f1, f2), m6, m7, m8 (the planted step: its Python costs 50 more), m9 (tag jax-v0.3). The release
    branch leaves main at m1: r1 "Prepare for JAX release 0.2", tag jax-v0.2. Every commit's minimum jaxlib is
    0.1, as a minimum stays until a release raises it; m1 does not import with jaxlib 0.2."""
    work = tmp_path_factory.mktemp("planted") / "jax"
    (work / "jax").mkdir(parents=True)
    (work / "jax" / "version.py").write_text('_minimum_jaxlib_version = "0.1"\n')
    planted_git(work, "init", "-q", "-b", "main")
    made = {"v0.1": planted_commit(work, "start", cost=1000)}
    planted_git(work, "tag", "jax-v0.1")
    made["m1"] = planted_commit(work, "m1", **{"imports-with.txt": "0.1"})
    planted_git(work, "checkout", "-q", "-b", "release")
    (work / "jaxlib").mkdir()
    (work / "jaxlib" / "runtime.cc").write_text("int f;")  # the jaxlib commit between 0.1 and 0.2: r1
    made["r1"] = planted_commit(work, "Prepare for JAX release 0.2", **{"imports-with.txt": "0.1 0.2 0.3"})
    planted_git(work, "tag", "jax-v0.2")
    planted_git(work, "checkout", "-q", "main")
    made["m2"], made["m3"] = planted_commit(work, "m2"), planted_commit(work, "m3")
    planted_git(work, "merge", "-q", "--no-ff", "-m", "Merge release branch into main", "release")
    made["merge"] = planted_git(work, "rev-parse", "HEAD")
    made["m4"], made["m5"] = planted_commit(work, "m4"), planted_commit(work, "m5")
    planted_git(work, "checkout", "-q", "-b", "feature", made["m4"])
    made["f1"], made["f2"] = planted_commit(work, "f1", **{"feature.txt": "1"}), planted_commit(work, "f2")
    planted_git(work, "checkout", "-q", "main")
    planted_git(work, "merge", "-q", "--no-ff", "-m", "Merge pull request #7 from someone:feature", "feature")
    made["pull"] = planted_git(work, "rev-parse", "HEAD")
    for name in ("m6", "m7"):
        made[name] = planted_commit(work, name)
    made["m8"] = planted_commit(work, PLANTED, cost=1050)
    made["m9"] = planted_commit(work, "m9")
    planted_git(work, "tag", "jax-v0.3")
    planted_git(work, "checkout", "-q", "--orphan", "lonely")  # a history of its own, unrelated to main's
    made["lonely"] = planted_commit(work, "lonely")
    planted_git(work, "checkout", "-q", "main")
    return work, made


class Planted(probes.Probes):
    """The real probes, their keys, files and jaxlib rule, over the planted history: a commit's count is its
    jax/cost.txt plus what its jaxlib adds, and it imports with the jaxlibs of its jax/imports-with.txt (any
    where there is none); with ``offline``, no download succeeds."""

    offline = False

    def builder(self) -> str:
        return ""

    def wheel(self, source: probes.Source) -> Path:
        if source.commit is None and self.offline:
            raise Failed(f"pip download {source.project}=={source.version} exited 1: no index")
        return Path(source.key)

    def target(self, jax: probes.Source, equinox: probes.Source) -> Path:
        self.wheel(equinox)
        return Path(jax.commit)

    def locked(self, jaxlib: str) -> list[str]:
        return [f"jaxlib=={jaxlib}", "numpy==2.0.0"]

    def measure(self, target: Path, jaxlib: str) -> dict:
        tree = probes.git.out("ls-tree", "--name-only", target.name, "jax/", repo=self.repo).split()
        if "jax/imports-with.txt" in tree and jaxlib not in self.show(target, "imports-with.txt").split():
            raise probes.NotImported(f"planted: does not import with jaxlib {jaxlib}")
        count = float(self.show(target, "cost.txt")) + JAXLIB_ADDS[jaxlib]
        counted = {"instructions": count, "functions": {"f": count}, "builtins": {}}
        return {"counts": {"flatten": {twin: counted for twin in TWINS}}}

    def show(self, target: Path, name: str) -> str:
        return probes.git.out("show", f"{target.name}:jax/{name}", repo=self.repo)


def planted_probes(repo: Path, cache: Path) -> Planted:
    kept = Planted(cache, sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS))
    kept.repo = repo
    return kept


def test_a_planted_history_is_bisected_to_its_step_with_each_commit_on_its_jaxlib(history, tmp_path):
    """Each of these mutations of the code, applied alone, fails this test (each was run):
    - the jaxlib rule "always the newest release" (``jaxlib_candidates`` returns ``releases[-1:]``);
    - a release not paired with its own jaxlib (the tags read at the commit's parent, ``f"{jax.commit}~1"``);
    - the tags a commit contains left out of the rule (its minimum alone);
    - ``--first-parent`` dropped from ``first_parent_log``;
    - the walk started where the release branch left main, not at its merge (the ancestry filter removed);
    - the split tried in one direction only (the earlier jax on the later jaxlib);
    - a split's probe named as the rule's (read back in its place).
    The confirmation's mutations fail test_a_step_confirms_only_where_its_recounts_lie_apart_and_their_medians_too."""
    repo, made = history
    kept = planted_probes(repo, tmp_path)
    search = bisect.Search(kept, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.02)
    ends = [bisection.commit_of("jax", repo, revision) for revision in ("jax-v0.1", "jax-v0.3")]
    records = tmp_path / "records"
    code = bisection.bisect_range(
        search, ends, jax_repo=repo, min_step=0.02, command="scripts/bisect jax-v0.1 jax-v0.3",
        record_file=records / "planted.json", readmes=[], records=records,
    )  # fmt: skip
    assert code == 0
    found = json.loads((records / "planted.json").read_text())
    # Each release on its own jaxlib, every commit on the newest jaxlib its code contains.
    assert [(r["label"], r["jaxlib"], r["count"]) for r in found["releases"]] == [
        ("0.1", "0.1", 1000.0), ("0.2", "0.2", 1100.0), ("0.3", "0.3", 1150.0)
    ]  # fmt: skip
    paired = {name: kept.probe(probes.Source("jax", made[name], repo), search.equinox)["jaxlib"] for name in made}
    assert paired == {
        **dict.fromkeys(made, "0.2"), "v0.1": "0.1", "m1": "0.1", "m2": "0.1", "m3": "0.1", "m9": "0.3", "lonely": "0.1"
    }  # fmt: skip
    # The walk after jax-v0.2 starts at the merge that brings it into main, and takes main's first parents only.
    commits, _ = bisection.commits_between(*[bisection.commit_of("jax", repo, tag) for tag in ("jax-v0.2", "jax-v0.3")])
    names = {commit: name for name, commit in made.items()}
    assert [names[c.source.commit] for c in commits] == ["r1", "merge", "m4", "m5", "pull", "m6", "m7", "m8", "m9"]
    # Two steps: jaxlib's at the release, split the other way round (m1 does not run on jaxlib 0.2), and jax's.
    jaxlib_step, jax_step = found["steps"]
    assert (jaxlib_step["before"]["commit"], jaxlib_step["after"]["commit"]) == (made["m1"], made["r1"])
    assert jaxlib_step["jaxlib_split"] == {
        "side": "after", "jaxlib": "0.1", "count": 1000.0,
        "failed": {"before": "import: it imports with none of the jaxlibs tried"},
        "both": {"before": None, "after": 1000.0},
    }  # fmt: skip
    assert bisections.jaxlib_carries(jaxlib_step, search.spread)
    assert (jax_step["before"]["commit"], jax_step["after"]["commit"], jax_step["kind"]) == (
        made["m7"],
        made["m8"],
        "step",
    )
    assert jax_step["jaxlib_split"] == {} and all(step["confirmation"]["confirmed"] for step in found["steps"])
    assert jaxlib_step["jaxlib_candidates"] == {
        "count": 1,
        "commits": [[made["r1"], "Prepare for JAX release 0.2", []]],
    }
    assert found["command"] == "scripts/bisect jax-v0.1 jax-v0.3"


class Unsteady(Planted):
    """The planted probes, where a recount of m8 (``unsteady``) counts as m7 does: its step does not confirm."""

    unsteady = ""

    def count(self, jax, equinox, run, jaxlib):
        counted = super().count(jax, equinox, run, jaxlib)
        for twin in counted["counts"]["flatten"].values() if run and jax.commit == self.unsteady else ():
            twin["instructions"] -= 50
        return counted


def test_a_step_that_does_not_confirm_is_kept_and_the_run_exits_1_having_said_the_record(history, tmp_path, capsys):
    """Found by mutation testing (docs/mutants.md): every planted step confirmed, and the record was not read from
    what the run prints, nor its seconds."""
    repo, made = history
    kept = Unsteady(tmp_path, sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS))
    kept.repo, kept.unsteady = repo, made["m8"]
    search = bisect.Search(kept, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.02)
    ends = [bisection.commit_of("jax", repo, revision) for revision in ("jax-v0.1", "jax-v0.3")]
    started = time.monotonic()
    code = bisection.bisect_range(
        search, ends, jax_repo=repo, min_step=0.02, command="scripts/bisect", record_file=tmp_path / "r.json",
        readmes=[], records=tmp_path,
    )  # fmt: skip
    took = time.monotonic() - started
    found = json.loads((tmp_path / "r.json").read_text())
    assert code == 1 and [step["confirmation"].get("confirmed") for step in found["steps"]] == [True, False]
    assert bisections.markdown([found]) in capsys.readouterr().out
    assert 0 <= found["seconds"] <= round(took)  # the record keeps whole seconds: rounded, never more than taken


class Uncounted(Planted):
    """The planted probes, where a count holds no operation: it failed nowhere, yet counted nothing."""

    def measure(self, target, jaxlib):
        return {"counts": {}}


def test_an_end_that_failed_nowhere_yet_counted_nothing_fails_saying_so(history, tmp_path):
    repo, _ = history
    with pytest.raises(Failed, match="^0.1 counted nothing: no count$"):
        bisect_planted(
            Uncounted(tmp_path, sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS)), repo, tmp_path
        )


def test_a_commit_is_read_with_its_own_subject_and_date_and_a_start_never_merged_walks_the_whole_line(history):
    """As jax-v0.9.0.1, a release branch never merged back: the walk to a later end takes every first-parent commit
    after where the two lines part. Found by mutation testing (docs/mutants.md)."""
    repo, made = history
    start = bisection.commit_of("jax", repo, "jax-v0.1")
    assert (start.subject, re.fullmatch(r"\d{4}-\d\d-\d\d", start.date) is not None) == ("start", True)
    never_merged = planted_git(repo, "commit-tree", f"{made['m1']}^{{tree}}", "-p", made["m1"], "-m", "r2")
    commits, skipped = bisection.commits_between(
        *(bisection.commit_of("jax", repo, c) for c in (never_merged, made["m4"]))
    )
    names = {commit: name for name, commit in made.items()}
    assert [names.get(c.source.commit, "r2") for c in commits] == ["r2", "m2", "m3", "merge", "m4"] and skipped == 0
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", commit.date) for commit in commits)


class Falling(Planted):
    """The planted probes with every count turned over (2000 less it): each step of the history is a fall."""

    def measure(self, target, jaxlib):
        counted = super().measure(target, jaxlib)["counts"]["flatten"]["tuple"]
        fallen = {**counted, "instructions": 2000 - counted["instructions"]}
        return {"counts": {"flatten": dict.fromkeys(TWINS, fallen)}}


def bisect_planted(kept: Planted, repo: Path, tmp_path: Path, readmes: tuple = ()) -> dict:
    kept.repo = repo
    search = bisect.Search(kept, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.02)
    ends = [bisection.commit_of("jax", repo, revision) for revision in ("jax-v0.1", "jax-v0.3")]
    bisection.bisect_range(
        search, ends, jax_repo=repo, min_step=0.02, command="scripts/bisect jax-v0.1 jax-v0.3",
        record_file=tmp_path / "planted.json", readmes=list(readmes), records=tmp_path,
    )  # fmt: skip
    return json.loads((tmp_path / "planted.json").read_text())


def test_a_planted_fall_is_found_confirmed_and_placed_as_a_rise_is(history, tmp_path):
    """Real records hold falls (Equinox's flatten, Module twin, -32.9%); every other planted step is a rise."""
    repo, made = history
    found = bisect_planted(
        Falling(tmp_path, sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS)), repo, tmp_path
    )
    steps = [
        (s["before"]["commit"], s["after"]["commit"], s["before"]["count"], s["after"]["count"]) for s in found["steps"]
    ]
    assert steps == [(made["m1"], made["r1"], 1000.0, 900.0), (made["m7"], made["m8"], 900.0, 850.0)]
    assert all(step["confirmation"]["confirmed"] for step in found["steps"])


class MiddleFails(Planted):
    """The planted probes, where the release jax-v0.2 does not build."""

    failing = "0.2"

    def count(self, jax, equinox, run, jaxlib):
        if jax.version == self.failing:
            return {"failed": "build: planted", "tried": {}}
        return super().count(jax, equinox, run, jaxlib)


def test_a_release_that_fails_to_count_is_bisected_across_to_the_next(history, tmp_path, capsys):
    """jax-v0.2 counts nothing: jax-v0.1 and jax-v0.3 are the pair, and the walk runs between them, past the failed
    release to the step at m8. Fails where the walk ends at the release after the first (it was run)."""
    repo, made = history
    kept = MiddleFails(tmp_path, sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS))
    page = tmp_path / "page.md"
    page.write_text("".join(f"{marker}\n" for marker in generated.markers(bisections.BLOCK)))
    found = bisect_planted(kept, repo, tmp_path, readmes=[page])
    assert (tmp_path / "planted.json").read_text() == json.dumps(found, indent=1, sort_keys=True) + "\n"
    assert bisections.markdown([found]) in page.read_text()
    assert found["pairs"] == [{"from": "0.1", "to": "0.3", "commits": 10, "skipped": 0}]
    said = capsys.readouterr().out.splitlines()
    assert said[:4] == [
        "0.1 (jaxlib 0.1): 1,000", "0.2 (jaxlib —): failed: build: planted", "0.3 (jaxlib 0.3): 1,150",
        "bisecting 0.1 → 0.3: 10 commits change jax/, setup.py, pyproject.toml, 0 skipped",
    ]  # fmt: skip
    assert made["m8"] in [step["after"]["commit"] for step in found["steps"]]


def test_an_end_that_counts_nothing_fails_the_run_saying_why(history, tmp_path):
    repo, _ = history
    kept = MiddleFails(tmp_path, sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS))
    kept.failing = "0.1"
    with pytest.raises(Failed, match="^0.1 counted nothing: build: planted$"):
        bisect_planted(kept, repo, tmp_path)


def test_a_release_runs_with_its_own_jaxlib_alone_and_a_commit_tries_the_next(history):
    """A release is never counted on another release's jaxlib: fails where it is offered JAXLIB_TRIES (it was run)."""
    repo, made = history
    releases = list(JAXLIB_ADDS)
    assert probes.jaxlib_candidates(probes.commit_source("jax", repo, "jax-v0.2"), releases) == ["0.2"]
    assert probes.jaxlib_candidates(probes.commit_source("jax", repo, made["r1"]), releases) == ["0.2", "0.3"]


def test_every_nth_commit_is_counted_with_the_last_and_a_shard_counts_its_share(history, tmp_path, capsys):
    """scripts/bisect --every N [--shard I/N]: found by mutation testing (docs/mutants.md), no fast test ran it."""
    repo, made = history
    search = bisect.Search(
        planted_probes(repo, tmp_path), probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.02
    )
    ends = [bisection.commit_of("jax", repo, tag) for tag in ("jax-v0.2", "jax-v0.3")]
    for every, shard, counting in (
        (3, None, ["r1", "m5", "m7", "m9"]),
        (3, (1, 2), ["m5", "m9"]),
        (7, None, ["r1", "m8", "m9"]),
    ):
        assert bisection.count_history(search, ends, every=every, shard=shard) == 0
        lines = capsys.readouterr().out.strip().splitlines()
        assert lines[0] == f"7 commits change jax/, setup.py, pyproject.toml (0 skipped); counting {len(counting)}"
        labels = {**{name: made[name][:10] for name in made}, "r1": "0.2", "m9": "0.3"}
        assert [line.split()[0] for line in lines[1:-1]] == [labels[name] for name in counting]
        assert lines[-1] == f"{len(counting)} commits counted, 0 failed (kept with their reasons)"
    failing = MiddleFails(tmp_path / "failing", sys.executable, ("flatten",), jaxlib_releases=list(JAXLIB_ADDS))
    failing.repo = repo
    search = bisect.Search(failing, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.02)
    bisection.count_history(search, ends, every=3, shard=None)
    assert capsys.readouterr().out.strip().splitlines()[-1] == "3 commits counted, 1 failed (kept with their reasons)"


def test_jaxlibs_commits_between_two_releases_are_its_host_runtimes_newest_first_those_naming_an_identifier_first(
    tmp_path,
):
    """Found by mutation testing (docs/mutants.md): no fast test listed a jaxlib commit."""
    work = tmp_path / "jax"
    (work / "jaxlib" / "mosaic").mkdir(parents=True)
    planted_git(work, "init", "-q", "-b", "main")
    made = {}
    (work / "jaxlib" / "e.cc").write_text("int e() {\n  Lookup();\n}\n")  # a later commit's context
    for name, path, text in [
        ("start", "jaxlib/a.cc", "int a;"), ("names", "jaxlib/a.cc", "int Lookup;"), ("gpu", "jaxlib/mosaic/b.cc", "x"),
        ("rules", "jaxlib/BUILD", "x"), ("other", "jaxlib/c.cc", "int LookupAll;"),
    ]:  # fmt: skip
        (work / path).write_text(text)
        planted_git(work, "add", "-A")
        planted_git(work, "commit", "-qm", name)
        made[name] = planted_git(work, "rev-parse", "HEAD")
        if name in ("start", "other"):
            planted_git(work, "tag", f"jax-v{'0.1' if name == 'start' else '0.2'}")
    assert bisection.jaxlib_candidates(work, "0.1", "0.2", ["Lookup"]) == [
        (made["names"], "names", ["Lookup"]), (made["other"], "other", []),
    ]  # fmt: skip
    assert bisection.jaxlib_candidates(work, "0.1", "0.2", []) == [
        (made["other"], "other", []),
        (made["names"], "names", []),
    ]
    assert bisection.jaxlib_candidates(work, "0.1", "0.9", ["Lookup"]) == []  # a release with no tag: none
    # after 0.2: a subject, a diff's context and a file outside jaxlib/ that name it name nothing; nor in a bare clone
    (work / "jax").mkdir()
    for name, files in [
        ("Lookup in its subject", {"jaxlib/d.cc": "int d;"}),
        ("context", {"jaxlib/e.cc": "int e() {\n  Lookup();\n}\nint g;\n"}),
        ("python", {"jax/x.py": "Lookup"}), ("mixed", {"jaxlib/f.cc": "int f;", "jax/y.py": "Lookup"}),
    ]:  # fmt: skip
        for path, text in files.items():
            (work / path).write_text(text)
        planted_git(work, "add", "-A")
        planted_git(work, "commit", "-qm", name)
        made[name] = planted_git(work, "rev-parse", "HEAD")
    planted_git(work, "tag", "jax-v0.3")
    planted_git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "bare.git"))
    for repo in (work, tmp_path / "bare.git"):
        assert bisection.jaxlib_candidates(repo, "0.2", "0.3", ["Lookup"]) == [
            (made[name], name, []) for name in ("mixed", "context", "Lookup in its subject")
        ]


def test_a_repository_is_taken_where_it_is_and_cloned_from_its_bundle_where_missing(history, tmp_path, monkeypatch):
    repo, _ = history
    assert bisection.repository(repo, "jax") == repo
    monkeypatch.setattr(bisection, "BUNDLES", tmp_path)
    with pytest.raises(BadInput, match="no jax repository at"):
        bisection.repository(tmp_path / "missing", "jax")
    planted_git(repo, "bundle", "create", str(tmp_path / "jax.bundle"), "--all")
    cloned = bisection.repository(tmp_path / "clones" / "deep" / "jax.git", "jax")
    assert (cloned / "HEAD").is_file() and bisection.repository(cloned, "jax") == cloned
    assert (bisection.repository(tmp_path / "clones" / "deep" / "again.git", "jax") / "HEAD").is_file()
    assert planted_git(cloned, "rev-parse", "jax-v0.3") == planted_git(repo, "rev-parse", "jax-v0.3")


def test_a_tag_and_the_hash_of_its_commit_pair_alike_yet_keep_apart_probes(history, tmp_path):
    repo, made = history
    kept = planted_probes(repo, tmp_path)
    equinox = probes.Source("equinox", version="0.13.8")
    tag, commit = probes.commit_source("jax", repo, "jax-v0.2"), probes.commit_source("jax", repo, made["r1"])
    assert kept.path(tag, equinox) != kept.path(commit, equinox)  # a release build, and a dev build
    records = [kept.probe(source, equinox) for source in (tag, commit)]
    assert [(r["jaxlib"], r["release"]) for r in records] == [("0.2", True), ("0.2", False)]
    assert records[0]["interpreter"] == kept.interpreter and records[0]["locked"] == kept.locked("0.2")


def test_a_split_probes_file_is_no_file_of_the_rules_probes(history, tmp_path):
    repo, made = history
    kept, equinox = planted_probes(repo, tmp_path), probes.Source("equinox", version="0.13.8")
    source = probes.commit_source("jax", repo, made["m4"])
    for jaxlib in (None, "0.1"):
        kept.probe(source, equinox, jaxlib=jaxlib)
    assert [p.name for p in kept.path_folder("0.13.8").glob("jax-*-0.json")] == [f"jax-{made['m4']}-0.json"]


def test_a_download_that_fails_is_the_runs_failure_and_the_commit_is_counted_later(history, tmp_path):
    repo, made = history
    kept, equinox = planted_probes(repo, tmp_path), probes.Source("equinox", version="0.13.8")
    source = probes.commit_source("jax", repo, made["m4"])
    kept.offline = True
    with pytest.raises(Failed, match="pip download"):
        kept.probe(source, equinox)
    assert not kept.path(source, equinox).exists()
    kept.offline = False
    assert kept.probe(source, equinox)["counts"]["flatten"]["tuple"]["instructions"] == 1100.0


def test_a_probe_counted_with_other_dependencies_is_counted_again_in_its_place(history, tmp_path):
    repo, made = history
    kept, equinox = planted_probes(repo, tmp_path), probes.Source("equinox", version="0.13.8")
    source = probes.commit_source("jax", repo, made["m4"])
    kept.probe(source, equinox)
    kept.locked = lambda jaxlib: [f"jaxlib=={jaxlib}", "numpy==2.1.0"]
    assert kept.probe(source, equinox)["locked"][-1] == "numpy==2.1.0" and kept.made == 2
    assert json.loads(kept.path(source, equinox).read_text())["locked"][-1] == "numpy==2.1.0"
    assert kept.probe(source, equinox) and kept.made == 2  # read back now


def test_two_builds_of_one_python_keep_their_probes_apart(tmp_path):
    """Python 3.11.7 and Debian's 3.11.2 move every Module count with no change of code (docs/instructions.md); a
    stand-in that says it is another build of this Python's version stands for a second build where none is."""
    other = tmp_path / "other-build"
    identity = {
        "series": f"{sys.version_info.major}.{sys.version_info.minor}",
        "version": sys.version,
        "build": "another",
    }
    other.write_text(f"#!/bin/sh\necho '{json.dumps(identity)}'\n")
    other.chmod(0o755)
    found = {}
    for name in (sys.executable, other, "/usr/bin/python3.11"):
        if shutil.which(name):
            kept = probes.Probes(tmp_path / "cache", str(name), ("flatten",))
            found[kept.interpreter["version"], kept.interpreter["build"]] = kept.path_folder("0.13.8")
    assert len(found) >= 2 and len(set(found.values())) == len(found)
    assert all(folder.parts[-3].startswith("py3.") for folder in found.values())


@pytest.mark.parametrize("python", ["nosuchpython", "/bin/true"])
def test_an_interpreter_that_does_not_run_is_bad_input(python, tmp_path):
    with pytest.raises(BadInput, match="no Python interpreter"):
        probes.Probes(tmp_path, python, ("flatten",))


@pytest.mark.parametrize(("start", "end"), [("jax-v0.3", "m8"), ("jax-v0.2", "jax-v0.1"), ("jax-v0.2", "jax-v0.2")])
def test_a_reversed_range_is_refused(history, start, end):
    repo, made = history
    ends = [bisection.commit_of("jax", repo, made.get(name, name)) for name in (start, end)]
    with pytest.raises(BadInput, match="does not follow"):
        bisection.ordered(*ends)


def test_releases_in_version_order_are_a_range_though_the_later_never_came_back_and_reversed_they_are_not(history):
    """As jax-v0.9.0.1 before jax-v0.9.1: a release tagged on a branch off main, never merged back (here 0.4, off
    m2). A commit end has no releases between (found by mutation testing, docs/mutants.md)."""
    repo, made = history
    added = ("jax-v0.4", "jax-v0.2.10", "jax-v0.2.9")  # and two releases between, whose names sort otherwise
    for tag in added:
        planted_git(repo, "tag", tag, made["m2"])
    try:
        three, four = (bisection.commit_of("jax", repo, tag) for tag in ("jax-v0.3", "jax-v0.4"))
        bisection.ordered(three, four)
        with pytest.raises(BadInput, match="0.3 does not follow 0.4: give the earlier version first"):
            bisection.ordered(four, three)
        assert bisection.releases_between(bisection.commit_of("jax", repo, made["m2"]), three) == []
        between = bisection.releases_between(bisection.commit_of("jax", repo, "jax-v0.2"), three)
        assert [commit.source.label for commit in between] == ["0.2.9", "0.2.10"]
    finally:
        planted_git(repo, "tag", "-d", *added)


@pytest.mark.parametrize(("start", "end"), [("jax-v0.2", "m2"), ("m2", "jax-v0.2")])
def test_an_end_on_a_line_the_start_had_not_joined_is_refused_naming_where_a_range_could_start(history, start, end):
    """As jax-v0.7.2 to ba0561a6ac, on main before the release branch came back: given in order, yet no range. It
    said "give the earlier version first"; it names where the two lines part, m1, from which a range can start."""
    repo, made = history
    ends = [bisection.commit_of("jax", repo, made.get(name, name)) for name in (start, end)]
    with pytest.raises(BadInput, match="does not contain") as refused:
        bisection.ordered(*ends)
    assert f"start the range at {made['m1'][:10]}, where the two lines part" in str(refused.value)


def test_an_unrelated_range_is_refused_and_releases_in_order_are_a_range(history):
    repo, made = history
    lonely, start = (bisection.commit_of("jax", repo, revision) for revision in (made["lonely"], "jax-v0.1"))
    with pytest.raises(BadInput, match="share no history"):
        bisection.ordered(start, lonely)
    bisection.ordered(*(bisection.commit_of("jax", repo, tag) for tag in ("jax-v0.2", "jax-v0.3")))
    for start, end in (("jax-v0.2", made["m8"]), (made["m2"], made["m8"])):  # an end that contains its start
        bisection.ordered(*(bisection.commit_of("jax", repo, revision) for revision in (start, end)))


def test_the_command_refuses_a_reversed_range_and_a_missing_interpreter_with_exit_2(history, tmp_path):
    repo, _ = history
    for arguments, said in (["jax-v0.3", "jax-v0.1"], "does not follow"), (["--python", "nosuchpython"], "no Python"):
        arguments = arguments if arguments[0] != "--python" else ["jax-v0.1", "jax-v0.3", *arguments]
        done = subprocess.run(
            [ROOT / "scripts" / "bisect", *arguments, "--jax-repo", repo, "--cache", tmp_path],
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("twin", TWINS)
def test_the_spread_is_the_operations_and_twins_own_unless_given(twin):
    args = cli.parse("bisect", ["jax-v0.8.0", "end", "--operation", "flatten", "--twin", twin])
    assert args.spread == metrics.INSTRUCTIONS_SPREADS["flatten", twin] == args.min_step
    given = cli.parse("bisect", ["a", "b", "--operation", "flatten", "--twin", twin, "--min-step", "0.2"])
    assert (given.spread, given.min_step) == (args.spread, 0.2)  # --min-step read, not replaced by the spread
    assert cli.parse("bisect", ["a", "b", "--twin", twin, "--spread", "0.03"]).spread == 0.03


class Recounted(Counted):
    """Each commit's counts in its fresh processes, run by run."""

    def probe(self, jax, equinox, run=0, jaxlib=None):
        record = super().probe(jax, equinox, 0, jaxlib)
        for twin in record.get("counts", {}).get("flatten", {}).values():
            twin["instructions"] = self.runs[int(jax.commit)][run]
        return record


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        ([1000.0, 1000.0, 1000.0], [1100.0, 1100.0, 1100.0], None),
        ([1000.0, 1100.0, 1000.0], [1100.0, 1100.0, 1100.0], "their counts overlap"),
        ([1000.0, 1050.0, 1000.0], [1100.0, 1040.0, 1100.0], "their counts overlap"),  # the lowest of the higher
        ([1000.0, 1000.0, 1000.0], [1100.0, 1001.0, 1001.0], "their medians lie within the spread"),
    ],
)
def test_a_step_confirms_only_where_its_recounts_lie_apart_and_their_medians_too(before, after, why):
    """Fails under each of: ``confirmed = True``; ``separated = True``; the medians' check removed; either side's
    bound of the overlap taken at its other end (each was run)."""
    stand_in = Recounted([before[0], after[0]])
    stand_in.runs = [before, after]
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.008)
    [step] = search.steps([bisect.Commit(probes.Source("jax", str(i)), f"commit {i}", "2025-01-01") for i in range(2)])
    search.confirm(step)
    assert (step.confirmation["confirmed"], step.confirmation["why"]) == (why is None, why)
    assert search.counted(step.before) == sorted(before)[1]  # the median of its recounts stands in the tables
    assert bisect.unconfirmed({"before": before, "after": [*after[:2], None]}, 0.008) == "a count again failed"


def test_the_bisections_page_is_rebuilt_from_its_records(tmp_path):
    """docs/bisections.md's block is what its records in docs/bisections/ make: no figure on it is typed."""
    page = tmp_path / "bisections.md"
    shutil.copy(ROOT / "docs" / "bisections.md", page)
    records = bisections.read_all(ROOT / "docs" / "bisections")
    generated.write_blocks(page, {bisections.BLOCK: bisections.markdown(records)})
    assert page.read_text() == (ROOT / "docs" / "bisections.md").read_text(), "REGEN: scripts/bisect x y --readme"


def test_the_page_says_what_each_step_is_and_why_one_did_not_confirm():
    """A drift is told as one, over the commits it spans, never as commits that could not be counted; a step that
    did not confirm says why: its recounts overlap, or only their medians lie within the spread."""
    [found] = [r for r in bisections.read_all(ROOT / "docs" / "bisections") if "flatten-tuple.json" in r["command"]]
    drift, unconfirmed = (json.loads(json.dumps(found["steps"][0])) for _ in range(2))
    drift.update(kind="drift", between=49)
    runs = {"before": [1000.0, 1000.0, 1000.0], "after": [1100.0, 1001.0, 1001.0]}
    unconfirmed["confirmation"] = {"runs": runs, "confirmed": False}  # as a record before issue 48 kept it
    said = f"a drift over the 50 commits up to `{drift['after']['commit'][:10]}`"
    step = "\n".join(bisections.step_lines(found["project"], drift, found["spread"]))
    assert "could not be counted" not in step and said in step
    summary = bisections.summary_line({**found, "steps": [drift, unconfirmed]})
    assert (
        said in summary
        and "1 found in single counts did not confirm (1: their medians lie within the spread)" in summary
    )


def test_a_commit_that_moves_a_file_out_of_the_package_changes_the_package(tmp_path):
    """git log pairs a removal with an addition as a rename and lists the new path alone: a file moved out of jax/
    would hide that the commit changed jax/."""
    repo = tmp_path / "repo"
    (repo / "jax").mkdir(parents=True)
    (repo / "jax" / "moved.py").write_text("x = 1\n" * 20)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    (repo / "tools").mkdir()
    git(repo, "mv", "jax/moved.py", "tools/moved.py")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "move")
    [(_, subject, _, files)] = bisection.first_parent_log(repo, "HEAD~1", "HEAD")
    assert subject == "move" and {"jax/moved.py", "tools/moved.py"} <= set(files)


# ---- the probes' own files: what a probe is built from, and kept by; fast, in process (docs/mutants.md)


def test_the_jaxlib_floor_is_the_newer_version_of_the_minimum_and_the_releases_a_commit_contains(tmp_path):
    """jax/version.py names its minimum below other lines, as jax's does; 0.10 is newer than 0.9 as versions."""
    repo = tmp_path / "jax"
    (repo / "jax").mkdir(parents=True)
    planted_git(repo, "init", "-q", "-b", "main")
    minimum = {"version.py": '"""jax\'s version."""\n_minimum_jaxlib_version = "0.9"\n'}
    planted_commit(repo, "start", **minimum)
    planted_git(repo, "tag", "jax-v0.10")
    dev = planted_commit(repo, "dev")
    releases = ["0.8", "0.9", "0.10", "0.11", "0.12", "0.13"]
    assert probes.jaxlib_candidates(probes.commit_source("jax", repo, dev), releases) == ["0.10", "0.11", "0.12"]
    assert probes.jaxlib_candidates(probes.commit_source("jax", repo, "jax-v0.10"), releases) == ["0.10"]
    for unreleased in (probes.Source("jax", version="0.10"), probes.Source("jax", dev, repo, version="0.14")):
        with pytest.raises(BadInput, match=f"^jax {unreleased.version} is no jaxlib release; name a jax release"):
            probes.jaxlib_candidates(unreleased, releases)
    bare = planted_commit(repo, "no minimum", **{"version.py": "__version__ = '0.10'\n"})
    with pytest.raises(Failed, match=f"^jax/version.py at {bare[:10]} names no _minimum_jaxlib_version$"):
        probes.jaxlib_candidates(probes.commit_source("jax", repo, bare), releases)


def test_a_command_that_fails_is_named_with_its_status_and_the_last_words_it_said(tmp_path):
    said = " ".join(f"w{i}" for i in range(100))
    code = f"import sys; print('out'); sys.exit({said!r})"
    with pytest.raises(Failed) as failed:
        probes._checked([sys.executable, "-c", code, "more"], cwd=tmp_path)
    assert str(failed.value) == f"{Path(sys.executable).name} -c {code} exited 1: {said.split(' ', 20)[-1]}"
    with pytest.raises(Failed, match=r"^python3? -c .* exited 3: only out$"):
        probes._checked([sys.executable, "-c", "print('only', 'out'); raise SystemExit(3)"])
    # What a command prints is read as text, a byte that is no UTF-8 replaced; its keywords reach the command.
    done = probes._checked(
        [sys.executable, "-c", "import os, sys; sys.stdout.buffer.write(b'\\xff' + os.getcwdb())"], cwd=tmp_path
    )
    assert done.stdout == f"\ufffd{tmp_path}"


def test_a_placed_folder_is_made_once_appears_only_complete_and_a_failed_make_leaves_nothing(tmp_path):
    kept = probes.Probes(tmp_path / "new" / "cache", sys.executable, ("flatten", "dispatch"))  # made, as its parents
    # Kept files are named by the interpreter's key, which stays as it is: another would orphan every cache.
    assert kept.cache.is_dir() and re.fullmatch(rf"py{kept.series}-[0-9a-f]{{12}}", kept.interpreter_key)
    recipe = hashlib.sha256(b"dispatch\nflatten").hexdigest()[:12]  # the operations counted, in any order
    assert kept.path_folder("0.13.8") == kept.cache / "probes" / kept.interpreter_key / "equinox-0.13.8" / recipe
    folder = kept.cache / "envs" / "py" / "one"  # made with its parents

    def make(made: Path):  # in a hidden folder of the cache named for it: one a crash leaves says what it was
        assert not folder.exists() and made.name == folder.name and made.parent.parent == kept.cache
        assert made.parent.name.startswith(".one.")
        made.mkdir()
        (made / "locked.txt").write_text("made")

    assert kept.placed(folder, make) == folder and (folder / "locked.txt").read_text() == "made"
    assert kept.placed(folder, lambda made: pytest.fail("made again")) == folder

    def broken(made: Path):
        made.mkdir()
        raise Failed("planted")

    with pytest.raises(Failed, match="planted"):
        kept.placed(kept.cache / "envs" / "two", broken)
    assert sorted(path.name for path in kept.cache.iterdir()) == ["envs"] and list(folder.parent.iterdir()) == [folder]

    def raced(made: Path):  # another process places an equal folder first: its folder stands
        made.mkdir()
        (made / "locked.txt").write_text("second")
        (kept.cache / "envs" / "three").mkdir()
        (kept.cache / "envs" / "three" / "locked.txt").write_text("first")

    assert (kept.placed(kept.cache / "envs" / "three", raced) / "locked.txt").read_text() == "first"
    assert sorted(path.name for path in kept.cache.iterdir()) == ["envs"]


@pytest.fixture
def pypi(monkeypatch):
    """PyPI's JSON API on 127.0.0.1: the releases served by package, and the paths asked."""
    served, asked = {}, []

    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            body = json.dumps({"releases": served[self.path.split("/")[1]]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(probes, "PYPI_JSON", f"http://127.0.0.1:{server.server_port}/{{}}/json")
    yield served, asked
    server.shutdown()
    server.server_close()


def test_the_jaxlibs_paired_are_final_releases_with_a_linux_wheel_for_the_interpreter_asked_once(pypi, tmp_path):
    served, asked = pypi
    kept = probes.Probes(tmp_path, sys.executable, ("flatten",))
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"

    def files(version, *platforms):
        return [{"filename": f"jaxlib-{version}-{tag}-{tag}-{platform}.whl", "size": 1} for platform in platforms]

    served["jaxlib"] = {
        "0.4.10": files("0.4.10", "manylinux2014_x86_64"),
        "0.4.9": [{"filename": "jaxlib-0.4.9.tar.gz"}, *files("0.4.9", "macosx_11_0_arm64", "manylinux_2_27_x86_64")],
        "0.4.11rc1": files("0.4.11rc1", "manylinux2014_x86_64"),
        "0.4.12": files("0.4.12", "macosx_11_0_arm64", "win_amd64"),
        "0.4.13": [{"filename": "jaxlib-0.4.13-cp30-cp30-manylinux2014_x86_64.whl"}],
        "legacy": files("legacy", "manylinux2014_x86_64"),
        "0.4.1": files("0.4.1", "manylinux2014_x86_64"),
    }
    assert kept.releases() == ["0.4.1", "0.4.9", "0.4.10"] and asked == ["/jaxlib/json"]
    again = probes.Probes(tmp_path, sys.executable, ("flatten",))  # kept in the cache: PyPI is not asked again
    assert again.releases() == ["0.4.1", "0.4.9", "0.4.10"] and asked == ["/jaxlib/json"]
    assert again.pypi_releases("jaxlib")["0.4.9"] == [file["filename"] for file in served["jaxlib"]["0.4.9"]]
    given = probes.Probes(tmp_path / "given", sys.executable, ("flatten",), jaxlib_releases=["0.1"])
    assert given.releases() == ["0.1"] and asked == ["/jaxlib/json"]


THIS_PYTHON = f'#!/bin/sh\nexec {sys.executable} "$@"\n'


def placed_by_hand(kept: probes.Probes, jax: probes.Source, equinox: probes.Source, jaxlib: str, importing: str):
    """Every folder a probe needs, placed as its make would leave it: the builder, the releases' wheels, the base
    (its packages as frozen; its python this interpreter, but for the count, which does what the base's file
    ``counting`` says under valgrind) and the target, whose jax/__init__.py is ``importing``; the base's folder."""
    executable(kept.cache / "envs" / f"builder-{kept.interpreter_key}" / "bin" / "python", THIS_PYTHON)
    for source in (jax, equinox):
        (kept.cache / "wheels" / source.project / source.key).mkdir(parents=True)
        (kept.cache / "wheels" / source.project / source.key / f"{source.project}-{source.key}.whl").touch()
    (kept.cache / "jax-releases.json").write_text(json.dumps({jaxlib: []}))
    base = kept.cache / "envs" / f"{kept.interpreter_key}-jaxlib-{jaxlib}"
    target = kept.cache / "targets" / kept.interpreter_key / f"jax-{jax.key}-equinox-{equinox.key}"
    executable(
        base / "bin" / "python",
        f"""#!/bin/sh
if [ "$1" = -c ]; then  # the import check: on the CPU, with this process's PATH (or the default, where it has none)
  read -r expected < {base}/path
  [ "$PATH" = "$expected" ] && [ "$JAX_PLATFORMS" = cpu ] || {{ echo "PATH=$PATH, JAX on $JAX_PLATFORMS" >&2; exit 9; }}
fi
if [ "$2" = benchmarks.callgrind ]; then  # counting with the target first on the path
  case "$PYTHONPATH" in {target}:*) ;; *) echo "PYTHONPATH=$PYTHONPATH" >&2; exit 8;; esac
  case "$(cat {base}/counting)" in
    counted) echo '{{"windows": {{}}, "failed": {{"flatten": "planted"}}}}' > "$3/windows.json";;
    crashed) echo '{{"windows": {{}}, "failed": {{}}}}' > "$3/windows.json"; seq -s ' ' 3000 >&2; exit 3;;
    failed) seq -s ' ' 3000 >&2; exit 3;;
    killed) kill -TERM $$;;
  esac
  exit 0
fi
exec {sys.executable} "$@"
""",
    )
    (base / "locked.txt").write_text(f"jaxlib=={jaxlib}\nnumpy==2.0.0\n")
    (base / "path").write_text(os.environ["PATH"] + "\n")
    for package, text in (("jax", importing), ("equinox", "")):
        (target / package).mkdir(parents=True)
        (target / package / "__init__.py").write_text(text)
    return base


def test_a_release_that_imports_with_no_jaxlib_is_kept_as_its_failure_saying_what_each_jaxlib_said(
    tmp_path, monkeypatch
):
    repo = tmp_path / "jax"
    (repo / "jax").mkdir(parents=True)
    planted_git(repo, "init", "-q", "-b", "main")
    planted_commit(repo, "start", **{"version.py": '_minimum_jaxlib_version = "0.4.1"\n'})
    planted_git(repo, "tag", "jax-v0.4.1")
    kept = probes.Probes(tmp_path / "cache", sys.executable, ("flatten",), jaxlib_releases=["0.4.1"])
    jax, equinox = probes.commit_source("jax", repo, "jax-v0.4.1"), probes.Source("equinox", version="0.13.8")
    words = " ".join(f"w{i:04}" for i in range(1, 301))
    placed_by_hand(kept, jax, equinox, "0.4.1", f"raise ImportError('planted {words}')\n")
    assert kept.locked("0.4.1") == ["jaxlib==0.4.1", "numpy==2.0.0"]  # the base's pip freeze keys its counts
    # Its seconds to a tenth, and the one-minute load before and after.
    with monkeypatch.context() as clock:
        clock.setattr(probes.time, "monotonic", iter([100.0, 112.34]).__next__)
        clock.setattr(probes.os, "getloadavg", lambda: (0.5, 5.0, 15.0))
        record = kept.probe(jax, equinox, jaxlib="0.4.1")
    assert (record["seconds"], record["load"]) == (12.3, [0.5, 0.5])
    # What the check said, its last 80 words as _checked keeps them, on one line, cut to its last 500 characters.
    said = f"python -c {probes.IMPORT_CHECK} exited 1: " + " ".join(f"w{i:04}" for i in range(221, 301))
    assert record["tried"] == {"0.4.1": said[-500:]}
    assert {key: record[key] for key in record if key not in ("seconds", "load", "tried")} == {
        "jax": jax.key, "equinox": "0.13.8", "python": kept.series, "interpreter": kept.interpreter, "run": 0,
        "release": True, "jaxlib_given": "0.4.1", "failed": "import: it imports with none of the jaxlibs tried",
    }  # fmt: skip
    assert kept.made == 1
    path = kept.path(jax, equinox, jaxlib="0.4.1")
    assert path.name == f"jaxlib-0.4.1-jax-{jax.commit}-release-0.json" and json.loads(path.read_text()) == record
    assert path.read_text() == json.dumps(record, indent=1, sort_keys=True) + "\n"
    assert kept.probe(jax, equinox, jaxlib="0.4.1") == record and kept.made == 1  # read back, not made again
    path.write_text("{")  # a kept record cut short is refused, saying how to probe again
    with pytest.raises(BadInput, match=f"^kept probe record \\(remove it to probe again\\) is corrupt: {path} "):
        kept.probe(jax, equinox, jaxlib="0.4.1")
    path.write_text(json.dumps(record))
    expected = kept.cache / "envs" / f"{kept.interpreter_key}-jaxlib-0.4.1" / "path"
    path = expected.read_text()
    with monkeypatch.context() as where:  # a process with no PATH runs the check on the default one
        where.delenv("PATH")
        expected.write_text("/usr/bin:/bin\n")
        assert kept.probe(jax, equinox, run=2, jaxlib="0.4.1")["tried"] == record["tried"]
    expected.write_text(path)
    # The rule's jaxlib is the release's own; a recount takes the first count's jaxlib, and the first had none.
    assert kept.probe(jax, equinox)["tried"] == record["tried"]
    again = kept.probe(jax, equinox, run=1)
    assert (again["failed"], again["tried"], kept.made) == ("import: no jaxlib release admits it", {}, 4)
    # A target that cannot be made (an Equinox wheel that is none) is the commit's failure to build: kept.
    (kept.cache / "wheels" / "equinox" / "0.13.9").mkdir(parents=True)
    (kept.cache / "wheels" / "equinox" / "0.13.9" / "equinox-0.13.9.whl").touch()
    unbuilt = kept.probe(jax, probes.Source("equinox", version="0.13.9"), jaxlib="0.4.1")
    assert unbuilt["failed"].startswith("build: python -m pip exited 1: ") and unbuilt["tried"] == {}
    assert "jaxlib" not in unbuilt and kept.made == 5


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (scripts/setup installs it)")
def test_a_count_is_kept_with_its_jaxlib_and_base_a_crash_after_counting_too_and_a_stopped_count_never(
    tmp_path, monkeypatch
):
    kept = probes.Probes(tmp_path, sys.executable, ("flatten",), jaxlib_releases=["0.4.1"])
    jax, equinox = probes.Source("jax", version="0.4.1"), probes.Source("equinox", version="0.13.8")
    base = placed_by_hand(kept, jax, equinox, "0.4.1", "jit = block_until_ready = lambda f: f\n")
    said = "the callgrind process exited 3:\n"  # and the end of what it said: seq's numbers, then valgrind's lines
    for run, counting in enumerate(("counted", "crashed", "failed")):
        (base / "counting").write_text(counting)
        record = kept.probe(jax, equinox, run=run, jaxlib="0.4.1")
        assert record == json.loads(kept.path(jax, equinox, run, "0.4.1").read_text())
        assert (record["tried"], record.get("locked")) == ({}, None if counting == "failed" else record["locked"])
        if counting == "counted":
            assert record["counts"] == {"flatten": {"failed": "planted"}} and record["jaxlib"] == "0.4.1"
            assert record["locked"] == ["jaxlib==0.4.1", "numpy==2.0.0"] and "crashed_after_counting" not in record
        elif counting == "crashed":
            assert record["counts"] == {} and record["locked"] == ["jaxlib==0.4.1", "numpy==2.0.0"]
            crashed = record["crashed_after_counting"]
            assert (
                crashed.startswith(said)
                and crashed[200:203] == " … "
                and len(crashed) == 1703
                and "2999 3000" in crashed
            )
        else:
            failed = record["failed"].removeprefix("count with jaxlib 0.4.1: ")
            assert (
                failed.startswith(said) and failed[200:203] == " … " and len(failed) == 2003 and "2999 3000" in failed
            )
            assert "jaxlib" not in record and "counts" not in record
    (base / "locked.txt").write_text("jaxlib==0.4.1\nnumpy==2.1.0\n")  # the base made again: counted again
    (base / "counting").write_text("counted")
    assert kept.probe(jax, equinox, jaxlib="0.4.1")["locked"][-1] == "numpy==2.1.0" and kept.made == 4
    (base / "counting").write_text("killed")
    with pytest.raises(Failed, match="^counting jax-0.4.1-equinox-0.13.8 with jaxlib 0.4.1: the callgrind process was"):
        kept.probe(jax, equinox, run=3, jaxlib="0.4.1")
    assert not kept.path(jax, equinox, 3, "0.4.1").exists() and kept.made == 4

    def unavailable(*args, **kwargs):
        raise callgrind.Unavailable("valgrind is not installed")

    monkeypatch.setattr(callgrind, "count", unavailable)  # this machine's lack, not the commit's: nothing is kept
    with pytest.raises(Failed, match="^cannot count instructions here: valgrind is not installed$"):
        kept.probe(jax, equinox, run=4, jaxlib="0.4.1")
    assert not kept.path(jax, equinox, 4, "0.4.1").exists() and kept.made == 4


def test_an_import_that_hangs_is_stopped_and_kept_as_what_its_jaxlib_said(tmp_path, monkeypatch):
    kept = probes.Probes(tmp_path, sys.executable, ("flatten",), jaxlib_releases=["0.4.1"])
    jax, equinox = probes.Source("jax", version="0.4.1"), probes.Source("equinox", version="0.13.8")
    placed_by_hand(kept, jax, equinox, "0.4.1", "import time\ntime.sleep(20)\n")
    monkeypatch.setattr(probes, "IMPORT_SECONDS", 1)
    record = kept.probe(jax, equinox, jaxlib="0.4.1")
    assert record["failed"] == "import: it imports with none of the jaxlibs tried"
    assert record["tried"]["0.4.1"].endswith("timed out after 1 seconds")


HATCH_BUILD = """import os, pathlib, subprocess
from hatchling.metadata.plugin.interface import MetadataHookInterface


class Hook(MetadataHookInterface):
    def update(self, metadata):
        above = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        metadata["version"] = "0.4.1" if os.environ.get("JAX_RELEASE") else f"0.4.1.dev0+{above or 'nogit'}"
        metadata["description"] = f"built in {pathlib.Path.cwd().name}"
"""


def planted_project(repo: Path, name: str) -> str:
    """A git repository of a package NAME that hatchling builds as jax's setup.py does: a release (JAX_RELEASE) as its
    version, any other commit as a dev version with the hash of the git repository it finds, if any."""
    (repo / name).mkdir(parents=True)
    (repo / name / "__init__.py").write_text(f"NAME = {name!r}\n")
    (repo / "hatch_build.py").write_text(HATCH_BUILD)
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        f'[project]\nname = "{name}"\ndynamic = ["version", "description"]\n[tool.hatch.metadata.hooks.custom]\n'
    )
    planted_git(repo, "init", "-q", "-b", "main")
    planted_git(repo, "add", "-A")
    planted_git(repo, "commit", "-qm", "start")
    return planted_git(repo, "rev-parse", "HEAD")


def test_a_commit_is_built_from_its_own_tree_a_release_as_its_version_and_both_installed_in_one_target(
    tmp_path, monkeypatch
):
    """The cache lies inside jax's own repository: no git above the tree it builds may lend the build its hash."""
    jax_repo, equinox_repo = tmp_path / "jax", tmp_path / "equinox"
    planted_project(jax_repo, "jax")
    planted_git(jax_repo, "tag", "jax-v0.4.1")
    built = planted_project(equinox_repo, "equinox")
    kept = probes.Probes(jax_repo / "cache", sys.executable, ("flatten",))
    builder = kept.cache / "envs" / f"builder-{kept.interpreter_key}" / "bin" / "python"
    executable(builder, THIS_PYTHON)  # this interpreter: pip and hatchling
    jax, equinox = probes.commit_source("jax", jax_repo, "jax-v0.4.1"), probes.Source("equinox", built, equinox_repo)
    wheels = [kept.wheel(source) for source in (jax, equinox)]
    assert [wheel.name for wheel in wheels] == [
        "jax-0.4.1-py2.py3-none-any.whl",
        "equinox-0.4.1.dev0+nogit-py2.py3-none-any.whl",
    ]
    assert wheels[0].parent == kept.cache / "wheels" / "jax" / f"{jax.commit}-release"
    target = kept.target(jax, equinox)
    assert target == kept.cache / "targets" / kept.interpreter_key / f"jax-{jax.commit}-release-equinox-{built}"
    assert sorted(path.name for path in target.iterdir()) == [
        "equinox", "equinox-0.4.1.dev0+nogit.dist-info", "jax", "jax-0.4.1.dist-info"
    ]  # fmt: skip
    assert "Summary: built in jax" in (target / "jax-0.4.1.dist-info" / "METADATA").read_text()
    assert kept.target(jax, equinox) == target and kept.wheel(jax) == wheels[0]  # kept: made once
    assert sorted(path.name for path in kept.cache.iterdir()) == ["envs", "targets", "wheels"]
    # A release is downloaded, its wheel alone (offline here: from wheels beside the test).
    wheel_of(tmp_path / "index", "equinox", "0.13.8", "jaxtyping")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "index"))
    downloaded = kept.wheel(probes.Source("equinox", version="0.13.8"))
    assert downloaded == kept.cache / "wheels" / "equinox" / "0.13.8" / "equinox-0.13.8-py3-none-any.whl"
    with pytest.raises(Failed, match="^python -m pip exited 1: .*equinox==0.13.9"):
        kept.wheel(probes.Source("equinox", version="0.13.9"))


def wheel_of(folder: Path, name: str, version: str, *requires: str) -> None:
    """A wheel of an empty package NAME that requires REQUIRES, as pip installs one."""
    info = f"{name}-{version}.dist-info"
    metadata = "".join(f"Requires-Dist: {required}\n" for required in requires)
    files = {
        f"{name}/__init__.py": "",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata}",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def test_the_builder_and_a_base_are_made_from_their_packages_a_base_without_jax_yet_with_its_dependencies(
    tmp_path, monkeypatch
):
    """Offline, from wheels beside the test: the base installs jax's release to take its dependencies, then removes
    jax (each commit brings its own), and keeps what pip froze, which keys the counts made in it."""
    wheels = tmp_path / "wheels"
    for name in (*probes.EQUINOX_DEPENDENCIES, "opt_einsum"):
        wheel_of(wheels, name, "1.0")
    for name in probes.BUILDER_PACKAGES:  # newer than a virtualenv's own setuptools: upgraded
        wheel_of(wheels, name, "99.0")
    wheel_of(wheels, "jaxlib", "0.4.1")
    wheel_of(wheels, "jax", "0.4.1", "opt_einsum", "jaxlib==0.4.1")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    kept = probes.Probes(tmp_path / "cache", sys.executable, ("flatten",), jaxlib_releases=["0.4.1"])
    (kept.cache / "jax-releases.json").write_text(json.dumps({"0.4.1": []}))
    builder = kept.builder()
    assert builder == str(kept.cache / "envs" / f"builder-{kept.interpreter_key}" / "bin" / "python")
    made = [line for line in (Path(builder).parents[1] / "locked.txt").read_text().split() if "==99.0" in line]
    assert made == ["hatchling==99.0", "setuptools==99.0", "wheel==99.0"]
    assert probes._checked([builder, "-c", "import hatchling, sys; print(sys.prefix)"]).stdout.strip() == str(
        Path(builder).parents[1]
    )
    base = kept.base("0.4.1")
    assert base == str(kept.cache / "envs" / f"{kept.interpreter_key}-jaxlib-0.4.1" / "bin" / "python")
    assert [line for line in kept.locked("0.4.1") if not line.startswith(("pip==", "setuptools=="))] == [
        "jaxlib==0.4.1", "jaxtyping==1.0", "opt_einsum==1.0", "typing_extensions==1.0", "wadler_lindig==1.0"
    ]  # fmt: skip
    assert any(line.startswith("pip==") for line in kept.locked("0.4.1"))  # every package, pip's own too
    wheel_of(wheels, "jaxlib", "0.4.2")  # no jax release shares its version: no jax to take dependencies from
    assert [line for line in kept.locked("0.4.2") if not line.startswith(("pip==", "setuptools=="))] == [
        "jaxlib==0.4.2", "jaxtyping==1.0", "typing_extensions==1.0", "wadler_lindig==1.0"
    ]  # fmt: skip


def test_a_builder_that_cannot_be_made_fails_the_run_not_the_commit_it_would_have_built(tmp_path, monkeypatch):
    """Probes.count makes the builder first: made later, inside the commit's own build, its failure would be filed
    as that commit's ("build: ..."), a verdict on code that never ran."""
    kept = probes.Probes(tmp_path, sys.executable, ("flatten",), jaxlib_releases=["0.4.1"])

    def venv(folder, packages, then=()):
        raise Failed(f"cannot make {folder.name}: no package index")

    monkeypatch.setattr(kept, "venv", venv)
    at_commits = (probes.Source("jax", "a" * 40, repo=tmp_path), probes.Source("equinox", "b" * 40, repo=tmp_path))
    with pytest.raises(Failed, match="cannot make builder-"):
        kept.count(*at_commits, run=0, jaxlib=None)
