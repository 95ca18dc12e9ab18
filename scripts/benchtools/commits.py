#!/usr/bin/env python3
"""Print the commits of an Equinox repository that a backfill should benchmark, oldest first.

Either --range RANGE, read as `asv run RANGE` reads it (git rev-list
--first-parent): ALL for the whole branch, A..B, or B^! for the single commit
B (a bare name B means B and all its ancestors); or --releases SPEC, which
picks the
repository's release tags v<VERSION> (final releases only) as
scripts/release-history --select does: N (the newest N), 'all', a version
range such as '>=0.12,<0.13', or versions such as 0.13.7,0.13.8.  An empty
value counts as not given, so that a workflow can pass both of its inputs;
with neither, every release (--releases all): the backfill's default, so that
the results branch, and the history the site tells, cover every release.

The hashes are full and pinned when printed, so that every shard of a backfill
runs the same commits even if the branch moves meanwhile:

  scripts/commits --releases '>=0.12' > hashes.txt
  scripts/shard --shards 4 --index 0 hashes.txt > slice.txt

Exit status: 0 on success; 2 for a repository that cannot be read, a range
that git refuses or that selects nothing, or an unknown release.
"""

import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import cli, git, release_history
from .cli import BadInput
from .project import upstream_url


@dataclass(frozen=True)
class Tag:
    """A release tag v<VERSION> of a repository, and the commit it names."""

    version: object  # packaging.version.Version
    commit: str


def parse_args(argv):
    parser = cli.parser("scripts/commits", __doc__)
    parser.add_argument("--range", metavar="RANGE", help="ALL or a git range, as asv run reads it")
    parser.add_argument("--releases", metavar="SPEC", help="release tags instead of a range")
    parser.add_argument("--repo", metavar="URL|PATH", default=upstream_url(),
                        help="the Equinox repository (default: asv.conf.json's, %(default)s)")
    parser.add_argument("--branch", default="main", help="the branch that ALL follows (default: %(default)s)")
    args = parser.parse_args(argv)
    args.range, args.releases = args.range or None, args.releases or None
    if args.range is not None and args.releases is not None:
        parser.error("give either --range RANGE or --releases SPEC, not both")
    if args.range is None and args.releases is None:
        args.releases = "all"
    if args.range in ("NEW", "EXISTING"):
        parser.error(f"RANGE {args.range} depends on existing results; scripts/nightly runs NEW")
    return args


def range_commits(repo: Path, spec: str, branch: str) -> list[str]:
    revisions = [branch] if spec == "ALL" else spec.split()
    return git.out("rev-list", "--first-parent", "--reverse", git.END, *revisions, "--",
                   repo=repo, error=BadInput).split()


def release_commits(repo: Path, spec: str) -> list[str]:
    from packaging.version import InvalidVersion, Version

    tags = {}
    # %(*objectname) is the commit an annotated tag points at; empty for a lightweight tag.
    listing = git.out("for-each-ref", "refs/tags/v*", "--format=%(refname:short) %(objectname) %(*objectname)",
                      repo=repo, error=BadInput)
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


def main(argv):
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="commits-") as tmp:
        # A bare clone without file contents: commits and tags are all that is read.
        clone = git.run("clone", "--quiet", "--bare", "--filter=blob:none", git.END, args.repo, tmp, check=False)
        if clone.returncode != 0:
            raise BadInput(f"cannot clone {args.repo}: {clone.stderr.strip()}")
        repo = Path(tmp)
        commits = release_commits(repo, args.releases) if args.releases else \
            range_commits(repo, args.range, args.branch)
    if not commits:
        raise BadInput(f"{args.range or args.releases!r} selects no commit of {args.repo}")
    print("\n".join(commits))
    return 0
