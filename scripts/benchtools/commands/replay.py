"""Replay upstream history night by night through the nightly workflow's own jobs, on this machine.

RANGE (git's and asv's range syntax, e.g. v0.13.6..main) of --upstream is
taken as its first-parent commits, oldest first, and split into nights:
every --per-night K commits, or (--by-date, the default) one night per
commit date in UTC.  Unless --no-base, a first night, "base", holds the
commit before the range alone, so that the first real night has a baseline
on the results branch, as a nightly that has run before has.

The replay owns everything under OUTPUT (a new folder): a bare upstream
(upstream.git), the results remote (github/replay/equinox-benchmarks.git,
which is $GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git in the jobs), the
snapshot of this repository that every job checks out (project.git), each
night's jobs, logs and artifacts (nights/NNN/), the deployed site (pages/)
and the record (replay.json, written after every night, with every issue the
stand-in holds).  Each night:

  1. the upstream's main is moved to the night's last commit (git push from
     --upstream, with the tags its history holds);
  2. each job of the workflow (default: .github/workflows/nightly.yml as the
     snapshot has it) runs in the order its `needs` give, when its `if:`
     holds, step by step as the YAML says: actions/checkout is a fresh clone
     of the snapshot, actions/setup-python puts this machine's interpreter
     of that version first on PATH, the artifact actions copy folders
     between the night's jobs, deploy-pages copies the site into pages/, and
     a `run:` runs in bash as GitHub runs it.  A job gets only the programs
     of this machine's PATH without its Pythons, and python3 is the runner's
     (--runner-python; on ubuntu-latest it is 3.12, which scripts/setup
     refuses), so a job without setup-python fails as it would there;
  3. the alert goes to a stand-in of GitHub's issues API on 127.0.0.1,
     started by this command ($GITHUB_API_URL in the jobs), with each job's
     github.token able to write issues only if its permissions say so.

A step the replay cannot map (an unknown `uses:`, an option of an action or
a job key it does not model, an expression context it has no value for, a
Python version this machine lacks) stops it before the first night (exit 3).
Every scripts/nightly line is given --upstream (the replay's upstream) and
--env-dir (asv's environments, reused across nights and jobs), and --bench
and --jax when given; docs/replay.md has the table of substitutions.

The record lists, per night: each commit benchmarked, skipped (no result) or
failed (from the results files and the verdict's failed_commits), the
verdict (status, what counted, the suspects), the issue action (none,
opened #N, updated #N, reopened #N, commented on #N, kept #N) and each job's result and wall time.  The
table goes to --docs between the markers of --table.

Exit status: 0 when every job of every night passed or was skipped by its
`if:`; 1 when a job failed (the table says which; a benchmark that failed on
a real commit fails the run job, as it fails the nightly); 2 for bad
arguments or an OUTPUT that is not new; 3 when the workflow has a step the
replay cannot map, or git or the stand-in failed; 4 on a crash; 143 when
stopped by SIGTERM, which also kills the step that was running (its whole
process group): OUTPUT/replay.json keeps the nights already done.
"""

import signal
from pathlib import Path

from ..errors import BadInput
from ..project import ROOT
from ..running import replay, season
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("range", metavar="RANGE", help="the upstream commits to replay, e.g. v0.13.6..main")
    parser.add_argument("--upstream", required=True, type=Path, metavar="PATH", help="the Equinox repository")
    parser.add_argument("--output", required=True, type=Path, metavar="DIR", help="the replay's folder (a new one)")
    nights = parser.add_mutually_exclusive_group()
    nights.add_argument("--per-night", type=common_args.at_least(1), metavar="K", help="K commits a night")
    nights.add_argument("--by-date", action="store_true", help="one night per commit date in UTC (the default)")
    nights.add_argument(
        "--every-day", action="store_true", help="one night per calendar day (UTC), days without a commit included"
    )
    parser.add_argument(
        "--events",
        type=Path,
        metavar="FILE",
        help="a season's events, JSON {night label: [event, ...]}, each done before its night: "
        + "; ".join(f"{name}: {what}" for name, what in season.EVENTS.items())
        + ". The record then lists where the alarm broke the season's goals (season_problems)",
    )
    parser.add_argument("--no-base", action="store_true", help="no base night on the commit before RANGE")
    parser.add_argument("--limit", type=int, metavar="N", help="replay the first N nights only")
    parser.add_argument("--workflow", type=Path, metavar="FILE", help="(default: the snapshot's nightly.yml)")
    parser.add_argument(
        "--checkout",
        choices=("worktree", "HEAD"),
        default="worktree",
        help="what each job checks out: this working tree as it is, or its HEAD commit (default: %(default)s)",
    )
    common_args.add_env_dir(parser, None, "shared by every night; default: OUTPUT/asv-env")
    common_args.add_bench(parser, "only benchmarks matching REGEX, given to scripts/nightly; repeatable")
    common_args.add_jax(parser)
    parser.add_argument("--quick", action="store_true", help="dispatch the workflow with its quick input")
    parser.add_argument(
        "--runner-python", metavar="PYTHON", help="the runner's python3 for jobs without setup-python (default: 3.12)"
    )
    parser.add_argument(
        "--docs", type=Path, default=ROOT / "docs" / "replay.md", metavar="PAGE", help="the table's page (%(default)s)"
    )
    parser.add_argument("--no-docs", action="store_true", help="write no table, only OUTPUT/replay.json")
    parser.add_argument("--table", metavar="NAME", help="the table's markers in --docs (default: RANGE)")
    parser.add_argument("--fail-fast", action="store_true", help="stop after the first night in which a job failed")
    parser.add_argument("--keep-workspaces", action="store_true", help="keep each job's checkout and RUNNER_TEMP")


def stop_on_sigterm(signum, _frame):
    """SIGTERM unwinds the replay as Ctrl-C does, so that the running step's process group is killed with it."""
    raise SystemExit(128 + signum)


def run(args, config) -> int:
    if not (args.upstream / "HEAD").exists() and not (args.upstream / ".git").exists():
        raise BadInput(f"--upstream {args.upstream}: not a git repository")
    output = args.output.resolve()
    options = replay.Options(
        source=args.upstream.resolve(),
        revisions=args.range,
        output=output,
        per_night=args.per_night,
        workflow=args.workflow and args.workflow.resolve(),
        checkout=args.checkout,
        env_dir=(args.env_dir or output / "asv-env").resolve(),
        bench=args.bench,
        jax=args.jax,
        quick=args.quick,
        runner_python=args.runner_python,
        docs=None if args.no_docs else args.docs.resolve(),
        table=args.table or args.range,
        base=not args.no_base,
        fail_fast=args.fail_fast,
        keep_workspaces=args.keep_workspaces,
        limit=args.limit,
        every_day=args.every_day,
        events=season.read_events(args.events) if args.events else None,
    )
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    return replay.replay(options)
