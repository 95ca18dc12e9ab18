import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import BUNDLE, bundle_clone, tool

# Every property test draws the same examples on every run, so that none fails at random and stops a submission:
# a failure that Hypothesis finds by other draws becomes an explicit @example of its test.
settings.register_profile("fixed", derandomize=True)
settings.load_profile("fixed")


def pytest_collection_modifyitems(items):
    """The slow tests first: scripts/test's pytest-xdist workers share the tests out and take over a busy
    worker's waiting ones when free (--dist worksteal), so the minutes-long ones start at once and the many
    short ones fill the gaps at the end."""
    items.sort(key=lambda item: not item.get_closest_marker("slow"))


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
