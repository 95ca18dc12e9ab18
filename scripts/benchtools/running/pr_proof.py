"""The proof on real pull requests: a record of checks, and its table for docs/pull-requests.md.

scripts/check-pr --record FILE appends each check as it ends (a stopped campaign keeps every check done); --from-record
FILE prints the table and --docs writes it. For a pull request that was squashed onto the branch (its subject ends in
"(#N)"), each changed Module operation is set beside the time of that squashed commit measured side by side in
docs/commit-history-times.json (scripts/overhead-report's campaign), where that time is decided (its interval excludes
no change): the check's direction agrees with it or not.
"""

import json
from pathlib import Path

from benchmarks import metrics

from .. import git, util
from ..asvtools import operations, shapes
from ..errors import Error
from ..judging import pr_summary
from ..project import ROOT
from ..publishing import generated, operation_history
from ..util import markdown_table
from . import bench
from .pr_check import Request, target_of

BLOCK = "pull-requests"
TIMES = ROOT / "docs" / "commit-history-times.json"


def merged_as(repo: Path, branch: str, number: int | None) -> str | None:
    """The commit of BRANCH whose subject names pull request NUMBER (a squashed merge), or None."""
    if number is None:
        return None
    listing = git.out("log", "--format=%H%x00%s", git.END, branch, repo=repo, check=False)
    for line in listing.splitlines():
        commit, _, subject = line.partition("\0")
        if operation_history.pull_request_of(subject) == number:
            return commit
    return None


def entry(request: Request, summary: pr_summary.Summary) -> dict:
    """One check in the record: what it compared, its sections' counts, each change, its time and load."""
    repo = bench.git_dir(target_of(request))
    return {
        **request_data(request),
        "base": summary.base,
        "head": summary.head,
        "merged_as": merged_as(repo, request.branch, request.number) if not request.merge else None,
        "touched": summary.touched,
        "environments": summary.environments,
        "seconds": round(summary.seconds, 1),
        "load": [round(value, 2) for value in summary.load],
        "sections": summary.counts(),
        "not_comparable": len(summary.unjudged),
        "regression": summary.regression,
        "nothing_to_measure": summary.nothing_to_measure,
        "changes": [
            {
                "operation": row.words.operation,
                "benchmark": row.change.benchmark,
                "params": row.change.params,
                "environment": row.change.env,
                "before": row.change.before,
                "after": row.change.after,
                "section": row.section,
                "cause": row.cause,
                "headline": row.words.rank[0] == 0 and row.words.rank[2] == 0,
            }
            for row in summary.rows
            if row.section in pr_summary.CHANGED
        ],
        "failure": None,
    }


def request_data(request: Request) -> dict:
    return {
        "title": request.name,
        "number": request.number,
        "merge": request.merge,
        "mode": request.mode,
        "jax": list(request.jax),
    }


def failed_entry(request: Request, error: Error) -> dict:
    return {**request_data(request), "failure": f"exit {int(error.code)}: {error}", "changes": []}


def read(path: Path) -> list[dict]:
    """The record of checks at PATH (schemas/pull-requests.schema.json); BadInput naming what is wrong."""
    return shapes.read_checked(path, "pull-requests", "record of pull-request checks")


def append(path: Path, found: dict) -> None:
    """Add one check to the record at PATH, replacing an earlier check of the same pull request and mode."""
    record = read(path) if path.exists() else []
    key = (found["title"], found["mode"], tuple(found["jax"]))
    record = [e for e in record if (e["title"], e["mode"], tuple(e["jax"])) != key] + [found]
    util.write_atomic(path, (json.dumps(record, indent=1) + "\n").encode())


def history_time(times: dict, change: dict, merged: str) -> dict | None:
    """The side-by-side time of the squashed commit MERGED for the changed operation, from the history."""
    by_label = {operation.label: operation for operation in operations.OPERATIONS}
    # An operation's instruction count is set beside the same operation's time (pr_summary.counted_words).
    operation = by_label.get(change["operation"].removesuffix(pr_summary.INSTRUCTIONS_SUFFIX))
    if operation is None:
        return None
    benchmark, params = operation.timed
    suffix = f"| {metrics.entry(benchmark, params)} | "
    for key, value in times.items():
        environment, _, rest = key.partition(" | ")
        if environment == change["environment"] and f"| {rest}".startswith(suffix) and key.endswith(f"| {merged}"):
            return value.get("interval")
    return None


def agreement(change: dict, interval: dict | None) -> str:
    """The check's direction against the history's time: agrees, differs, or why it cannot say."""
    if interval is None:
        return "no time in the history"
    if interval["low"] <= 0 <= interval["high"]:
        return f"time undecided ({interval['estimate']:+.1%})"
    check_faster = change["after"] < change["before"]
    time_faster = interval["high"] < 0
    word = "agrees" if check_faster == time_faster else "**differs**"
    return f"{word}: time {interval['estimate']:+.1%} ({interval['low']:+.1%} to {interval['high']:+.1%})"


def change_cell(change: dict) -> str:
    relative = change["after"] / change["before"] - 1 if change["before"] else float("inf")
    return f"{change['operation']} {relative:+.1%}"


def table(record: list[dict], times_path: Path = TIMES) -> str:
    """Each check as a row: what merging does, each changed operation with the history's time beside it, the check's
    time and load."""
    times = operation_history.read_kept(times_path)
    head = ["pull request", "mode, JAX", "base → head", "what merging does", "changes; against the history's time"]
    head += ["check took", "load before → after"]
    rows = []
    for found in record:
        where = f"{found['mode']}, {', '.join(found['jax']) or 'every environment'}"
        if found.get("failure"):
            rows.append([found["title"], where, "—", f"failed: {cell(found['failure'])}", "—", "—", "—"])
            continue
        sides = f"`{found['base'][:8]}` → `{found['head'][:8]}`"
        if found.get("nothing_to_measure"):
            does = f"nothing to measure ({found['nothing_to_measure']})"
        else:
            counts = found["sections"]
            main = (pr_summary.FASTER, pr_summary.SLOWER_, pr_summary.UNCHANGED)
            more = [f"{count} {name}" for name, count in counts.items() if name not in main and count]
            does = (
                f"{counts[pr_summary.FASTER]} faster, {counts[pr_summary.SLOWER_]} slower, "
                f"{counts[pr_summary.UNCHANGED]} unchanged" + (f" ({'; '.join(more)})" if more else "")
            )
        merged = found.get("merged_as")
        cells = []
        headline = [change for change in found["changes"] if change.get("headline")]
        for change in headline:
            text = change_cell(change)
            if merged:
                text += f" ({agreement(change, history_time(times, change, merged))})"
            cells.append(text)
        others = len(found["changes"]) - len(headline)
        shown = "; ".join(cells) or "—"
        if others:
            shown += f"; and {others} other measure(s) (other params or benchmarks)"
        if merged:
            shown += f". Squashed as `{merged[:8]}`"
        load = found["load"]
        took = f"{found['seconds'] / 60:.1f} min"
        rows.append([found["title"], where, sides, does, cell(shown), took, f"{load[0]:.2f} → {load[1]:.2f}"])
    return markdown_table(head, rows) + "\n"


def cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def write_docs(path: Path, text: str) -> None:
    generated.write_blocks(path, {BLOCK: text})
