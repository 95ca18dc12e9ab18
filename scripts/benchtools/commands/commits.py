"""Print the commits of an Equinox repository that a backfill should benchmark, oldest first.

--range RANGE is read as `asv run RANGE` reads it (ALL, A..B, B^!); --releases
SPEC picks release tags as scripts/release-history --select does.  An empty
value counts as not given; with neither, every release.  The hashes are full,
so that every shard runs the same commits even if the branch moves:

  scripts/commits --releases '>=0.12' > hashes.txt
  scripts/shard --shards 4 --index 0 hashes.txt > slice.txt

Exit status: 0 on success; 2 for a repository that cannot be read, a range that
git refuses or that selects nothing, or an unknown release.
"""

from ..history import upstream


def add_arguments(parser, config) -> None:
    parser.add_argument("--range", metavar="RANGE", help="ALL or a git range, as asv run reads it")
    parser.add_argument("--releases", metavar="SPEC", help="release tags instead of a range")
    parser.add_argument("--repo", metavar="URL|PATH", default=config.upstream_url, help="(default: %(default)s)")
    parser.add_argument("--branch", default="main", help="the branch that ALL follows (default: %(default)s)")


def check(parser, args) -> None:
    args.range, args.releases = args.range or None, args.releases or None
    if args.range is not None and args.releases is not None:
        parser.error("give either --range RANGE or --releases SPEC, not both")
    if args.range in ("NEW", "EXISTING"):
        parser.error(f"RANGE {args.range} depends on existing results; scripts/nightly runs NEW")
    if args.range is None and args.releases is None:
        args.releases = "all"


def run(args, config) -> int:
    print("\n".join(upstream.commits(args.repo, range_spec=args.range, releases=args.releases, branch=args.branch)))
    return 0
