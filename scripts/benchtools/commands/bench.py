"""Run the tree_at benchmark suite with asv, then publish asv's HTML site.

On a fresh clone this sets everything up: the project's virtualenv
(scripts/setup), the release-history repository when one is needed
(scripts/release-history: one commit per PyPI release, built from
sha256-checked sdists), and asv's own virtualenvs.

What is benchmarked, each kept in its own results and site folder:

  default          Equinox releases from PyPI (--releases picks them), in
                   every environment of asv.conf.json: JAX 0.12.0.1 on
                   Python 3.13, the newest JAX; on Python 3.11, JAX 0.4.33,
                   which runs every release from 0.10.11 on, and JAX 0.10.2;
                   releases that cannot import are recorded as failed.
                   Folder: releases.
  --repo PATH|URL  any git repository of Equinox, RANGE of its commits.
                   Folder: upstream for asv.conf.json's repo, else repo-NAME.
  --jax-history    JAX releases from PyPI (--releases picks them) with
                   Equinox held at 0.13.8 (asv.jax.conf.json), each on the
                   oldest of the configuration's Pythons that it supports
                   (3.11 up to JAX 0.10.2, 3.13 from 0.11.0), and the newest
                   3.11 release on 3.13 as well, to link the two lines.
                   Folder: jax-history.

Python 3.13 is the one scripts/setup builds (.asv/python/bin, put first on
asv's PATH).  Where setup could not provide it, the 3.13 environments are
left out with one line that says why.

--quick runs each benchmark once, into a folder of its own (NAME-quick), so
that single samples never mix with measurements.

A commit that already has results for an environment on this machine is
not run again there, so an interrupted run resumes where it stopped and a
rerun with nothing new returns at once.  Results files that a killed run
left unreadable are moved to .asv/quarantine, never deleted.  Results are
filed under the asv machine name (--machine), which must stay the same for
results to line up across runs.

The summary counts, per environment, the commits that ran, failed (nothing
measured: the release did not build, install or import there) and skipped.

Exit status: 0 when every selected commit has results, even where a release
failed as a whole (an old release on a new JAX is expected to); 1 when a
benchmark failed in a commit where the others ran, which is a bug in the
suite, or a commit has no results; 2 for bad arguments (all checked before
any results file is moved), or when the range cannot be had; 3 when the
package index or a download fails, or asv fails.
"""

from .. import cli
from ..project import ROOT
from ..running.bench import DEFAULT_RELEASES, Options, bench
from . import common_args


def parse_args(argv) -> Options:
    parser = cli.parser("scripts/bench", __doc__)
    parser.add_argument(
        "range",
        nargs="?",
        metavar="RANGE",
        help="with --repo: asv's range syntax for that repository, such as ALL, NEW, "
        "main..my-branch, a tag, or HASHFILE:PATH (default: the branch tip)",
    )
    common_args.add_quick(parser)
    parser.add_argument(
        "--releases",
        default=DEFAULT_RELEASES,
        metavar="SPEC",
        help="which releases to benchmark: N (the newest N), 'all', a version range such "
        "as '>=0.12,<0.13', or versions such as '0.13.7,0.13.8' "
        f"(default: {DEFAULT_RELEASES})",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--repo", metavar="PATH|URL", help="benchmark this git repository of Equinox instead of the releases"
    )
    source.add_argument(
        "--jax-history", action="store_true", help="benchmark JAX releases with Equinox held fixed (asv.jax.conf.json)"
    )
    parser.add_argument(
        "--branch", default="main", help="with --repo: the branch that NEW, ALL and the default follow (default: main)"
    )
    common_args.add_jax(parser)
    common_args.add_machine(parser, help="asv machine name that results are filed under (default: this host's name)")
    common_args.add_output(parser, ROOT, "where results/ and html/ go (default: the project folder)")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="run again the commits whose recorded results have failures or skips "
        "(only the benchmarks that did not succeed run)",
    )
    common_args.add_env_dir(parser, ROOT / ".asv" / "env", "default: .asv/env in the project folder")
    parser.add_argument(
        "--index", metavar="URL", help="PyPI JSON API base for scripts/release-history (default: its own)"
    )
    common_args.add_bench(parser)
    parser.add_argument(
        "--include-unchanged",
        action="store_true",
        help="with --repo: also benchmark the commits that leave equinox/ and pyproject.toml as their parent had "
        "them (by default they are named and left out: the same package would be measured again)",
    )
    args = parser.parse_args(argv)
    if args.range and not args.repo:
        parser.error("RANGE needs --repo; pick releases with --releases")
    return Options(**vars(args))


def main(argv):
    return bench(parse_args(argv))
