"""The regression issue: opened, updated or closed from the gate's verdict, through gh."""

import json
import os
import shutil
import subprocess
import tempfile

from ..errors import BadInput, Failed

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


def open_or_update(args) -> int:
    """The issue brought up to date with ``args.report`` (see scripts/open-regression-issue --help); exit code."""
    try:
        report = args.report.read_text().strip()
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"--report {args.report}: cannot be read ({error})") from None
    if report.startswith("# Benchmark regressions") and report.endswith("No regression counts."):
        print(f"{args.report}: no regression counts; no issue to open")
        return 0
    if not report.startswith(("# Benchmark regressions", "No report:")):
        what = "empty" if not report else "neither a regression report nor a note that none could be made"
        raise BadInput(f"--report {args.report}: {what}; a missing verdict is never read as no regression")
    if report.startswith("No report:"):
        report = (
            "# Benchmark regressions: no report\n\nThe nightly could not make a regression report, "
            "so regressions may go unseen:\n\n" + report
        )
    if shutil.which("gh") is None:
        raise BadInput("the gh CLI is not installed")
    if len(report) > MAX_BODY:
        report = report[:MAX_BODY] + "\n\n… (cut: the full report is in the run's summary)"
    body = report + MARKER
    if os.environ.get("GITHUB_RUN_ID"):
        body += (
            f"\nReported by [run {os.environ['GITHUB_RUN_ID']}]({os.environ['GITHUB_SERVER_URL']}/"
            f"{os.environ['GITHUB_REPOSITORY']}/actions/runs/{os.environ['GITHUB_RUN_ID']}).\n"
        )
    with tempfile.NamedTemporaryFile("w", suffix=".md") as body_file:
        body_file.write(body)
        body_file.flush()
        open_issues = issues(args, "open")
        if open_issues:
            number = open_issues[0]["number"]
            if report_of(open_issues[0]["body"]) == report:
                print(f"issue #{number} already holds this report")
            else:
                gh(args, "issue", "edit", str(number), "--body-file", body_file.name)
                print(f"updated issue #{number}")
            return 0
        closed = issues(args, "closed")
        if closed and report_of(closed[0]["body"]) == report:
            print(f"issue #{closed[0]['number']}, closed, holds this report: not opening another")
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
