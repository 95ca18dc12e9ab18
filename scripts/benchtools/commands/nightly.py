"""Benchmark the upstream Equinox commits that the results branch lacks, publish the site, report regressions.

OUTPUT becomes a checkout of the results branch (never written here), whose commits with results are not run again.
Exit 0 when every commit has results (a regression is in the report); 1 when a benchmark failed; 3 too when a
signal stopped it. Where no report could be made, the verdict's status is "failed" and the exit status is not 0."""

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
        "--rejudge-run", metavar="RUN_ID", help="with --publish-only: judge again, exact only, what run RUN_ID stored"
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
    # scripts/bench runs in the project folder.
    args.output = args.output.resolve()
    args.report = (args.report or args.output / "regressions.md").resolve()
    args.verdict = (args.verdict or args.output / "verdict.json").resolve()
    args.env_dir = args.env_dir and args.env_dir.resolve()
    for option in ("upstream", "results_remote"):
        if (location := getattr(args, option)) and Path(location).exists():
            setattr(args, option, str(Path(location).resolve()))
    if args.range.startswith("HASHFILE:"):
        args.range = f"HASHFILE:{Path(args.range.removeprefix('HASHFILE:')).resolve()}"


def run(args, config) -> int:
    return nightly(args)
