"""Keep a git repository holding one commit per PyPI release of a package.

asv benchmarks the commits of a git repository. To benchmark published
releases instead, this script turns a package's release history into such a
repository. Run it with --help for the details.
"""

from pathlib import Path

from packaging.version import Version

from .. import cli
from ..history.release_history import DEFAULT_INDEX, DEFAULT_SINCE, Options, build, python_series
from ..project import HISTORY_DIR, ROOT


def parse_args(argv):
    parser = cli.parser(
        "scripts/release-history",
        """\
Build or update a git repository with one commit per PyPI release of a
package, so that asv can benchmark releases as if they were commits.

The history holds every final release (not a pre-release, not yanked) that
has an sdist, lies within --since/--until and, given --python, supports that
Python, in upload order. Each commit's tree is the content of the sdist's
top-level folder; its author and committer are fixed and both dates are the
upload time; it is tagged v<VERSION>. So the same releases give the same
commit hashes on every machine.

A rerun appends the releases uploaded since, downloading only what is not in
the cache. Sdists are checked against the sha256 the index publishes. The
history is append-only: a release once committed keeps its commit, so results
stored under its hash and under those of later releases stay valid. A
release that the index later yanks or removes stays in the history, is
recorded in a git note (refs/notes/gone) and is no longer selected; a release
already built whose published sha256 changed is refused (exit 2). --since,
--until and --python are fixed when the repository is made: another value
is refused (exit 2), so choose another --repo for it. The repository belongs
to this script: uncommitted changes and commits that are not releases it
built are discarded, and everything is checked before the repository is
touched.""",
        epilog="""\
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
  scripts/release-history --package jax --since 0.4.33 --python 3.13 \\
      --print tags --admits 3.11
      the jax history up to the newest for Python 3.13, printing the
      releases that Python 3.11 can run

exit status: 0 on success; 2 for bad arguments, an unknown version in
--select, or a sha256 mismatch; 3 for an index or download that fails (the
network, or metadata that is not what a PyPI JSON API gives); no commit is
made in either case.""",
    )
    parser.add_argument(
        "--package",
        default="equinox",
        metavar="NAME",
        help="the PyPI project (default: %(default)s)",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        metavar="PATH",
        help=f"the git repository to create or update (default: {HISTORY_DIR}/<package>)",
    )
    parser.add_argument(
        "--index",
        default=DEFAULT_INDEX,
        metavar="URL",
        help="base URL of a PyPI-style JSON API: metadata is read from "
        "URL/<package>/json, sdists from the URLs listed there "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=ROOT / ".cache/sdists",
        metavar="DIR",
        help="where downloaded sdists are kept, so that reruns need not download them again (default: %(default)s)",
    )
    parser.add_argument(
        "--since",
        type=Version,
        metavar="VERSION",
        help="oldest version in the history (default: "
        + ", ".join(f"{v} for {p}" for p, v in DEFAULT_SINCE.items())
        + ", no lower bound for other packages)",
    )
    parser.add_argument(
        "--until",
        type=Version,
        metavar="VERSION",
        help="newest version in the history (default: no upper bound)",
    )
    parser.add_argument(
        "--python",
        type=python_series,
        metavar="X.Y",
        help="keep only the releases whose sdist's requires_python (as the "
        "index lists it) admits some Python X.Y.z: '>=3.11', '>3.11' and "
        "'>=3.11.2' admit 3.11, '<3.11' and '!=3.11.*' do not. A release "
        "without requires_python is kept; one whose requires_python is not "
        "a valid specifier is kept with a warning. Like --since/--until, this "
        "decides which commits the history holds: leaving out a release "
        "changes the hash of every commit after it, so a repository takes "
        "another --python only when that appends releases after the built "
        "ones (default: no filter, every release)",
    )
    parser.add_argument(
        "--select",
        metavar="SPEC",
        help="which releases --print prints; the history is built whole "
        "regardless. SPEC is N, a number: the newest N releases in upload "
        "order; or a version specifier such as '>=0.12,<0.13'; or a "
        "comma-separated list of versions such as 0.13.7,0.13.8 (a single "
        "version that is a bare number needs '==', as in '==1') "
        "(default: all releases)",
    )
    parser.add_argument(
        "--admits",
        type=python_series,
        metavar="X.Y",
        help="print only the selected releases whose requires_python admits "
        "Python X.Y, as --python reads it; unlike --python this changes "
        "nothing in the history (default: print every selected release)",
    )
    parser.add_argument(
        "--print",
        choices=["tags", "hashes"],
        dest="print_",
        help="print the selected releases to stdout, oldest first, one per "
        "line: their tags (v<VERSION>) or their full commit hashes (for asv "
        "run HASHFILE:<file>). Progress and a summary go to stderr either way",
    )
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    selected = build(Options(**vars(args)))
    if args.print_ == "tags":
        print("\n".join(r.tag for r, _commit in selected))
    elif args.print_ == "hashes":
        print("\n".join(commit for _release, commit in selected))
    return 0
