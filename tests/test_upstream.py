"""benchtools/history/upstream.py: the upstream repository's commits."""

import pytest

from benchtools.errors import BadInput
from benchtools.history import upstream
from tests.helpers import git


def test_a_revision_is_never_read_as_a_git_option(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    assert upstream.range_commits(repo, "ALL", "main") == [git(repo, "rev-parse", "HEAD")]
    with pytest.raises(BadInput):
        upstream.range_commits(repo, f"HEAD --output={tmp_path / 'planted'}", "main")
    assert not (tmp_path / "planted").exists()
