"""Replay upstream history night by night through the nightly workflow's own jobs, on this machine.

Its alerts go to a stand-in of GitHub's issues API on 127.0.0.1. Exit 1: a job failed; 3 too when a step cannot be
mapped (found before the first night); 143 on SIGTERM, which kills the running step's process group."""

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
    parser.add_argument("--checkout", choices=("worktree", "HEAD"), default="worktree", help="(default: %(default)s)")
    common_args.add_env_dir(parser, None, "shared by every night; default: OUTPUT/asv-env")
    common_args.add_bench(parser, "only benchmarks matching REGEX, given to scripts/nightly; repeatable")
    common_args.add_jax(parser)
    common_args.add_confirm(parser, optional=False, default=None, help="given to scripts/nightly (default: its own)")
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
    """SIGTERM unwinds the replay as Ctrl-C does, killing the running step's process group."""
    raise SystemExit(128 + signum)


def check(parser, args) -> None:
    if not (args.upstream / "HEAD").exists() and not (args.upstream / ".git").exists():
        raise BadInput(f"--upstream {args.upstream}: not a git repository")
    args.upstream, args.output = args.upstream.resolve(), args.output.resolve()
    args.workflow = args.workflow and args.workflow.resolve()
    args.env_dir = (args.env_dir or args.output / "asv-env").resolve()
    args.docs = None if args.no_docs else args.docs.resolve()
    args.table = args.table or args.range
    args.events = season.read_events(args.events) if args.events else None


def run(args, config) -> int:
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    return replay.replay(args)
