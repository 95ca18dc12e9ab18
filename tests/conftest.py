import itertools
import json
import math
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import BUNDLE, bundle_clone, tool

# Every property test draws the same examples on every run, so that none fails at random and stops a submission:
# a failure that Hypothesis finds by other draws becomes an explicit @example of its test.
settings.register_profile("fixed", derandomize=True)
settings.load_profile("fixed")


def minutes(item) -> float:
    """What a test costs for scripts/test's schedule: a slow test's ``@pytest.mark.slow(minutes=N)``, about what it
    takes in scripts/test on a 2-core machine, two workers busy (1 where it says nothing); a fast one, nothing.
    Never asserted: it orders the work."""
    marker = item.get_closest_marker("slow")
    return marker.kwargs.get("minutes", 1) if marker else 0


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: the shares are of the tests that run
def pytest_collection_modifyitems(config, items):
    """The slow tests first, the longest first, shared out between scripts/test's pytest-xdist workers (--dist
    worksteal) so that each worker's minutes of them are about equal. Worksteal deals the collected list out in
    consecutive shares, the first n // workers items to one worker, and so on (xdist/scheduler/worksteal.py,
    check_schedule); each share here is a worker's slow tests, then fast ones up to its size. A free worker takes
    over the second half of a busy one's waiting tests, the fast ones at the end of its share, so the minutes-long
    tests start at once on their own workers and the many short ones fill the gaps at the end. A module's slow
    tests stay together, on one worker, so that a fixture they share (test_nightly.py's story) is made once, and so
    do those of one ``slow(group=NAME)``: the environments they share (asv_env_dir's confirm-env and profile-env) are
    made once, where each worker would make its own."""
    if os.environ.get("MUTANT_UNDER_TEST", "stats") != "stats" and Path("mutmut-stats.json").exists():
        return quickest_first(items, json.loads(Path("mutmut-stats.json").read_text())["duration_by_test"])
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    sizes, left = [], len(items)
    for worker in range(workers):
        sizes.append(left // (workers - worker))
        left -= sizes[-1]
    modules = {}
    for item in items:
        if minutes(item):
            modules.setdefault(item.get_closest_marker("slow").kwargs.get("group", item.path), []).append(item)
    shares, loads = [[] for _ in sizes], [0.0] * workers
    for slow in sorted(modules.values(), key=lambda slow: -sum(map(minutes, slow))):
        room = [w for w in range(workers) if len(shares[w]) + len(slow) <= sizes[w]] or range(workers)
        worker = min(room, key=loads.__getitem__)
        shares[worker] += sorted(slow, key=minutes, reverse=True)
        loads[worker] += sum(map(minutes, slow))
    fast = iter(item for item in items if not minutes(item))
    items[:] = [
        item
        for share, size in zip(shares, sizes, strict=True)
        for item in share + list(itertools.islice(fast, size - len(share)))
    ]


def quickest_first(items, seconds):
    """mutmut runs a mutant's tests with -x: the quickest files first, each its quickest tests first, so that a killed
    mutant costs its quickest killing test, not the integration tests before it. A file's tests stay together: its
    module fixtures are made once."""
    cost = {}
    for item in items:
        cost[item.path] = cost.get(item.path, 0) + seconds.get(item.nodeid, math.inf)
    items.sort(key=lambda item: (cost[item.path], seconds.get(item.nodeid, math.inf)))


@pytest.fixture(scope="session")
def history(tmp_path_factory) -> Path:
    """A release history of two real Equinox releases, 0.13.7 and 0.13.8, built from PyPI sdists."""
    repo = tmp_path_factory.mktemp("history") / "equinox"
    built = subprocess.run(
        [
            *tool("release-history"),
            "--repo",
            str(repo),
            "--since",
            "0.13.7",
            "--until",
            "0.13.8",
        ],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build the release history from PyPI: {built.stderr.strip()[-300:]}")
    return repo


@pytest.fixture(scope="session")
def upstream(tmp_path_factory) -> Path:
    """A bare clone of upstream Equinox's real history (../shared/upstream/equinox.bundle)."""
    if not BUNDLE.is_file():
        pytest.skip(f"the upstream bundle is not at {BUNDLE}")
    return bundle_clone(tmp_path_factory.mktemp("upstream"))


@pytest.fixture(scope="session")
def asv_env_dir(worker_id) -> Path:
    """asv's environments for the slow tests that run scripts/bench, scripts/check-pr, the nightly or a replay:
    the folder those commands use by default, so that the primary environment is built once per clone, by
    whichever test needs it first, rather than once per test (a virtualenv with JAX takes a minute or two).
    Each pytest-xdist worker but the first has a folder of its own (.asv/gwN/env), and so confirm-env and
    profile-env of its own beside it: asv runs in one folder wait for each other (asvtools/lock.py), and the two
    workers would spend minutes waiting."""
    from benchtools.running import bench

    default = bench.Options().env_dir
    return default if worker_id in ("master", "gw0") else default.parent / worker_id / default.name


@pytest.fixture(scope="session")
def pulls(tmp_path_factory) -> Path:
    """A bare clone of the upstream bundle with the pull requests the tests check."""
    if not BUNDLE.is_file():
        pytest.skip(f"the upstream bundle is not at {BUNDLE}")
    repo = bundle_clone(tmp_path_factory.mktemp("pulls"))
    wanted = [f"refs/pull/{n}/head:refs/pull/{n}/head" for n in (873, 1245, 1140)]
    wanted.append("refs/pull/873/merge:refs/pull/873/merge")
    subprocess.run(["git", "-C", str(repo), "fetch", "--quiet", str(BUNDLE), *wanted], check=True)
    return repo
