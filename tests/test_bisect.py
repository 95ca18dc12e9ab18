"""scripts/bisect: JAX commits as environments, probes kept and reused, and a bisection that finds a planted
step among real JAX commits, past a commit that does not build and one that does not import."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchtools import cli
from benchtools.asvtools import probe_results
from benchtools.history import probes
from benchtools.judging import bisect, instructions
from benchtools.publishing import bisections
from benchtools.running import bisection, jax_commits
from tests.helpers import ROOT

JAX_BUNDLE = ROOT.parent / "shared" / "upstream" / "jax.bundle"
NEEDS_JAX_BUNDLE = pytest.mark.skipif(not JAX_BUNDLE.is_file(), reason="the JAX bundle is not in ../shared/upstream")
START = "jax-v0.8.0"  # a release whose jaxlib is on PyPI for Python 3.11, and the jaxlib of the planted commits
PLANTED = "planted: tree_flatten does more work"
TWINS = ("module", "tuple")


# ---- the search, over counts given by a stand-in for the probes


class Counted:
    """Probes that answer from a list: each commit's count, or None for a commit that fails."""

    series = "3.11"
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
def test_one_step_is_placed_at_its_commit(at):
    values = [1000.0] * at + [1100.0] * (32 - at)
    search, stand_in, steps = search_over(values)
    assert [(int(s.before.commit.source.commit), int(s.after.commit.source.commit), s.kind) for s in steps] == [
        (at - 1, at, "step")
    ]
    assert len({index for index, _ in stand_in.asked}) <= 8  # halving: about log2(32) + the ends


def test_two_steps_each_found_with_their_shares():
    values = [1000.0] * 10 + [1050.0] * 10 + [1150.0] * 12
    search, _, steps = search_over(values)
    assert [int(s.after.commit.source.commit) for s in steps] == [10, 20]
    assert bisect.shares(steps, 150.0, search.key) == pytest.approx([1 / 3, 2 / 3])


def test_changes_within_the_spread_are_no_step():
    search, stand_in, steps = search_over([1000.0, 1003.0, 1005.0, 1007.0])
    assert steps == [] and {index for index, _ in stand_in.asked} == {0, 3}


def test_a_drift_is_reported_over_its_commits_not_as_a_step():
    values = [1000.0 + 3 * i for i in range(16)]  # +0.3% a commit: no commit steps, the whole moves 4.5%
    _, _, steps = search_over(values)
    assert {s.kind for s in steps} == {"drift"}
    assert int(steps[0].before.commit.source.commit) == 0 and int(steps[-1].after.commit.source.commit) == 15


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


@pytest.mark.slow
@NEEDS_JAX_BUNDLE
def test_a_planted_step_is_found_confirmed_and_explained_and_every_probe_is_kept(planted, tmp_path):
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (scripts/setup --valgrind)")
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

    # Every counted commit publishes as asv's site over the commits, one graph line per jaxlib, beside the steps.
    site = jax_commits.publish(search.probes, "0.13.8", repo, tmp_path / "no-records", "here", output=tmp_path)
    index = json.loads((site / "index.json").read_text())
    assert index["params"]["jaxlib"] == ["0.8.0", "none"]  # the commits that failed have no jaxlib: a line apart
    graph = (
        site
        / "graphs"
        / "branch-main"
        / "device-cpu"
        / "equinox-0.13.8"
        / "jaxlib-0.8.0"
        / "machine-here"
        / "python-3.11"
    )
    points = json.loads((graph / f"{probe_results.BENCHMARK}.track_tuple.json").read_text())
    hashes = {index["revision_to_hash"][str(revision)] for revision, _ in points}
    assert {made["planted"], made["imported"]} <= hashes and made["unbuildable"] not in hashes
    assert "No bisection is recorded yet." in (site / "steps.html").read_text()


@NEEDS_JAX_BUNDLE
def test_a_revision_that_is_no_commit_is_bad_input(planted, tmp_path):
    repo, _ = planted
    done = subprocess.run(
        [ROOT / "scripts" / "bisect", START, "no-such-tag", "--jax-repo", repo, "--cache", tmp_path],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "'no-such-tag' is no commit" in done.stderr


def test_a_release_that_failed_is_passed_over_between_its_neighbours():
    stand_in = Counted([1000.0, None, 1100.0, 1101.0])
    search = bisect.Search(stand_in, probes.Source("equinox", version="0.13.8"), None, "flatten", "tuple", 0.008)
    points = [search.point(bisect.Commit(probes.Source("jax", str(i)), f"release {i}", "2025-01-01")) for i in range(4)]
    assert bisect.release_pairs(points, search.key, search.apart) == [(0, 2)]


def test_probe_records_become_asv_results_with_the_jaxlib_in_their_environment(tmp_path):
    from asv import results as asv_results

    from benchtools.asvtools import probe_results, suite
    from benchtools.asvtools.results import values

    counted = {"instructions": 1234.0, "functions": {}, "builtins": {}}
    records = [
        {"jax": "a" * 40, "python": "3.11", "equinox": "0.13.8", "jaxlib": "0.8.0", "counts": {"flatten": {}}},
        {"jax": "b" * 40, "python": "3.11", "equinox": "0.13.8", "failed": "import: planted"},
    ]
    records[0]["counts"]["flatten"] = {"module": counted, "tuple": {**counted, "instructions": 99.0}}
    described = json.loads(suite.description())
    written = probe_results.write(tmp_path, "here", records, described, {"a" * 40: 1, "b" * 40: 2})
    assert written == 2
    found = {r.commit_hash: r for r in asv_results.iter_results(str(tmp_path))}
    key = f"{probe_results.BENCHMARK}.track_tuple"
    assert values(found["a" * 40], key)[("flatten",)] == 99.0
    assert found["a" * 40].params["jaxlib"] == "0.8.0" and "jaxlib0.8.0" in found["a" * 40].env_name
    assert all(value is None for value in values(found["b" * 40], key).values())


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
    assert step.jaxlib_split == {"jaxlib": "0.8.1", "count": 1050.0, "failed": None}
    entry = {"jaxlib_split": step.jaxlib_split, "after": {"count": step.after.value(*search.key)}}
    assert bisections.jaxlib_carries(entry, search.spread) is jaxlib_carries


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
    assert (
        "jax's Python holds still: the step is jaxlib's" in page
        and "`cccccccccc` Speed up PyArray (#7) (names `Lookup`)" in page
    )


def test_the_same_function_of_two_jaxlib_builds_is_one_row_and_names_what_a_diff_may_name():
    twin = {"instructions": 10.0, "functions": {"void a::T::F<absl::lts_20250512::V<x>>": 2.0, "_int_free": 3.0}}
    assert bisections.merged(twin)["functions"] == {"void a::T::F<…>": 2.0, "_int_free": 3.0}
    later = {"absl::lts_20250814::raw<x>::find<y>": 5.0}
    assert bisections.merged({**twin, "functions": later})["functions"] == {"absl::raw<…>::find<…>": 5.0}
    moved = [("void a::T::F<…>", 2, 5), ("_int_free", 3, 4), ("x::y::operator()", 1, 2), ("b::Lookup", 1, 2)]
    assert bisections.moved_identifiers(moved) == ["F", "Lookup"]


def test_a_long_run_of_failing_commits_ends_the_search_without_probing_it_whole():
    values = [1000.0] + [None] * 30 + [1100.0]
    _, stand_in, steps = search_over(values)
    [step] = steps
    assert step.between == 30 and len({index for index, _ in stand_in.asked}) == 2 + bisect.FAILED_TRIES
