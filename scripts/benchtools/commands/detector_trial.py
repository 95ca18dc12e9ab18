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

from .. import cli
from ..project import ROOT
from ..publishing import generated
from ..settings import reference_equinox
from ..trial import detector
from . import common_args


def parse_args(argv):
    parser = cli.parser("scripts/detector-trial", __doc__)
    parser.add_argument(
        "--release", default=reference_equinox(), help="the Equinox release to copy (default: %(default)s)"
    )
    parser.add_argument("--trials", type=int, default=5, help="benchmark runs (default: %(default)s)")
    parser.add_argument(
        "--aa-copies",
        type=int,
        default=1,
        metavar="N",
        help="A/A copies, a chain of identical commits each compared with the one before: N "
        "false-alarm comparisons per trial, over every benchmark run (default: %(default)s)",
    )
    parser.add_argument(
        "--calls",
        default="100,200,400,800",
        metavar="K,K,...",
        help="extra Python calls injected at the start of tree_at, one variant each; '' for "
        "none (default: %(default)s)",
    )
    parser.add_argument(
        "--c-slowdowns",
        default="3,5",
        metavar="P,P,...",
        help="timing-only variants: tree_at slowed by P%% of one call by work done in C (the "
        "same Python calls and bytecodes), one variant each; '' for none (default: "
        "%(default)s)",
    )
    common_args.add_confirm(parser)
    common_args.add_thresholds(parser)
    common_args.add_quick(parser, "benchmark each variant once (scripts/bench --quick)")
    common_args.add_bench(
        parser,
        "benchmarks to run (default: the whole suite, so that every timing benchmark counts towards false alarms)",
    )
    common_args.add_machine(parser, "detector-trial", "asv machine name (default: %(default)s)")
    common_args.add_output(
        parser,
        ROOT / ".cache" / "detector-trial",
        "where the repository and each trial's results go (default: %(default)s)",
    )
    common_args.add_docs(parser, "detector-trial")
    args = parser.parse_args(argv)
    try:
        args.calls = [int(k) for k in args.calls.split(",") if k.strip()]
    except ValueError:
        parser.error(f"--calls must be whole numbers separated by commas, not {args.calls!r}")
    try:
        args.c_slowdowns = [float(p) for p in args.c_slowdowns.split(",") if p.strip()]
    except ValueError:
        parser.error(f"--c-slowdowns must be percentages separated by commas, not {args.c_slowdowns!r}")
    if any(not p > 0 for p in args.c_slowdowns):
        parser.error("each of --c-slowdowns must be above 0")
    if args.trials < 1 or args.aa_copies < 1 or any(k < 1 for k in args.calls):
        parser.error("--trials, --aa-copies and each of --calls must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    text = detector.campaign(args)
    print(text)
    if args.docs:
        generated.write_blocks(args.docs, {"detector-trial": text})
    return 0
