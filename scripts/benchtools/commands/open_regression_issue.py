"""Open, edit, reopen or comment on the one GitHub issue that carries the latest regression report.

VERDICT is the gate's verdict as JSON (scripts/regressions --verdict, or
scripts/nightly's OUTPUT/verdict.json); the decision is read from it alone,
never from a report's wording:

  status judged, no regression   quiet: no issue is touched
  status judged, a regression    the issue carries REPORT (the gate's
                                 Markdown: its heading, each counted benchmark)
  status failed                  the night could not be judged: a failure to
                                 be told, never a quiet night; the issue says
                                 so, with REPORT when there is one

A missing or malformed verdict is bad input: never read as "no regression".
With --missing-verdict-fails, a VERDICT that does not exist is the failed
night of the job that should have written it (killed, timed out, or failed
before the nightly started), not bad input.

What it does with the alert's own issues (author --author and the alert's
marker in the body, or a body a maintainer cleared; a maintainer's own issue
with the label is never touched) is the table in docs/automation.md, which
--write-table writes from the code's (benchtools/publishing/issue.py):
a quiet night touches nothing; a failure is never silenced by a closed issue
(the closed issue is reopened when the same failure comes back); a
regression a maintainer closed stays closed until what it reports changes
(other benchmarks, params, environments or commits); a failure on an open
regression issue is a comment, so that its report stays; an issue is edited
only when what it reports changes.

Through GitHub's REST API (GITHUB_API_URL, default https://api.github.com,
which GitHub Actions sets; the token from GH_TOKEN or GITHUB_TOKEN, sent as
a header and never printed; the repository from --repo or GITHUB_REPOSITORY).
With --exact-verdict (the publish job's re-judgement of the exact metrics,
made where no upstream code runs), the run job's verdict must count the same
exact regressions: where it does, the issue carries the re-judgement's
report (the run job's when a timing regression counts, which only the run
job can confirm); where it does not, or the re-judgement is missing or
failed, the night is a failure that says so.
A 5xx answer or a rate limit is asked again, up to 3 times, after 2, 10 and
30 s (or GitHub's Retry-After). Run in GitHub Actions, the body ends with a
link to the run.

Exit status: 0 when the issue is up to date or there is no regression; 2 for
a missing or malformed verdict, a regression without its report or with a
report that is not the gate's, a missing token or repository, or a
GITHUB_API_URL that is not a URL; 3 when the API answers an error, cannot be
reached, or answers what GitHub does not (one line, naming the request).
"""

from pathlib import Path

from ..publishing import generated, issue

TABLE_BLOCK = "alarm-transitions"


def add_arguments(parser, config) -> None:
    parser.add_argument("--verdict", type=Path, metavar="FILE", help="the gate's verdict (JSON): what decides")
    parser.add_argument("--report", type=Path, metavar="FILE", help="the gate's Markdown report: the issue's body")
    parser.add_argument("--label", default="benchmark-regression", help="the issue's label (default: %(default)s)")
    parser.add_argument("--title", default="Benchmark regression", help="a new issue's title (default: %(default)s)")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: GITHUB_REPOSITORY)")
    parser.add_argument("--author", default=issue.ALERT_AUTHOR, help="the login the token writes as (%(default)s)")
    parser.add_argument(
        "--missing-verdict-fails", action="store_true", help="a VERDICT that does not exist is a failed night"
    )
    parser.add_argument(
        "--exact-verdict",
        type=Path,
        metavar="FILE",
        help="the exact metrics judged again where no upstream code ran (scripts/nightly --rejudge-run)",
    )
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
