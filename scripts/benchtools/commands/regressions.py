"""The regression gate: report what got worse as Markdown, and fail when it is beyond a threshold.

It reads the latest scripts/bench run's results and the steps asv's step
detection found in them; --compare A B compares two commits or tags instead.
Kinds of metric (benchmarks/metrics.py), in the report's order:
  deterministic  jaxpr equations, copied bytes: any increase counts;
  instructions   machine instructions per operation (valgrind): above 1%,
                 unless the time, re-measured side by side, is faster;
  cost           the exact Python cost of one update (bytecodes + 16 x calls):
                 above 1%; its calls and bytecodes never count alone;
  ratio          two timings taken side by side in one process;
  time           absolute times and memory: listed, never counted.
A ratio or time counts when after > before * (1 + its threshold), the asv
configuration's regressions_thresholds (scripts/bench writes them from
benchmarks/metrics.py).  Large improvements are listed too.  Every timing
suspect is re-measured side by side before it counts (fresh processes in
balanced order, a paired 99% interval), which needs the run's configuration
and repository (docs/gate.md).

Exit status: 0 when nothing counts, 1 when a regression counts, 2 on bad input
(a missing or corrupt file, an unknown commit, what confirming needs).
"""

import shlex
import subprocess
from pathlib import Path

from ..errors import ExitCode
from ..judging import gate, render, verdicts
from ..judging.sources import Source
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
    source = Source(
        output=args.output,
        config=args.config,
        results=args.results,
        html=args.html,
        machine=args.machine,
        threshold=args.threshold,
        time_threshold=args.time_threshold,
    )
    confirm, max_pairs = not args.no_confirm, args.confirm_max_pairs
    verdict = gate.judge(source, args.compare, explain=args.explain, confirm=confirm, max_pairs=max_pairs)
    print(render.markdown(verdict), end="", flush=True)
    if args.verdict:
        verdicts.write(args.verdict, verdicts.data(verdict))
    if args.bisect:  # `asv find` for each counted regression over several commits, each command echoed
        for command in dict.fromkeys(gate.find_command(source, c) for c in verdict.counted):
            if command:
                print(f"\n$ {command}", flush=True)
                subprocess.run(shlex.split(command), check=False)
    return ExitCode.FOUND if verdict.regression else ExitCode.OK
