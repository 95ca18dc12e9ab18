"""Measure the regression gate: its false-alarm rate, and the smallest tree_at slowdown it catches.

Each trial benchmarks a release beside A/A, Python-slowed (--calls) and C-slowed (--c-slowdowns) copies of it in one
scripts/bench run; every change seen goes to OUTPUT/changes.json."""

from ..project import ROOT
from ..running.bench import ENV_DIR
from ..trial import detector
from . import common_args


def add_arguments(parser, config) -> None:
    at_least = common_args.at_least
    parser.add_argument("--release", default=config.reference_equinox, help="the release to copy (%(default)s)")
    parser.add_argument("--trials", type=at_least(1), default=5, help="benchmark runs (%(default)s)")
    parser.add_argument(
        "--aa-copies", type=at_least(1), default=1, metavar="N", help="A/A copies a trial (%(default)s)"
    )
    calls = common_args.listed(int, "whole numbers")
    parser.add_argument("--calls", type=calls, default="100,200,400,800", help="extra calls in tree_at (%(default)s)")
    slowdowns = common_args.listed(float, "percentages")
    parser.add_argument("--c-slowdowns", type=slowdowns, default="3,5", help="tree_at P%% slower in C (%(default)s)")
    common_args.add_confirm(parser)
    common_args.add_thresholds(parser)
    common_args.add_quick(parser, "benchmark each variant once (scripts/bench --quick)")
    common_args.add_bench(parser, "benchmarks to run (default: the whole suite, for every false alarm)")
    common_args.add_machine(parser, "detector-trial")
    common_args.add_env_dir(parser, ENV_DIR)
    common_args.add_output(parser, ROOT / ".cache" / "detector-trial", "the repository and results (%(default)s)")
    common_args.add_docs(parser, "detector-trial")


def run(args, config) -> int:
    common_args.show(detector.campaign(args), args.docs, "detector-trial")
    return 0
