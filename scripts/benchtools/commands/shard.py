"""Split a list of commits into shards, for a backfill that runs them in parallel jobs.

Commit i goes to shard i mod N (round-robin, so that the shards' times stay close); each keeps the list's order."""

import argparse
import json
import sys

from ..history.shards import read_commits, shard


def add_arguments(parser, config) -> None:
    parser.add_argument(
        "file", nargs="?", type=argparse.FileType("r"), default=sys.stdin, metavar="FILE", help="(default: stdin)"
    )
    parser.add_argument("--shards", type=int, required=True, metavar="N", help="how many shards")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--index", type=int, metavar="I", help="print shard I's commits (0 <= I < N)")
    what.add_argument("--indices", action="store_true", help="print the indices of the non-empty shards as a JSON list")


def check(parser, args) -> None:
    if args.shards < 1:
        parser.error(f"--shards {args.shards}: must be at least 1")
    if args.index is not None and not 0 <= args.index < args.shards:
        parser.error(f"--index {args.index}: must be between 0 and {args.shards - 1}")


def run(args, config) -> int:
    commits = read_commits(args.file, args.file.name)
    if args.indices:
        print(json.dumps(list(range(min(args.shards, len(commits))))))
    else:
        for commit in shard(commits, args.shards, args.index):
            print(commit)
    return 0
