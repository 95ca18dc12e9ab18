"""Open or update the one GitHub issue that carries the latest regression report.

REPORT is scripts/regressions' Markdown, or scripts/nightly's note that no
report could be made (a line starting with "No report:", naming what
failed).  A report that says "No regression counts." does nothing.  A note
that no report could be made is a failure to be told, not a quiet night: it
goes into the issue like a regression.  Anything else (an empty file, a file
that is neither) is bad input: never read as "no regression".  Otherwise,
with the gh CLI (GH_TOKEN from the environment):

  an open issue has --label    its body becomes the report, unless it already is
  none is open                 a new issue with --title and --label (the label
                               is created if the repository lacks it), unless
                               the most recently closed issue with the label
                               holds this very report: closing it said that
                               this regression is known, and asv's step
                               detection keeps reporting a step until the
                               benchmark improves again

Run in GitHub Actions, the body ends with a link to the run.

Exit status: 0 when the issue is up to date or there is no regression; 2 for
a missing, empty or unrecognized report file, or a missing gh; 3 when gh
fails.
"""

from pathlib import Path

from .. import cli
from ..publishing import issue


def parse_args(argv):
    parser = cli.parser("scripts/open-regression-issue", __doc__)
    parser.add_argument(
        "--report", type=Path, required=True, metavar="FILE", help="scripts/regressions' Markdown report"
    )
    parser.add_argument("--label", default="benchmark-regression", help="the issue's label (default: %(default)s)")
    parser.add_argument("--title", default="Benchmark regression", help="a new issue's title (default: %(default)s)")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: gh's, GH_REPO)")
    args = parser.parse_args(argv)
    if not args.report.is_file():
        parser.error(f"--report {args.report}: no such file")
    return args


def main(argv):
    return issue.open_or_update(parse_args(argv))
