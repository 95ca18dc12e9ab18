"""Every step of each operation's exact cost, at the commit that made it: its date, subject and pull request.

The operations are tree_at's update (bench_counts.PythonCost at the report's
depth, the history the releases have) and the Module's own operations
(publishing/operations.py).  Steps come from asv's step detection over each
environment's series, as the tree_at history's do, and count above the cost
floor (metrics.COST_FLOOR).  On a commit-level history each step lands on the
commit that made it; the pull request is the one its subject names.
"""

import re
from dataclasses import dataclass

from benchmarks import metrics

from ..asvtools import operations
from ..judging import steps

# Upstream names a pull request at the end of a squashed merge's subject, or in a merge commit's; a rebased
# pull request's commits name none.
PULL_REQUEST = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)\b")
TREE_AT = "update one field: `eqx.tree_at` (bench_counts.PythonCost)"
# The pull requests that Equinox's issues name as Module speed-ups: #961's ("Slow initialization") and
# #899's follow-ups.
MODULE_SPEED_PRS = (994, 1117, 1119, 1140, 1220)


@dataclass(frozen=True)
class OperationStep:
    operation: str
    env: str
    before: object  # the report's Row at the last commit of the old level
    after: object  # the Row at the first commit of the new level
    cost: tuple[float, float]

    @property
    def relative(self) -> float:
        return self.cost[1] / self.cost[0] - 1

    @property
    def pull_request(self) -> int | None:
        return pull_request_of(self.after.subject)


def pull_request_of(subject: str) -> int | None:
    found = PULL_REQUEST.search(subject)
    return int(found.group(1) or found.group(2)) if found else None


def module_cost(label: str):
    return lambda row: row.operations.get(label, (None,))[0]


def cost_series() -> dict[str, object]:
    """{operation: the row's exact cost of its Module side}, tree_at's own history first."""
    return {TREE_AT: lambda row: row.cost} | {op.label: module_cost(op.label) for op in operations.OPERATIONS}


def operation_steps(rows: list) -> dict[str, list[OperationStep]]:
    """{operation: its cost's steps above the floor, in every environment, oldest first}; only the
    operations these rows measured."""
    found = {}
    for operation, value in cost_series().items():
        if all(value(row) is None for row in rows):
            continue
        found[operation] = []
        for env in dict.fromkeys(row.env for row in rows):
            series = [row for row in rows if row.env == env and value(row) is not None]
            pieces = steps.pieces([(i, value(row)) for i, row in enumerate(series)])
            found[operation] += [
                OperationStep(operation, env, series[s.rev_before], series[s.rev_after], (s.before, s.after))
                for s in steps.steps(pieces, metrics.COST_FLOOR)
            ]
    return found


def markdown(found: dict[str, list[OperationStep]], project_url: str) -> str:
    """Each operation's steps as a table: commit, date, subject, pull request, size."""
    lines = ["## Every step of each operation's exact cost", ""]
    for operation, found_steps in found.items():
        lines += [f"### {operation}", ""]
        if not found_steps:
            lines += [f"No step above {metrics.COST_FLOOR:.0%} in these results.", ""]
            continue
        lines += [
            "| environment | commit | date | subject | pull request | cost before → after (exact) |",
            "|---|---|---|---|---|---|",
        ]
        for step in found_steps:
            pull = f"[#{step.pull_request}]({project_url}/pull/{step.pull_request})" if step.pull_request else "—"
            subject = step.after.subject.replace("|", "\\|") or "—"
            lines.append(
                f"| {step.env} | `{step.after.label}` | {step.after.commit_date or '—'} | {subject} | {pull} "
                f"| {step.cost[0]:,.0f} → {step.cost[1]:,.0f} ({step.relative:+.1%}) |"
            )
        lines.append("")
    return "\n".join(lines)


@dataclass(frozen=True)
class PullRequestEffect:
    """What one commit that names a pull request did to each operation's cost, in one environment."""

    pull_request: int
    env: str
    commit: object  # the report's Row of the commit
    costs: dict  # operation -> (cost at the previous measured commit, cost at this one)


def pull_request_effects(rows: list, pulls: tuple[int, ...] = MODULE_SPEED_PRS) -> dict[int, list[PullRequestEffect]]:
    """{pull request: its commits' effects, per environment}; [] for one that no commit's subject names."""
    found = {pull: [] for pull in pulls}
    series = cost_series()
    for env in dict.fromkeys(row.env for row in rows):
        in_env = [row for row in rows if row.env == env]
        for i, row in enumerate(in_env):
            pull = pull_request_of(row.subject)
            if pull not in found:
                continue
            costs = {}
            for operation, value in series.items():
                earlier = [value(r) for r in in_env[:i] if value(r) is not None]
                if earlier and value(row) is not None:
                    costs[operation] = (earlier[-1], value(row))
            found[pull].append(PullRequestEffect(pull, env, row, costs))
    return found


def pull_requests_markdown(found: dict[int, list[PullRequestEffect]], project_url: str) -> str:
    """Each Module-speed pull request: what it measurably did to each operation, "nothing" included."""
    lines = ["## The Module-speed pull requests", ""]
    for pull, effects in found.items():
        link = f"[#{pull}]({project_url}/pull/{pull})"
        if not effects:
            lines += [
                f"- {link}: no commit here names it (a rebased pull request's commits name none).",
                "",
            ]
            continue
        for effect in effects:
            lines += [
                f"### {link}: `{effect.commit.label}` {effect.commit.subject.replace('|', '/')} ({effect.env})",
                "",
                "| operation | cost before → after (exact) | change |",
                "|---|---|---|",
            ]
            for operation, (before, after) in effect.costs.items():
                change = "nothing" if before == after else f"{after / before - 1:+.1%}"
                lines.append(f"| {operation} | {before:,.0f} → {after:,.0f} | {change} |")
            if not effect.costs:
                lines.append("| — | no commit before it has a value | — |")
            lines.append("")
    return "\n".join(lines)
