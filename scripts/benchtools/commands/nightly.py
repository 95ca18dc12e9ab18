"""Benchmark the upstream Equinox commits that the results branch lacks, publish the site, report regressions.

  1. OUTPUT becomes a checkout of the results branch of --results-remote (the
     branch is only read: results that a killed run left in OUTPUT stay, and
     the next run does not benchmark them again).
  2. scripts/bench --repo UPSTREAM --machine MACHINE --output OUTPUT RANGE
     benchmarks the commits of RANGE that have no results yet and publishes
     the site of every result in OUTPUT into OUTPUT/html (rebuilt each run).
     RANGE NEW is every commit after the newest one with results; on a branch
     without results for this machine, it is the branch tip alone (a history
     is for a backfill, not a nightly run).
  3. scripts/regressions --explain writes the regression report (Markdown)
     to --report, to stdout and, in GitHub Actions, to the job summary, and
     its verdict as data (JSON) to --verdict: scripts/open-regression-issue
     decides from the verdict alone and carries the report.  When the
     results branch had a baseline (the newest commit with results before
     this run) and the run benchmarked new commits, it compares the baseline
     with the newest of them, and re-measures the baseline in this job, side
     by side with the new commit, for every timing suspect (the gate's
     confirm step), so that a timing verdict never compares two runners or
     two nights; deterministic metrics compare across nights.  The first
     night reports asv's step detection over what it ran.  A night that
     benchmarked nothing after the baseline (no new commit, or a range of
     older ones) judges nothing, saying why: no regression counts.  Each
     deterministic or cost regression and each large improvement comes with
     its cause (one update profiled in both commits, as asv profile does).
  4. --site copies the site into a folder for GitHub Pages.

With --publish-only, step 2 runs no benchmark: the site is published from
the results on the branch alone, and step 3 judges nothing (it ran nothing
new) unless --rejudge-run names the run whose stored results to judge again:
then it compares them with the baseline before them, exact metrics only
(deterministic and cost: they need no re-measuring), explaining nothing, so
that the alert can check the verdict of the job that ran upstream code
against one made where none runs.  The workflows make the site for Pages so,
in a job of its own after the results are stored, so that nothing a job
running upstream Equinox wrote reaches Pages but the validated results.

It never writes the results branch: scripts/push-results OUTPUT/results does,
in a job that runs no benchmarked code and so is the only one holding a token
that can push.  No new commit is not a failure.  The asv machine name is
fixed (default github-actions), so that results from different runners line
up on one graph.

Exit status: 0 when every commit has results (a regression is in the report,
not in the status); 1 when a benchmark failed (scripts/bench's 1); 2 for bad
arguments, a repository that does not exist, or bad results or site files;
3 when a command it ran failed, a remote could not be reached, or a SIGINT
or SIGTERM stopped it; 4 when it, scripts/bench or the gate crashed.
Whenever no regression report could be made, the verdict's status is
"failed" with the stage, exit code and message, the report says so in a line
that starts with "No report:" (never an empty report), and the exit status
is not 0.
"""

from pathlib import Path

from ..project import ROOT
from ..running.nightly import nightly
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument(
        "range", nargs="?", default="NEW", metavar="RANGE", help="asv's range of upstream commits (default: NEW)"
    )
    parser.add_argument("--upstream", metavar="URL|PATH", help="the Equinox repository (default: asv.conf.json's)")
    common_args.add_results_branch(parser)
    common_args.add_machine(parser, "github-actions", "asv machine name, the same on every runner")
    common_args.add_output(parser, ROOT / ".cache" / "nightly", "the results checkout (default: %(default)s)")
    parser.add_argument("--report", type=Path, metavar="FILE", help="the report (default: OUTPUT/regressions.md)")
    parser.add_argument("--verdict", type=Path, metavar="FILE", help="the verdict (default: OUTPUT/verdict.json)")
    parser.add_argument("--site", type=Path, metavar="DIR", help="copy the published site into DIR (a new folder)")
    parser.add_argument(
        "--publish-only", action="store_true", help="run no benchmark: publish from the results branch alone"
    )
    parser.add_argument(
        "--rejudge-run",
        metavar="RUN_ID",
        help="with --publish-only: judge again, exact metrics only, the commits that run RUN_ID stored",
    )
    common_args.add_quick(parser, "run each benchmark once (scripts/bench --quick)")
    common_args.add_bench(parser)
    common_args.add_jax(parser)
    common_args.add_env_dir(parser, None, "default: scripts/bench's")
    common_args.add_confirm(parser)


def check(parser, args) -> None:
    if args.rejudge_run and not args.publish_only:
        parser.error("--rejudge-run goes with --publish-only")
    if args.site and args.site.exists() and any(args.site.iterdir()):
        parser.error(f"--site {args.site}: not empty")
    # scripts/bench runs in the project folder: paths are made absolute from here.
    args.output = args.output.resolve()
    args.report = (args.report or args.output / "regressions.md").resolve()
    args.verdict = (args.verdict or args.output / "verdict.json").resolve()
    args.env_dir = args.env_dir and args.env_dir.resolve()
    for option in ("upstream", "results_remote"):
        location = getattr(args, option)
        if location and Path(location).exists():
            setattr(args, option, str(Path(location).resolve()))
    if args.range.startswith("HASHFILE:"):
        args.range = f"HASHFILE:{Path(args.range.removeprefix('HASHFILE:')).resolve()}"


def run(args, config) -> int:
    return nightly(args)
