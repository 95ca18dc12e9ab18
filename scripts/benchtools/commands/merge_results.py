"""Merge asv results folders into DEST without ever overwriting a result.

Each SRC and DEST is an asv results folder (or a folder of them, such as
results/ holding results/upstream and results/releases); files are matched by
their path below it.  For each file of each SRC, in order:

  DEST lacks it              copied (written to a temporary file, then linked
                             into place, so DEST never holds half a file and a
                             file that appears meanwhile is not replaced)
  same content in DEST       nothing to do
  other content in DEST      a conflict: DEST's copy is kept and reported

A merge is all or nothing: every file of every SRC is checked first, and one
that is not valid stops the merge (exit 2, naming it) before anything is
written.  So is a link (to a file or a folder) in a SRC, and a link or
anything but a plain folder or file in DEST where a file would go: a merge
never reads or writes through a link.  Then every file is written beside its
place and synced, and only then linked into place: an I/O error at any step
(a full disk, EIO, a read-only file system, a refused permission) removes
what this merge had placed and exits 3, naming the file and the error, with
DEST exactly as it was.  Valid means what asv's own readers load (asv.results.Results.load
for a results file, asv.util.load_json with asv's format version for
benchmarks.json and machine.json), and more: a results file lies at
[NAME/]MACHINE/<hash8>-<env>.json, its machine is its folder's, its commit
is a full hash that starts with its name, and its environment gives its name;
machine.json names its folder; nothing else (no other file, no link) is
accepted.  Hidden files (names starting with a dot) are left out.

machine.json and benchmarks.json describe the machine and the suite, not a
measurement, so two copies may differ without a conflict: DEST's is kept when
it has one, else the first source's.  With --benchmarks-from-sources, a
source's benchmarks.json that differs from DEST's replaces it instead: asv
rewrites benchmarks.json from the suite on every run, and the site lists only
the benchmarks it names, so a results branch must follow the suite that wrote
its newest results.

Exit status: 0 when everything merged; 1 when a conflict was reported
(everything else is merged); 2 for bad arguments, an invalid file or a link,
3 when a file could not be read or written; after 2 or 3 nothing is changed.
"""

from pathlib import Path

from ..errors import ExitCode
from ..publishing.results_branch import merge_and_report


def add_arguments(parser, config) -> None:
    parser.add_argument("sources", nargs="+", type=Path, metavar="SRC", help="results folders to merge from")
    parser.add_argument("dest", type=Path, metavar="DEST", help="the results folder to merge into (created if missing)")
    parser.add_argument(
        "--benchmarks-from-sources", action="store_true", help="replace DEST's benchmarks.json by a source's"
    )


def check(parser, args) -> None:
    for source in args.sources:
        if not source.is_dir():
            parser.error(f"SRC {source}: not a folder")
        if args.dest.resolve().is_relative_to(source.resolve()):
            parser.error(f"DEST {args.dest} lies inside SRC {source}")
    if args.dest.exists() and not args.dest.is_dir():
        parser.error(f"DEST {args.dest}: not a folder")


def run(args, config) -> int:
    problems = merge_and_report(args.sources, args.dest, args.benchmarks_from_sources)
    return ExitCode.FOUND if problems else ExitCode.OK
