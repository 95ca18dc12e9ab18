"""A season: what happens between a replay's nights (--events), and the goals the alarm must keep (docs/replay.md)."""

import re
from pathlib import Path

from ..asvtools import shapes
from ..errors import BadInput
from ..publishing import github, issue

EVENTS = {
    "close": "a maintainer closes the alert's newest open issue",
    "reopen": "a maintainer reopens the alert's newest closed issue",
    "clear": "a maintainer clears the body of the alert's newest open issue",
    "maintainer-issue": "a maintainer opens an issue of their own with the alert's label",
    "cancel": "the night's run is cancelled before its jobs start: none of them runs",
    "run-dies": "the run job's runner dies (a timeout, a lost runner): it fails and uploads nothing",
    "502": "GitHub's API answers 502 Bad Gateway once, to the next request (a quiet night's alert makes none)",
    "python-X.Y.Z": "the runner image changed: from this night on, setup-python gives Python X.Y.Z for X.Y (this "
    "machine's interpreter of that patch release), and asv's environments are made afresh with it",
}
RUNNER_PYTHON = re.compile(r"python-(\d+\.\d+\.\d+)")
LABEL = "benchmark-regression"
MAINTAINER = "a-maintainer"
# An event that edits the alert's newest issue in WANTED state: (wanted, key, new value).
MAINTAINER_EDITS = {
    "close": ("open", "state", "closed"),
    "reopen": ("closed", "state", "open"),
    "clear": ("open", "body", None),
}


def runner_python(events: list[str]) -> str | None:
    return next((m[1] for m in map(RUNNER_PYTHON.fullmatch, reversed(events)) if m), None)  # the night's last


def read_events(path: Path) -> dict[str, list[str]]:
    events = shapes.read_checked(path, "replay-events", "season's events (--events)")
    listed = (event for night in events.values() for event in night)
    if unknown := sorted(event for event in listed if event not in EVENTS and not RUNNER_PYTHON.fullmatch(event)):
        raise BadInput(f"--events {path}: {unknown[0]!r} is no event ({', '.join(EVENTS)})")
    return events


def apply(api: github.StandIn, events: list[str]) -> list[str]:
    """The events that act on GitHub, done on the stand-in; what each did, in words."""
    state, done = api.state(), []
    for event in events:
        if event in MAINTAINER_EDITS:
            wanted, key, value = MAINTAINER_EDITS[event]
            alerts = [
                i
                for i in state["issues"]
                if i["state"] == wanted
                and issue.is_alerts({**i, "user": {"login": i.get("user", github.BOT)}}, github.BOT)
            ]
            if not alerts:
                done.append(f"{event}: nothing to act on")
                continue
            max(alerts, key=lambda i: i["number"])[key] = value
        elif event == "maintainer-issue":
            if LABEL not in state["labels"]:
                state["labels"].append(LABEL)
            notes = "Our own notes on the benchmarks. Do not overwrite."
            api.add_issue(state, "Tracking: benchmark noise", notes, [LABEL], MAINTAINER)
        elif event == "502":
            state.setdefault("failures", []).append([502, "Bad Gateway"])
        done.append(event)
    api.save(state)
    return done


def snapshot(state: dict) -> list[dict]:
    return [
        {
            "number": i["number"],
            "user": i.get("user", github.BOT),
            "state": i["state"],
            "report": issue.split_body(i["body"])[0],
            "key": issue.split_body(i["body"])[1],
            "body": i["body"] if i.get("user", github.BOT) != github.BOT else None,
            "comments": len(i.get("comments", [])),
        }
        for i in state["issues"]
    ]


def problems(record: dict) -> list[str]:
    found, before, maintainers = [], {}, {}
    for night in record["nights"]:
        after = {i["number"]: i for i in night.get("issues_after", [])}
        label, action = night["night"], night["issue"]
        verdict = night.get("verdict") or {}
        failed = verdict.get("status") == "failed" or night["jobs"].get("run", {}).get("result") == "failure"
        if action.startswith("opened") and not (verdict.get("counted") or failed):
            found.append(f"night {label}: opened an issue that names no change")
        if action.startswith("updated"):
            number = int(action.split("#")[1])
            old, new = before.get(number), after.get(number)
            if old and new and (old["report"], old["key"]) == (new["report"], new["key"]):
                found.append(f"night {label}: edited #{number} without a change in its report")
        if failed and "alert" in night["jobs"] and night["jobs"]["alert"]["result"] != "skipped":
            if not any(i["user"] == github.BOT and i["state"] == "open" for i in after.values()):
                found.append(f"night {label}: a failure that reached no open issue")
        for number, i in after.items():
            if i["user"] != github.BOT and maintainers.setdefault(number, i["body"]) != i["body"]:
                found.append(f"night {label}: the maintainer's issue #{number} was overwritten")
        before = after
    return found
