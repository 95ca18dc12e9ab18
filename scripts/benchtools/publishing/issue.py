"""The regression issue: opened, updated or closed from the gate's verdict, through gh."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

from ..errors import BadInput, Failed
from ..judging import verdicts
from ..judging.verdicts import FAILED, JUDGED

# GitHub refuses issue bodies over 65536 characters.
MAX_BODY = 65000
# Separates the report from the link to the run, so that bodies compare by report alone.
MARKER = "\n<!-- end of regression report -->\n"


def gh(args, *command) -> str:
    result = subprocess.run(
        ["gh", *command, *(["--repo", args.repo] if args.repo else [])], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise Failed(f"gh {' '.join(command)} failed: {result.stderr.strip()}")
    return result.stdout


def issues(args, state: str) -> list[dict]:
    """Issues with the label in STATE, most recently updated first."""
    found = json.loads(
        gh(
            args,
            "issue",
            "list",
            "--label",
            args.label,
            "--state",
            state,
            "--json",
            "number,body,updatedAt",
            "--limit",
            "100",
        )
    )
    return sorted(found, key=lambda issue: issue["updatedAt"], reverse=True)


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
    if verdict["status"] == JUDGED and not verdict["regression"]:
        print(f"{args.verdict}: {verdict['summary']}; no issue to open")
        return 0
    try:
        report = args.report.read_text().strip() if args.report else ""
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"--report {args.report}: cannot be read ({error})") from None
    if verdict["status"] == JUDGED and not report:
        raise BadInput("a regression counts, and the issue needs its report: --report FILE is missing or empty")
    if shutil.which("gh") is None:
        raise BadInput("the gh CLI is not installed")
    key = regression_key(verdict)
    with tempfile.NamedTemporaryFile("w", suffix=".md") as body_file:
        body_file.write(issue_body(verdict, report))
        body_file.flush()
        open_issues = issues(args, "open")
        if open_issues:
            number = open_issues[0]["number"]
            if report_of(open_issues[0]["body"]) == report and key_of(open_issues[0]["body"]) == key:
                print(f"issue #{number} already holds this report")
            else:
                gh(args, "issue", "edit", str(number), "--body-file", body_file.name)
                print(f"updated issue #{number}")
            return 0
        closed = issues(args, "closed")
        if closed and key_of(closed[0]["body"]) == key:
            print(f"issue #{closed[0]['number']}, closed, holds these regressions: not opening another")
            return 0
        gh(
            args,
            "label",
            "create",
            args.label,
            "--force",
            "--color",
            "d73a4a",
            "--description",
            "A benchmark got worse (scripts/regressions)",
        )
        print(
            gh(
                args, "issue", "create", "--title", args.title, "--label", args.label, "--body-file", body_file.name
            ).strip()
        )
    return 0
