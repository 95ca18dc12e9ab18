"""pr-check.yml's comment job, its steps read from the real YAML and run by the replay's own job runner
(running/replay.py), with `gh` stood in for: what the reviewer sees in the pull request's one comment,
whatever the check job left."""

import pytest
import yaml

from benchtools import cli
from benchtools.commands import check_pr
from benchtools.errors import Failed
from benchtools.judging import pr_render, pr_summary
from benchtools.judging.changes import Change
from benchtools.publishing import github
from benchtools.running import jobs, pr_check, workflow
from tests.helpers import ROOT, one_job_options

PR_CHECK = ROOT / ".github" / "workflows" / "pr-check.yml"
# gh as the comment job calls it: `api --paginate` lists the ids of the check's comments (the file ids),
# `-F body=@FILE` keeps the body it would post; every call is logged.
FAKE_GH = """#!/bin/bash
echo "$*" >> {folder}/calls
for arg in "$@"; do
  case "$arg" in body=@*) cp "${{arg#body=@}}" {folder}/posted.md ;; esac
done
case " $* " in *" --paginate "*) cat {folder}/ids 2>/dev/null ;; esac
exit 0
"""


class CommentJob(jobs.Replay):
    """The comment job of a call on pull request 7 of the caller's own repository."""

    def __init__(self, folder, api):
        super().__init__(one_job_options(folder, PR_CHECK), api)
        spec = yaml.safe_load(PR_CHECK.read_text())["jobs"]["comment"]
        steps = [workflow.read_step("pr-check.yml: job comment", i, s) for i, s in enumerate(spec["steps"], 1)]
        self.job = workflow.Job("comment", ["check"], spec["if"], {}, spec["permissions"], steps)
        self.workflow = workflow.Workflow(PR_CHECK, {}, {}, [self.job])
        self.runner_bin = jobs.make_runner_bin(folder / "bin", None)
        self.gh = folder / "gh"
        self.gh.mkdir()
        (self.runner_bin / "gh").write_text(FAKE_GH.format(folder=self.gh))
        (self.runner_bin / "gh").chmod(0o755)

    def context(self, job, folder, needs):
        context = super().context(job, folder, needs)
        context["inputs"] = {"pull_request": "7"}
        pull_request = {"head": {"repo": {"full_name": jobs.REPOSITORY}}}
        context["github"].update(event_name="pull_request", run_id="99", event={"pull_request": pull_request})
        return context

    def run(self, folder, result: str, artifact: dict[str, str] | None) -> tuple[str, str | None]:
        """(the job's result, the body it posted or None) after a check job that ended RESULT, having
        uploaded ARTIFACT ({file: text}, None: nothing)."""
        artifacts = folder / "artifacts"
        for name, text in (artifact or {}).items():
            (artifacts / "pr-check").mkdir(parents=True, exist_ok=True)
            (artifacts / "pr-check" / name).write_bytes(text.encode())
        night = {"run_id": 99, "artifacts": str(artifacts)}
        run = self.run_job(self.job, night, folder / "job", {"check": result})
        posted = self.gh / "posted.md"
        return run.result, posted.read_text() if posted.exists() else None


@pytest.fixture
def comment_job(tmp_path):
    with github.StandIn() as api:
        yield CommentJob(tmp_path, api)


def edge_summary() -> pr_summary.Summary:
    """A check whose whole summary fits GitHub's 65,536 characters but not the comment job's 65,000 bytes
    ("→" takes 3): issue 37 reproduced 65,117 characters, 65,594 bytes."""
    rows = [
        pr_summary.PlacedChange(
            Change(f"bench_x.C.track_{i}", f"{i}", "env", 100.0, 90.0, "a", "b", True, "instructions"),
            pr_summary.FASTER,
            pr_summary.words(f"bench_x.C.track_{i}", f"{i}"),
            cause="`f`: 2 → 1 calls per update; " * 4,
        )
        for i in range(400)
    ]
    for n in range(len(rows)):
        summary = pr_summary.Summary("#7", rows[:n], base="a" * 40, head="b" * 40)
        text = pr_render.markdown(summary)
        if len(text.encode()) > pr_render.COMMENT_BYTES:
            assert len(text) <= 65536, len(text)
            return summary
    raise AssertionError("no summary at the edge")


def test_a_summary_at_the_edge_of_a_comment_is_posted_whole(comment_job, tmp_path):
    """Such a summary was posted as "did not finish (success)" (issue 37, item 5); fitted to the job's bytes,
    it is posted as it is, each cut counted."""
    text = pr_render.fitted(edge_summary())
    result, posted = comment_job.run(tmp_path, "success", {"summary.md": text})
    assert result == "success" and posted is not None
    assert posted.startswith(text) and "did not finish" not in posted
    assert "more, left out here to fit a comment" in text


def test_a_check_that_left_no_summary_replaces_the_last_comment_saying_so(comment_job, tmp_path):
    """Its setup failed, it timed out or it crashed: no artifact. The comment job still runs its fallback
    and edits the check's one comment (issue 37, item 6), rather than leaving the last push's "0 slower"."""
    (comment_job.gh / "ids").write_text("4242\n")
    result, posted = comment_job.run(tmp_path, "failure", None)
    assert result == "success", (tmp_path / "job" / "log.txt").read_text()
    assert posted is not None and "The benchmark check did not finish (failure)" in posted
    assert (
        "--method PATCH repos/replay/equinox-benchmarks/issues/comments/4242" in (comment_job.gh / "calls").read_text()
    )


def test_a_side_that_fails_to_build_says_why_in_the_comment_and_the_job_summary(comment_job, tmp_path, monkeypatch):
    """scripts/check-pr exits 3 and writes the reason to --summary and the job summary, and the comment job
    posts it (issue 37, item 7): not "did not finish (failure): no verdict" with an empty job summary."""
    reason = "#5: the head bbbbbbbb measured nothing (it did not build, install or import) in env"
    job_summary, summary = tmp_path / "step-summary.md", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(job_summary))
    args = cli.parse("check-pr", ["5", "--upstream", str(tmp_path), "--summary", str(summary)])
    check_pr.tell(args, pr_check.Request(upstream=str(tmp_path), number=5), None, Failed(reason))
    assert reason in job_summary.read_text()
    result, posted = comment_job.run(tmp_path, "failure", {"summary.md": summary.read_text()})
    assert result == "success" and posted is not None
    assert "The benchmark check of #5 failed" in posted and reason in posted
