"""The regression issue: opened or updated from the gate's verdict, through GitHub's REST API."""

import hashlib
import json
import os
import re

from ..errors import BadInput
from ..judging import verdicts
from ..judging.verdicts import FAILED, JUDGED
from . import github

# GitHub refuses issue bodies over 65536 characters.
MAX_BODY = 65000
# Separates the report from the link to the run, so that bodies compare by report alone.
MARKER = "\n<!-- end of regression report -->\n"


LABEL_COLOR = "d73a4a"
LABEL_DESCRIPTION = "A benchmark got worse (scripts/regressions)"


def client(args) -> github.Client:
    """The API client: GITHUB_API_URL (default api.github.com), --repo or GITHUB_REPOSITORY, the token."""
    repo = args.repo or os.environ.get("GITHUB_REPOSITORY")
    if not repo:
        raise BadInput("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    token = github.token_from(os.environ)
    return github.Client(os.environ.get("GITHUB_API_URL") or github.DEFAULT_API, repo, token)


def report_of(body: str) -> str:
    return body.split(MARKER)[0].strip()


def regression_key(verdict: dict) -> str:
    """What identifies a verdict's regressions: each counted change's benchmark, params, environment and commits.

    Two nights that count the same changes have the same key however their
    reports' wording, timings or causes differ.
    """
    counted = sorted(
        (c["benchmark"], c["params"], c["environment"], c["good"], c["bad"]) for c in verdict.get("counted", [])
    )
    failure = (verdict["status"], verdict.get("stage"), verdict.get("message")) if verdict["status"] == FAILED else ()
    return hashlib.sha256(json.dumps([counted, failure]).encode()).hexdigest()[:16]


def key_of(body: str) -> str | None:
    found = re.search(r"<!-- regression key: ([0-9a-f]{16}) -->", body or "")
    return found[1] if found else None


def issue_body(verdict: dict, report: str) -> str:
    """The issue's body: the report (a note on top when the night could not be judged), its key, the run."""
    if verdict["status"] == FAILED:
        report = (
            "# Benchmark regressions: no report\n\nThe nightly could not make a regression report, so regressions "
            f"may go unseen: {verdict['summary']}.\n\n{report}"
        )
    if len(report) > MAX_BODY:
        report = report[:MAX_BODY] + "\n\n… (cut: the full report is in the run's summary)"
    body = f"{report}{MARKER}<!-- regression key: {regression_key(verdict)} -->\n"
    if os.environ.get("GITHUB_RUN_ID"):
        body += (
            f"\nReported by [run {os.environ['GITHUB_RUN_ID']}]({os.environ['GITHUB_SERVER_URL']}/"
            f"{os.environ['GITHUB_REPOSITORY']}/actions/runs/{os.environ['GITHUB_RUN_ID']}).\n"
        )
    return body


def open_or_update(args) -> int:
    """The issue brought up to date with the verdict (see scripts/open-regression-issue --help); exit code."""
    verdict = verdicts.read(args.verdict)
    api = client(args)  # a missing token or repository is found on a quiet night too
    if verdict["status"] == JUDGED and not verdict["regression"]:
        print(f"{args.verdict}: {verdict['summary']}; no issue to open")
        return 0
    try:
        report = args.report.read_text().strip() if args.report else ""
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"--report {args.report}: cannot be read ({error})") from None
    if verdict["status"] == JUDGED and not report:
        raise BadInput("a regression counts, and the issue needs its report: --report FILE is missing or empty")
    key = regression_key(verdict)
    body = issue_body(verdict, report)
    open_issues = api.issues(args.label, "open")
    if open_issues:
        number = open_issues[0]["number"]
        if report_of(open_issues[0]["body"]) == report and key_of(open_issues[0]["body"]) == key:
            print(f"issue #{number} already holds this report")
        else:
            api.edit_body(number, body)
            print(f"updated issue #{number}")
        return 0
    closed = api.issues(args.label, "closed")
    if closed and key_of(closed[0]["body"]) == key:
        print(f"issue #{closed[0]['number']}, closed, holds these regressions: not opening another")
        return 0
    api.ensure_label(args.label, LABEL_COLOR, LABEL_DESCRIPTION)
    created = api.create_issue(args.title, body, args.label)
    print(f"opened issue #{created.get('number')} {created.get('html_url') or ''}".strip())
    return 0
