"""Round-robin shards of a list of commits, for a backfill that runs them in parallel jobs."""

import collections

from ..errors import BadInput


def read_commits(lines, name: str) -> list[str]:
    try:
        commits = [line.strip() for line in lines if line.strip()]
    except UnicodeDecodeError as error:
        raise BadInput(f"{name}: not a text list of commits ({error.reason} at byte {error.start})") from None
    if not commits:
        raise BadInput(f"{name}: no commits")
    if bad := [c for c in commits if len(c.split()) != 1]:
        raise BadInput(f"{name}: one commit per line, not {bad[0]!r}")
    if duplicates := sorted(c for c, n in collections.Counter(commits).items() if n > 1):
        raise BadInput(f"{name}: listed more than once: {' '.join(duplicates)}")
    return commits


def shard(commits: list[str], shards: int, index: int) -> list[str]:
    return commits[index::shards]
