"""The record of checks of real pull requests (scripts/check-pr --record), and its table for docs/pull-requests.md,
where each changed Module operation of a squashed pull request is set beside that commit's decided time in
docs/commit-history-times.json."""

import json
from pathlib import Path

from benchmarks import metrics

from .. import git, util
from ..asvtools import operations, shapes
from ..errors import Error
from ..judging import pr_render, pr_summary
from ..project import ROOT
from ..publishing import operation_history
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
    subjects = (line.partition("\0") for line in listing.splitlines())
    return next(
        (commit for commit, _, subject in subjects if operation_history.pull_request_of(subject) == number), None
    )


def entry(request: Request, summary: pr_summary.Summary | None, error: Error | None = None) -> dict:
    """One check in the record: of a failed one (``error``), what was asked and why it failed."""
    asked = dict(
        title=request.name, number=request.number, merge=request.merge, mode=request.mode, jax=list(request.jax)
    )
    if error is not None:
        return {**asked, "failure": f"exit {int(error.code)}: {error}", "changes": []}
    repo = bench.git_dir(target_of(request))
    return {
        **asked,
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
    # An operation's instruction count is set beside the same operation's time (pr_summary.words).
    operation = by_label.get(change["operation"].removesuffix(pr_summary.INSTRUCTIONS_SUFFIX))
    if operation is None:
        return None
    suffix = f"| {metrics.entry(*operation.timed)} | "
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
    word = "agrees" if (change["after"] < change["before"]) == (interval["high"] < 0) else "**differs**"
    return f"{word}: time {interval['estimate']:+.1%} ({interval['low']:+.1%} to {interval['high']:+.1%})"


def table(record: list[dict], times_path: Path = TIMES) -> str:
    times = operation_history.read_kept(times_path)
    head = ["pull request", "mode, JAX", "base → head", "what merging does", "changes; against the history's time"]
    head += ["check took", "load before → after"]
    rows = []
    for found in record:
        where = f"{found['mode']}, {', '.join(found['jax']) or 'every environment'}"
        if found.get("failure"):
            failure = pr_render.cell(found["failure"], None)
            rows.append([found["title"], where, "—", f"failed: {failure}", "—", "—", "—"])
            continue
        nothing = found.get("nothing_to_measure")
        does = f"nothing to measure ({nothing})" if nothing else "".join(pr_render.counted(found["sections"]))
        merged = found.get("merged_as")
        headline = [change for change in found["changes"] if change.get("headline")]
        shown = (
            "; ".join(
                f"{c['operation']} {c['after'] / c['before'] - 1 if c['before'] else float('inf'):+.1%}"
                + (f" ({agreement(c, history_time(times, c, merged))})" if merged else "")
                for c in headline
            )
            or "—"
        )
        if len(found["changes"]) > len(headline):
            shown += f"; and {len(found['changes']) - len(headline)} other measure(s) (other params or benchmarks)"
        shown = pr_render.cell(shown + (f". Squashed as `{merged[:8]}`" if merged else ""), None)
        sides, load = f"`{found['base'][:8]}` → `{found['head'][:8]}`", found["load"]
        took = f"{found['seconds'] / 60:.1f} min"
        rows.append([found["title"], where, sides, does, shown, took, f"{load[0]:.2f} → {load[1]:.2f}"])
    return markdown_table(head, rows) + "\n"
