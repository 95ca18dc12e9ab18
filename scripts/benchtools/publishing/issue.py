"""The regression issue: the alarm's life as a state machine (``TRANSITIONS``) over the alert's own issues."""

import enum
import hashlib
import json
import os
import re

from benchmarks import metrics

from ..errors import BadInput
from ..judging import render, verdicts
from ..judging.verdicts import FAILED, JUDGED
from ..util import markdown_table
from . import github

MAX_BODY = 65000  # GitHub refuses issue bodies over 65536 characters
CUT_NOTE = "\n\n… (cut: the full report is in the run's summary)"
MAX_SUMMARY = 2000  # of a failure's summary, which upstream code may have written
MARKER = "\n<!-- end of regression report -->\n"  # what follows the last one is the alert's own
NO_REPORT = "# Benchmark regressions: no report"  # a failure's issue starts with it
KEY_MARK = re.compile(r"<!-- benchmark alert: ([0-9a-f]{16}) -->")


class NightNews(enum.Enum):
    QUIET = "quiet: judged, no regression counts"
    REGRESSION = "regression: judged, a regression counts"
    FAILURE = "failure: the night could not be judged"


class Previous(enum.Enum):
    NONE = "none: the alert has no issue (a maintainer's own issues with the label do not count)"
    OPEN_SAME = "open, holding tonight's report (or, for a failure, a comment of the alert's holding it)"
    OPEN_REGRESSION = "open, holding another regression report"
    OPEN_FAILURE = "open, holding another failure"
    OPEN_CLEARED = "open, its body cleared by a maintainer"
    CLOSED_SAME = "closed, holding what tonight reports"
    CLOSED_OTHER = "closed, holding something else"


class Action(enum.Enum):
    OPEN = "open a new issue"
    EDIT = "edit the open issue's body"
    REOPEN = "reopen the closed issue, its body tonight's"
    COMMENT = "comment on the open issue, its body kept"
    LEAVE = "leave it alone"


# The alarm's life (docs/automation.md): a failure is never silenced by a closed issue (closing it said "fixed"); a
# failure on an open regression issue is a comment, so that the regression report stays.
TRANSITIONS = {
    (previous, news): action
    for previous, actions in {
        # On a quiet night, a regression, a failure.
        Previous.NONE: (Action.LEAVE, Action.OPEN, Action.OPEN),
        Previous.OPEN_SAME: (Action.LEAVE, Action.LEAVE, Action.LEAVE),
        Previous.OPEN_REGRESSION: (Action.LEAVE, Action.EDIT, Action.COMMENT),
        Previous.OPEN_FAILURE: (Action.LEAVE, Action.EDIT, Action.EDIT),
        Previous.OPEN_CLEARED: (Action.LEAVE, Action.EDIT, Action.EDIT),
        Previous.CLOSED_SAME: (Action.LEAVE, Action.LEAVE, Action.REOPEN),
        Previous.CLOSED_OTHER: (Action.LEAVE, Action.OPEN, Action.OPEN),
    }.items()
    for news, action in zip(NightNews, actions, strict=True)
}


def transitions_markdown() -> str:
    """TRANSITIONS as the Markdown table of docs/automation.md."""
    header = ["the alert's issue before tonight", *(news.value.split(":")[0] for news in NightNews)]
    rows = [[previous.value, *(TRANSITIONS[previous, news].value for news in NightNews)] for previous in Previous]
    return markdown_table(header, rows)


def split_body(body: str | None) -> tuple[str, str | None]:
    """(the report, the key in the alert's mark) around the last MARKER: a report may quote a planted one."""
    text = (body or "").replace("\r\n", "\n")  # GitHub's web editor saves a body with CRLF
    report, found, mark = text.rpartition(MARKER)
    key = KEY_MARK.search(mark)
    return (report if found else text).strip(), key and key[1]


def change_key(change: dict) -> tuple:
    return change["benchmark"], change["params"], change["environment"], change["good"], change["bad"]


def regression_key(verdict: dict) -> str:
    """What identifies a verdict's news, whatever its report's wording, timings or causes."""
    counted = sorted(change_key(c) for c in verdict.get("counted", []))
    failure = (verdict["status"], verdict.get("stage"), verdict.get("message")) if verdict["status"] == FAILED else ()
    return hashlib.sha256(json.dumps([counted, failure]).encode()).hexdigest()[:16]


def cut(text: str, limit: int) -> str:
    return text[:limit] + CUT_NOTE if len(text) > limit else text


def issue_body(verdict: dict, report: str) -> str:
    """REPORT cut to fit, then the alert's mark; a failure's summary and report as text."""
    if verdict["status"] != FAILED:
        report = cut(report, MAX_BODY).strip()
    else:
        head = (
            f"{NO_REPORT}\n\nThe nightly could not make a regression report, so regressions "
            f"may go unseen. What failed:\n\n{render.as_text(cut(verdict['summary'], MAX_SUMMARY))}"
        )
        # A third of what is left: each of the report's two fences is at most one longer than the report.
        said = render.as_text(cut(report, (MAX_BODY - len(head)) // 3))
        report = f"{head}\n\nIts report:\n\n{said}" if report else head
    body = f"{report}{MARKER}<!-- benchmark alert: {regression_key(verdict)} -->\n"
    if run := os.environ.get("GITHUB_RUN_ID"):
        url = f"{os.environ['GITHUB_SERVER_URL']}/{os.environ['GITHUB_REPOSITORY']}/actions/runs/{run}"
        body += f"\nReported by [run {run}]({url}).\n"
    return body


def is_alerts(issue: dict, author: str) -> bool:
    login = (issue.get("user") or {}).get("login")
    return login == author and (issue.get("body") is None or split_body(issue.get("body"))[1] is not None)


def previous_state(api: github.Client, label: str, author: str, key: str, verdict: NightNews):
    """(Previous, the issue it is about or None): the alert's newest open issue, else its newest closed one."""
    for state in ("open", "closed"):
        issue = next((i for i in api.issues(label, state) if is_alerts(i, author)), None)
        if issue is None:
            continue
        report, held = split_body(issue["body"])
        if state == "closed":
            return (Previous.CLOSED_SAME if held == key else Previous.CLOSED_OTHER), issue
        if held is None:  # is_alerts: a body cleared
            return Previous.OPEN_CLEARED, issue
        if held == key:
            return Previous.OPEN_SAME, issue
        holds_failure = report.startswith(NO_REPORT)
        if verdict is NightNews.FAILURE and not holds_failure:
            told = [c for c in api.comments(issue["number"]) if (c.get("user") or {}).get("login") == author]
            if told and split_body(told[-1].get("body"))[1] == key:
                return Previous.OPEN_SAME, issue
        return (Previous.OPEN_FAILURE if holds_failure else Previous.OPEN_REGRESSION), issue
    return Previous.NONE, None


def checked_report(document: dict, path) -> str:
    """The report to post: for a regression, the gate's report of it (its heading, each counted benchmark)."""
    try:
        report = path.read_text(encoding="utf-8").strip() if path and path.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"--report {path}: cannot be read ({error})") from None
    if document["status"] != JUDGED or not document["regression"]:
        return report
    if not report:
        raise BadInput("a regression counts, and the issue needs its report: --report FILE is missing or empty")
    missing = [c["benchmark"] for c in document["counted"] if c["benchmark"] not in report]
    why = (
        f"it does not start with {render.HEADING!r}"
        if not report.startswith(render.HEADING)
        else f"it says {render.NOTHING_COUNTS!r}"
        if render.NOTHING_COUNTS in report
        else missing and f"it does not name the counted {missing[0]}"
    )
    if why:
        raise BadInput(f"--report {path}: not the gate's report of this regression verdict ({why})")
    return report


def open_or_update(args) -> int:
    if args.missing_verdict_fails and not args.verdict.exists():
        why = f"it left no verdict ({args.verdict.name}): it was killed, timed out, or failed before the nightly "
        document = verdicts.failure("the run job", None, why + "started (its setup, or the upload)")
    else:
        document = verdicts.read(args.verdict)
    # Checked on a quiet night too.
    repo = args.repo or os.environ.get("GITHUB_REPOSITORY")
    if not repo:
        raise BadInput("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")  # as gh reads them
    if not token:
        raise BadInput("no token: set GH_TOKEN or GITHUB_TOKEN (in GitHub Actions: ${{ github.token }})")
    api = github.Client(os.environ.get("GITHUB_API_URL") or github.DEFAULT_API, repo, token)
    report = checked_report(document, args.report)
    if args.exact_verdict:
        document, report = cross_checked(document, report, args)
    if document["status"] != FAILED and not document["regression"]:
        print(f"{args.verdict}: {document['summary']}; no issue to open")
        return 0
    verdict = NightNews.FAILURE if document["status"] == FAILED else NightNews.REGRESSION
    key, body = regression_key(document), issue_body(document, report)
    previous, issue = previous_state(api, args.label, args.author, key, verdict)
    action = TRANSITIONS[previous, verdict]
    number = issue["number"] if issue else None
    if action is Action.OPEN:
        api.ensure_label(args.label, "d73a4a", "A benchmark got worse (scripts/regressions)")
        created = api.create_issue(args.title, body, args.label)
        print(f"opened issue #{created.get('number')} {created.get('html_url') or ''}".strip())
    elif action in (Action.EDIT, Action.REOPEN):
        reopen = {"state": "open"} if action is Action.REOPEN else {}
        api.request("PATCH", f"/issues/{number}", body={"body": body, **reopen})
        print(f"reopened issue #{number}: {document['summary']}" if reopen else f"updated issue #{number}")
    elif action is Action.COMMENT:
        api.comment(number, body)
        print(f"commented on issue #{number}: {document['summary']}")
    else:
        print(f"issue #{number}, {previous.value}: left alone")
    return 0


def cross_checked(document: dict, report: str, args) -> tuple[dict, str]:
    """The run job's verdict and report, checked against --exact-verdict (docs/automation.md)."""
    exact = verdicts.read(args.exact_verdict) if args.exact_verdict.exists() else None
    if document["status"] == FAILED:
        # Upstream code could write the run job's failure: it must not hide what the trusted side counted.
        if exact is None or exact["status"] == FAILED or not exact["regression"]:
            return document, report
        said = render.as_text(cut(document["summary"], MAX_SUMMARY))
        failed = f"The run job failed too, so its timings were not judged. What it said:\n\n{said}"
        return exact, f"{checked_report(exact, args.exact_report)}\n\n{failed}"
    if exact is None:
        why = "it left no re-judgement of the exact metrics (the results were not stored, or it failed)"
        return verdicts.failure("the publish job", None, why), report
    exact_report = checked_report(exact, args.exact_report)
    if exact["status"] == FAILED:
        return exact, exact_report

    def rows(verdict):
        return sorted(change_key(c) for c in verdict["counted"] if c["kind"] not in metrics.TIMING_KINDS)

    # A rise the run job overruled counts in the re-judgement from the stored counts.  {key: counted again}
    claimed = {change_key(c): "recount" in c for c in document["overruled"] if c["kind"] == metrics.INSTRUCTIONS}
    overruled = [r for r in rows(exact) if r in claimed]
    if rows(document) != [r for r in rows(exact) if r not in claimed]:
        named = ", ".join(f"{b} ({p})" for b, p, *_ in rows(exact)) or "none"
        why = f"the run job's verdict counts {len(rows(document))} exact regression(s), the re-judgement where no "
        why += f"upstream code ran counts {len(rows(exact))}: {named}. The run job's verdict is not used"
        return verdicts.failure("the cross-check", None, why), exact_report
    for again, why in (
        (True, "whose two commits the run job counted again side by side and found within the floor (the stored "
         "counts came from two environments)"),
        (False, "whose time the run job re-measured side by side and decided faster"),
    ):  # fmt: skip
        if named := ", ".join(f"{r[0]} ({r[1]})" for r in overruled if claimed[r] == again):
            exact_report += f"\n\nNot counted: {named}, {why}."
    timing = any(c["kind"] in metrics.TIMING_KINDS for c in document["counted"])
    return document, report if timing else exact_report
