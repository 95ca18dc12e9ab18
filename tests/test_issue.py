"""scripts/open-regression-issue against a stand-in gh that keeps issues in a JSON file.

GitHub cannot be reached from here; the stand-in answers the few gh commands
the script uses as gh does, and refuses any other, so that the script's
decisions (one issue, edited in place, a closed report not reopened) are
what is tested.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import SCRIPTS

SCRIPT = SCRIPTS / "open-regression-issue"
FAKE_GH = r"""#!PYTHON
import argparse, json, os, sys
state_path = os.environ["FAKE_GH_STATE"]
state = json.load(open(state_path))
state["calls"].append(sys.argv[1:])
parser = argparse.ArgumentParser()
parser.add_argument("noun"); parser.add_argument("verb"); parser.add_argument("arg", nargs="?")
for option in ("--label", "--state", "--json", "--limit", "--body-file", "--title", "--repo", "--color",
               "--description"):
    parser.add_argument(option)
parser.add_argument("--force", action="store_true")
args = parser.parse_args()
assert args.repo == "owner/bench", args.repo
if (args.noun, args.verb) == ("issue", "list"):
    found = [{k: i[k] for k in args.json.split(",")} for i in state["issues"]
             if args.label in i["labels"] and i["state"] == args.state]
    print(json.dumps(found))
elif (args.noun, args.verb) == ("issue", "edit"):
    issue = next(i for i in state["issues"] if i["number"] == int(args.arg))
    issue["body"], issue["updatedAt"] = open(args.body_file).read(), "2026-12-31T00:00:00Z"
elif (args.noun, args.verb) == ("issue", "create"):
    if args.label not in state["labels"]:
        sys.exit("could not add label: '%s' not found" % args.label)
    number = len(state["issues"]) + 1
    state["issues"].append({"number": number, "title": args.title, "body": open(args.body_file).read(),
                            "labels": [args.label], "state": "open", "updatedAt": "2026-12-31T00:00:00Z"})
    print("https://github.com/owner/bench/issues/%d" % number)
elif (args.noun, args.verb) == ("label", "create"):
    state["labels"].append(args.arg)
else:
    sys.exit("unexpected gh call")
json.dump(state, open(state_path, "w"))
"""
REGRESSION = "\n".join(
    [
        "# Benchmark regressions (asv step detection)",
        "",
        "Results: `results/upstream`, machine `github-actions`.",
        "",
        "| kind | benchmark | params | environment | before | after | ratio | threshold | first changed in |",
        "|---|---|---|---|---|---|---|---|---|",
        "| deterministic | `bench_counts.PythonCalls.track_tree_at` | 4 | jax 0.4.33 | 400 calls | 404 calls | 1.01 "
        "| any increase | v4 |",
        "",
    ]
)
NO_REGRESSION = "# Benchmark regressions (asv step detection)\n\nResults: `x`.\n\nNo regression counts.\n"


class FakeGitHub:
    """Runs the script with the stand-in gh first on PATH, and reads or edits the stand-in's state."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "gh").write_text(FAKE_GH.replace("PYTHON", sys.executable))
        (bin_dir / "gh").chmod(0o755)
        self.state_path = tmp_path / "state.json"
        self.save({"issues": [], "labels": [], "calls": []})
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        self.env.update(PATH=f"{bin_dir}:{self.env['PATH']}", FAKE_GH_STATE=str(self.state_path), GH_TOKEN="fake")

    def run(self, report: str, repo="owner/bench", **extra_env):
        path = self.tmp_path / "report.md"
        path.write_text(report)
        return subprocess.run(
            [sys.executable, str(SCRIPT), "--report", str(path), "--repo", repo],
            capture_output=True,
            text=True,
            env=dict(self.env, **extra_env),
        )

    def state(self) -> dict:
        return json.loads(self.state_path.read_text())

    def save(self, state: dict) -> None:
        self.state_path.write_text(json.dumps(state))


@pytest.fixture
def gh(tmp_path):
    return FakeGitHub(tmp_path)


def test_no_regression_touches_no_issue(gh):
    result = gh.run(NO_REGRESSION)
    assert result.returncode == 0, result.stderr
    assert gh.state()["calls"] == []


@pytest.mark.parametrize("report", ["", "\n  \n", "Traceback (most recent call last):\n", "# Something else\n"])
def test_an_empty_or_foreign_report_is_never_read_as_no_regression(gh, report):
    result = gh.run(report)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "never read as no regression" in result.stderr and "Traceback" not in result.stderr
    assert gh.state()["calls"] == []


def test_a_nightly_that_made_no_report_opens_the_issue_saying_so(gh):
    note = "No report: the regression gate failed: scripts/regressions crashed (exit 4): KeyError: 'x'\n"
    result = gh.run(note)
    assert result.returncode == 0, result.stderr
    [issue] = gh.state()["issues"]
    assert "could not make a regression report" in issue["body"] and "the regression gate failed" in issue["body"]


def test_one_issue_is_opened_then_updated_in_place(gh):
    first = gh.run(
        REGRESSION, GITHUB_RUN_ID="7", GITHUB_SERVER_URL="https://github.com", GITHUB_REPOSITORY="owner/bench"
    )
    assert first.returncode == 0, first.stderr
    issues = gh.state()["issues"]
    assert len(issues) == 1 and issues[0]["labels"] == ["benchmark-regression"]
    assert issues[0]["body"].startswith(REGRESSION.strip())
    assert "https://github.com/owner/bench/actions/runs/7" in issues[0]["body"]

    unchanged = gh.run(REGRESSION)
    assert "already holds this report" in unchanged.stdout
    assert not any(call[:2] == ["issue", "edit"] for call in gh.state()["calls"])

    worse = REGRESSION.replace("404 calls | 1.01", "420 calls | 1.05")
    assert gh.run(worse).returncode == 0
    issues = gh.state()["issues"]
    assert len(issues) == 1 and "420 calls" in issues[0]["body"]


def test_a_closed_report_is_not_reopened_but_a_new_one_is(gh):
    gh.run(REGRESSION)
    state = gh.state()
    state["issues"][0]["state"] = "closed"
    gh.save(state)
    again = gh.run(REGRESSION)
    assert again.returncode == 0 and "closed" in again.stdout
    assert len(gh.state()["issues"]) == 1

    worse = REGRESSION.replace("404 calls | 1.01", "420 calls | 1.05")
    assert gh.run(worse).returncode == 0
    issues = gh.state()["issues"]
    assert [i["state"] for i in issues] == ["closed", "open"] and "420 calls" in issues[1]["body"]


def test_a_missing_report_is_bad_input_and_a_gh_failure_is_reported(gh):
    missing = subprocess.run(
        [sys.executable, str(SCRIPT), "--report", str(gh.tmp_path / "nope.md")],
        capture_output=True,
        text=True,
        env=gh.env,
    )
    assert missing.returncode == 2 and "nope.md" in missing.stderr
    failing = gh.run(REGRESSION, repo="other/repo")  # the stand-in answers only owner/bench
    assert failing.returncode == 3 and "gh issue list" in failing.stderr
