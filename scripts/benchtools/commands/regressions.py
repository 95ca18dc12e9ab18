"""The regression gate: report what got worse as Markdown, and fail when it is beyond a threshold.

It judges the steps of the latest scripts/bench run, or --compare A B; every timing suspect is re-measured side by
side before it counts. Exit 1 when a regression counts."""

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
    read = ("output", "config", "results", "html", "machine", "threshold", "time_threshold")
    source = Source(**{name: getattr(args, name) for name in read})
    confirm, max_pairs = not args.no_confirm, args.confirm_max_pairs
    verdict = gate.judge(source, args.compare, explain=args.explain, confirm=confirm, max_pairs=max_pairs)
    print(render.markdown(verdict), end="", flush=True)
    if args.verdict:
        verdicts.write(args.verdict, verdicts.data(verdict))
    if args.bisect:
        for command in dict.fromkeys(gate.find_command(source, c) for c in verdict.counted):
            if command:
                print(f"\n$ {command}", flush=True)
                subprocess.run(shlex.split(command), check=False)
    return ExitCode.FOUND if verdict.regression else ExitCode.OK
