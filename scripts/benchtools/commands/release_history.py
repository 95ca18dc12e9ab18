"""Build or update a git repository with one commit per PyPI release of a package, for asv to benchmark.

The history holds every final release (not a pre-release, not yanked) that
has an sdist, lies within --since/--until and, given --python, supports that
Python, in upload order.  Each commit's tree is the content of the sdist's
top-level folder; its author and committer are fixed and both dates are the
upload time; it is tagged v<VERSION>.  So the same releases give the same
commit hashes on every machine.

A rerun appends the releases uploaded since, downloading only what is not in
the cache.  Sdists are checked against the sha256 the index publishes.  The
history is append-only: a release once committed keeps its commit.  A release
that the index later yanks or removes stays, is recorded in a git note
(refs/notes/gone) and is no longer selected; a release already built whose
published sha256 changed is refused (exit 2).  --since, --until and --python
are fixed when the repository is made: another value is refused (exit 2), so
choose another --repo for it.  The repository belongs to this script:
uncommitted changes and commits that are not its releases are discarded, and
everything is checked before the repository is touched.
"""

import dataclasses
from pathlib import Path

from packaging.version import Version

from ..history.release_history import DEFAULT_SINCE, Options, build, python_series

EXAMPLES = """\
examples:
  scripts/release-history
      build or update the equinox history
  scripts/release-history --print tags --select 3
      ... and list the tags of its three newest releases
  scripts/release-history --print hashes --select '>=0.12' > hashes.txt
  asv run HASHFILE:hashes.txt
      benchmark the releases from 0.12 on
  scripts/release-history --package jax --since 0.4.33 --python 3.11 \\
      --repo .cache/history/jax-py3.11 --print tags
      a jax history that stops where jax drops Python 3.11

exit status: 0 on success; 2 for bad arguments, an unknown version in
--select, or a sha256 mismatch; 3 for an index or download that fails (the
network, or metadata that is not what a PyPI JSON API gives); no commit is
made in either case."""


def add_arguments(parser, config) -> None:
    defaults = Options()
    parser.epilog = f"{EXAMPLES}\n\n{parser.epilog}"
    parser.add_argument("--package", default=defaults.package, metavar="NAME", help="the PyPI project (%(default)s)")
    parser.add_argument(
        "--repo", type=Path, metavar="PATH", help="the git repository (default: .cache/history/<package>)"
    )
    parser.add_argument(
        "--index",
        default=defaults.index,
        metavar="URL",
        help="a PyPI-style JSON API: URL/<package>/json, and the sdists it lists (default: %(default)s)",
    )
    parser.add_argument(
        "--cache", type=Path, default=defaults.cache, metavar="DIR", help="kept sdists (default: %(default)s)"
    )
    since = ", ".join(f"{version} for {package}" for package, version in DEFAULT_SINCE.items())
    parser.add_argument("--since", type=Version, metavar="VERSION", help=f"the oldest version (default: {since})")
    parser.add_argument("--until", type=Version, metavar="VERSION", help="the newest version (default: no bound)")
    parser.add_argument(
        "--python",
        type=python_series,
        metavar="X.Y",
        help="keep only the releases whose requires_python admits some Python X.Y.z ('>=3.11.2' does, '<3.11' "
        "does not); a release without one is kept.  Like --since, this decides which commits the history holds",
    )
    parser.add_argument(
        "--select",
        metavar="SPEC",
        help="which releases --print prints: N (the newest N), a specifier such as '>=0.12,<0.13', or versions "
        "such as 0.13.7,0.13.8 ('==1' for a bare number) (default: all)",
    )
    parser.add_argument(
        "--admits", type=python_series, metavar="X.Y", help="print only the releases that admit Python X.Y"
    )
    parser.add_argument(
        "--print",
        choices=["tags", "hashes"],
        dest="print_",
        help="print the selected releases' tags or full hashes (HASHFILE:), oldest first; progress goes to stderr",
    )


def run(args, config) -> int:
    fields = {field.name for field in dataclasses.fields(Options)}
    selected = build(Options(**{name: value for name, value in vars(args).items() if name in fields}))
    if args.print_ == "tags":
        print("\n".join(r.tag for r, _commit in selected))
    elif args.print_ == "hashes":
        print("\n".join(commit for _release, commit in selected))
    return 0
