"""The regression gate: report what got worse as Markdown, and fail when it is beyond a threshold.

By default it reads the results of the latest scripts/bench run and the
regressions that asv's step detection found in them (`asv publish` writes
regressions.json into the site).  With --compare A B it compares two commits
or tags instead, benchmark by benchmark.

Kinds of metric (benchmarks/metrics.py), reported in this order:
  deterministic  jaxpr equations, copied bytes: they cannot be noise, so
                 any increase counts;
  instructions   machine instructions per operation under valgrind
                 (bench_instructions): counts when it rises by more than 1%,
                 unless the operation's time, re-measured side by side, is
                 decided faster (then it is listed as overruled);
  cost           the exact Python cost of one update (bench_counts.PythonCost,
                 bytecode instructions + 16 x Python calls): counts when it
                 rises by more than 1%; shown with its diagnostics, the calls
                 and bytecodes it is made of, which never count alone; the
                 Module operations' costs are shown and never count;
  ratio          everything in bench_overhead and the seed's overhead ratio:
                 two timings taken side by side in one process, so that the
                 machine's drift mostly cancels;
  time           absolute times and memory, which carry the machine's noise
                 between processes and runs.
A ratio or time counts when after > before * (1 + its threshold).  The
thresholds are the asv configuration's `regressions_thresholds`, read as asv's
own step detection reads them (the largest threshold among the regexes that
match the benchmark, 5% when none does), so the gate and the site's
Regressions tab agree; scripts/bench writes them there from
benchmarks/metrics.py, which also gives them when only folders are named or
the configuration has none.  --threshold and --time-threshold replace them for a whole kind.
A change whose cost went down is never a regression.

Each row gives the step's own size: the levels of the benchmark's series just
before and just after the commit or range where it happened (asv's step
detection, asv.step_detect.detect_steps, run on the site's graph), and
separately how much of it is still there at the newest commit.  With
--compare, before and after are the two commits' values.

Large improvements (tree_at's cost at depth 4 down by 10% or more, and with
--compare any instruction count down as much) are listed too.  --explain
profiles one tree_at update in both commits of every counted deterministic or
cost regression and of every large improvement, in an asv environment of the
profiles' own (as asv profile does), and shows which functions' calls
changed; for an instruction count, it counts both commits under valgrind and
shows the functions, C included, whose own instructions moved most.

When a regression spans several commits, the report gives the
`asv find` command that narrows it to the first bad commit; --bisect runs it.

By default every timing change (ratio or time) beyond its suspect threshold
is a suspect, re-measured side by side before it counts (benchtools/judging/confirm.py:
both commits in their own asv environments, fresh processes in balanced order
A B B A ..., a paired 99% interval); only a verdict of *slower* counts, and the
report lists every suspect with its verdict, change, interval and pairs.  That
needs the run's asv configuration and repository (exit 2 naming what is
missing).  --no-confirm gives the quick look at stored results instead, which
cries wolf on this machine (docs/gate.md, "Confirmed verdicts").

Exit status: 0 when nothing counts, 1 when a regression counts, 2 on bad
input (a missing or corrupt results or site file, an unknown commit, a
configuration or repository that confirming needs).
"""

from pathlib import Path

from .. import cli
from ..errors import ExitCode
from ..judging import gate, render, verdicts
from ..project import ROOT
from . import common_args


def parse_args(argv):
    parser = cli.parser("scripts/regressions", __doc__)
    common_args.add_output(parser, ROOT, "the --output folder of the scripts/bench run to read (default: the project)")
    parser.add_argument("--config", type=Path, help="an asv configuration instead of the latest run's")
    parser.add_argument("--results", type=Path, metavar="DIR", help="asv results folder (default: the config's)")
    parser.add_argument("--html", type=Path, metavar="DIR", help="asv site folder (default: the config's)")
    parser.add_argument("--machine", help="the asv machine to compare (default: the latest run's, or the only one)")
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="compare two commits or tags instead of using step detection",
    )
    common_args.add_thresholds(parser)
    parser.add_argument(
        "--explain",
        action="store_true",
        help="profile one tree_at update in both commits of each counted deterministic or cost "
        "regression and each large improvement (as asv profile does, in an asv environment of the profiles' own), "
        "and show the functions whose calls changed; profiles are cached in OUTPUT/.asv",
    )
    common_args.add_confirm(parser)
    parser.add_argument(
        "--verdict",
        type=Path,
        metavar="FILE",
        help="also write the verdict as JSON to FILE, the data that scripts/open-regression-issue reads "
        '(docs/gate.md, "The verdict as data")',
    )
    parser.add_argument(
        "--bisect", action="store_true", help="run `asv find` for each counted regression that spans several commits"
    )
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    verdict = gate.judge(
        gate.GateOptions(
            output=args.output,
            config=args.config,
            results=args.results,
            html=args.html,
            machine=args.machine,
            threshold=args.threshold,
            time_threshold=args.time_threshold,
            explain=args.explain,
            confirm=not args.no_confirm,
            max_pairs=args.confirm_max_pairs,
        ),
        args.compare,
    )
    print(render.markdown(verdict), end="", flush=True)
    if args.verdict:
        verdicts.write(args.verdict, verdicts.data(verdict))
    if args.bisect:
        gate.bisect(verdict)
    return ExitCode.FOUND if verdict.regression else ExitCode.OK
