"""The operation history's Markdown."""

import statistics

from benchmarks import metrics

from ..util import markdown_table
from .operation_history import TREE_AT, OperationStep, PullRequestEffect, pull_requests

# How a step's time, measured side by side, stands to its exact cost.
AGREEMENTS = AS_COST, LESS, MORE, UNDECIDED, NO_CHANGE, CONTRADICTS = (
    "as the cost says",
    "the cost's way, by less",
    "the cost's way, by more",
    "undecided",
    "no change resolved",
    "contradicts",
)


def agreement_label(found: str, metric: str = "cost") -> str:
    """An agreement in the words of ``metric``, "cost" or a plural: "as the instructions say"."""
    if metric == "cost":
        return found
    return found.replace("as the cost says", f"as the {metric} say").replace("the cost's way", f"the {metric}' way")


def agreement(step) -> str | None:
    """One of AGREEMENTS; None when not measured."""
    found = step.measured
    if found is None:
        return None
    slower = step.relative > 0
    if (found.high < 0) if slower else (found.low > 0):
        return CONTRADICTS
    holds_cost = found.low <= step.relative <= found.high
    if found.low <= 0 <= found.high:
        return UNDECIDED if holds_cost else NO_CHANGE
    if holds_cost:
        return AS_COST
    return MORE if abs(found.estimate) > abs(step.relative) else LESS


def interval_text(found, more: str = "") -> str:
    """A measured change and its interval: "+12.0% (+8.0% to +16.0%)"."""
    return f"{found.estimate:+.1%} ({found.low:+.1%} to {found.high:+.1%}{more})"


def time_cell(step: OperationStep) -> str:
    found = step.measured
    if found is None:
        return "not measured side by side (scripts/overhead-report --confirm-steps)"
    load = f", load {step.measured_load[0]:.1f}–{step.measured_load[1]:.1f}" if step.measured_load else ""
    cost, right = f"{step.relative:+.1%}", "(the time is right; see above)"
    verdict = {
        CONTRADICTS: f"**contradicts** the cost's {cost} {right}",
        UNDECIDED: f"undecided, the interval holds both no change and the cost's {cost}",
        NO_CHANGE: f"no change resolved, less than the cost's {cost} {right}",
        AS_COST: "as the cost says",
        MORE: f"the cost's way, by more than its {cost} {right}",
        LESS: f"the cost's way, by less than its {cost} {right}",
    }[agreement(step)]
    return f"{interval_text(found, f', {found.confidence:.1%} interval, {found.pairs} pairs{load}')}: {verdict}"


def tracking_markdown(found: dict[str, list], metric: str = "cost") -> str:
    rows = []
    for operation, found_steps in found.items():
        measured = [step for step in found_steps if step.measured is not None]
        counts = [sum(agreement(step) == kind for step in measured) for kind in AGREEMENTS]
        ratios = sorted(step.measured.estimate / step.relative for step in measured if step.relative)
        ratio = f"{statistics.median(ratios):.2f} ({ratios[0]:.2f} to {ratios[-1]:.2f})" if ratios else "—"
        rows.append([operation, len(found_steps), len(measured), *counts, ratio])
    header = ["operation", "steps", "measured side by side", *(agreement_label(kind, metric) for kind in AGREEMENTS)]
    return markdown_table([*header, f"time change ÷ {metric} change, median (range)"], (map(str, row) for row in rows))


def cause_cell(step: OperationStep) -> str:
    if step.explanation is not None and step.explanation.rows:
        return step.explanation.sentence("update" if step.operation == TREE_AT else "operation").replace("|", "\\|")
    if step.explanation is not None:
        return "no function's number of calls changed (the work changed inside functions)"
    return step.not_profiled


def change_text(before: float, after: float) -> str:
    """An exact figure's change: "12,000 → 16,000 (+33.3%)"."""
    return f"{before:,.0f} → {after:,.0f} ({after / before - 1:+.1%})"


def pull_link(pull: int | None, project_url: str, empty: str = "—") -> str:
    return f"[#{pull}]({project_url}/pull/{pull})" if pull else empty


def commit_cell(label: str, date: str, pull: int | None, project_url: str) -> str:
    return f"`{label}` {date}" + (f" ({pull_link(pull, project_url)})" if pull else "")


def markdown(found: dict[str, list[OperationStep]], project_url: str) -> str:
    lines = [
        "## Every step of each operation's exact cost",
        "",
        f"Each step above {metrics.COST_FLOOR:.0%} of the operation's exact cost, at the commit that made it. "
        "Its time is the operation's tree_map passes measured side by side between the commits on each side "
        "(the confirm step: pairs of fresh processes; the interval is the confirm step's). Its cause is the "
        "profile diff of one call of the operation on each side: the functions whose number of calls changed.",
        "",
        "Where the time and the exact cost disagree (the time moved the other way, by less or more than the cost, "
        "or not at all), the time is right about the time: it is the operation itself, timed side by side. The "
        "cost weighs each bytecode and each Python call alike (bytecodes + 16 × calls), fitted on `tree_at`; "
        "the work done in C around them (allocation, dict and set operations, builtins) is not in it, and "
        "moves in proportion only where the code keeps its shape. The cost is right about the Python work, "
        "exactly, so it places the step on its commit; the time says what the step costs. How far each "
        "operation's cost steps track its time, over the steps measured so far:",
        "",
        tracking_markdown(found),
        "",
    ]
    for operation, found_steps in found.items():
        lines += [f"### {operation}", ""]
        if not found_steps:
            lines += [f"No step above {metrics.COST_FLOOR:.0%} in these results.", ""]
            continue
        rows = [
            [step.env, f"`{step.after.label}`", step.after.commit_date or "—"]
            + [step.after.subject.replace("|", "\\|") or "—", pull_link(step.pull_request, project_url)]
            + [change_text(*step.cost), time_cell(step), cause_cell(step)]
            for step in found_steps
        ]
        header = ["environment", "commit", "date", "subject", "pull request", "cost before → after (exact)"]
        lines += [markdown_table([*header, "time, side by side", "cause"], rows), ""]
    return "\n".join(lines)


def summary_markdown(found: dict[str, list[OperationStep]], project_url: str) -> str:
    rows = []
    for operation, found_steps in found.items():
        if not found_steps:
            rows.append([operation, "0", "—", "—", "—"])
            continue
        largest = max(found_steps, key=lambda step: abs(step.relative))
        commit = commit_cell(largest.after.label, largest.after.commit_date, largest.pull_request, project_url)
        time = "not measured" if largest.measured is None else interval_text(largest.measured)
        rows.append([operation, str(len(found_steps)), commit, f"{largest.relative:+.1%}", time])
    header = ["operation", f"steps above {metrics.COST_FLOOR:.0%}", "the largest: commit, pull request"]
    return markdown_table([*header, "its cost (exact)", "its time, side by side"], rows)


def pull_requests_markdown(
    found: dict[int, list[PullRequestEffect]], project_url: str, steps: dict[str, list[OperationStep]]
) -> str:
    """What each Module-speed pull request did to each operation, timed where it made a step."""
    by_commit = {(s.operation, s.env, s.after.commit): s for found_steps in steps.values() for s in found_steps}
    lines = ["## The Module-speed pull requests", ""]
    for pull, effects in found.items():
        link = pull_link(pull, project_url)
        if not effects:
            why = pull_requests().not_merged.get(pull, "no commit here carries it")
            lines += [f"- {link}: {why}.", ""]
            continue
        for effect in effects:
            rows = []
            for operation, (before, after) in effect.costs.items():
                change = "nothing" if before == after else f"{after / before - 1:+.1%}"
                if (step := by_commit.get((operation, effect.env, effect.commit.commit))) is not None:
                    measured = time_cell(step)
                elif before == after:
                    measured = "not measured: the cost did not move"
                else:
                    measured = f"not measured: under the {metrics.COST_FLOOR:.0%} floor of a step"
                rows.append([operation, f"{before:,.0f} → {after:,.0f}", change, measured])
            header = ["operation", "cost before → after (exact)", "change", "time, measured side by side"]
            lines += [
                f"### {link}: `{effect.commit.label}` {effect.commit.subject.replace('|', '/')} ({effect.env})",
                "",
                markdown_table(header, rows or [["—", "no commit before it has a value", "—", "—"]]),
                "",
            ]
    return "\n".join(lines)
