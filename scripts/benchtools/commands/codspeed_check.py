"""Count the twins as CodSpeed would, offline, beside the suite's own counts of the same operations.

The pytest-codspeed benchmarks run in simulation mode under callgrind; with --step, on both sides of an Equinox
commit. Exit 1 when a ratio lies beyond its operation's measured spread of the suite's own, or, with --step, a Module
twin's change beyond 2 points of the suite's own."""

import sys
import tempfile
from pathlib import Path

from ..trial import codspeed
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("-k", dest="select", default="test", metavar="EXPR", help="pytest's -k: only these benchmarks")
    parser.add_argument("--python", default=sys.executable, metavar="PATH", help="whose Equinox and JAX (.venv's)")
    parser.add_argument("--step", nargs=2, metavar=("BEFORE", "AFTER"), help="two revisions of --upstream's Equinox")
    parser.add_argument("--upstream", type=common_args.folder, metavar="REPO", help="a git repository of Equinox")
    common_args.add_readme(parser, f"rewrite FILE's block {codspeed.TWINS_BLOCK} (with --step, {codspeed.STEP_BLOCK})")


def check(parser, args) -> None:
    if bool(args.step) != bool(args.upstream):
        parser.error("--step and --upstream go together")


def run(args, config) -> int:
    if not args.step:
        found = codspeed.counts(args.select, args.python)
        common_args.write_readmes(args.readme, {codspeed.TWINS_BLOCK: codspeed.twins_markdown(found, args.python)})
        return int(codspeed.ratio_rows(found)[1] > 0)
    sides = []
    for revision in args.step:
        with tempfile.TemporaryDirectory(prefix="eqxb-equinox-") as work:
            path = [codspeed.equinox_at(args.upstream, revision, Path(work))]
            sides.append(codspeed.counts(args.select, args.python, path))
    common_args.write_readmes(args.readme, {codspeed.STEP_BLOCK: codspeed.step_markdown(*sides, args.step)})
    return int(codspeed.step_rows(*sides)[1] > 0)
