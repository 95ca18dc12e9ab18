"""The replay: upstream history night by night, through the nightly workflow's own jobs (docs/replay.md)."""

import datetime
import itertools
import json
import shutil
import sys
import time
from pathlib import Path

from .. import git, util
from ..asvtools import runs
from ..errors import BadInput
from ..git import Commit, first_parent_commits
from ..publishing import generated, github
from . import season
from .jobs import REPOSITORY, JobRun, Replay, nightly_extras

RUN_VERDICT, EXACT_VERDICT = "regression-report", "exact-verdict"
COLUMNS = {s: [s] for s in ("benchmarked", "unchanged", "skipped")} | {"failed": ["failed", "partly failed"]}


def split_nights(commits: list[Commit], per_night: int | None = None, every_day: bool = False):
    """(label, commits) of each night: every PER_NIGHT commits, each UTC day (EVERY_DAY), or each commit date."""
    if every_day:
        by_day: dict[str, list[Commit]] = {}
        for commit in commits:
            by_day.setdefault(commit.date[:10], []).append(commit)
        first, last = (datetime.date.fromisoformat(commits[i].date[:10]) for i in (0, -1))
        days = [(first + datetime.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
        return [(day, by_day.get(day, [])) for day in days]
    if per_night:
        nights = [commits[i : i + per_night] for i in range(0, len(commits), per_night)]
    else:
        nights = [list(night) for _day, night in itertools.groupby(commits, key=lambda commit: commit.date[:10])]
    return [(str(number), night) for number, night in enumerate(nights, 1)]


def replay(options, log=sys.stderr) -> int:
    if not (commits := first_parent_commits(options.upstream, options.range)):
        raise BadInput(f"{options.range}: no commit in {options.upstream}")
    nights = split_nights(commits, options.per_night, options.every_day)
    before = git.out("rev-list", "--first-parent", "-n1", "--skip=1", commits[0].hash, repo=options.upstream).strip()
    base = bool(before) and not options.no_base
    if base:
        nights.insert(0, ("base", first_parent_commits(options.upstream, f"{before}^!")))  # the commit alone
    nights = nights[: options.limit or None]
    tags = git.tag_of_commit(options.upstream)
    with github.StandIn(repos=[REPOSITORY], tokens={}) as api:
        machine = Replay(options, api, log)
        prepared = machine.prepare()
        by_date = "every day (UTC)" if options.every_day else "commit date (UTC)"
        record = {
            "range": options.range,
            "source": str(options.upstream),
            "per_night": options.per_night,
            "by": f"{options.per_night} commit(s)" if options.per_night else by_date,
            "events": options.events,
            "base": base,
            **prepared,
            "nightly_extras": nightly_extras(options, machine.upstream),
            "quick": options.quick,
            "started": now(),
            "nights": [],
        }
        failed_any, tip = False, None
        for index, (label, night_commits) in enumerate(nights):
            tip = night_commits[-1].hash if night_commits else tip
            night = run_night(machine, index, label, night_commits, tags, tip, (options.events or {}).get(label, []))
            record["nights"].append(night)
            record["issues"] = machine.api.state()["issues"]
            record["finished"] = now()
            if options.events is not None:
                record["season_problems"] = season.problems(record)
            util.write_json(options.output / "replay.json", record)
            if options.docs:
                write_table(options.docs, options.table, record)
            failed = [name for name, job in night["jobs"].items() if job["result"] == "failure"]
            print(
                f"replay: night {label} ({len(night_commits)} commit(s), tip {night['tip'][:8]}): "
                f"{', '.join(failed) + ' failed' if failed else 'every job passed'}; {night['issue']}",
                file=log,
            )
            failed_any = failed_any or bool(failed)
            if failed and options.fail_fast:
                print("replay: stopping (--fail-fast)", file=log)
                break
    print(f"replay: record in {options.output / 'replay.json'}", file=log)
    return 1 if failed_any else 0


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


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
        if "cancel" in events:
            results[job.name] = JobRun("cancelled")
        elif "run-dies" in events and job.name == "run":
            results[job.name] = JobRun("failure", exit=143, failed_step="its runner died (scripted)")
        else:
            print(f"replay: night {label}: job {job.name}", file=machine.log)
            needs = {name: results[name].result for name in job.needs}
            results[job.name] = machine.run_job(job, night, folder / job.name, needs)
    seconds = round(time.monotonic() - started, 1)
    state = machine.api.state()
    calls = state["calls"][calls_before:]
    verdict_path, verdict = read_verdict(artifacts / RUN_VERDICT, folder / "run" / "temp")
    night.update(
        commits=commit_states(commits, runs.summaries(artifacts / "results"), verdict, tags),
        verdict=verdict_summary(verdict),
        verdict_from=str(verdict_path) if verdict_path else None,
        exact_verdict=verdict_summary(read_verdict(artifacts / EXACT_VERDICT)[1]),
        issue="cancelled" if "cancel" in events else issue_action(calls, state, results.get("alert")),
        issues_after=season.snapshot(state),
        seconds=seconds,
        jobs={name: vars(run) for name, run in results.items()},
    )
    if not machine.options.keep_workspaces:
        for job, name in itertools.product(machine.workflow.jobs, ("workspace", "temp")):
            shutil.rmtree(folder / job.name / name, ignore_errors=True)
    return night


def commit_states(commits: list[Commit], results: list[dict], verdict: dict | None, tags: dict) -> list[dict]:
    """Each of the night's commits: benchmarked, failed, partly failed, unchanged (the verdict names it), or skipped."""
    failed_by_verdict = {f["commit"] for f in (verdict or {}).get("failed_commits") or []}
    unchanged = set((verdict or {}).get("unchanged_commits") or [])
    states = []
    for commit in commits:
        files = [r for r in results if r["commit"] == commit.hash]
        ran, failed = sum(r["ran"] for r in files), sum(r["failed"] for r in files)
        if not files:
            state = "unchanged" if commit.hash in unchanged else "skipped"
        elif failed == ran:
            state = "failed"
        elif failed or commit.hash in failed_by_verdict:
            state = "partly failed"
        else:
            state = "benchmarked"
        states.append(
            {
                "commit": commit.hash,
                "name": tags.get(commit.hash) or commit.hash[:8],
                "date": commit.date,
                "subject": commit.subject,
                "state": state,
                "benchmarks": ran,
                "failed_benchmarks": failed,
            }
        )
    return states


def verdict_summary(verdict: dict | None) -> dict | None:
    if verdict is None:
        return None
    change_keys = ("benchmark", "params", "environment", "change", "good", "bad", "cause")
    return {
        **{key: verdict.get(key) for key in ("status", "regression", "summary")},
        **{
            name: [{k: c.get(k) for k in change_keys} for c in verdict.get(name) or []]
            for name in ("counted", "improvements")
        },
        "suspects": [{key: s.get(key) for key in ("benchmark", "verdict")} for s in verdict.get("suspects") or []],
        "failed_commits": [f.get("commit") for f in verdict.get("failed_commits") or []],
    }


def issue_action(calls: list[dict], state: dict, alert: JobRun | None) -> str:
    if alert is None or alert.result == "skipped":
        return "alert skipped"
    if writes := [c for c in calls if c["method"] in ("POST", "PATCH") and "/issues" in c["path"]]:
        last = writes[-1]
        if last["path"].endswith("/comments"):
            return f"commented on #{last['path'].split('/')[-2]}"
        if last["method"] == "PATCH":
            verb = "reopened" if (last.get("body") or {}).get("state") == "open" else "updated"
            return f"{verb} #{last['path'].rsplit('/', 1)[-1]}"
        return f"opened #{len(state['issues'])}"
    if alert.result == "failure":
        return f"alert failed (exit {alert.exit})"
    if not calls:
        return "none"
    for wanted, note in (("open", "kept #{}"), ("closed", "kept (closed #{})")):
        if numbers := [i["number"] for i in state["issues"] if i["state"] == wanted]:
            return note.format(max(numbers))
    return "none"


def read_verdict(*folders: Path) -> tuple[Path | None, dict | None]:
    """The first verdict.json found in FOLDERS, and what it holds (None where it cannot be read)."""
    for path in (path for folder in folders for path in sorted(folder.glob("**/verdict.json"))):
        try:
            return path, json.loads(path.read_text())
        except (OSError, ValueError):
            return path, None
    return None, None


def duration(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def job_cell(run: dict) -> str:
    if run["result"] in ("skipped", "cancelled"):
        return run["result"]
    if run["result"] == "failure":
        return f"**failed** (exit {run['exit']}, {duration(run['seconds'])})"
    return duration(run["seconds"])


def changes_cell(changes: list[dict]) -> str:
    """Each change as benchmark(params) change at `commit`."""
    named = (
        (f"{c['benchmark']}({c['params']})" if c.get("params") else str(c["benchmark"]))
        + (f" {c['change']:+.1%} at `{(c.get('bad') or '')[:8]}`" if isinstance(c.get("change"), float) else "")
        for c in changes
    )
    return "; ".join(named) or "–"


def table(record: dict) -> str:
    jobs, season = record["jobs"], record.get("events") is not None
    head = ["night", *["events"] * season, "commits (UTC)", *COLUMNS, "verdict", "counted", "large improvements"]
    head += ["suspects", "issue", *jobs, "night"]
    cells = []
    for night in record["nights"]:
        commits, verdict = night.get("commits") or [], night.get("verdict") or {}
        row = [
            night["night"],
            *([", ".join(night.get("events") or []) or "–"] if season else []),
            f"{len(commits)} ({' to '.join(sorted({d[:10] for d in night['dates']}))})",
            *(
                " ".join(f"`{c['name']}`" for c in commits if c["state"] in wanted) or "–"
                for wanted in COLUMNS.values()
            ),
            verdict.get("summary") or "no verdict",
            *(changes_cell(verdict.get(name) or []) for name in ("counted", "improvements")),
            ", ".join(f"{s['benchmark']}: {s['verdict']}" for s in verdict.get("suspects") or []) or "–",
            night["issue"],
            *(job_cell(night["jobs"][name]) for name in jobs),
            duration(night["seconds"]),
        ]
        cells.append([str(cell).replace("|", "\\|") for cell in row])
    extras = " ".join(record["nightly_extras"][4:]) or "nothing more"
    changed = len(record["project"]["changed"])
    pins = record.get("packages") or {}
    packages = "".join(f"{name} {pin['pinned']} as this machine's {pin['here']}; " for name, pin in pins.items())
    lines = [
        util.markdown_table(head, cells),
        "",
        f"Range `{record['range']}` of `{Path(record['source']).name}`, nights by {record['by']}"
        f"{', after a base night on the commit before it' if record['base'] else ''}; "
        f"workflow `{Path(record['workflow']).name}`, jobs {', '.join(jobs)}; the project at "
        f"`{record['project']['head'][:8]}` ({record['project']['checkout']}"
        f"{f', {changed} changed file(s)' if changed else ''}); "
        f"scripts/nightly also given --upstream, --env-dir and {extras}; the runner's python3: "
        f"{record['runner_python']}; {packages}"
        f"from {record['started']} to {record.get('finished', '')}.",
    ]
    if season:
        problems = record.get("season_problems") or []
        lines += [
            "",
            "The season's goals (scripts/benchtools/running/season.py): "
            + ("every one held." if not problems else "broken: " + "; ".join(problems) + "."),
        ]
    return "\n".join(lines)


def write_table(page: Path, name: str, record: dict) -> None:
    """The table between NAME's markers in PAGE, added at its end when missing."""
    block = f"replay-table:{name}"
    start, end = generated.markers(block)
    text = page.read_text() if page.exists() else "# Replay\n"
    if start not in text or end not in text:
        util.write_atomic(page, (text.rstrip("\n") + f"\n\n{start}\n{end}\n").encode())
    generated.write_blocks(page, {block: table(record)})
