"""The replay: upstream history night by night, through the nightly workflow's own jobs (docs/replay.md), read from
its YAML so that the replay and the workflow cannot drift apart."""

import datetime
import json
import shutil
import sys
import time
from pathlib import Path

from .. import git, util
from ..asvtools import runs
from ..errors import BadInput
from ..publishing import github
from . import season
from .jobs import REPOSITORY, Replay, nightly_extras
from .nights import Commit, first_parent_commits, split_days, split_nights
from .replay_record import (
    JobRun,
    commit_states,
    find_file,
    issue_action,
    load_json,
    verdict_summary,
    write_table,
)
from .workflow import installed_version, pinned_packages

# The artifacts of nightly.yml that hold the run job's verdict and the publish job's re-judgement.
RUN_VERDICT, EXACT_VERDICT = "regression-report", "exact-verdict"


def replay(options, log=sys.stderr) -> int:
    """Every night of the range through the workflow's jobs; OPTIONS are scripts/replay's, checked."""
    commits = first_parent_commits(options.upstream, options.range)
    if not commits:
        raise BadInput(f"{options.range}: no commit in {options.upstream}")
    if options.every_day:
        days = split_days(commits)
        nights, labels = [c for _, c in days], [day for day, _ in days]
    else:
        nights = split_nights(commits, options.per_night)
        labels = [str(n) for n in range(1, len(nights) + 1)]
    parents = git.out("rev-list", "--first-parent", "-n", "1", "--skip", "1", commits[0].hash, repo=options.upstream)
    base = parents.strip()
    if not options.no_base and base:
        subject = git.out("log", "-1", "--format=%ct%x00%s", base, repo=options.upstream).strip().split("\0", 1)
        date = datetime.datetime.fromtimestamp(int(subject[0]), datetime.UTC).isoformat(timespec="seconds")
        nights.insert(0, [Commit(base, date, subject[1])])
        labels.insert(0, "base")
    if options.limit:
        nights = nights[: options.limit]
    tags = {commit: tag for tag, commit in git.tags(options.upstream).items()}
    with github.StandIn(repos=[REPOSITORY], tokens={}) as api:
        machine = Replay(options, api, log)
        machine.prepare()
        record = {
            "range": options.range,
            "source": str(options.upstream),
            "per_night": options.per_night,
            "by": f"{options.per_night} commit(s)"
            if options.per_night
            else "every day (UTC)"
            if options.every_day
            else "commit date (UTC)",
            "events": options.events,
            "base": bool(not options.no_base and base),
            "workflow": str(machine.workflow.path),
            "jobs": [job.name for job in machine.workflow.jobs],
            "project": machine.snapshot,
            "runner_python": machine.python_note,
            "packages": {
                package: {"pinned": pinned, "here": installed_version(package)}
                for job in machine.workflow.jobs
                for step in job.steps
                for package, pinned in (pinned_packages(step.run) or {}).items()
            },
            "nightly_extras": nightly_extras(options, machine.upstream),
            "quick": options.quick,
            "started": now(),
            "nights": [],
        }
        failed_any, tip = False, None
        for index, night_commits in enumerate(nights):
            label = labels[index]
            tip = night_commits[-1].hash if night_commits else tip
            night = run_night(machine, index, label, night_commits, tags, tip, (options.events or {}).get(label, []))
            record["nights"].append(night)
            # Every issue as the stand-in holds it, so that what the alerts wrote can be read after the replay.
            record["issues"] = machine.api.state()["issues"]
            record["finished"] = now()
            write_record(machine.record_path, record)
            if options.docs:
                write_table(options.docs, options.table, record)
            if options.events is not None:
                record["season_problems"] = season.problems(record)
                write_record(machine.record_path, record)
            failed = [name for name, job in night["jobs"].items() if job["result"] == "failure"]
            print(
                f"replay: night {label} ({len(night_commits)} commit(s), tip {night['tip'][:8]}): "
                f"{', '.join(failed) + ' failed' if failed else 'every job passed'}; {night['issue']}",
                file=log,
                flush=True,
            )
            failed_any = failed_any or bool(failed)
            if failed and options.fail_fast:
                print("replay: stopping (--fail-fast)", file=log)
                break
    print(f"replay: record in {machine.record_path}", file=log)
    return 1 if failed_any else 0


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def write_record(path: Path, record: dict) -> None:
    util.write_atomic(path, (json.dumps(record, indent=1) + "\n").encode())


def run_night(
    machine: Replay, index: int, label: str, commits: list[Commit], tags: dict, tip: str, events: list[str] = ()
) -> dict:
    """One night: TIP is upstream's main (the last night's on a day without a commit), after EVENTS."""
    folder = machine.options.output / "nights" / f"{index:03d}"
    artifacts = folder / "artifacts"
    artifacts.mkdir(parents=True)
    night = {
        "night": label,
        "run_id": index + 1,
        "tip": tip,
        "dates": [commits[0].date, commits[-1].date] if commits else [label, label],
        "artifacts": str(artifacts),
    }
    machine.advance(tip)
    if events:
        night["events"] = season.apply(machine.api, events)
    machine.runner_patch = season.runner_python(events) or machine.runner_patch  # an image stays until the next
    calls_before = len(machine.api.state()["calls"])
    results: dict[str, JobRun] = {}
    started = time.monotonic()
    for job in machine.workflow.jobs:
        if "cancel" in events:  # a cancelled run: no job of it runs, and nothing it would have done is done
            results[job.name] = JobRun("cancelled")
            continue
        if "run-dies" in events and job.name == "run":
            results[job.name] = JobRun("failure", exit=143, failed_step="its runner died (scripted)")
            continue
        print(f"replay: night {label}: job {job.name}", file=machine.log, flush=True)
        results[job.name] = machine.run_job(job, night, folder / job.name, {n: results[n].result for n in job.needs})
    seconds = round(time.monotonic() - started, 1)
    state = machine.api.state()
    alert = results.get("alert")
    # The run job's verdict (its artifact, else what its RUNNER_TEMP kept), and the publish job's re-judgement.
    verdict_path = find_file([artifacts / RUN_VERDICT, folder / "run" / "temp"], "verdict.json")
    verdict = load_json(verdict_path)
    exact = load_json(find_file([artifacts / EXACT_VERDICT], "verdict.json"))
    run_results = runs.summaries(artifacts / "results")
    night.update(
        commits=commit_states(commits, run_results, verdict, tags),
        verdict=verdict_summary(verdict),
        verdict_from=str(verdict_path) if verdict_path else None,
        exact_verdict=verdict_summary(exact),
        issue=issue_action(state["calls"][calls_before:], state, alert) if "cancel" not in events else "cancelled",
        issues_after=season.snapshot(state),
        seconds=seconds,
        jobs={name: vars(run) for name, run in results.items()},
    )
    if not machine.options.keep_workspaces:
        for job in machine.workflow.jobs:
            for name in ("workspace", "temp"):
                shutil.rmtree(folder / job.name / name, ignore_errors=True)
    return night
