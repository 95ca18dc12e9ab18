"""The A/A spread of the instruction counts: identical code counted in fresh valgrind processes.

Exit 1 when an alerting twin's spread exceeds its floor."""

import sys
from pathlib import Path

from .. import util
from ..project import ROOT
from ..trial import instruction_spread as spread
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("--runs", type=common_args.at_least(2), default=20, help="fresh processes (%(default)s)")
    parser.add_argument("--python", default=sys.executable, metavar="PATH", help="whose Equinox and JAX (.venv's)")
    kept = ROOT / ".asv/instruction-spread"
    parser.add_argument("--kept", type=Path, default=kept, metavar="DIR", help="the kept runs (%(default)s)")
    parser.add_argument("--data", type=Path, metavar="FILE", help="write the runs' counts per call into FILE")
    parser.add_argument(
        "--from", dest="source", type=Path, metavar="FILE", help="table a --data FILE, counting nothing"
    )
    parser.add_argument("--across", type=Path, metavar="FILE", help="a --data FILE of another environment, beside")
    common_args.add_readme(
        parser, f"rewrite FILE's blocks {spread.BLOCK} (and with --across {spread.ACROSS_BLOCK}); repeatable"
    )


def run(args, config) -> int:
    found = spread.read_data(args.source) if args.source else spread.count_runs(args.kept, args.runs, args.python)
    if args.data:
        util.write_json(args.data, found, sort_keys=True)
        print(f"wrote {args.data}")
    blocks = {spread.BLOCK: spread.markdown(found)}
    if args.across:
        blocks[spread.ACROSS_BLOCK] = spread.across_markdown(found, spread.read_data(args.across))
    common_args.write_readmes(args.readme, blocks)
    return 1 if spread.wide(found) else 0
