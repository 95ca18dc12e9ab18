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
import os
import re
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
