"""A backfill's commits: those of an Equinox repository it benchmarks (a git range, or release tags), dealt
round-robin to shards that run in parallel jobs."""

import collections
import tempfile
from collections import namedtuple
from pathlib import Path

from packaging.version import Version

from .. import git
from ..errors import BadInput
from .probes import EQUINOX_PROJECT, RELEASE_TAG
from .release_history import select

Tag = namedtuple("Tag", "version commit")  # a release tag v<VERSION>, as release_history.select reads a release


def release_commits(repo: Path, spec: str) -> list[str]:
    release = RELEASE_TAG[EQUINOX_PROJECT]  # a final release's tag: no pre-release
    tags = {Version(found[1]): commit for name, commit in git.tags(repo).items() if (found := release.match(name))}
    if not tags:
        raise BadInput(f"{repo} has no release tag v<VERSION>")
    selected = select([Tag(v, tags[v]) for v in sorted(tags)], None if spec == "all" else spec, "--releases")
    # Two tags on one commit (a release re-tagged) select it once: a hash listed twice would be run twice.
    return list(dict.fromkeys(r.commit for r in selected))


def commits(repo: str, range_spec: str | None = None, releases: str | None = None, branch: str = "main") -> list[str]:
    """The full hashes that ``range_spec`` (asv's syntax) or ``releases`` (a --select SPEC) picks, oldest first."""
    with tempfile.TemporaryDirectory(prefix="commits-") as tmp:
        # A bare clone without file contents: commits and tags are all that is read.
        clone = git.run("clone", "--quiet", "--bare", "--filter=blob:none", git.END, repo, tmp, check=False)
        if clone.returncode != 0:
            raise BadInput(f"cannot clone {repo}: {clone.stderr.strip()}")
        if releases:
            found = release_commits(Path(tmp), releases)
        else:
            found = [c.hash for c in git.first_parent_commits(Path(tmp), branch if range_spec == "ALL" else range_spec)]
    if not found:
        raise BadInput(f"{range_spec or releases!r} selects no commit of {repo}")
    return found


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
