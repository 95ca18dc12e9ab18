"""The regression gate: report what got worse as Markdown, and fail when it is beyond a threshold.

By default it reads the results of the latest scripts/bench run and the steps
that asv's step detection found in them (regressions.json in the site); with
--compare A B it compares two commits or tags instead, benchmark by benchmark.

Kinds of metric (benchmarks/metrics.py), reported in this order:
  deterministic  jaxpr equations, copied bytes: any increase counts;
  instructions   machine instructions per operation under valgrind: counts
                 above 1%, unless the operation's time, re-measured side by
                 side, is decided faster (then it is listed as overruled);
  cost           the exact Python cost of one update (bench_counts.PythonCost,
                 bytecodes + 16 x calls): counts above 1%, shown with the calls
                 and bytecodes it is made of, which never count alone;
  ratio          two timings taken side by side in one process (bench_overhead,
                 the seed's ratio): the machine's drift mostly cancels;
  time           absolute times and memory: listed, never counted.
A ratio or time counts when after > before * (1 + its threshold): the asv
configuration's regressions_thresholds, read as asv's step detection reads
them (the largest among the regexes that match, 5% when none does), which
scripts/bench writes from benchmarks/metrics.py; --threshold and
--time-threshold replace them for a whole kind.  A change whose cost went
down is never a regression.  Each row gives the step's own size (the levels
of the benchmark's series just before and after it, asv.step_detect) and how
much of it is still there at the newest commit; with --compare, the two
commits' values.  Large improvements (tree_at's cost down by 10% or more) are
listed too.

--explain profiles one tree_at update in both commits of every counted
deterministic or cost regression and every large improvement (as asv profile
does) and shows the functions whose calls changed; for an instruction count,
the functions, C included, whose own instructions moved most.  A regression
that spans several commits comes with the `asv find` command that narrows it;
--bisect runs it.  Every timing suspect is re-measured side by side before it
counts (judging/confirm.py: both commits, fresh processes in balanced order,
a paired 99% interval); only a verdict of *slower* counts.  That needs the
run's asv configuration and repository.  --no-confirm gives the quick look at
stored results instead, which cries wolf on this machine (docs/gate.md).

Exit status: 0 when nothing counts, 1 when a regression counts, 2 on bad
input (a missing or corrupt results or site file, an unknown commit, a
configuration or repository that confirming needs).
"""

from pathlib import Path

from ..errors import ExitCode
from ..judging import gate, render, verdicts
from ..project import ROOT
from . import common_args


def add_arguments(parser, config) -> None:
    common_args.add_output(parser, ROOT, "the --output folder of the scripts/bench run to read (default: the project)")
    parser.add_argument("--config", type=Path, help="an asv configuration instead of the latest run's")
    parser.add_argument("--results", type=Path, metavar="DIR", help="asv results folder (default: the config's)")
    parser.add_argument("--html", type=Path, metavar="DIR", help="asv site folder (default: the config's)")
    parser.add_argument("--machine", help="the asv machine to compare (default: the latest run's, or the only one)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two commits or tags")
    common_args.add_thresholds(parser)
    parser.add_argument(
        "--explain", action="store_true", help="profile both commits of each exact change (cached in OUTPUT/.asv)"
    )
    common_args.add_confirm(parser)
    parser.add_argument(
        "--verdict", type=Path, metavar="FILE", help="also write the verdict as JSON (scripts/open-regression-issue)"
    )
    parser.add_argument("--bisect", action="store_true", help="run `asv find` for each regression over several commits")


def run(args, config) -> int:
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
