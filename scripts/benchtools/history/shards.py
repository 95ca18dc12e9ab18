"""Round-robin shards of a list of commits, for a backfill that runs them in parallel jobs."""

import collections


def read_commits(lines, name: str) -> list[str]:
    """The commits of a list, one per line, blank lines ignored; ValueError names what is wrong."""
    try:
        commits = [line.strip() for line in lines if line.strip()]
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not a text list of commits ({error.reason} at byte {error.start})") from None
    if not commits:
        raise ValueError(f"{name}: no commits")
    bad = [c for c in commits if len(c.split()) != 1]
    if bad:
        raise ValueError(f"{name}: one commit per line, not {bad[0]!r}")
    duplicates = sorted(c for c, n in collections.Counter(commits).items() if n > 1)
    if duplicates:
        raise ValueError(f"{name}: listed more than once: {' '.join(duplicates)}")
    return commits


def shard(commits: list[str], shards: int, index: int) -> list[str]:
    """Shard ``index`` of ``shards``: commit i goes to shard i mod ``shards``, in the list's order."""
    return commits[index::shards]


def non_empty_shards(commits: list[str], shards: int) -> list[int]:
    return list(range(min(shards, len(commits))))
