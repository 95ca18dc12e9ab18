"""Evidence for docs/mutants.toml's judgements of equivalence on the bisection, the cost fit, the gate, the steps,
the thresholds and the release histories: each test runs the original and the mutant alike on generated inputs, or
asserts the fact (of the project's objects, of git, of the library) that makes the mutation change no answer."""

import ast
import contextlib
import dataclasses
import hashlib
import io
import itertools
import json
import math
import tarfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.version import Version

from benchmarks import metrics
from benchtools.errors import BadInput, Failed
from benchtools.history import probes, release_history
from benchtools.judging import bisect, changes, cost_fit, pairs, steps
from benchtools.judging import confirm as confirming
from tests import helpers
from tests.helpers import ROOT, SCRIPTS, mutated
from tests.test_release_history import make_sdist

SETTINGS = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


# ---- bisect: a search over planted counts, its steps confirmed and split by jaxlib, original and mutant alike

SPREAD = 0.008
COUNTS = [1000.0, 1004.0, 1100.0, 1200.0]  # within the spread of each other, and apart


class Planted:
    """Probes that answer from a series: each commit's count (None: it fails) and jaxlib; a recount in a fresh
    process drifts by ``drift`` per run; on the other jaxlib a count moves by ``moved`` (None: it does not import)."""

    series = "3.11"
    interpreter = {"version": "3.11.7 (planted)"}
    made = 0

    def __init__(self, values, jaxlibs, drift, moved):
        self.values, self.jaxlibs, self.drift, self.moved = values, jaxlibs, drift, moved

    def path(self, jax, equinox, run=0, jaxlib=None):
        return f"{jax.commit}-{run}-{jaxlib}"

    def probe(self, jax, equinox, run=0, jaxlib=None):
        index = int(jax.commit)
        value = self.values[index]
        if value is None or (jaxlib is not None and self.moved is None):
            return {"failed": "import: planted failure"}
        count = value + run * self.drift + (self.moved if jaxlib is not None else 0)
        twins = {"tuple": {"instructions": count, "functions": {}, "builtins": {}}}
        return {"jaxlib": jaxlib or self.jaxlibs[index], "counts": {"flatten": twins}}


series = st.lists(st.one_of(st.none(), st.sampled_from(COUNTS)), min_size=1, max_size=12)
bisections = st.tuples(
    series,
    st.lists(st.sampled_from(["0.8.0", "0.8.1"]), min_size=12, max_size=12),
    st.sampled_from([0.0, 1.0, 150.0]),
    st.sampled_from([None, 0.0, 150.0]),
)


def bisected(values, jaxlibs, drift, moved) -> dict:
    """All that a bisection of the planted series reads and writes, as scripts/bisect runs it: the steps, each
    confirmed and split by jaxlib, the intervals found flat, the recounts, each commit's count and the probes read."""
    search = bisect.Search(
        Planted(values, jaxlibs, drift, moved),
        probes.Source("equinox", version="0.13.8"),
        None,
        "flatten",
        "tuple",
        SPREAD,
    )
    commits = [bisect.Commit(probes.Source("jax", str(i)), f"commit {i}", "2025-01-01") for i in range(len(values))]
    found = search.steps(commits)
    for step in found:
        search.confirm(step)
        search.split_jaxlib(step)
    return {
        "steps": [(s.before.commit, s.after.commit, s.kind, s.between, s.confirmation, s.jaxlib_split) for s in found],
        "flat": search.flat,
        "recounts": search.recounts,
        "counted": [search.counted(point) for point in search.points.values()],
        "used": search.used,
    }


def same_search(values, jaxlibs, drift, moved, method, old, new, read=lambda found: found):
    """The bisection of the series reads alike with ``Search.method`` mutated (``old`` → ``new``)."""
    original = read(bisected(values, jaxlibs, drift, moved))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bisect.Search, method.__name__, mutated(method, old, new))
        assert read(bisected(values, jaxlibs, drift, moved)) == original


@pytest.mark.equivalent("benchtools.judging.bisect.xǁSearchǁconfirm__mutmut_7")
@settings(SETTINGS, max_examples=100)
@given(bisections)
def test_a_recounts_point_is_read_for_its_value_alone(bisection):
    same_search(*bisection, bisect.Search.confirm, "Point(point.commit, self.probe", "Point(None, self.probe")


@pytest.mark.equivalent("benchtools.judging.bisect.xǁSearchǁsplit_jaxlib__mutmut_32")
@settings(SETTINGS, max_examples=100)
@given(bisections)
def test_a_jaxlib_splits_point_is_read_for_its_value_alone(bisection):
    same_search(*bisection, bisect.Search.split_jaxlib, "Point(point.commit, record)", "Point(None, record)")


@pytest.mark.equivalent(
    "benchtools.judging.bisect.xǁSearchǁcounted__mutmut_3", "benchtools.judging.bisect.xǁSearchǁcounted__mutmut_5"
)
@settings(SETTINGS, max_examples=100)
@given(bisections)
def test_no_recount_as_none_leaves_the_first_count_standing(bisection):
    for new in ("None)", ")"):
        same_search(*bisection, bisect.Search.counted, "[])", new)


@pytest.mark.equivalent(
    "benchtools.judging.bisect.xǁSearchǁcounted_between__mutmut_19",
)
def test_only_the_middle_is_at_distance_zero_so_its_side_orders_no_tie():
    """Every interval of 10 commits, every pattern of failed commits: the same commit nearest the middle."""
    mutant = mutated(bisect.Search.counted_between, "index > middle", "index >= middle")
    size = 10
    for failed in itertools.product([False, True], repeat=size):
        values = [None if fails else 1000.0 for fails in failed]
        search = bisect.Search(Planted(values, ["0.8.0"] * size, 0.0, 0.0), None, None, "flatten", "tuple", SPREAD)
        commits = [bisect.Commit(probes.Source("jax", str(i)), f"commit {i}", "2025-01-01") for i in range(size)]
        for lo, hi in itertools.combinations(range(size), 2):
            assert mutant(search, commits, lo, hi) == search.counted_between(commits, lo, hi)


def ends_counted(bisection) -> bool:
    """A range as scripts/bisect searches it: two neighbouring releases, each counted (release_pairs)."""
    values = bisection[0]
    return len(values) >= 2 and values[0] is not None and values[-1] is not None


@pytest.mark.equivalent("benchtools.judging.bisect.xǁSearchǁsteps__mutmut_21")
@settings(SETTINGS, max_examples=150)
@given(bisections)
def test_index_minus_one_is_read_only_when_no_commit_counted(bisection):
    same_search(*bisection, bisect.Search.steps, "len(commits) - 1, -1, -1", "len(commits) - 1, -2, -1")


@pytest.mark.equivalent("benchtools.judging.bisect.xǁSearchǁsteps__mutmut_29")
@settings(SETTINGS, max_examples=150)
@given(bisections)
def test_the_first_and_last_counted_commits_are_both_none_or_neither(bisection):
    same_search(*bisection, bisect.Search.steps, "first is None or last is None", "first is None and last is None")


@pytest.mark.equivalent(
    "benchtools.judging.bisect.xǁSearchǁsteps__mutmut_28", "benchtools.judging.bisect.xǁSearchǁsteps__mutmut_32"
)
@settings(SETTINGS, max_examples=150)
@given(bisections)
def test_one_commit_alone_counted_searched_as_an_interval_of_one_has_no_step(bisection):
    """The steps are the same for any series; what else the search keeps (the intervals found flat) is the same for
    the ranges scripts/bisect searches, whose two ends both counted."""
    read = (lambda found: found) if ends_counted(bisection) else (lambda found: found["steps"])
    same_search(*bisection, bisect.Search.steps, "last is None or first", "last is None and first", read)
    same_search(*bisection, bisect.Search.steps, "first >= last", "first > last", read)


@pytest.mark.equivalent(
    "benchtools.judging.bisect.x_unconfirmed__mutmut_11", "benchtools.judging.bisect.x_unconfirmed__mutmut_13"
)
def test_sides_apart_sort_alike_by_first_count_and_by_median():
    """Every two sides of three counts each (a first count and two recounts) of five values: the same verdict."""
    mutants = [mutated(bisect.unconfirmed, "key=statistics.median)", new) for new in ("key=None)", ")")]
    for counts in itertools.product([1000.0, 1004.0, 1010.0, 1100.0, None], repeat=6):
        runs = {"before": list(counts[:3]), "after": list(counts[3:])}
        why = bisect.unconfirmed(runs, SPREAD)
        assert [mutant(runs, SPREAD) for mutant in mutants] == [why, why]


# ---- the cost fit, on generated code versions


@st.composite
def cost_points(draw) -> list:
    """Points as cost_fit.read makes them from asv's results: whole counts (as JSON gives them), passes a float."""
    counts = st.tuples(st.integers(1, 5000), st.integers(1, 100_000))
    versions = draw(st.lists(counts, min_size=2, max_size=6, unique=True))
    points = []
    for i, (calls, bytecodes) in enumerate(draw(st.lists(st.sampled_from(versions), min_size=len(versions)))):
        points.append(cost_fit.Point(f"v{i}", calls, bytecodes, draw(st.floats(0.5, 50.0))))
    return points + [cost_fit.Point(f"w{i}", c, b, 1.0 + i) for i, (c, b) in enumerate(versions)]


FIT_MUTANTS = [
    mutated(cost_fit.fit, old, new)
    for old, news in {
        "dtype=float)": ["dtype=None)", ")"],
        ", rcond=None)": [")"],
        "(scale * costs / y - 1).tolist(), strict=True)": [
            f"(scale * costs / y - 1).tolist(), {strict})" for strict in ("strict=None", "", "strict=False")
        ],
        "figures, strict=True)": [f"figures, {strict})" for strict in ("strict=None", "", "strict=False")],
    }.items()
    for new in news
]


@pytest.mark.equivalent(
    "benchtools.judging.cost_fit.x_fit__mutmut_12",
    "benchtools.judging.cost_fit.x_fit__mutmut_14",
    "benchtools.judging.cost_fit.x_fit__mutmut_27",
    "benchtools.judging.cost_fit.x_fit__mutmut_50",
    "benchtools.judging.cost_fit.x_fit__mutmut_55",
    "benchtools.judging.cost_fit.x_fit__mutmut_60",
    "benchtools.judging.cost_fit.x_fit__mutmut_84",
    "benchtools.judging.cost_fit.x_fit__mutmut_87",
    "benchtools.judging.cost_fit.x_fit__mutmut_88",
)
@settings(SETTINGS, max_examples=60)
@given(cost_points())
def test_the_fit_of_whole_counts_as_ints_with_lstsqs_default_rcond_and_unstrict_zips_is_the_same(points):
    """dtype, rcond=None (lstsq's default in numpy 2) and zip's strictness over columns of one length: the same
    fit, and the same page of it."""
    fitted = cost_fit.fit(points)
    for mutant in FIT_MUTANTS:
        refitted = mutant(points)
        assert refitted == fitted and cost_fit.markdown(refitted) == cost_fit.markdown(fitted)


# ---- the gate: one confirmation per suspect, in the suspects' order


@pytest.mark.equivalent(
    "benchtools.judging.gate.x_judge__mutmut_72",
    "benchtools.judging.gate.x_judge__mutmut_75",
    "benchtools.judging.gate.x_judge__mutmut_76",
)
@settings(SETTINGS, max_examples=60)
@given(
    st.lists(
        st.tuples(st.sampled_from([None, "a" * 40, "b" * 40]), st.sampled_from(["c" * 40, "d" * 40]), st.booleans()),
        max_size=8,
    )
)
def test_confirmations_give_one_per_suspect_in_the_suspects_order(sides):
    """So the confirmations after the timing suspects' are as many as the instruction rises' time checks, and a strict
    zip of the two finds nothing to refuse (gate.judge's)."""
    suspects = [
        SimpleNamespace(good=good, bad=bad, env=f"env{other}", benchmark=f"bench.B.track_{i}", entry=f"bench{i}")
        for i, (good, bad, other) in enumerate(sides)
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(confirming, "exclusive", lambda root: contextlib.nullcontext())
        patch.setattr(confirming, "prepare", lambda config, env, revisions, names, root: {})
        patch.setattr(confirming, "log", lambda message: None)
        patch.setattr(
            confirming, "confirmation", lambda change, *_: confirming.Confirmation(change, pairs.UNDECIDED, None, 0.0)
        )
        found = confirming.confirmations(Path(__file__), {"repo": str(ROOT)}, suspects)
    assert [id(confirmation.change) for confirmation in found] == [id(suspect) for suspect in suspects]


# ---- steps, thresholds


PIECES_MUTANT = mutated(steps.pieces, "value is not None and value == value", "value is not None or value == value")


@pytest.mark.equivalent("benchtools.judging.steps.x_pieces__mutmut_7")
@settings(SETTINGS, max_examples=150)
@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.one_of(st.none(), st.just(math.nan), st.sampled_from([1.0, 2.0]))),
        max_size=12,
        unique_by=lambda point: point[0],
    )
)
def test_a_series_all_none_or_nan_gives_detect_steps_no_piece_as_the_guard_does(points):
    """(revision, value) points, one a revision, as finding and operation_history give them."""
    assert PIECES_MUTANT(points) == steps.pieces(points)


@pytest.mark.equivalent("benchtools.judging.changes.xǁThresholdsǁ__init____mutmut_1")
def test_every_caller_of_thresholds_names_where_its_configuration_is():
    """The default of ``where`` is never taken: each Thresholds(...) of the project's code gives three arguments."""
    calls = [
        node
        for path in sorted((SCRIPTS / "benchtools").rglob("*.py")) + sorted((ROOT / "benchmarks").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Thresholds"
    ]
    assert calls and all(len(call.args) == 3 or any(k.arg == "where" for k in call.keywords) for call in calls)


@pytest.mark.equivalent("benchtools.judging.sources.xǁSourceǁ__init____mutmut_88")
def test_metrics_thresholds_compile_so_no_configuration_is_named():
    """Without a configuration the regexes are metrics.py's: Thresholds takes them whatever ``where`` is."""
    regexes = metrics.asv_thresholds()
    assert regexes
    made = [changes.Thresholds(regexes, {}, where) for where in ("", "XXXX")]
    assert [[(regex.pattern, value) for regex, value in t.regexes] for t in made] == [list(regexes.items())] * 2


# ---- release histories: which Python a release admits, and what a specifier selects

PYTHONS = [(2, 7), (3, 1), (3, 10), (3, 11), (3, 12)]  # Pythons X.Y, never an X.0, that clauses name below
clause_versions = st.builds(
    lambda major, rest, star: ".".join(map(str, [major, *rest])) + (".*" if star else ""),
    st.sampled_from([2, 3, 4]),
    st.lists(st.sampled_from([0, 1, 2, 7, 10, 11, 12]), max_size=3),
    st.booleans(),
)
clauses = st.one_of(
    st.builds("{}{}".format, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "~="]), clause_versions),
    st.sampled_from(["===foo", "===3.11.0", "", "XXXX"]),
)
requires_pythons = st.one_of(st.none(), st.lists(clauses, min_size=1, max_size=4).map(",".join))
ADMITS_MUTANTS = [
    mutated(release_history.Release.admits, old, new)
    for old, new in [
        ('(None, "")', '(None, "XXXX")'),
        ('removesuffix(".*")', 'removeprefix(".*")'),
        ('removesuffix(".*")', 'removesuffix("XX.*XX")'),
        ("+ (0, 0)", "+ (1, 0)"),
        ("+ (0, 0)", "+ (0, 1)"),
        ("continue  # '===' may name anything", "break  # '===' may name anything"),
    ]
]


@pytest.mark.equivalent(
    "benchtools.history.release_history.xǁReleaseǁadmits__mutmut_2",
    "benchtools.history.release_history.xǁReleaseǁadmits__mutmut_18",
    "benchtools.history.release_history.xǁReleaseǁadmits__mutmut_19",
    "benchtools.history.release_history.xǁReleaseǁadmits__mutmut_20",
    "benchtools.history.release_history.xǁReleaseǁadmits__mutmut_21",
    "benchtools.history.release_history.xǁReleaseǁadmits__mutmut_22",
)
@settings(SETTINGS, max_examples=200)
@given(requires_pythons)
def test_admits_reads_each_python_alike_whatever_micros_the_mutants_try(requires_python):
    """An empty requires_python admits all, as the early return does; the micros a wildcard clause or the padding adds
    beside X.Y.0 are needed only where a clause that names them adds them itself; an '===' clause that names no
    version admits no X.Y.z, whichever clauses are read; and no Python X.0 is run."""
    release = release_history.Release(Version("1.0"), "pkg-1.0.tar.gz", "", "", None, requires_python)
    with contextlib.redirect_stderr(io.StringIO()):
        for python in PYTHONS:
            admitted = release.admits(python)
            assert [mutant(release, python) for mutant in ADMITS_MUTANTS] == [admitted] * len(ADMITS_MUTANTS)


def index_entry(version: str, day: int, data: bytes) -> dict:
    """A release's sdist as PyPI's JSON API lists it."""
    return {
        "filename": f"pkg-{version}.tar.gz",
        "packagetype": "sdist",
        "url": f"{INDEX}/files/pkg-{version}.tar.gz",
        "digests": {"sha256": hashlib.sha256(data).hexdigest()},
        "upload_time_iso_8601": f"2024-01-{day:02}T00:00:00Z",
        "yanked": False,
    }


INDEX = "https://index.invalid"
LISTED = ["0.9", "1.0rc1", "1.0", "1.0.post1", "1.1.dev0", "1.1", "2.0a1", "2.0b2", "2.0", "2!0.1"]
SELECT_MUTANTS = [
    mutated(release_history.select, "prereleases=True)", new)
    for new in ("prereleases=None)", ")", "prereleases=False)")
]
specifiers = st.lists(
    st.builds("{}{}".format, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "~="]), st.sampled_from(LISTED)),
    min_size=1,
    max_size=3,
).map(",".join)


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_select__mutmut_19",
    "benchtools.history.release_history.x_select__mutmut_21",
    "benchtools.history.release_history.x_select__mutmut_22",
)
@settings(SETTINGS, max_examples=200)
@given(specifiers)
def test_a_history_holds_no_prerelease_so_a_specifier_selects_alike_whatever_it_does_with_one(spec):
    metadata = {"releases": {v: [index_entry(v, day, v.encode())] for day, v in enumerate(LISTED, start=1)}}
    history, _ = release_history.release_history(metadata, None, None, base=INDEX)
    assert history and not any(release.version.is_prerelease for release in history)

    def selected(select):
        try:
            return [release.version for release in select(history, spec)]
        except BadInput as refused:
            return str(refused)

    assert [selected(mutant) for mutant in SELECT_MUTANTS] == [selected(release_history.select)] * 3


# ---- release histories: sdists read and cached


@pytest.fixture
def cached(tmp_path) -> tuple[Path, release_history.Release]:
    """The sdist cache with one release's sdist in it (a link and a file whose name is not UTF-8 among its files)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    top, buffer = "pkg-1.0", io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8") as tar:
        for name, data in [("pkg/__init__.py", b"x = 1\n"), ("pkg/r\xe9sum\xe9.py", b""), ("pkg/\udcff.py", b"odd\n")]:
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for link in ("__init__.py", "r\xe9sum\xe9.py", "\udcfe"):
            info = tarfile.TarInfo(f"{top}/pkg/link-{len(link)}")
            info.type, info.linkname = tarfile.SYMTYPE, link
            tar.addfile(info)
    data = buffer.getvalue()
    (cache / "pkg-1.0.tar.gz").write_bytes(data)
    entry = index_entry("1.0", 1, data)
    [release], _ = release_history.release_history({"releases": {"1.0": [entry]}}, None, None, base=INDEX)
    return cache, release


@pytest.mark.equivalent("benchtools.history.release_history.x_fetch_sdist__mutmut_19")
def test_hashlib_names_sha256_in_any_case_so_a_cached_sdist_is_known_alike(cached, monkeypatch):
    cache, release = cached
    fetched = []
    monkeypatch.setattr(
        release_history, "fetch", lambda url: fetched.append(url) or (cache / release.filename).read_bytes()
    )
    mutant = mutated(release_history.fetch_sdist, 'file_digest(f, "sha256")', 'file_digest(f, "SHA256")')
    for fetch_sdist in (release_history.fetch_sdist, mutant):
        fetch_sdist(release, cache)  # the cached file has the published sha256: not downloaded
    assert fetched == []
    wrong = dataclasses.replace(release, sha256=hashlib.sha256(b"another file").hexdigest())
    for fetch_sdist in (release_history.fetch_sdist, mutant):
        with pytest.raises(BadInput, match="sha256 mismatch"):
            fetch_sdist(wrong, cache)
    assert fetched == [release.url, release.url]


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_sdist_files__mutmut_33",
    "benchtools.history.release_history.x_write_import_stream__mutmut_29",
)
def test_python_names_utf_8_in_any_case_so_an_sdists_files_and_their_stream_are_alike(cached):
    cache, release = cached
    files = mutated(release_history.sdist_files, 'linkname.encode("utf-8"', 'linkname.encode("UTF-8"')
    assert list(files(cache / release.filename)) == list(release_history.sdist_files(cache / release.filename))
    stream = mutated(release_history.write_import_stream, 'path.encode("utf-8"', 'path.encode("UTF-8"')
    written = []
    for write in (release_history.write_import_stream, stream):
        out = io.BytesIO()
        write(out, [release], None, cache, "pkg")
        written.append(out.getvalue())
    assert written[0] == written[1] and b"r\xc3\xa9sum\xc3\xa9.py" in written[0] and b"link-" in written[0]


# ---- release histories built and rebuilt in-process (scripts/release-history's build), original and mutant alike

UPLOADED = {"1.0": 1, "2.0": 2, "1.1": 3}  # 1.1 a backport, uploaded after 2.0


class Index:
    """The package "pkg"'s releases, as PyPI's JSON API gives them, answered in-process to release_history.fetch."""

    def __init__(self, cache: Path):
        self.releases, self.cache = {}, cache
        for version, day in UPLOADED.items():
            self.add(version, day)

    def add(self, version: str, day: int):
        data = make_sdist(version)
        (self.cache / f"pkg-{version}.tar.gz").write_bytes(data)
        self.releases[version] = [index_entry(version, day, data)]

    def fetch(self, url, as_json=False):
        assert as_json and url == f"{INDEX}/pypi/pkg/json", url  # every sdist is in the cache
        return {"info": {"name": "pkg"}, "releases": json.loads(json.dumps(self.releases))}


def history_git(repo, *args) -> str:
    return helpers.git(repo, *args, env=release_history.GIT_ENV)


def snapshot(repo: Path) -> tuple:
    """All that a build leaves in a history: HEAD, its branches and tags, its notes (by what they say: a notes commit
    is dated), the work tree's state, the repository's own configuration."""
    return (
        history_git(repo, "symbolic-ref", "-q", "HEAD"),
        history_git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags"),
        history_git(repo, "notes", "--ref", release_history.GONE_NOTES, "list"),
        history_git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all"),
        sorted(history_git(repo, "config", "--local", "--list").splitlines()),
    )


def build(root: Path, index: Index, repo="nested/deeper/repo", **options):
    """scripts/release-history's build of ``repo`` under ``root``: its selected releases' commits and the history
    left, or the refusal, ``root`` named ROOT."""
    repo = root / repo
    args = release_history.Options(package="pkg", repo=repo, index=f"{INDEX}/pypi", cache=index.cache, **options)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            built = [(str(release.version), commit) for release, commit in release_history.build(args)]
        return built, snapshot(repo)
    except (BadInput, Failed) as refused:
        return type(refused).__name__, str(refused).replace(str(root), "ROOT")


def yank_and_add(root, index):
    index.releases.pop("2.0")
    index.add("2.1", 4)


def edit(root, index):
    """A run killed between commit and tag, a tag lost, a tag of no release, a dirty tree, stray files."""
    repo = root / "nested/deeper/repo"
    (repo / "pyproject.toml").write_text("changed\n")
    history_git(repo, "commit", "-qam", "untagged")
    history_git(repo, "tag", "v9.0.0")
    history_git(repo, "tag", "-d", "v1.1")
    (repo / "pkg" / "__init__.py").write_text("edited\n")
    (repo / "stray" / "deeper").mkdir(parents=True)
    (repo / "stray" / "deeper" / "untracked.txt").write_text("stray\n")
    (repo / ".git" / "info" / "exclude").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "ignored.o").write_text("stray\n")


def ignored_only(root, index):
    (root / "nested/deeper/repo/build").mkdir()
    (root / "nested/deeper/repo/build/ignored.o").write_text("stray\n")


def reword_note(root, index):
    repo = root / "nested/deeper/repo"
    history_git(repo, "notes", "--ref", release_history.GONE_NOTES, "add", "-f", "-m", "gone", "v2.0")


def merge_by_hand(root, index):
    """main ends in a merge made by hand of a commit older than every release, which a walk of all parents lists
    first."""
    repo = root / "nested/deeper/repo"
    env = {**release_history.GIT_ENV, "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}
    older = helpers.git(repo, "commit-tree", "HEAD^{tree}", "-m", "by hand", env=env)
    merge = history_git(repo, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-p", older, "-m", "merge")
    history_git(repo, "update-ref", "refs/heads/main", merge)


def foreign(root, index):
    """A repository it did not make, and one made for another package."""
    for name, owner in (("foreign", None), ("other", "another")):
        (root / name).mkdir()
        history_git(root / name, "init", "-q")
        if owner:
            history_git(root / name, "config", release_history.OWNER_KEY, owner)


def story(root: Path, steps) -> list:
    """What each build of ``steps`` gives: a build (its options), or a change to the index or to the history."""
    root.mkdir()
    (root / "cache").mkdir()
    index = Index(root / "cache")
    told = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(release_history, "fetch", index.fetch)
        for step in steps:
            if callable(step):
                step(root, index)
            else:
                told.append(build(root, index, **step))
    return told


def same_story(tmp_path, steps, function, changes: dict):
    """The builds of ``steps`` tell the same with ``function`` of release_history mutated, each of ``changes``
    (old → [new, ...]) in turn."""
    told = story(tmp_path / "original", steps)
    for number, (old, new) in enumerate((old, new) for old, news in changes.items() for new in news):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(release_history, function.__name__, mutated(function, old, new))
            assert story(tmp_path / f"mutant{number}", steps) == told, (old, new)


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_update__mutmut_11",
    "benchtools.history.release_history.x_update__mutmut_14",
    "benchtools.history.release_history.x_update__mutmut_15",
)
def test_the_owner_of_a_history_reads_alike_unset_or_from_the_repositorys_own_configuration(tmp_path):
    """git runs without global or system configuration, and ``git config NAME`` reads NAME as --get does; an unset
    owner reads as empty, with check=None as with check=False."""
    steps = [{}, {}, foreign, {"repo": "foreign"}, {"repo": "other"}]
    get = '"--local", "--get", OWNER_KEY, check=False)'
    same_story(
        tmp_path,
        steps,
        release_history.update,
        {get: [get.replace("False", "None"), get.replace('"--local", ', ""), get.replace('"--get", ', "")]},
    )


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_check_parameters__mutmut_7",
    "benchtools.history.release_history.x_check_parameters__mutmut_10",
    "benchtools.history.release_history.x_check_parameters__mutmut_11",
)
def test_the_parameters_a_history_was_built_with_read_alike_unset_or_from_its_own_configuration(tmp_path):
    steps = [{"until": Version("1.0")}, {}, {"until": Version("1.0")}, {}, {"until": Version("1.0")}]
    get = '"--local", "--get", PARAMETERS_KEY, check=False)'
    same_story(
        tmp_path,
        steps,
        release_history.check_parameters,
        {get: [get.replace("False", "None"), get.replace('"--local", ', ""), get.replace('"--get", ', "")]},
    )


@pytest.mark.equivalent("benchtools.history.release_history.x_update__mutmut_57")
def test_a_merge_made_by_hand_on_main_ends_the_chain_either_way_and_the_releases_are_built_again_alike(tmp_path):
    same_story(
        tmp_path,
        [{}, merge_by_hand, {}, {}],
        release_history.update,
        {'"--reverse", "--first-parent", "refs/heads/main"': ['"--reverse", "refs/heads/main"']},
    )


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_update__mutmut_145",
    "benchtools.history.release_history.x_update__mutmut_147",
    "benchtools.history.release_history.x_update__mutmut_149",
)
def test_the_repositorys_lock_taken_first_makes_the_folders_parents(tmp_path):
    """A history made where no folder above it is yet."""
    made = "repo.mkdir(parents=True, exist_ok=True)"
    news = [
        made.replace("parents=True", "parents=None"),
        made.replace("parents=True, ", ""),
        made.replace("True,", "False,"),
    ]
    same_story(tmp_path, [{}, {}], release_history.update, {made: news})


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_update__mutmut_155",
    "benchtools.history.release_history.x_update__mutmut_158",
    "benchtools.history.release_history.x_update__mutmut_167",
    "benchtools.history.release_history.x_update__mutmut_168",
)
def test_head_points_at_main_before_the_first_commit_whatever_branch_git_init_names_and_says(tmp_path):
    init = 'git(repo, "init", "-q", "-b", "main")'
    news = [init.replace('"main"', name) for name in ("None", '"XXmainXX"', '"MAIN"')] + [init.replace('"-q", ', "")]
    same_story(tmp_path, [{}, {}], release_history.update, {init: news})


@pytest.mark.equivalent("benchtools.history.release_history.x_update__mutmut_208")
def test_a_tag_written_again_to_the_commit_it_names_is_unchanged(tmp_path):
    same_story(
        tmp_path, [{}, edit, {}, {}], release_history.update, {"tags.get(t) != commit": ["tags.get(None) != commit"]}
    )


@pytest.mark.equivalent("benchtools.history.release_history.x_update__mutmut_242")
def test_a_release_with_no_note_reads_as_empty_with_check_none_as_with_check_false(tmp_path):
    same_story(
        tmp_path,
        [{}, yank_and_add, {}, reword_note, {}],
        release_history.update,
        {"built[version][0], check=False)": ["built[version][0], check=None)"]},
    )


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_update__mutmut_296",
    "benchtools.history.release_history.x_update__mutmut_297",
)
def test_a_whole_stream_imports_alike_without_quiet_or_done(tmp_path):
    """fast-import's statistics go to the captured output; the stream is written whole before it is read."""
    imported = '"fast-import", "--quiet", "--done"'
    news = [imported.replace('"--quiet", ', ""), imported.replace(', "--done"', "")]
    same_story(tmp_path, [{}, yank_and_add, {}], release_history.update, {imported: news})


@pytest.mark.equivalent(
    "benchtools.history.release_history.x_update__mutmut_307",
    "benchtools.history.release_history.x_update__mutmut_312",
    "benchtools.history.release_history.x_update__mutmut_314",
    "benchtools.history.release_history.x_update__mutmut_330",
)
def test_a_tree_reset_and_cleaned_when_clean_too_or_quietly_is_the_same_tree(tmp_path):
    """Without --porcelain git status prints its long form, never empty; without --untracked-files=all an untracked
    file shows under its folder; -q only quiets what is captured."""
    status = '"status", "--porcelain", "--ignored", "--untracked-files=all"'
    news = [
        status.replace('"--porcelain"', "None"),
        status.replace('"--porcelain", ', ""),
        status.replace(', "--untracked-files=all"', ""),
    ]
    same_story(
        tmp_path,
        [{}, {}, edit, {}, ignored_only, {}],
        release_history.update,
        {status: news, '"reset", "--hard", "-q"': ['"reset", "--hard"']},
    )
