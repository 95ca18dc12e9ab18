"""Run the tree_at benchmark suite with asv, then publish asv's HTML site.

On a fresh clone this sets everything up: the project's virtualenv
(scripts/setup), the release-history repository when one is needed
(scripts/release-history: one commit per PyPI release, built from
sha256-checked sdists), and asv's own virtualenvs.

What is benchmarked, each kept in its own results and site folder:

  default          the first answer: the newest Equinox release, in every
                   environment of asv.conf.json (below), its exact figures
                   (every benchmark of a kind in benchmarks/metrics.py that
                   is no timing) and tree_at's steady time (tree_map
                   passes); then the headline's figures (scripts/headline)
                   over fresh processes, each with the interval a second
                   run's median lies in, in the newest JAX's environment.
                   The exact figures do not depend on the load, so their
                   runs overlap, up to one per core (environments are
                   created there); the timings then run alone, one
                   environment after another, and the headline after them.
                   The page leads with the exact figures.  Folder: answer.
                   Any of RANGE, --releases, --repo, --jax-history,
                   --bench, --quick or --full selects the runs below
                   instead.
  --full           Equinox releases from PyPI (--releases picks them; the
                   3 newest without it), every benchmark, in every
                   environment of asv.conf.json: JAX 0.12.0.1 on
                   Python 3.13, the newest JAX; on Python 3.11, JAX 0.4.33,
                   which runs every release from 0.10.11 on, and JAX 0.10.2;
                   releases that cannot import are recorded as failed.
                   --releases, --bench and --quick imply it.
                   Folder: releases.
  --repo PATH|URL  any git repository of Equinox, RANGE of its commits.
                   Folder: upstream for asv.conf.json's repo, else repo-NAME.
  --jax-history    JAX releases from PyPI (--releases picks them) with
                   Equinox held at 0.13.8 (asv.jax.conf.json), each on the
                   oldest of the configuration's Pythons that it supports
                   (3.11 up to JAX 0.10.2, 3.13 from 0.11.0), and the newest
                   3.11 release on 3.13 as well, to link the two lines.
                   Folder: jax-history.

  --here [PYTHON]  the JAX, jaxlib and Equinox installed in PYTHON (default:
                   the first python3 on PATH), on whatever device that JAX
                   runs on, a GPU included: asv's existing-environment mode
                   runs the suite in that Python as it is, so no virtualenv
                   is built and no registry is asked (it works offline).  It
                   runs the first answer's exact and steady figures, then a
                   step with tree_at against its tuple under each wrapping
                   (bench_steady, bench_overhead.SteadyStateRatio), the
                   state-size sweep's ratios and the dispatch timings
                   (bench_sweep; its seconds per call with --bench
                   bench_sweep); --bench and --quick narrow it.  Where valgrind is missing the instruction counts skip,
                   each saying why.  The device (JAX's backend, the device
                   kind and count, the driver where JAX reports it) and the
                   JAX versions go into every result's params, and into the
                   machine name (HOST-DEVICE, unless --machine is given), so
                   two devices never share a graph, a comparison or a verdict.
                   --docs FILE writes its here-time and here-answer blocks.
                   Folder: here (docs/here.md).

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
from ..running import here
from ..running.bench import BENCH_TIME_BLOCK, DEFAULT_RELEASES, Options, bench
from ..trial import headline
from . import common_args

ANSWER_RELEASES = "1"  # the first answer's: the newest release


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
        metavar="SPEC",
        default=None,
        help="which releases to benchmark, every benchmark of each: N (the newest N), 'all', a version range "
        "such as '>=0.12,<0.13', or versions such as '0.13.7,0.13.8' "
        f"(default: {DEFAULT_RELEASES} with --full; without any selection, the first answer's newest release)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help=f"every benchmark over the {DEFAULT_RELEASES} newest releases (or --releases), in every environment, "
        "instead of the first answer",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--repo", metavar="PATH|URL", help="benchmark this git repository of Equinox instead of the releases"
    )
    source.add_argument(
        "--here",
        nargs="?",
        const="python3",
        metavar="PYTHON",
        help="measure the JAX and Equinox installed in PYTHON (default: python3 on PATH) through asv's "
        "existing-environment mode: no virtualenv is built, nothing is downloaded",
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
    common_args.add_docs(parser, f"{BENCH_TIME_BLOCK}: what the run took, by phase, and under what load")
    args = parser.parse_args(argv)
    if args.range and not args.repo:
        parser.error("RANGE needs --repo; pick releases with --releases")
    if args.here is not None:
        if args.releases or args.full:
            parser.error("--here measures the Equinox installed in PYTHON: it takes no --releases or --full")
        del args.full
        return Options(**{**vars(args), "releases": DEFAULT_RELEASES})
    selected = any((args.range, args.releases, args.repo, args.jax_history, args.bench, args.quick, args.full))
    del args.full
    if selected:
        return Options(**{**vars(args), "releases": args.releases or DEFAULT_RELEASES})
    return Options(**{**vars(args), "releases": ANSWER_RELEASES}, answer=True)


def main(argv):
    options = parse_args(argv)
    if options.here is not None:
        return here.here(options)
    return bench(options, headline.first_answer if options.answer else None)
