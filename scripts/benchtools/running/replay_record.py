"""What a replayed night did, read from what its jobs left: commit states, the verdict, the issue action; the table."""

import json
from dataclasses import dataclass
from pathlib import Path

from .. import util
from ..publishing import generated
from ..util import markdown_table
from .nights import Commit


@dataclass
class JobRun:
    result: str  # success, failure or skipped
    seconds: float = 0.0
    exit: int | None = None
    failed_step: str | None = None


# --- What a night did -------------------------------------------------------------------------


def commit_states(commits: list[Commit], results: list[dict], verdict: dict | None, tags: dict) -> list[dict]:
    """Each of the night's commits: benchmarked, failed (every benchmark), partly failed, unchanged (the package its
    parent's, so not benchmarked: the verdict names it), or skipped (no result for another reason)."""
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
    suspects = verdict.get("suspects") or []
    return {
        "status": verdict.get("status"),
        "regression": verdict.get("regression"),
        "summary": verdict.get("summary"),
        **{
            name: [
                {k: c.get(k) for k in ("benchmark", "params", "environment", "change", "good", "bad", "cause")}
                for c in verdict.get(name) or []
            ]
            for name in ("counted", "improvements")
        },
        "suspects": [{"benchmark": s.get("benchmark"), "verdict": s.get("verdict")} for s in suspects],
        "failed_commits": [f.get("commit") for f in verdict.get("failed_commits") or []],
    }


def issue_action(calls: list[dict], state: dict, alert: JobRun | None) -> str:
    """What the alert did to the issues, from the requests it made."""
    if alert is None or alert.result == "skipped":
        return "alert skipped"
    writes = [c for c in calls if c["method"] in ("POST", "PATCH") and "/issues" in c["path"]]
    if writes:
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
    issues = sorted(state["issues"], key=lambda i: i["number"], reverse=True)
    for wanted, note in (("open", "kept #{}"), ("closed", "kept (closed #{})")):
        found = [i for i in issues if i["state"] == wanted]
        if found:
            return note.format(found[0]["number"])
    return "none"


def find_file(folders: list[Path], name: str) -> Path | None:
    for folder in folders:
        found = sorted(folder.glob(f"**/{name}")) if folder.is_dir() else []
        if found:
            return found[0]
    return None


def load_json(path: Path | None):
    try:
        return json.loads(path.read_text()) if path else None
    except (OSError, ValueError):
        return None


# --- The table ----------------------------------------------------------------------------------


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
    """Each change of a verdict's list as the table names it: benchmark (params), change, the commit it is placed at."""
    cells = []
    for c in changes:
        name = f"{c['benchmark']}({c['params']})" if c.get("params") else str(c["benchmark"])
        if isinstance(c.get("change"), float):
            name += f" {c['change']:+.1%} at `{(c.get('bad') or '')[:8]}`"
        cells.append(name)
    return "; ".join(cells) or "–"


def packages_note(packages: dict) -> str:
    return "".join(f"{name} {pin['pinned']} as this machine's {pin['here']}; " for name, pin in packages.items())


def table(record: dict) -> str:
    jobs = record["jobs"]
    head = ["night", "commits (UTC)", "benchmarked", "unchanged", "skipped", "failed", "verdict", "counted"]
    head += ["large improvements", "suspects", "issue"]
    season = record.get("events") is not None
    if season:
        head.insert(1, "events")
    cells = []
    for night in record["nights"]:
        states = night.get("commits") or []

        def names(*wanted, states=states):
            return " ".join(f"`{c['name']}`" for c in states if c["state"] in wanted) or "–"

        verdict = night.get("verdict") or {}
        counted, improved = (changes_cell(verdict.get(name) or []) for name in ("counted", "improvements"))
        suspects = ", ".join(f"{s['benchmark']}: {s['verdict']}" for s in verdict.get("suspects") or []) or "–"
        row = [
            night["night"],
            *([", ".join(night.get("events") or []) or "–"] if season else []),
            f"{len(states)} ({' to '.join(sorted({d[:10] for d in night['dates']}))})",
            names("benchmarked"),
            names("unchanged"),
            names("skipped"),
            names("failed", "partly failed"),
            verdict.get("summary") or "no verdict",
            counted,
            improved,
            suspects,
            night["issue"],
            *(job_cell(night["jobs"][name]) for name in jobs),
            duration(night["seconds"]),
        ]
        cells.append([str(cell).replace("|", "\\|") for cell in row])
    extras = " ".join(record["nightly_extras"][4:]) or "nothing more"
    changed = len(record["project"]["changed"])
    lines = [
        markdown_table(head + jobs + ["night"], cells),
        "",
        f"Range `{record['range']}` of `{Path(record['source']).name}`, nights by {record['by']}"
        f"{', after a base night on the commit before it' if record['base'] else ''}; "
        f"workflow `{Path(record['workflow']).name}`, jobs {', '.join(jobs)}; the project at "
        f"`{record['project']['head'][:8]}` ({record['project']['checkout']}"
        f"{f', {changed} changed file(s)' if changed else ''}); "
        f"scripts/nightly also given --upstream, --env-dir and {extras}; the runner's python3: "
        f"{record['runner_python']}; {packages_note(record.get('packages') or {})}"
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
    """The table between NAME's markers in PAGE (publishing/generated.py), which are added at its end when missing."""
    block = f"replay-table:{name}"
    start, end = generated.markers(block)
    text = page.read_text() if page.exists() else "# Replay\n"
    if start not in text or end not in text:
        util.write_atomic(page, (text.rstrip("\n") + f"\n\n{start}\n{end}\n").encode())
    generated.write_blocks(page, {block: table(record)})
