"""Count the twins as CodSpeed would, offline, beside the suite's own counts of the same operations, and hold the
count against the record that docs/adopt.md is written from (docs/codspeed.json).

The pytest-codspeed benchmarks run in simulation mode under callgrind; with --step, on both sides of an Equinox
commit; with --cache-sim, once more under callgrind's cache simulation, estimated cycles beside instructions
(recorded, never held). Exit 1 when the count does not bear out a claim of the record: a ratio's or a step's
verdict, or, counted of the same workloads in the record's environment, a count beyond its operation's spread."""

import os
import sys
import tempfile
from pathlib import Path

from benchmarks import callgrind

from .. import util
from ..errors import BadInput
from ..publishing import generated
from ..trial import codspeed
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("-k", dest="select", default="test", metavar="EXPR", help="pytest's -k: only these benchmarks")
    parser.add_argument("--python", default=sys.executable, metavar="PATH", help="whose Equinox and JAX (.venv's)")
    parser.add_argument("--step", nargs=2, metavar=("BEFORE", "AFTER"), help="two revisions of --upstream's Equinox")
    parser.add_argument("--upstream", type=common_args.folder, metavar="REPO", help="a git repository of Equinox")
    record = codspeed.RECORD.relative_to(codspeed.ROOT)
    parser.add_argument("--record", type=Path, default=codspeed.RECORD, metavar="FILE", help=f"({record})")
    parser.add_argument("--update", action="store_true", help="write the count into --record, not hold it against it")
    cache = "count under callgrind's cache simulation too, once, into --record's cache part (with --update)"
    parser.add_argument("--cache-sim", action="store_true", help=cache)
    parser.add_argument("--from-record", action="store_true", help="count nothing: write --readme from --record")
    blocks = f"{codspeed.TWINS_BLOCK}, {codspeed.STEP_BLOCK} and {codspeed.CACHE_BLOCK}"
    common_args.add_readme(parser, f"rewrite FILE's blocks {blocks} from --record (with --update or --from-record)")


def check(parser, args) -> None:
    if bool(args.step) != bool(args.upstream):
        parser.error("--step and --upstream go together")
    if not (os.path.isfile(args.python) and os.access(args.python, os.X_OK)):
        raise BadInput(f"--python {args.python}: no such executable")
    if args.cache_sim and (args.step or not args.update):
        parser.error("--cache-sim counts the twins once, into the record: give --update, without --step")
    if args.readme and not (args.update or args.from_record):
        parser.error("--readme is written from the record: give --update or --from-record")
    for path in args.readme:
        blocks = (codspeed.TWINS_BLOCK, codspeed.STEP_BLOCK, codspeed.CACHE_BLOCK)
        generated.write_blocks(path, dict.fromkeys(blocks, ""), write=False)


def run(args, config) -> int:
    record, part = codspeed.read(args.record), "step" if args.step else "cache" if args.cache_sim else "twins"
    if args.from_record and not record:
        raise BadInput(f"{args.record} holds no count to write the page from")
    if args.from_record:
        common_args.write_readmes(args.readme, codspeed.blocks(record))
        return 0
    if not args.update and part not in record:
        raise BadInput(f"{args.record} holds no {part} count to hold this one against (--update writes one)")
    try:
        callgrind.valgrind()
    except callgrind.Unavailable as why:
        raise BadInput(f"cannot count here: {why}") from None
    commits = [codspeed.commit_of(args.upstream, revision) for revision in args.step or ()]
    if commits and not args.update and commits != record["step"]["revisions"]:
        raise BadInput(f"{args.record}'s step is {' → '.join(record['step']['revisions'])}, not {' → '.join(commits)}")
    with tempfile.TemporaryDirectory(prefix="eqxb-equinox-") as work:
        paths = {
            side: [codspeed.equinox_at(args.upstream, commit, Path(work) / side)]
            for side, commit in zip(("before", "after"), commits, strict=False)  # none, or one a side
        }
        names = codspeed.selected(args.select, args.python, paths.get("before", []))
        counted = {side: codspeed.counts(args.select, names, args.python, path) for side, path in paths.items()}
    found = (
        {"revisions": commits, **counted}
        if args.step
        else codspeed.counts(args.select, names, args.python, (), args.cache_sim)
    )
    if args.update:
        util.write_json(args.record, record := codspeed.updated(record, part, found))
        common_args.write_readmes(args.readme, codspeed.blocks(record))
        return 0
    print(
        codspeed.blocks({part: found if args.step else [found]})[
            codspeed.STEP_BLOCK if args.step else codspeed.TWINS_BLOCK
        ]
    )
    broken = (codspeed.broken_step if args.step else codspeed.broken)(record[part], found)
    if not args.step and not codspeed.comparable(record[part][0], found):
        print("\nCounted of other workloads, operations or environment than the record: its verdicts alone are held.")
    print("\n" + "\n".join(broken or [f"Every claim of {args.record} that this count can check holds."]))
    return int(bool(broken))
