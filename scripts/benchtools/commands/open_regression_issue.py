"""Open or update the one GitHub issue that carries the latest regression report.

VERDICT is the gate's verdict as JSON (scripts/regressions --verdict, or
scripts/nightly's OUTPUT/verdict.json); the decision is read from it alone,
never from a report's wording:

  status judged, no regression   nothing to do (an open issue stays open)
  status judged, a regression    the issue carries REPORT (the Markdown)
  status failed                  the night could not be judged: a failure to
                                 be told, not a quiet night; the issue says so,
                                 with REPORT when there is one

A missing or malformed verdict is bad input: never read as "no regression".
Through GitHub's REST API (GITHUB_API_URL, default https://api.github.com,
which GitHub Actions sets; the token from GH_TOKEN or GITHUB_TOKEN, sent as
a header and never printed; the repository from --repo or GITHUB_REPOSITORY):

  an open issue has --label    its body becomes the report, unless it already is
  none is open                 a new issue with --title and --label (the label
                               is created if the repository lacks it), unless
                               the most recently closed issue with the label
                               holds the same regressions (the same benchmarks,
                               params, environments and commits, whatever the
                               report's timings): closing it said that they are
                               known, and asv's step detection keeps reporting a
                               step until the benchmark improves again

Run in GitHub Actions, the body ends with a link to the run.

Exit status: 0 when the issue is up to date or there is no regression; 2 for
a missing or malformed verdict, a regression without its report, or a
missing token or repository; 3 when the API answers an error or cannot be
reached (one line, naming the request).
"""

from pathlib import Path

from .. import cli
from ..publishing import issue


def parse_args(argv):
    parser = cli.parser("scripts/open-regression-issue", __doc__)
    parser.add_argument(
        "--verdict", type=Path, required=True, metavar="FILE", help="the gate's verdict (JSON): what decides"
    )
    parser.add_argument("--report", type=Path, metavar="FILE", help="the gate's Markdown report: the issue's body")
    parser.add_argument("--label", default="benchmark-regression", help="the issue's label (default: %(default)s)")
    parser.add_argument("--title", default="Benchmark regression", help="a new issue's title (default: %(default)s)")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: GITHUB_REPOSITORY)")
    return parser.parse_args(argv)


def main(argv):
    return issue.open_or_update(parse_args(argv))
