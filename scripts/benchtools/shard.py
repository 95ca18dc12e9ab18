#!/usr/bin/env python3
"""Split a list of commits into shards, for a backfill that runs them in parallel jobs.

Reads commit hashes (or any names asv resolves: tags, branches), one per line,
from FILE or stdin; blank lines are ignored.  Commit i of the list goes to
shard i mod N (round-robin, not contiguous slices): the cost of a commit
changes along a history (old releases that cannot install in an environment
fail in seconds, new ones run every benchmark), so interleaving keeps the
shards' run times close.  Every commit lands in exactly one shard, and each
shard keeps the list's order.

  scripts/shard --shards 4 --index 2 hashes.txt > slice.txt
      shard 2 of 4, for `scripts/bench --repo URL HASHFILE:slice.txt`
  scripts/shard --shards 4 --indices hashes.txt
      the indices of the shards that hold a commit, as a JSON list, for a
      GitHub Actions matrix (fewer than 4 when there are fewer commits)

Exit status: 0 on success; 2 for bad arguments, an empty list or a
commit listed twice.
"""

import argparse
import collections
import json
import sys

from . import cli


def parse_args(argv):
    parser = cli.parser("scripts/shard", __doc__)
    parser.add_argument("file", nargs="?", type=argparse.FileType("r"), default=sys.stdin, metavar="FILE",
                        help="commits, one per line (default: stdin)")
    parser.add_argument("--shards", type=int, required=True, metavar="N", help="how many shards")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--index", type=int, metavar="I", help="print shard I's commits (0 <= I < N)")
    what.add_argument("--indices", action="store_true",
                      help="print the indices of the non-empty shards as a JSON list")
    args = parser.parse_args(argv)
    if args.shards < 1:
        parser.error(f"--shards {args.shards}: must be at least 1")
    if args.index is not None and not 0 <= args.index < args.shards:
        parser.error(f"--index {args.index}: must be between 0 and {args.shards - 1}")
    return args, parser


def read_commits(lines, name: str) -> list[str]:
    """The commits of a list, one per line, blank lines ignored; ValueError names what is wrong."""
    try:
        commits = [line.strip() for line in lines if line.strip()]
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not a text list of commits ({error.reason} at byte {error.start})") from None
    if not commits:
        raise ValueError(f"{name}: no commits")
    bad = [c for c in commits if len(c.split()) != 1]
    if bad:
        raise ValueError(f"{name}: one commit per line, not {bad[0]!r}")
    duplicates = sorted(c for c, n in collections.Counter(commits).items() if n > 1)
    if duplicates:
        raise ValueError(f"{name}: listed more than once: {' '.join(duplicates)}")
    return commits


def shard(commits: list[str], shards: int, index: int) -> list[str]:
    """Shard ``index`` of ``shards``: commit i goes to shard i mod ``shards``, in the list's order."""
    return commits[index::shards]


def non_empty_shards(commits: list[str], shards: int) -> list[int]:
    return list(range(min(shards, len(commits))))


def main(argv):
    args, parser = parse_args(argv)
    try:
        commits = read_commits(args.file, args.file.name)
    except ValueError as error:
        parser.error(str(error))
    if args.indices:
        print(json.dumps(non_empty_shards(commits, args.shards)))
    else:
        for commit in shard(commits, args.shards, args.index):
            print(commit)
    return 0
