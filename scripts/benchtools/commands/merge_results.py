"""Merge asv results folders into DEST without ever overwriting a result.

A file DEST lacks is copied; other content is a conflict (exit 1, DEST's copy kept, the rest merged), but for
machine.json and benchmarks.json. Every file is checked first."""

from pathlib import Path

from ..errors import ExitCode
from ..publishing.results_branch import merge
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("sources", nargs="+", type=common_args.folder, metavar="SRC", help="results folders to merge")
    parser.add_argument("dest", type=Path, metavar="DEST", help="the results folder to merge into (created if missing)")
    parser.add_argument(
        "--benchmarks-from-sources", action="store_true", help="replace DEST's benchmarks.json by a source's"
    )


def check(parser, args) -> None:
    for source in args.sources:
        if args.dest.resolve().is_relative_to(source.resolve()):
            parser.error(f"DEST {args.dest} lies inside SRC {source}")
    if args.dest.exists() and not args.dest.is_dir():
        parser.error(f"DEST {args.dest}: not a folder")


def run(args, config) -> int:
    conflict = merge(args.sources, args.dest, benchmarks="sources" if args.benchmarks_from_sources else "dest")
    return ExitCode.FOUND if conflict else ExitCode.OK
