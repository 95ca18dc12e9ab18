"""benchtools/history/shards.py: a backfill's commits dealt to its shards."""

import pytest

from benchtools.errors import BadInput
from benchtools.history import shards
from tests.helpers import command


def test_shards_interleave_and_cover_every_commit(tmp_path):
    commits_ = [f"c{i}" for i in range(10)]
    slices = [shards.shard(commits_, 3, i) for i in range(3)]
    assert slices[0] == ["c0", "c3", "c6", "c9"]
    assert sorted(sum(slices, [])) == sorted(commits_)
    (tmp_path / "two.txt").write_text("c0\nc1\n")
    assert command("shard", "--shards", 4, "--indices", tmp_path / "two.txt").stdout.strip() == "[0, 1]"
    assert shards.read_commits(["a\n", "\n", " b \n"], "f") == ["a", "b"]
    for lines, message in [([], "no commits"), (["a b"], "one commit per line"), (["a", "a"], "more than once")]:
        with pytest.raises(BadInput, match=message):
            shards.read_commits(lines, "f")
