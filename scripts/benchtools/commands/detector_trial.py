"""Measure the regression gate: its false-alarm rate, and the smallest tree_at slowdown it catches.

It builds a repository whose history is one Equinox release followed by
variants of it: --aa-copies A/A copies (identical code, different commits,
a chain), copies whose tree_at makes K extra Python calls first, for each K
of --calls, and timing-only copies (--c-slowdowns) whose tree_at does P% more
work in C alone, with the same Python calls and bytecodes, so that only a
timing can see them (the number of pads that makes P% is calibrated first, in
the trial's own asv environment, on the release's code).  Each trial
benchmarks the release and every variant in one scripts/bench run, then has
the gate (scripts/regressions, at the asv configuration's thresholds unless
--threshold or --time-threshold is given) compare each A/A copy with the one
before it (the first with the release) and the release with each other
variant.  The Markdown tables at the end give, per variant, the measured
slowdown of one tree_at call (median over comparisons, from
bench_overhead.EagerSurgeryInTreeMapPasses) and in how many comparisons each
kind of metric flagged it (the A/A row is the false-alarm count); then, for the
timing metrics that came closest to a false alarm, the largest A/A ratio
seen, next to the threshold that keeps it quiet.  Every change the gate saw,
trial by trial, goes to OUTPUT/changes.json, to re-score at other thresholds.

The whole suite runs (--bench narrows it), so that every timing benchmark
counts towards false alarms.  By default the gate confirms every timing
suspect (scripts/regressions without --no-confirm), and a last table gives,
per variant, how often a confirmed timing verdict said slower, the verdicts of
the tree_map-pass metric, and the pairs and seconds each suspect took.

Exit status: 0 when the trials ran; 2 on bad input; 3 when a trial's
benchmark run failed (scripts/bench exited anything but 0).
"""

from ..project import ROOT
from ..publishing import generated
from ..trial import detector
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("--release", default=config.reference_equinox, help="the release to copy (%(default)s)")
    parser.add_argument("--trials", type=common_args.at_least(1), default=5, help="benchmark runs (%(default)s)")
    parser.add_argument(
        "--aa-copies",
        type=common_args.at_least(1),
        default=1,
        metavar="N",
        help="A/A copies, a chain of identical commits: N false-alarm comparisons per trial (%(default)s)",
    )
    parser.add_argument(
        "--calls",
        type=common_args.listed(int, "whole numbers"),
        default="100,200,400,800",
        metavar="K,K,...",
        help="extra Python calls injected at the start of tree_at, one variant each; '' for none (%(default)s)",
    )
    parser.add_argument(
        "--c-slowdowns",
        type=common_args.listed(float, "percentages"),
        default="3,5",
        metavar="P,P,...",
        help="timing-only variants: tree_at slowed by P%% by work in C alone; '' for none (%(default)s)",
    )
    common_args.add_confirm(parser)
    common_args.add_thresholds(parser)
    common_args.add_quick(parser, "benchmark each variant once (scripts/bench --quick)")
    common_args.add_bench(parser, "benchmarks to run (default: the whole suite, for every false alarm)")
    common_args.add_machine(parser, "detector-trial")
    common_args.add_output(parser, ROOT / ".cache" / "detector-trial", "the repository and results (%(default)s)")
    common_args.add_docs(parser, "detector-trial")


def run(args, config) -> int:
    text = detector.campaign(args)
    print(text)
    if args.docs:
        generated.write_blocks(args.docs, {"detector-trial": text})
    return 0
