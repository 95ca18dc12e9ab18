"""nightly.yml's alert job, its steps read from the real YAML and run by the replay's own job runner
(running/replay.py) against the stand-in of GitHub's API: which artifacts it trusts, after which jobs."""

import json

import pytest

from benchtools.judging import render
from benchtools.publishing import github
from benchtools.running import jobs, replay, workflow
from tests.asv_sites import COST, judged_document
from tests.helpers import ROOT, one_job_options

NIGHTLY = ROOT / ".github" / "workflows" / "nightly.yml"
QUIET = judged_document(regression=False, summary="no regression counts", counted=[])


class AlertJob(jobs.Replay):
    """The alert job of a scheduled night, its checkout this project's scripts."""

    def __init__(self, folder, api):
        super().__init__(one_job_options(folder, NIGHTLY), api)
        self.workflow = workflow.read_workflow(NIGHTLY)
        self.job = next(job for job in self.workflow.jobs if job.name == "alert")
        self.runner_bin = jobs.make_runner_bin(folder / "bin", None)

    def step_checkout(self, with_, step, context, workspace, night, log):
        """The checkout: this project's scripts/open-regression-issue, its own .venv (set up already)."""
        (workspace / "scripts").mkdir()
        wrapper = workspace / "scripts" / "open-regression-issue"
        wrapper.write_text(f'#!/bin/sh\nexec {ROOT / "scripts" / "open-regression-issue"} "$@"\n')
        wrapper.chmod(0o755)

    def run(self, folder, needs: dict[str, str], artifacts: dict[str, dict]) -> tuple[str, str]:
        """(the job's result, its log) after jobs that ended as NEEDS says, which uploaded ARTIFACTS
        ({name: {file: text}})."""
        for name, files in artifacts.items():
            (folder / "artifacts" / name).mkdir(parents=True)
            for file, text in files.items():
                (folder / "artifacts" / name / file).write_text(text)
        night = {"run_id": 7, "artifacts": str(folder / "artifacts")}
        run = self.run_job(self.job, night, folder / "job", needs)
        return run.result, (folder / "job" / "log.txt").read_text()


@pytest.fixture
def api():
    with github.StandIn(repos=[jobs.REPOSITORY], tokens={}) as stand_in:
        yield stand_in


def test_the_alert_trusts_no_rejudgement_from_a_publish_job_that_failed(api, tmp_path):
    """Issue 37, item 3: the run job runs upstream code, which can take the runner's artifact token, upload an
    `exact-verdict` of its own first, and so make the publish job's upload fail on the name. The alert then
    found that forged "quiet" re-judgement by name, and a quiet night stayed quiet. It reads the publish
    job's artifact only when that job succeeded: a failed publish is a failed night, in the issue."""
    run_job = {"verdict.json": json.dumps(QUIET), "regressions.md": "No regression counts."}
    forged = {"verdict.json": json.dumps(QUIET), "regressions.md": "No regression counts."}
    result, log = AlertJob(tmp_path, api).run(
        tmp_path,
        {"run": "success", "publish": "failure"},
        {replay.RUN_VERDICT: run_job, replay.EXACT_VERDICT: forged},
    )
    assert result == "success", log
    [opened] = api.state()["issues"]
    assert "the publish job failed: it left no re-judgement" in opened["body"], log


def test_the_rejudgement_of_a_publish_job_that_succeeded_is_read(api, tmp_path):
    """The same night with a publish job that succeeded: its re-judgement counts the regression that the run
    job's quiet verdict did not, and the alert says so."""
    run_job = {"verdict.json": json.dumps(QUIET), "regressions.md": "No regression counts."}
    exact = {"verdict.json": json.dumps(judged_document()), "regressions.md": f"{render.HEADING}\n\n| cost | {COST} |"}
    result, log = AlertJob(tmp_path, api).run(
        tmp_path,
        {"run": "success", "publish": "success"},
        {replay.RUN_VERDICT: run_job, replay.EXACT_VERDICT: exact},
    )
    assert result == "success", log
    [opened] = api.state()["issues"]
    assert "the re-judgement where no upstream code ran counts 1" in opened["body"], log
