import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import BUNDLE, ROOT, bundle_clone


@pytest.fixture(scope="session")
def history(tmp_path_factory) -> Path:
    """A release history of two real Equinox releases, 0.13.7 and 0.13.8, built from PyPI sdists."""
    repo = tmp_path_factory.mktemp("history") / "equinox"
    built = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "release-history"),
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
