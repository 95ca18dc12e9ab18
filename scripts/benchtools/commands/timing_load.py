"""Time the answer's pairs quiet, then beside busy loops that the command starts and stops: the × that each reading
of a batch gives (its wall clock, its thread's CPU time, the pairs the machine took nothing from), and the share of
time that the machine took (docs/timing-load.md)."""

from pathlib import Path

from .. import util
from ..errors import BadInput
from ..trial import load
from . import common_args


def add_arguments(parser, config) -> None:
    loops = "busy loops beside the second run, each a process that spins (%(default)s)"
    parser.add_argument("--loops", type=common_args.at_least(1), default=3, metavar="N", help=loops)
    processes = "fresh processes a step and condition (%(default)s)"
    parser.add_argument("--processes", type=common_args.at_least(1), default=3, metavar="N", help=processes)
    parser.add_argument(
        "--seconds", type=common_args.at_least(1), default=2, metavar="S", help="of pairs a process (%(default)s)"
    )
    record = load.RECORD.relative_to(load.ROOT)
    parser.add_argument("--record", type=Path, default=load.RECORD, metavar="FILE", help=f"the JSON record ({record})")
    parser.add_argument("--from-record", action="store_true", help="measure nothing: the table of --record")
    common_args.add_docs(parser, load.BLOCK)


def run(args, config) -> int:
    if args.from_record and not args.record.is_file():
        raise BadInput(f"--record {args.record}: no such file")
    record = load.read(args.record) if args.from_record else load.campaign(args.loops, args.processes, args.seconds)
    if not args.from_record:
        util.write_json(args.record, record)
    common_args.show(load.table(record), args.docs, load.BLOCK)
    return 0
