"""Store results on the results branch: merge results folders into it, commit, push.

Each SRC is merged as scripts/merge-results merges; benchmarks.json is this repository's. The push is never forced:
where another run moved the branch, it is redone on the new tip. Exit 1: a conflict (the rest is pushed)."""

from ..publishing.results_branch import store
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("sources", nargs="+", type=common_args.folder, metavar="SRC", help="results/ folders to store")
    common_args.add_results_branch(parser)
    parser.add_argument("--machine", help="the only asv machine whose results may be stored (default: any)")
    parser.add_argument(
        "--attempts", type=common_args.at_least(1), default=30, help="pushes to try while others move the branch"
    )


def run(args, config) -> int:
    return store(args)
