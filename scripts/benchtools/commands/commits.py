"""Print the commits of an Equinox repository that a backfill should benchmark, oldest first.

--range is read as `asv run RANGE` reads it; --releases as scripts/release-history --select. Neither: every release."""

from ..history import shards


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
    print("\n".join(shards.commits(args.repo, range_spec=args.range, releases=args.releases, branch=args.branch)))
    return 0
