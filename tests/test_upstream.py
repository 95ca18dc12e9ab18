"""git.first_parent_commits, the one walk of upstream history (history/shards.commits, the replay)."""

import pytest

from benchtools.errors import BadInput
from benchtools.git import first_parent_commits
from tests.helpers import git


def test_a_revision_is_never_read_as_a_git_option(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    assert [c.hash for c in first_parent_commits(repo, "main")] == [git(repo, "rev-parse", "HEAD")]
    with pytest.raises(BadInput):
        first_parent_commits(repo, f"HEAD --output={tmp_path / 'planted'}")
    assert not (tmp_path / "planted").exists()
