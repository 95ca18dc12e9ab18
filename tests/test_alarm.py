"""The alarm's life (publishing/issue.py's TRANSITIONS): one test per (the alert's issue before, tonight's verdict).

Each case puts the stand-in of GitHub's API in the state it names, runs
scripts/open-regression-issue's command in process, and checks both that the
state was read as named and that the action the table gives is what reached
the API, and nothing else.  Then the human hands: a maintainer's own issue,
a cleared body, a closed failure; and the churn of a failed or cut report.
"""

import re

import pytest
from markdown_it import MarkdownIt

from benchtools import cli, util
from benchtools.judging import render, verdicts
from benchtools.publishing import github, issue
from benchtools.publishing.issue import Action, NightNews, Previous
from tests.asv_sites import COST, INSTRUCTIONS, TIMING, judged_document

TOKEN = "alarm-token"
REPORT = f"{render.HEADING} (v0 → v1, timing confirmed)\n\n| cost | {COST} | 4 |"
OTHER_REPORT = f"{render.HEADING} (v1 → v2, timing confirmed)\n\n| ratio | {TIMING} | 4 |"


def regression(report=REPORT, benchmark=COST, bad="b" * 40) -> tuple[dict, str]:
    document = judged_document()
    document["counted"][0].update(benchmark=benchmark, bad=bad)
    return document, report


QUIET = (judged_document(regression=False, summary="no regression counts", counted=[]), "")
REGRESSION = regression()
OTHER_REGRESSION = regression(OTHER_REPORT, TIMING, "c" * 40)
FAILURE = (verdicts.failure("scripts/bench", 3, "asv run exited 1"), "No report: scripts/bench failed")
OTHER_FAILURE = (verdicts.failure("the regression gate", 2, "no site"), "No report: the gate failed")
TONIGHT = {NightNews.QUIET: QUIET, NightNews.REGRESSION: REGRESSION, NightNews.FAILURE: FAILURE}


@pytest.fixture
def api():
    with github.StandIn(repos=["owner/bench"], tokens={TOKEN: True}) as stand_in:
        yield stand_in


def alert(api, tmp_path, monkeypatch, tonight, *extra) -> tuple[int, str]:
    document, report = tonight
    verdict, report_path = tmp_path / "verdict.json", tmp_path / "report.md"
    verdicts.write(verdict, document)
    report_path.write_text(report)
    for name in ("GITHUB_RUN_ID", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_API_URL", api.url)
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    argv = ["--verdict", str(verdict), "--report", str(report_path), "--repo", "owner/bench", *extra]
    return cli.run("open-regression-issue", argv)


def an_issue(number, night, state="open", user=github.BOT, body=...) -> dict:
    document, report = night
    return {
        "number": number,
        "title": "Benchmark regression",
        "body": issue.issue_body(document, report) if body is ... else body,
        "labels": ["benchmark-regression"],
        "state": state,
        "updated_at": f"2026-12-0{number}T00:00:00Z",
        "user": user,
        "comments": [],
    }


def issues_before(previous: Previous, verdict: NightNews) -> list[dict]:
    """The stand-in's issues in the state PREVIOUS, for tonight's VERDICT."""
    tonight = TONIGHT[verdict]
    other = OTHER_FAILURE if verdict is NightNews.FAILURE else OTHER_REGRESSION
    return {
        Previous.NONE: [],
        Previous.OPEN_SAME: [an_issue(1, tonight)],
        Previous.OPEN_REGRESSION: [an_issue(1, OTHER_REGRESSION)],
        Previous.OPEN_FAILURE: [an_issue(1, OTHER_FAILURE)],
        Previous.OPEN_CLEARED: [an_issue(1, REGRESSION, body=None)],
        Previous.CLOSED_SAME: [an_issue(1, tonight, state="closed")],
        Previous.CLOSED_OTHER: [an_issue(1, other, state="closed")],
    }[previous]


# What the alert must do, written here from the rules of docs/automation.md rather than read from the table the code
# uses (issue.TRANSITIONS), so that a wrong entry there fails the test of its case.
P, V, A = Previous, NightNews, Action
EXPECTED = {
    **{(p, V.QUIET): A.LEAVE for p in Previous},  # a quiet night never touches an issue: a maintainer closes it
    (P.NONE, V.REGRESSION): A.OPEN,
    (P.NONE, V.FAILURE): A.OPEN,
    **{(P.OPEN_SAME, v): A.LEAVE for v in (V.REGRESSION, V.FAILURE)},  # the same news, already told
    (P.OPEN_REGRESSION, V.REGRESSION): A.EDIT,
    (P.OPEN_REGRESSION, V.FAILURE): A.COMMENT,  # the regression report stays
    (P.OPEN_FAILURE, V.REGRESSION): A.EDIT,
    (P.OPEN_FAILURE, V.FAILURE): A.EDIT,
    (P.OPEN_CLEARED, V.REGRESSION): A.EDIT,
    (P.OPEN_CLEARED, V.FAILURE): A.EDIT,
    (P.CLOSED_SAME, V.REGRESSION): A.LEAVE,  # a maintainer closed it: it stays closed until the news changes
    (P.CLOSED_SAME, V.FAILURE): A.REOPEN,  # closing a failure said "fixed": the same failure reopens it
    (P.CLOSED_OTHER, V.REGRESSION): A.OPEN,
    (P.CLOSED_OTHER, V.FAILURE): A.OPEN,
}


def test_the_table_covers_every_pair_and_a_quiet_night_touches_nothing():
    assert set(issue.TRANSITIONS) == {(p, v) for p in Previous for v in NightNews}
    assert {issue.TRANSITIONS[p, NightNews.QUIET] for p in Previous} == {Action.LEAVE}
    # A failure is never silenced by a closed issue.
    assert issue.TRANSITIONS[Previous.CLOSED_SAME, NightNews.FAILURE] is Action.REOPEN
    assert issue.TRANSITIONS[Previous.CLOSED_SAME, NightNews.REGRESSION] is Action.LEAVE


def test_docs_automation_holds_the_table_as_the_code_has_it(tmp_path):
    from tests.helpers import ROOT

    docs = (ROOT / "docs" / "automation.md").read_text()
    assert issue.transitions_markdown() in docs
    copy = tmp_path / "automation.md"
    copy.write_text(docs)
    assert cli.run("open-regression-issue", ["--write-table", str(copy)]) == 0
    assert copy.read_text() == docs


@pytest.mark.parametrize(
    "previous, verdict",
    [(p, v) for p in Previous for v in NightNews if not (v is NightNews.QUIET and p is not Previous.NONE)]
    + [(Previous.OPEN_REGRESSION, NightNews.QUIET), (Previous.CLOSED_OTHER, NightNews.QUIET)],
    ids=lambda value: value.name,
)
def test_each_transition_does_what_the_table_says(api, tmp_path, monkeypatch, previous, verdict):
    state = api.state()
    state["issues"] = issues_before(previous, verdict)
    state["labels"] = ["benchmark-regression"]
    api.save(state)
    document, report = TONIGHT[verdict]
    if verdict is not NightNews.QUIET:
        client = github.Client(api.url, "owner/bench", TOKEN)
        found, _ = issue.previous_state(
            client,
            "benchmark-regression",
            github.BOT,
            issue.regression_key(document),
            verdict,
        )
        assert found is previous
    before = api.state()
    assert alert(api, tmp_path, monkeypatch, TONIGHT[verdict]) == 0
    after = api.state()
    writes = [(c["method"], c["path"].split("/bench")[1]) for c in after["calls"][len(before["calls"]) :]]
    writes = [w for w in writes if w[0] != "GET" and w[1] != "/labels"]
    action = EXPECTED[previous, verdict]
    expected = {
        Action.LEAVE: [],
        Action.OPEN: [("POST", "/issues")],
        Action.EDIT: [("PATCH", "/issues/1")],
        Action.REOPEN: [("PATCH", "/issues/1")],
        Action.COMMENT: [("POST", "/issues/1/comments")],
    }[action]
    assert writes == expected
    body = issue.issue_body(document, report)
    if action is Action.OPEN:
        assert after["issues"][-1]["body"] == body and after["issues"][-1]["state"] == "open"
    if action in (Action.EDIT, Action.REOPEN):
        assert after["issues"][0]["body"] == body and after["issues"][0]["state"] == "open"
    if action is Action.COMMENT:
        assert after["issues"][0]["body"] == before["issues"][0]["body"]
        assert after["issues"][0]["comments"][-1]["body"] == body
    # Run again: the table's state is now OPEN_SAME or a closed one, and nothing more is written.
    again = api.state()
    assert alert(api, tmp_path, monkeypatch, TONIGHT[verdict]) == 0
    assert [c for c in api.state()["calls"][len(again["calls"]) :] if c["method"] != "GET"] == []


def test_a_maintainers_own_issue_with_the_label_is_never_edited(api, tmp_path, monkeypatch):
    theirs = an_issue(
        1, REGRESSION, user="maintainer", body="Our own tracking issue. <!-- benchmark alert: 0123456789abcdef -->"
    )
    state = api.state()
    state["issues"], state["labels"] = [theirs], ["benchmark-regression"]
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, REGRESSION) == 0
    issues = api.state()["issues"]
    assert issues[0] == {**theirs} and len(issues) == 2 and issues[1]["user"] == github.BOT


def test_a_failure_after_a_closed_failure_reopens_it(api, tmp_path, monkeypatch):
    assert alert(api, tmp_path, monkeypatch, FAILURE) == 0
    state = api.state()
    state["issues"][0]["state"] = "closed"
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, FAILURE) == 0
    [reopened] = api.state()["issues"]
    assert reopened["state"] == "open" and "could not make a regression report" in reopened["body"]


def test_a_cleared_body_is_handled_on_every_verdict(api, tmp_path, monkeypatch):
    state = api.state()
    state["issues"], state["labels"] = [an_issue(1, REGRESSION, body=None)], ["benchmark-regression"]
    api.save(state)
    for tonight in (QUIET, FAILURE, REGRESSION):
        assert alert(api, tmp_path, monkeypatch, tonight) == 0
    [restored] = api.state()["issues"]
    assert restored["body"] == issue.issue_body(*REGRESSION)


@pytest.mark.parametrize("night", [FAILURE, regression(REPORT + "\n" + "x" * issue.MAX_BODY)], ids=["failed", "cut"])
def test_the_same_night_twice_edits_nothing_the_second_time(api, tmp_path, monkeypatch, night):
    assert alert(api, tmp_path, monkeypatch, OTHER_REGRESSION if night is FAILURE else OTHER_FAILURE) == 0
    assert alert(api, tmp_path, monkeypatch, night) == 0
    calls = len(api.state()["calls"])
    assert alert(api, tmp_path, monkeypatch, night) == 0
    assert [c for c in api.state()["calls"][calls:] if c["method"] != "GET"] == []


def test_a_missing_verdict_reaches_the_alert_as_a_failed_night(api, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", api.url)
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    argv = ["--verdict", str(tmp_path / "none.json"), "--repo", "owner/bench"]
    assert cli.run("open-regression-issue", argv) == 2
    assert api.state()["calls"] == []
    missing_report = ["--report", str(tmp_path / "regressions.md"), "--missing-verdict-fails"]
    assert cli.run("open-regression-issue", [*argv, *missing_report]) == 0
    [opened] = api.state()["issues"]
    assert "the run job failed: it left no verdict (none.json)" in opened["body"]


@pytest.mark.parametrize(
    "report, why",
    [
        ("hello", "does not start with"),
        (f"{render.HEADING} (v0 → v1)\n\n{render.NOTHING_COUNTS}\n{COST}", "No regression counts."),
        (f"{render.HEADING} (v0 → v1)\n\n| ratio | {TIMING} |", f"does not name the counted {COST}"),
    ],
)
def test_a_report_that_is_not_the_gates_report_of_the_regression_is_bad_input(
    api, tmp_path, monkeypatch, capsys, report, why
):
    assert alert(api, tmp_path, monkeypatch, (REGRESSION[0], report)) == 2
    assert why in capsys.readouterr().err and api.state()["calls"] == []


class Raw:
    """A server on 127.0.0.1 that answers every request with the same bytes: what GitHub would never send."""

    def __init__(self, body: bytes, length: int | None = None):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(length if length is not None else len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(
    "body, length",
    [
        (b'[{"number": 1', 400),  # cut short of its Content-Length
        (b'[{"number": 1, "body": "\xff\xfe"}]', None),
        (b"[1, 2]", None),
        (b'[{"state": "open", "body": "x", "user": {"login": "x"}}]', None),
        (b'{"message": "not a list"}', None),
    ],
    ids=["truncated", "not-utf8", "not-objects", "no-number", "object"],
)
def test_an_answer_github_would_not_send_exits_3_in_one_line(tmp_path, monkeypatch, capsys, body, length):
    server = Raw(body, length)
    try:
        code = alert(server, tmp_path, monkeypatch, REGRESSION)
    finally:
        server.close()
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "GET /repos/owner/bench/issues" in err


@pytest.mark.parametrize("url", ["http://[::1", "ftp://example.com", "http://host:port", "no scheme"])
def test_a_github_api_url_that_is_no_url_is_bad_input(tmp_path, monkeypatch, capsys, url):
    document, report = REGRESSION
    verdict, report_path = tmp_path / "verdict.json", tmp_path / "report.md"
    verdicts.write(verdict, document)
    report_path.write_text(report)
    monkeypatch.setenv("GITHUB_API_URL", url)
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    argv = ["--verdict", str(verdict), "--report", str(report_path), "--repo", "owner/bench"]
    assert cli.run("open-regression-issue", argv) == 2
    assert "GITHUB_API_URL" in capsys.readouterr().err


def test_a_502_once_or_a_secondary_rate_limit_is_asked_again(api, tmp_path, monkeypatch):
    monkeypatch.setattr(util, "RETRY", util.RETRY.new(backoff_factor=0.05))
    state = api.state()
    state["failures"] = [[502, "Server Error"], [403, "You have exceeded a secondary rate limit"]]
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, REGRESSION) == 0
    assert len(api.state()["issues"]) == 1
    state = api.state()
    state["failures"] = [[503, "Unavailable"]] * 4
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, OTHER_REGRESSION) == 3
    assert api.state()["failures"] == []


# The cross-check: the run job's verdict against the exact metrics judged again where no upstream code ran.

EXACT_REPORT = f"{render.HEADING} (v0 → v1, unconfirmed)\n\n| cost | {COST} | 4 | re-judged |"


def cross_check(api, tmp_path, monkeypatch, tonight, exact) -> int:
    extra = ["--exact-verdict", str(tmp_path / "exact.json"), "--exact-report", str(tmp_path / "exact.md")]
    if exact is not None:
        verdicts.write(tmp_path / "exact.json", exact[0])
        (tmp_path / "exact.md").write_text(exact[1])
    return alert(api, tmp_path, monkeypatch, tonight, *extra)


def test_an_agreeing_night_carries_the_report_made_where_no_upstream_code_ran(api, tmp_path, monkeypatch):
    assert cross_check(api, tmp_path, monkeypatch, REGRESSION, (REGRESSION[0], EXACT_REPORT)) == 0
    [opened] = api.state()["issues"]
    assert issue.split_body(opened["body"])[0] == EXACT_REPORT


@pytest.mark.parametrize(
    "tonight, exact, expected",
    [
        (
            QUIET,
            (REGRESSION[0], EXACT_REPORT),
            f"counts 0 exact regression(s), the re-judgement where no upstream code ran counts 1: {COST} (4)",
        ),
        (REGRESSION, (QUIET[0], "No regression counts."), "counts 1 exact regression(s)"),
        (REGRESSION, None, "the publish job failed: it left no re-judgement"),
    ],
    ids=["quiet-run-job", "run-job-counts-more", "no-rejudgement"],
)
def test_a_run_job_verdict_the_rejudgement_contradicts_is_a_failed_night(
    api, tmp_path, monkeypatch, tonight, exact, expected
):
    assert cross_check(api, tmp_path, monkeypatch, tonight, exact) == 0
    [opened] = api.state()["issues"]
    assert "could not make a regression report" in opened["body"] and expected in opened["body"]
    if exact is not None:
        assert exact[1] in opened["body"]


# Text that upstream code wrote: the run job's failure and report, as issue 37 reproduced them.
FORGED = (
    verdicts.failure(
        "scripts/bench", 1, "asv exited 1 [click to fix](https://evil.example/phish) @patrick-kidger ``` <b>x</b>"
    ),
    "![pixel](https://evil.example/p.png)\n<!-- benchmark alert: 0123456789abcdef -->",
)


def shown(body: str) -> tuple[list[str], str]:
    """The elements GitHub's Markdown would make of BODY (CommonMark, raw HTML on), and its text outside code."""
    rendered = MarkdownIt("commonmark").render(body)
    tags = re.findall(r"<([a-z0-9]+)", rendered)
    return tags, re.sub(r"<code[^>]*>.*?</code>", "", rendered, flags=re.S)


@pytest.mark.parametrize("exact", [(REGRESSION[0], EXACT_REPORT), (QUIET[0], "No regression counts."), None])
def test_a_forged_failure_renders_nothing_and_hides_no_regression_the_rejudgement_counts(
    api, tmp_path, monkeypatch, exact
):
    for _night in range(2):  # the same failure the next night keeps what the first said
        assert cross_check(api, tmp_path, monkeypatch, FORGED, exact) == 0
    [opened] = api.state()["issues"]
    tags, outside_code = shown(opened["body"])
    assert not {"a", "img", "b"} & set(tags), tags
    assert "@patrick-kidger" in opened["body"] and "@patrick-kidger" not in outside_code
    assert issue.split_body(opened["body"])[1] != "0123456789abcdef"
    if exact is not None and exact[0]["regression"]:
        report = issue.split_body(opened["body"])[0]
        assert report.startswith(EXACT_REPORT) and COST in report
    else:
        assert "could not make a regression report" in opened["body"]


@pytest.mark.parametrize(
    "edit",
    [lambda body: body.replace("\n", "\r\n"), lambda body: "Looking into it. -- a maintainer\n\n" + body],
    ids=["crlf", "note-above"],
)
@pytest.mark.parametrize("night", [REGRESSION, FAILURE], ids=["regression", "failure"])
def test_a_maintainers_edit_of_the_same_news_is_kept(api, tmp_path, monkeypatch, edit, night):
    assert alert(api, tmp_path, monkeypatch, night) == 0
    state = api.state()
    state["issues"][0]["body"] = edit(state["issues"][0]["body"])
    api.save(state)
    calls = len(api.state()["calls"])
    assert alert(api, tmp_path, monkeypatch, night) == 0
    assert [c for c in api.state()["calls"][calls:] if c["method"] != "GET"] == []


def test_a_post_github_did_before_answering_502_is_not_done_twice(api, tmp_path, monkeypatch):
    """GitHub may create the issue, or the comment, and still answer 502: it is found, not asked for again."""
    monkeypatch.setattr(util, "RETRY", util.RETRY.new(backoff_factor=0.05))
    state = api.state()
    state["labels"], state["failures"] = ["benchmark-regression"], [[502, "Server Error", "after"]]
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, REGRESSION) == 0
    state = api.state()
    assert len(state["issues"]) == 1 and state["failures"] == []
    state["failures"] = [[502, "Server Error", "after"]]
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, FAILURE) == 0
    [kept] = api.state()["issues"]
    assert kept["body"] == issue.issue_body(*REGRESSION) and len(kept["comments"]) == 1


def test_the_newest_of_more_than_a_page_of_comments_is_read(api, tmp_path, monkeypatch):
    """Past a page of comments (GitHub's 100 at most), the same failure each night is still told once."""
    state = api.state()
    state["labels"] = ["benchmark-regression"]
    state["issues"] = [an_issue(1, REGRESSION)]
    state["issues"][0]["comments"] = [{"body": f"comment {n}", "user": {"login": "someone"}} for n in range(150)]
    api.save(state)
    for _night in range(3):
        assert alert(api, tmp_path, monkeypatch, FAILURE) == 0
    assert len(api.state()["issues"][0]["comments"]) == 151


def test_the_newest_closed_issue_is_the_newest_made_not_the_last_commented(api, tmp_path, monkeypatch):
    """A comment on an old closed issue does not make it the alert's newest: what the newer one holds stays
    closed (a maintainer closed it), rather than opened again as news."""
    state = api.state()
    state["labels"] = ["benchmark-regression"]
    state["issues"] = [an_issue(1, OTHER_REGRESSION, state="closed"), an_issue(2, REGRESSION, state="closed")]
    state["issues"][0]["updated_at"] = "2026-12-31T00:00:00Z"  # someone commented on #1 after #2 was closed
    api.save(state)
    assert alert(api, tmp_path, monkeypatch, REGRESSION) == 0
    assert [(i["number"], i["state"]) for i in api.state()["issues"]] == [(1, "closed"), (2, "closed")]


def instruction_rise(**changed) -> dict:
    """A counted instruction rise, as the gate writes it, with CHANGED keys replaced."""
    row = {**judged_document()["counted"][0], "kind": "instructions", "benchmark": INSTRUCTIONS}
    return {**row, "params": "'construct(default)'", **changed}


def overruling(rise: dict) -> dict:
    """The run job's overrule of RISE: its operation's time re-measured side by side and decided faster."""
    time = {"benchmark": TIMING, "params": "'jit'", "estimate": -0.05, "low": -0.08, "high": -0.02, "pairs": 12}
    return {**rise, "time": time}


@pytest.mark.parametrize("kind", ["instructions", "cost"])
def test_a_rise_the_run_job_overruled_by_its_time_is_no_disagreement(api, tmp_path, monkeypatch, kind):
    """Issue 37, item 13: the run job judges with confirmation, and an instruction rise whose time is decided
    faster does not count there; the publish job judges without, and counts it. That night was failed as a
    disagreement. Now the overrule is taken, but only the gate's own: an instruction count's (a cost is never
    overruled by a time, so a run job that claims it is contradicted)."""
    rise = instruction_rise(kind=kind, benchmark=INSTRUCTIONS if kind == "instructions" else COST)
    run_job = judged_document(
        regression=False, summary="no regression counts", counted=[], overruled=[overruling(rise)]
    )
    exact = judged_document(counted=[rise])
    report = f"{render.HEADING} (v0 → v1, unconfirmed)\n\n| {kind} | {rise['benchmark']} |"
    assert cross_check(api, tmp_path, monkeypatch, (run_job, ""), (exact, report)) == 0
    if kind == "instructions":
        assert api.state()["issues"] == []  # a quiet night, as the run job judged it
    else:
        [opened] = api.state()["issues"]
        assert "counts 0 exact regression(s), the re-judgement where no upstream code ran counts 1" in opened["body"]


def recounting(rise: dict) -> dict:
    """The run job's overrule of RISE: both commits counted again side by side, within the floor."""
    return {**rise, "recount": {"before": 480_000.0, "after": 480_100.0, "environment": {"python": "Python 3.11.7"}}}


def test_a_rise_the_run_job_counted_again_within_the_floor_is_no_disagreement(api, tmp_path, monkeypatch):
    """Issue 37, item 14: tonight's runner moved every count, so the re-judgement from the stored counts counts a
    rise that the run job, counting both commits again side by side, found within the floor; the night is quiet,
    and the report says why the rise does not count."""
    rise = instruction_rise()
    run_job = judged_document(
        regression=False, summary="no regression counts", counted=[], overruled=[recounting(rise)]
    )
    exact = judged_document(counted=[rise])
    report = f"{render.HEADING} (v0 → v1, unconfirmed)\n\n| instructions | {rise['benchmark']} |"
    assert cross_check(api, tmp_path, monkeypatch, (run_job, ""), (exact, report)) == 0
    assert api.state()["issues"] == []
