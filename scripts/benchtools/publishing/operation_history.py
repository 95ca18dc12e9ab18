"""Every step of each operation's exact cost, at the commit that made it: its date, subject, pull request,
cause and time.

The operations are tree_at's update (bench_counts.PythonCost at the report's
depth, the history the releases have) and the Module's own operations
(asvtools/operations.py).  Steps come from asv's step detection over each
environment's series, as the tree_at history's do, and count above the cost
floor (metrics.COST_FLOOR).  On a commit-level history each step lands on the
commit that made it; the pull request is the one its subject names.

A step's cause is the profile diff of one call of the operation on each side
(judging/explain.py, the operation's ``profiled`` benchmark); its time is the
operation's tree_map passes re-measured side by side in pairs of fresh
processes on each side (the confirm step, judging/confirm.py), with its
interval, instead of the single samples that each commit's run gave.
"""

import dataclasses
import functools
import itertools
import json
import math
import os
import re
import statistics
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics

from .. import util
from ..asvtools import operations, shapes
from ..errors import BadInput, Error
from ..judging import confirm, explain, pairs, steps

# Upstream names a pull request at the end of a squashed merge's subject, or in a merge commit's; a rebased
# pull request's commits name none.
PULL_REQUEST = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)\b")
TREE_AT = "update one field: `eqx.tree_at` (bench_counts.PythonCost)"
PULL_REQUESTS_FILE = Path(__file__).with_name("pull_requests.toml")


@dataclass(frozen=True)
class PullRequests:
    """What upstream's history does not say itself of its pull requests (pull_requests.toml)."""

    module_speed_ups: tuple[int, ...]  # the Module speed-ups, as Equinox's issues name them
    rebased: dict[str, int]  # {subject of the commit that carries it: a rebased pull request}
    not_merged: dict[int, str]  # {pull request never merged: why}


@functools.cache
def pull_requests(path: Path = PULL_REQUESTS_FILE) -> PullRequests:
    """The pull requests of ``path``, checked; BadInput naming the file and what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BadInput(f"{path}: {error}") from None
    shapes.check(data, "pull-request-facts", path, "upstream's pull-request facts")
    found = PullRequests(
        tuple(data["module_speed_ups"]), data["rebased"], {int(k): v for k, v in data["not_merged"].items()}
    )
    strays = sorted(set(found.rebased.values()) - set(found.module_speed_ups)) + sorted(
        set(found.not_merged) - set(found.module_speed_ups)
    )
    if strays:
        raise BadInput(f"{path}: pull requests {strays} are not among module_speed_ups")
    return found


@dataclass(frozen=True)
class Tracked:
    """An operation whose cost the history follows: where a row holds its cost, which benchmark times it
    in tree_map passes (``timed``: name, params) and which one call of it is profiled."""

    label: str
    cost: Callable
    timed: tuple[str, str]
    profiled: str


def module_cost(label: str):
    return lambda row: row.operations.get(label, (None,))[0]


TRACKED = (
    Tracked(TREE_AT, lambda row: row.cost, (metrics.PASSES_TREE_AT, ""), explain.PROFILED),
    *(Tracked(op.label, module_cost(op.label), op.timed, op.profiled) for op in operations.OPERATIONS),
)
BY_LABEL = {tracked.label: tracked for tracked in TRACKED}


@dataclass
class OperationStep:
    operation: str
    env: str
    before: object  # the report's CommitFigures at the last commit of the old level
    after: object  # the CommitFigures at the first commit of the new level
    cost: tuple[float, float]
    explanation: "explain.Explanation | None" = None
    not_profiled: str = "not profiled"  # why there is no explanation
    measured: "pairs.Interval | None" = None  # the time change, measured side by side
    measured_load: tuple[float, float] | None = None  # the 1-minute load average before and after measuring

    @property
    def relative(self) -> float:
        return self.cost[1] / self.cost[0] - 1

    @property
    def pull_request(self) -> int | None:
        return pull_request_of(self.after.subject)


def pull_request_of(subject: str) -> int | None:
    found = PULL_REQUEST.search(subject)
    return int(found.group(1) or found.group(2)) if found else pull_requests().rebased.get(subject)


def cost_series() -> dict[str, object]:
    """{operation: the row's exact cost of its Module side}, tree_at's own history first."""
    return {tracked.label: tracked.cost for tracked in TRACKED}


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


def passes_of(operation: str, row) -> float | None:
    """The row's single-sample time of the operation's Module side, in tree_map passes."""
    if operation == TREE_AT:
        return row.tree_map_passes[0]
    return row.operations.get(operation, (None, None, None))[2]


def all_steps(found: dict[str, list[OperationStep]]) -> list[OperationStep]:
    return list(itertools.chain(*found.values()))


def confirmed_cache(config: Path) -> Path:
    """The steps' side-by-side times, kept beside the profiles, so that a rerun measures only new steps."""
    return profile_cache(config) / "confirmed-steps.json"


def step_key(step: OperationStep) -> str:
    benchmark, params = BY_LABEL[step.operation].timed
    return f"{step.env} | {metrics.entry(benchmark, params)} | {step.before.commit} | {step.after.commit}"


def largest_first(found: dict[str, list[OperationStep]]) -> list[OperationStep]:
    """The steps in the order they are profiled and measured: a campaign stopped early has the largest."""
    return sorted(all_steps(found), key=lambda step: -abs(step.relative))


def read_kept(path: Path) -> dict:
    """The kept step times of ``path`` ({} when it does not exist yet), checked: BadInput names what is wrong."""
    if not path.exists():
        return {}
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise BadInput(f"{path}: not a readable JSON file of kept step times ({error})") from None
    fields = {field.name for field in dataclasses.fields(pairs.Interval)}
    for key, value in kept.items() if isinstance(kept, dict) else [(None, kept)]:
        interval = value.get("interval", ...) if isinstance(value, dict) else ...
        load = value.get("load") if isinstance(value, dict) else None
        if not (
            (interval is None or (isinstance(interval, dict) and set(interval) == fields))
            and isinstance(load, list)
            and len(load) == 2
        ):
            raise BadInput(f"{path}: {key!r} is not a kept step time ({{'interval': ..., 'load': [before, after]}})")
    return kept


def confirm_steps(
    found: dict[str, list[OperationStep]], config: Path, max_pairs: int | None, kept_in: Path | None = None
) -> None:
    """Each step's time, re-measured side by side between its two commits: the operation's tree_map passes
    in the confirm step's pairs of fresh interpreters, instead of the single samples of each commit's run.

    The steps of one commit pair (one change often moves several operations) are measured together, in
    one pair of environments, and each is kept, with the load average it was measured under, in
    ``kept_in`` (default: ``confirmed_cache``) as soon as it is measured: a rerun, or one stopped
    halfway, measures only the steps not yet kept.  With ``max_pairs`` None nothing is measured: the
    steps get what is kept.
    """
    from ..judging.changes import Change

    cache = kept_in or confirmed_cache(config)
    kept = read_kept(cache)
    groups = {}
    for step in largest_first(found) if max_pairs else []:
        if step_key(step) not in kept:
            groups.setdefault((step.env, step.before.commit, step.after.commit), {})[step_key(step)] = step
    for todo in groups.values():
        changes = {}
        for key, step in todo.items():
            benchmark, params = BY_LABEL[step.operation].timed
            before, after = (passes_of(step.operation, row) for row in (step.before, step.after))
            changes[key] = Change(
                benchmark,
                params,
                step.env,
                before or 1.0,
                after or 1.0,
                step.before.commit,
                step.after.commit,
                single_commit=True,
                unit="tree_map passes",
            )
        key_of = {id(change): key for key, change in changes.items()}
        load = [os.getloadavg()[0]]  # before the next step, once the previous one is kept

        def keep(confirmation, key_of=key_of, load=load):
            interval = confirmation.interval
            load.append(os.getloadavg()[0])
            kept[key_of[id(confirmation.change)]] = {
                "interval": None if interval is None else dataclasses.asdict(interval),
                "load": load[-2:],
            }
            util.write_atomic(cache, json.dumps(kept, indent=1, sort_keys=True).encode())

        confirm.confirmations(config, list(changes.values()), max_pairs, measured=keep)
    for step in all_steps(found):
        if step_key(step) in kept:
            interval = kept[step_key(step)]["interval"]
            step.measured = None if interval is None else pairs.Interval(**interval)
            step.measured_load = tuple(kept[step_key(step)]["load"])


def profile_cache(config: Path) -> Path:
    """Where the profiles of a configuration's commits are kept: its output's .asv/profiles."""
    return (config.parent.parent if config.parent.name == "configs" else config.parent / ".asv") / explain.PROFILES


def explain_steps(found: dict[str, list[OperationStep]], config: Path | None, profile: bool) -> None:
    """Each step's cause: one call of the operation profiled on each side, from the profile cache (or
    profiled now, with ``profile``)."""
    if config is None:
        return
    failed = profile_together(largest_first(found), config) if profile else {}
    for step in largest_first(found):
        why = failed.get(pair_key(step))
        try:
            step.explanation = explain.explain(
                config,
                step.after.env_params,
                step.before.commit,
                step.after.commit,
                profile_cache(config),
                # A pair that failed to profile is not installed again for each of its steps.
                cached_only=not profile or why is not None,
                profiled=BY_LABEL[step.operation].profiled,
            )
        except Error as error:
            why = str(error)
        if step.explanation is None and why:
            step.not_profiled = f"not profiled ({why})"
        elif step.explanation is None:
            step.not_profiled = "not profiled yet (scripts/overhead-report --explain)"


def pair_key(step: OperationStep) -> tuple:
    """A step's environment and commit pair: what one install of each commit profiles together."""
    return tuple(sorted(step.after.env_params.items())), step.before.commit, step.after.commit


def profile_together(ordered: list[OperationStep], config: Path) -> dict[tuple, str]:
    """Profile every operation that steps at a commit pair in one install of each commit, the pairs in the
    order given; {pair_key: why} of the pairs that could not be profiled."""
    wanted = {}
    for step in ordered:
        wanted.setdefault(pair_key(step), set()).add(BY_LABEL[step.operation].profiled)
    failed = {}
    for key, names in wanted.items():
        env_params, before, after = key
        try:
            explain.profile_commits(config, dict(env_params), {before: names, after: names}, profile_cache(config))
        except Error as error:
            failed[key] = str(error)
    return failed


# How a step's time, measured side by side, stands to its exact cost: data, which time_cell words.
AS_COST, LESS, MORE, UNDECIDED, NO_CHANGE, CONTRADICTS = (
    "as the cost says",
    "the cost's way, by less",
    "the cost's way, by more",
    "undecided",
    "no change resolved",
    "contradicts",
)
AGREEMENTS = (AS_COST, LESS, MORE, UNDECIDED, NO_CHANGE, CONTRADICTS)


def agreement_label(found: str, metric: str = "cost") -> str:
    """An agreement in the words of ``metric``: "as the instructions say", "the instructions' way, by less"."""
    if metric == "cost":
        return found
    plural = metric.endswith("s")
    says = f"as the {metric} {'say' if plural else 'says'}"
    way = f"the {metric}{chr(39) if plural else chr(39) + 's'} way"
    return found.replace("as the cost says", says).replace("the cost's way", way)


def agreement(step: OperationStep) -> str | None:
    """How the step's measured time stands to its cost (one of AGREEMENTS); None when not measured."""
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


def time_cell(step: OperationStep) -> str:
    """The step's time change measured side by side, with its interval, and whether it agrees with the cost."""
    found, agrees = step.measured, agreement(step)
    if found is None:
        return "not measured side by side (scripts/overhead-report --confirm-steps)"
    load = f", load {step.measured_load[0]:.1f}–{step.measured_load[1]:.1f}" if step.measured_load else ""
    text = (
        f"{found.estimate:+.1%} ({found.low:+.1%} to {found.high:+.1%}, {found.confidence:.1%} interval, "
        f"{found.pairs} pairs{load})"
    )
    cost = f"{step.relative:+.1%}"
    return (
        text
        + {
            CONTRADICTS: f": **contradicts** the cost's {cost} (the time is right; see above)",
            UNDECIDED: f": undecided, the interval holds both no change and the cost's {cost}",
            NO_CHANGE: f": no change resolved, less than the cost's {cost} (the time is right; see above)",
            AS_COST: ": as the cost says",
            MORE: f": the cost's way, by more than its {cost} (the time is right; see above)",
            LESS: f": the cost's way, by less than its {cost} (the time is right; see above)",
        }[agrees]
    )


def tracking_markdown(found: dict[str, list[OperationStep]], metric: str = "cost") -> str:
    """How each operation's steps of an exact ``metric`` track its time: the measured steps counted by
    agreement, and the median of time change ÷ metric change (1 where the metric's step is the time's)."""
    lines = [
        "| operation | steps | measured side by side | "
        + " | ".join(agreement_label(found, metric) for found in AGREEMENTS)
        + f" | time change ÷ {metric} change, median (range) |",
        "|---|" + "---|" * (len(AGREEMENTS) + 3),
    ]
    for operation, found_steps in found.items():
        measured = [step for step in found_steps if step.measured is not None]
        counts = [sum(agreement(step) == kind for step in measured) for kind in AGREEMENTS]
        ratios = sorted(step.measured.estimate / step.relative for step in measured if step.relative)
        ratio = f"{statistics.median(ratios):.2f} ({ratios[0]:.2f} to {ratios[-1]:.2f})" if ratios else "—"
        lines.append(
            f"| {operation} | {len(found_steps)} | {len(measured)} | " + " | ".join(map(str, counts)) + f" | {ratio} |"
        )
    return "\n".join(lines)


def cause_cell(step: OperationStep) -> str:
    if step.explanation is not None and step.explanation.rows:
        per = "update" if step.operation == TREE_AT else "operation"
        return step.explanation.sentence(per).replace("|", "\\|")
    if step.explanation is not None:
        return "no function's number of calls changed (the work changed inside functions)"
    return step.not_profiled


def markdown(found: dict[str, list[OperationStep]], project_url: str) -> str:
    """Each operation's steps as a table: commit, date, subject, pull request, size, time and cause."""
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
        lines += [
            "| environment | commit | date | subject | pull request | cost before → after (exact) "
            "| time, side by side | cause |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for step in found_steps:
            pull = f"[#{step.pull_request}]({project_url}/pull/{step.pull_request})" if step.pull_request else "—"
            subject = step.after.subject.replace("|", "\\|") or "—"
            lines.append(
                f"| {step.env} | `{step.after.label}` | {step.after.commit_date or '—'} | {subject} | {pull} "
                f"| {step.cost[0]:,.0f} → {step.cost[1]:,.0f} ({step.relative:+.1%}) | {time_cell(step)} "
                f"| {cause_cell(step)} |"
            )
        lines.append("")
    return "\n".join(lines)


def summary_markdown(found: dict[str, list[OperationStep]], project_url: str) -> str:
    """A small table for the README: each operation's steps, and its largest one with its commit, pull
    request, size and time measured side by side."""
    lines = [
        f"| operation | steps above {metrics.COST_FLOOR:.0%} | the largest: commit, pull request | its cost (exact) "
        "| its time, side by side |",
        "|---|---|---|---|---|",
    ]
    for operation, found_steps in found.items():
        if not found_steps:
            lines.append(f"| {operation} | 0 | — | — | — |")
            continue
        largest = max(found_steps, key=lambda step: abs(step.relative))
        pull = (
            f" ([#{largest.pull_request}]({project_url}/pull/{largest.pull_request}))" if largest.pull_request else ""
        )
        found_time = largest.measured
        measured = (
            "not measured"
            if found_time is None
            else f"{found_time.estimate:+.1%} ({found_time.low:+.1%} to {found_time.high:+.1%})"
        )
        lines.append(
            f"| {operation} | {len(found_steps)} | `{largest.after.label}` {largest.after.commit_date}{pull} "
            f"| {largest.relative:+.1%} | {measured} |"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class PullRequestEffect:
    """What one commit that names a pull request did to each operation's cost, in one environment."""

    pull_request: int
    env: str
    commit: object  # the report's CommitFigures of the commit
    costs: dict  # operation -> (cost at the previous measured commit, cost at this one)


def pull_request_effects(rows: list, pulls: tuple[int, ...] | None = None) -> dict[int, list[PullRequestEffect]]:
    """{pull request (default: the Module speed-ups): its commits' effects, per environment}; [] for one that no
    commit's subject names."""
    found = {pull: [] for pull in (pull_requests().module_speed_ups if pulls is None else pulls)}
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


def pull_requests_markdown(
    found: dict[int, list[PullRequestEffect]], project_url: str, steps: dict[str, list[OperationStep]]
) -> str:
    """Each Module-speed pull request: what it measurably did to each operation, "nothing" included, with the
    time measured side by side where its commit made one of the operations' ``steps``."""
    by_commit = {(s.operation, s.env, s.after.commit): s for found_steps in steps.values() for s in found_steps}
    lines = ["## The Module-speed pull requests", ""]
    for pull, effects in found.items():
        link = f"[#{pull}]({project_url}/pull/{pull})"
        if not effects:
            why = pull_requests().not_merged.get(pull, "no commit here carries it")
            lines += [f"- {link}: {why}.", ""]
            continue
        for effect in effects:
            lines += [
                f"### {link}: `{effect.commit.label}` {effect.commit.subject.replace('|', '/')} ({effect.env})",
                "",
                "| operation | cost before → after (exact) | change | time, measured side by side |",
                "|---|---|---|---|",
            ]
            for operation, (before, after) in effect.costs.items():
                change = "nothing" if before == after else f"{after / before - 1:+.1%}"
                step = by_commit.get((operation, effect.env, effect.commit.commit))
                if step is not None:
                    measured = time_cell(step)
                elif before == after:
                    measured = "not measured: the cost did not move"
                else:
                    measured = f"not measured: under the {metrics.COST_FLOOR:.0%} floor of a step"
                lines.append(f"| {operation} | {before:,.0f} → {after:,.0f} | {change} | {measured} |")
            if not effect.costs:
                lines.append("| — | no commit before it has a value | — | — |")
            lines.append("")
    return "\n".join(lines)


# ---- what building the history took


STOPPED = 600.0  # seconds between two commits' runs beyond which the campaign was stopped and rerun
SHARDS = (4, 8, 16)  # backfill.yml's choices beside 1 and 2


@dataclass(frozen=True)
class BuildTime:
    commits: int
    seconds: float  # the sum of every commit's time, the stops left out: one process's time for them all
    per_commit: float  # the median
    stops: int
    processes: int  # how many ran side by side at the most (shards on one machine)

    def sharded(self, shards: int) -> float:
        """The longest shard's seconds at this pace: ceil(commits / shards) commits."""
        return math.ceil(self.commits / shards) * self.per_commit


def chains(found_spans: list[tuple[str, str, float, float]]) -> list[list[tuple]]:
    """The spans split into the sequences that one process ran one after another: shards run side by side on
    one machine interleave in time, and each commit's time is up to the next commit of its own shard."""
    found = []
    for span in sorted(found_spans, key=lambda span: span[2]):
        free = [chain for chain in found if chain[-1][3] <= span[2]]
        if free:
            max(free, key=lambda chain: chain[-1][3]).append(span)
        else:
            found.append([span])
    return found


def build_time(found_spans: list[tuple[str, str, float, float]]) -> BuildTime | None:
    """From asv's stamps (asvtools.results.spans): each commit's time is from its first benchmark's start
    to the next commit's of the same process (its benchmarks, then the next install), the last one's to its
    end."""
    if not found_spans:
        return None
    per_commit, stops = [], 0
    found_chains = chains(found_spans)
    for chain in found_chains:
        for (_c, _e, start, end), following in itertools.zip_longest(chain, chain[1:]):
            seconds = (following[2] if following else end) - start
            if seconds > STOPPED:
                stops += 1
                seconds = end - start
            per_commit.append(seconds)
    return BuildTime(len(found_spans), sum(per_commit), statistics.median(per_commit), stops, len(found_chains))


def build_time_markdown(found: BuildTime | None, description: str) -> str:
    if found is None:
        return f"No stored result of {description} carries asv's timestamps."
    sharded = "; ".join(f"{shards} shards, {found.sharded(shards) / 60:.0f} min" for shards in SHARDS)
    return (
        f"Building {description} took {found.seconds / 60:.0f} min of one process's time here for "
        f"{found.commits} results ({found.per_commit:.0f} s per commit, the median: its install and its "
        f"benchmarks), from asv's own timestamps in the results; {found.processes} process(es) ran side by side, "
        f"each commit timed within its own, and {found.stops} stop(s) of the campaign are left out. On "
        f"backfill.yml's matrix the longest shard would take, at this machine's pace: {sharded}, plus each job's "
        "own setup (a runner's pace is not measured here)."
    )
