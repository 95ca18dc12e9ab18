"""The commits of an Equinox repository a backfill benchmarks: a git range, or release tags."""

import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import git
from ..errors import BadInput
from . import release_history


@dataclass(frozen=True)
class Tag:
    """A release tag v<VERSION> of a repository, and the commit it names."""

    version: object  # packaging.version.Version
    commit: str


def range_commits(repo: Path, spec: str, branch: str) -> list[str]:
    revisions = [branch] if spec == "ALL" else spec.split()
    return git.out(
        "rev-list", "--first-parent", "--reverse", git.END, *revisions, "--", repo=repo, error=BadInput
    ).split()


def release_commits(repo: Path, spec: str) -> list[str]:
    from packaging.version import InvalidVersion, Version

    tags = {}
    # %(*objectname) is the commit an annotated tag points at; empty for a lightweight tag.
    listing = git.out(
        "for-each-ref",
        "refs/tags/v*",
        "--format=%(refname:short) %(objectname) %(*objectname)",
        repo=repo,
        error=BadInput,
    )
    for line in listing.splitlines():
        name, obj, *commit = line.split()
        try:
            version = Version(name[1:])
        except InvalidVersion:
            continue
        if not version.is_prerelease:
            tags[version] = commit[0] if commit else obj
    history = [Tag(version=v, commit=tags[v]) for v in sorted(tags)]
    if not history:
        raise BadInput(f"{repo} has no release tag v<VERSION>")
    selected = release_history.select(history, None if spec == "all" else spec, option="--releases")
    # Two tags on one commit (a release re-tagged) select it once: a hash listed twice would be run twice.
    return list(dict.fromkeys(r.commit for r in selected))


def commits(repo: str, range_spec: str | None = None, releases: str | None = None, branch: str = "main") -> list[str]:
    """The full hashes that ``range_spec`` (asv's syntax) or ``releases`` (a --select SPEC) picks, oldest first."""
    with tempfile.TemporaryDirectory(prefix="commits-") as tmp:
        # A bare clone without file contents: commits and tags are all that is read.
        clone = git.run("clone", "--quiet", "--bare", "--filter=blob:none", git.END, repo, tmp, check=False)
        if clone.returncode != 0:
            raise BadInput(f"cannot clone {repo}: {clone.stderr.strip()}")
        found = release_commits(Path(tmp), releases) if releases else range_commits(Path(tmp), range_spec, branch)
    if not found:
        raise BadInput(f"{range_spec or releases!r} selects no commit of {repo}")
    return found
