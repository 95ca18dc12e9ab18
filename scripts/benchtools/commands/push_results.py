"""Store results on the results branch: merge results folders into it, commit, push.

The branch holds a results/ folder, laid out as scripts/bench writes it
(results/upstream/MACHINE/*.json, ...); `main` holds no results.  Each SRC is
a results/ folder such as scripts/nightly's OUTPUT/results or a backfill
shard's; scripts/merge-results merges them into a fresh clone of the branch,
so that a result already on the branch is never changed or removed: a
differing copy is reported and the branch's kept.  Every file of every SRC is
checked first (see scripts/merge-results): one invalid file and nothing is
pushed.  benchmarks.json is never taken from a SRC (the job that wrote it ran
upstream code): each results folder on the branch gets this repository's,
made by asv from benchmarks/ alone (benchtools/asvtools/suite.py).  The branch is
created, without history, when the remote lacks it.

The push is never forced.  When it is refused because the branch moved
meanwhile (another run pushed: its progress, not a failure), the clone is
reset to the new tip, the merge is redone and the push tried again after a
random pause of up to 2 s, so that runs that collided spread out; up to
--attempts pushes in all.  A push refused while the branch stayed put (a
hook, a protection rule, no permission) is not retried.  The work happens
in a temporary clone, so a run killed at any point leaves the branch as it
was or with the new commit, nothing in between.

GITHUB_TOKEN, when set, is sent to GitHub (GITHUB_SERVER_URL) as git's
Authorization header through git's environment: it is never written to disk
nor put on a command line.

With --machine, a SRC that holds another machine's folder (which the job
that ran upstream code could have written) is refused, nothing pushed.

The branch must hold plain files only: a link or a submodule on it (which
the merge would write through) stops the push, as a linked file or folder
in a SRC does.

Exit status: 0 when pushed or when nothing was new; 1 when a conflict was
reported (the rest is pushed); 2 for bad arguments, an invalid file, another
machine's results or a link in a SRC or on the branch (nothing is pushed);
3 when a git command failed (the remote could not be reached, the fetch or
the push failed or kept being refused), or a file could not be written.
"""

from pathlib import Path

from ..publishing.results_branch import store
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("sources", nargs="+", type=Path, metavar="SRC", help="results/ folders to store")
    common_args.add_results_branch(parser)
    parser.add_argument("--machine", help="the only asv machine whose results may be stored (default: any)")
    parser.add_argument(
        "--attempts", type=common_args.at_least(1), default=30, help="pushes to try while others move the branch"
    )


def check(parser, args) -> None:
    for source in args.sources:
        if not source.is_dir():
            parser.error(f"SRC {source}: not a folder")


def run(args, config) -> int:
    return store(args)
