"""scripts/open-regression-issue on the real gate's output, against a stand-in of GitHub's issues API.

Every verdict the alert reads here is written by the gate itself
(scripts/regressions --verdict over a real asv site, confirming through a
fake measurement) or by the nightly (a failed night): a quiet night, a
confirmed timing regression, an exact regression, a failed night, and a night
with failed commits.  GitHub cannot be reached from here; the stand-in
(benchtools.publishing.github.StandIn, the one scripts/replay uses) is an
HTTP server on 127.0.0.1 that answers the REST requests the script makes as
GitHub does and refuses any other, so that the script's decisions (one
issue, edited in place, known regressions not reopened) are what is tested.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from benchtools import cli
from benchtools.errors import BadInput
from benchtools.judging import verdicts
from benchtools.publishing.github import StandIn
from tests.asv_sites import COST, COUNT, MACHINE, TIMING, fake_sides, judged_document, make_site
from tests.helpers import SCRIPTS, tool

SCRIPT = SCRIPTS / "open-regression-issue"
TOKEN = "ghs_stand-in-secret"


class FakeGitHub:
    """Runs the script against the stand-in (GITHUB_API_URL), and reads or edits the stand-in's state."""

    def __init__(self, api: StandIn):
        self.api = api
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
        self.env.update(GITHUB_API_URL=api.url, GH_TOKEN=TOKEN)

    def run(self, night: "Night", repo="owner/bench", **extra_env):
        report = ["--report", str(night.report)] if night.report.exists() else []
        return subprocess.run(
            [
                *tool("open-regression-issue"),
                "--verdict",
                str(night.verdict),
                *report,
                *(["--repo", repo] if repo else []),
            ],
            capture_output=True,
            text=True,
            env={k: v for k, v in dict(self.env, **extra_env).items() if v is not None},
        )

    def state(self) -> dict:
        return self.api.state()

    def save(self, state: dict) -> None:
        self.api.save(state)


@pytest.fixture
def gh():
    with StandIn(repos=["owner/bench"], tokens={TOKEN: True, "read-only": False}) as api:
        yield FakeGitHub(api)


class Night:
    """The gate's real output for one night: its verdict (JSON), its report (Markdown), its exit code."""

    def __init__(self, folder: Path, code: int):
        self.verdict, self.report, self.code = folder / "verdict.json", folder / "report.md", code

    def data(self) -> dict:
        return json.loads(self.verdict.read_text())


def judged_night(tmp_path, monkeypatch, capsys, series, slowdown=1.0, name="night", first_day=1) -> Night:
    """The gate with its confirm step (a fake measurement: ``slowdown`` for the after commit) over v0 → v1."""
    folder = tmp_path / name
    folder.mkdir()
    config = make_site(folder, series, first_day=first_day)
    fake_sides(monkeypatch, {TIMING: slowdown}, [])
    night = Night(folder, 0)
    night.code = cli.run(
        "regressions",
        ["--config", str(config), "--machine", MACHINE, "--compare", "v0", "v1", "--verdict", str(night.verdict)],
    )
    night.report.write_text(capsys.readouterr().out)
    return night


FLAT_COUNT = [[100, 400]] * 2
QUIET = {TIMING: [[1.00e-3, 2.00e-3]] * 2, COST: [[100, 400]] * 2, COUNT: FLAT_COUNT}
SLOWER_TIMING = {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT}
EXACT = {COST: [[100, 400], [100, 440]], COUNT: FLAT_COUNT}


def test_a_quiet_night_touches_no_issue_although_its_report_ends_with_the_confirm_section(
    gh, tmp_path, monkeypatch, capsys
):
    night = judged_night(tmp_path, monkeypatch, capsys, QUIET)
    assert night.code == 0 and night.data()["regression"] is False and night.data()["confirmed"] is True
    # The case that a reader of the wording got wrong: the report does not end with "No regression counts."
    assert not night.report.read_text().strip().endswith("No regression counts.")
    result = gh.run(night)
    assert result.returncode == 0, result.stderr
    assert gh.state()["calls"] == []


def test_a_confirmed_timing_regression_opens_one_issue(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, SLOWER_TIMING, slowdown=1.5)
    document = night.data()
    assert night.code == 1 and document["regression"] is True
    [suspect] = [s for s in document["suspects"] if s["benchmark"] == TIMING]
    assert suspect["verdict"] == "slower" and suspect["low"] > 0.01 and suspect["pairs"] >= 8
    result = gh.run(night)
    assert result.returncode == 0, result.stderr
    [issue] = gh.state()["issues"]
    assert issue["body"].startswith(night.report.read_text().strip()) and "**slower**" in issue["body"]


def test_an_exact_regression_opens_the_issue_then_updates_it_in_place(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, EXACT)
    assert night.code == 1 and [c["kind"] for c in night.data()["counted"]] == ["cost"]
    first = gh.run(night, GITHUB_RUN_ID="7", GITHUB_SERVER_URL="https://github.com", GITHUB_REPOSITORY="owner/bench")
    assert first.returncode == 0, first.stderr
    issues = gh.state()["issues"]
    assert len(issues) == 1 and issues[0]["labels"] == ["benchmark-regression"]
    assert "https://github.com/owner/bench/actions/runs/7" in issues[0]["body"]

    unchanged = gh.run(night)
    assert "left alone" in unchanged.stdout
    assert not any(call["method"] == "PATCH" for call in gh.state()["calls"])

    # The same step at other commits is other news: a regression is its benchmark, params, environment and commits.
    worse = judged_night(
        tmp_path, monkeypatch, capsys, {COST: [[100, 400], [100, 480]], COUNT: FLAT_COUNT}, name="worse", first_day=5
    )
    assert gh.run(worse).returncode == 0
    issues = gh.state()["issues"]
    assert len(issues) == 1 and "480" in issues[0]["body"]


def test_known_regressions_are_not_reopened_but_new_ones_are(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, EXACT)
    gh.run(night)
    state = gh.state()
    state["issues"][0]["state"] = "closed"
    gh.save(state)
    again = gh.run(night)
    assert again.returncode == 0 and "closed" in again.stdout
    assert len(gh.state()["issues"]) == 1

    other = judged_night(tmp_path, monkeypatch, capsys, SLOWER_TIMING, slowdown=1.5, name="other")
    assert gh.run(other).returncode == 0
    assert [i["state"] for i in gh.state()["issues"]] == ["closed", "open"]


def test_a_failed_night_opens_the_issue_saying_so(gh, tmp_path, capsys):
    night = Night(tmp_path, 0)
    upstream = tmp_path / "upstream"
    subprocess.run(["git", "init", "-q", upstream], check=True)
    night.code = cli.run(
        "nightly",
        [
            "--upstream",
            str(upstream),
            "--results-remote",
            str(tmp_path / "nowhere.git"),
            "--output",
            str(tmp_path / "out"),
            "--report",
            str(night.report),
            "--verdict",
            str(night.verdict),
        ],
    )
    capsys.readouterr()
    assert night.code == 2 and night.data()["status"] == "failed"
    result = gh.run(night)
    assert result.returncode == 0, result.stderr
    [issue] = gh.state()["issues"]
    assert "could not make a regression report" in issue["body"] and "nowhere.git" in issue["body"]


def test_failed_commits_are_listed_and_are_no_regression(gh, tmp_path, monkeypatch, capsys):
    failed_after = {COST: [[100, 400], [None, None]], COUNT: [[100, 400], [None, None]]}
    night = judged_night(tmp_path, monkeypatch, capsys, {**QUIET, **failed_after})
    document = night.data()
    assert night.code == 0 and document["regression"] is False
    [failed] = document["failed_commits"]
    assert failed["label"] == "v1" and set(failed["benchmarks"]) == {COST, COUNT}
    assert "## Commits with failed benchmarks" in night.report.read_text()
    assert gh.run(night).returncode == 0 and gh.state()["calls"] == []


@pytest.mark.parametrize(
    "verdict",
    [
        "",
        "{}",
        "[]",
        '{"schema": 2, "status": "judged", "regression": false, "summary": "x"}',
        "No regression counts.\n",
        "# Benchmark regressions\n",
    ],
)
def test_a_missing_or_foreign_verdict_is_never_read_as_no_regression(gh, tmp_path, verdict):
    night = Night(tmp_path, 0)
    night.verdict.write_text(verdict)
    result = gh.run(night)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "verdict" in result.stderr and "Traceback" not in result.stderr
    assert gh.state()["calls"] == []


def test_a_regression_without_its_report_is_bad_input_and_a_gh_failure_is_reported(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, EXACT)
    missing = subprocess.run(
        [*tool("open-regression-issue"), "--verdict", str(tmp_path / "nope.json")],
        capture_output=True,
        text=True,
        env=gh.env,
    )
    assert missing.returncode == 2 and "nope.json" in missing.stderr
    report = night.report.read_text()
    night.report.unlink()
    assert gh.run(night).returncode == 2 and gh.state()["calls"] == []
    night.report.write_text(report)
    failing = gh.run(night, repo="other/repo")  # the stand-in answers only owner/bench
    assert failing.returncode == 3 and "GET /repos/other/repo/issues" in failing.stderr
    assert len(failing.stderr.strip().splitlines()) == 1 and TOKEN not in failing.stderr


def test_the_label_is_made_when_missing_and_the_token_goes_in_a_header_only(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, EXACT)
    result = gh.run(night)
    assert result.returncode == 0, result.stderr
    assert "opened issue #1" in result.stdout and TOKEN not in result.stdout + result.stderr
    calls = [(c["method"], c["path"]) for c in gh.state()["calls"]]
    assert calls == [
        ("GET", "/repos/owner/bench/issues"),
        ("GET", "/repos/owner/bench/issues"),
        ("GET", "/repos/owner/bench/labels/benchmark-regression"),
        ("POST", "/repos/owner/bench/labels"),
        ("POST", "/repos/owner/bench/issues"),
    ]
    assert [c["query"]["state"] for c in gh.state()["calls"][:2]] == ["open", "closed"]
    assert gh.state()["labels"] == ["benchmark-regression"]
    # The label is there now: a second regression asks for it and makes no other.
    state = gh.state()
    state["issues"][0]["state"] = "closed"
    gh.save(state)
    other = judged_night(tmp_path, monkeypatch, capsys, SLOWER_TIMING, slowdown=1.5, name="other")
    assert gh.run(other).returncode == 0
    assert [c["method"] for c in gh.state()["calls"]].count("POST") == 3


@pytest.mark.parametrize(
    "case, expected",
    [
        ({"GH_TOKEN": None}, "no token"),
        ({"GH_TOKEN": None, "GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": None, "repo": None}, "no repository"),
        ({"repo": "not a repository"}, "not OWNER/NAME"),
    ],
)
def test_a_missing_token_or_repository_is_bad_input_even_on_a_quiet_night(
    gh, tmp_path, monkeypatch, capsys, case, expected
):
    night = judged_night(tmp_path, monkeypatch, capsys, QUIET)
    case = dict(case)
    result = gh.run(night, repo=case.pop("repo", "owner/bench"), **case)
    assert result.returncode == 2 and expected in result.stderr, result.stderr
    assert gh.state()["calls"] == []


def test_the_repository_comes_from_github_repository_and_gh_token_or_github_token(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, EXACT)
    result = gh.run(night, repo=None, GH_TOKEN=None, GITHUB_TOKEN=TOKEN, GITHUB_REPOSITORY="owner/bench")
    assert result.returncode == 0, result.stderr
    assert len(gh.state()["issues"]) == 1


def test_a_refused_write_or_an_unreachable_api_exits_3_in_one_line(gh, tmp_path, monkeypatch, capsys):
    night = judged_night(tmp_path, monkeypatch, capsys, EXACT)
    refused = gh.run(night, GH_TOKEN="read-only")  # a job without permissions: issues: write
    assert refused.returncode == 3 and "HTTP 403" in refused.stderr, refused.stderr
    assert gh.state()["issues"] == []
    bad = gh.run(night, GH_TOKEN="wrong")
    assert bad.returncode == 3 and "HTTP 401 Bad credentials" in bad.stderr and "wrong" not in bad.stderr
    url = gh.api.url
    gh.api.stop()
    gone = gh.run(night, GITHUB_API_URL=url)
    assert gone.returncode == 3 and "cannot reach" in gone.stderr and len(gone.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "text",
    [
        # A quiet verdict that holds a counted row: regression and counted disagree.
        json.dumps(judged_document(regression=False, summary="no regression counts")),
        # The bare four keys: not what the gate writes.
        '{"schema": 1, "status": "judged", "regression": false, "summary": "no regression counts"}',
        json.dumps(judged_document(regression=False, counted=[])).replace('"counted": []', '"counted": NaN'),
        # A byte-order mark: not what verdicts.write writes.
        "\ufeff" + json.dumps(judged_document(regression=False, counted=[])),
        json.dumps(judged_document(counted="1 regression")),
        json.dumps(judged_document(counted=[{"benchmark": COST}])),
        json.dumps({"schema": 1, "status": "failed", "regression": True, "summary": "x"}),
        # A failed night that says a regression counts, and holds the row to agree with itself.
        json.dumps({**verdicts.failure("x", 1, "m"), "regression": True, "counted": judged_document()["counted"]}),
    ],
    ids=[
        "quiet-with-counted",
        "bare",
        "nan",
        "bom",
        "counted-text",
        "counted-row-short",
        "failed-short",
        "failed-regression",
    ],
)
def test_a_verdict_not_of_the_whole_judged_shape_is_bad_input(gh, tmp_path, text):
    night = Night(tmp_path, 0)
    night.verdict.write_text(text)
    night.report.write_text("# Benchmark regressions\n")
    result = gh.run(night)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "verdict" in result.stderr and "Traceback" not in result.stderr
    assert gh.state()["calls"] == []


def test_the_full_judged_shape_is_read_whole(tmp_path):
    path = tmp_path / "verdict.json"
    verdicts.write(path, judged_document())
    assert verdicts.read(path)["counted"][0]["benchmark"] == COST
    verdicts.write(path, judged_document(regression=False, summary="no regression counts", counted=[]))
    assert verdicts.read(path)["regression"] is False


def test_reading_a_verdict_names_the_file_and_what_is_wrong_with_it(tmp_path):
    path = tmp_path / "verdict.json"

    def refused(document) -> str:
        path.write_text(document if isinstance(document, str) else json.dumps(document))
        with pytest.raises(BadInput) as error:
            verdicts.read(path)
        return str(error.value)

    row = judged_document()["counted"][0]
    with pytest.raises(BadInput, match=f"^gate verdict not found: {tmp_path / 'nope.json'}$"):
        verdicts.read(tmp_path / "nope.json")
    nan = json.dumps(judged_document()).replace('"before": 100.0', '"before": NaN')
    assert refused(nan).startswith(f"gate verdict is corrupt: {path} (NaN is not JSON")
    wrong_shape = f"gate verdict has the wrong shape: {path}: "
    assert refused({"schema": 2, "status": "judged", "regression": False, "summary": "x"}).startswith(wrong_shape)
    assert refused(judged_document(counted=[{"benchmark": COST}])).startswith(wrong_shape + "counted[0]")
    assert refused(judged_document(regression=False)) == (
        f"gate verdict {path}: regression false with 1 counted row(s) and status judged; the gate writes regression "
        "true exactly when a row counts"
    )
    assert refused(judged_document(counted=[{**row, "kind": "k" * 50}])) == (
        f"gate verdict {path}: a counted row of kind {'k' * 40!r}, which metrics.py lacks"
    )


def test_a_night_with_nothing_to_judge_or_that_failed_says_so_in_its_summary(tmp_path):
    quiet = verdicts.nothing_judged("no commit after the baseline", "results", MACHINE, unchanged=["c" * 40])
    path = tmp_path / "verdict.json"
    verdicts.write(path, quiet)
    assert verdicts.read(path) == quiet
    with pytest.raises(ValueError, match="JSON"):  # never a file that its readers refuse
        verdicts.write(tmp_path / "nan.json", {**quiet, "summary": float("nan")})
    assert not (tmp_path / "nan.json").exists()
    assert quiet["summary"] == "no regression counts: no commit after the baseline"
    assert not quiet["regression"] and not quiet["confirmed"] and quiet["mode"] == verdicts.NOTHING_JUDGED
    assert (quiet["results"], quiet["machine"], quiet["unchanged_commits"]) == ("results", MACHINE, ["c" * 40])
    assert verdicts.failure("scripts/bench", 3, "asv run exited 1")["summary"] == (
        "scripts/bench failed (exit 3): asv run exited 1"
    )
    killed = verdicts.failure("the regression gate", None, "killed")
    assert killed["summary"] == "the regression gate failed: killed" and killed["exit"] is None
