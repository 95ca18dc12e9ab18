"""Open, edit, reopen or comment on the one GitHub issue that carries the latest regression report.

What it does is read from VERDICT alone, never from the report's wording; a missing or malformed verdict is bad
input, never "no regression". The token is GH_TOKEN or GITHUB_TOKEN."""

from pathlib import Path

from ..publishing import generated, github, issue

TABLE_BLOCK = "alarm-transitions"


def add_arguments(parser, config) -> None:
    parser.add_argument("--verdict", type=Path, metavar="FILE", help="the gate's verdict (JSON): what decides")
    parser.add_argument("--report", type=Path, metavar="FILE", help="the gate's Markdown report: the issue's body")
    parser.add_argument("--label", default="benchmark-regression", help="the issue's label (default: %(default)s)")
    parser.add_argument("--title", default="Benchmark regression", help="a new issue's title (default: %(default)s)")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: GITHUB_REPOSITORY)")
    parser.add_argument("--author", default=github.BOT, help="the login the token writes as (%(default)s)")
    parser.add_argument(
        "--missing-verdict-fails", action="store_true", help="a VERDICT that does not exist is a failed night"
    )
    parser.add_argument("--exact-verdict", type=Path, metavar="FILE", help="scripts/nightly --rejudge-run's verdict")
    parser.add_argument("--exact-report", type=Path, metavar="FILE", help="the report of --exact-verdict")
    parser.add_argument(
        "--write-table", type=Path, metavar="DOC", help=f"only write the transitions into DOC's {TABLE_BLOCK} block"
    )


def check(parser, args) -> None:
    if args.verdict is None and args.write_table is None:
        parser.error("--verdict is required")


def run(args, config) -> int:
    if args.write_table:
        generated.write_blocks(args.write_table, {TABLE_BLOCK: issue.transitions_markdown()})
        return 0
    return issue.open_or_update(args)
