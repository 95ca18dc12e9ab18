"""Every step of each operation's exact cost, with its pull request, cause and time (docs/commit-history.md)."""

import dataclasses
import functools
import itertools
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics

from .. import util
from ..asvtools import operations, shapes
from ..errors import BadInput, Error
from ..history import probes
from ..judging import confirm, explain, pairs, steps
from ..judging.sources import PROFILES

TREE_AT = "update one field: `eqx.tree_at` (bench_counts.PythonCost)"
PULL_REQUESTS_FILE = Path(__file__).with_name("pull_requests.toml")


@dataclass(frozen=True)
class PullRequests:
    """What upstream's history does not say itself of its pull requests (pull_requests.toml)."""

    module_speed_ups: tuple[int, ...]  # as Equinox's issues name them
    rebased: dict[str, int]  # {subject of the commit that carries it: a rebased pull request}
    not_merged: dict[int, str]  # {pull request never merged: why}


@functools.cache
def pull_requests(path: Path = PULL_REQUESTS_FILE) -> PullRequests:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BadInput(f"{path}: {error}") from None
    shapes.check(data, "pull-request-facts", path, "upstream's pull-request facts")
    found = PullRequests(
        tuple(data["module_speed_ups"]), data["rebased"], {int(k): v for k, v in data["not_merged"].items()}
    )
    if strays := sorted((set(found.rebased.values()) | set(found.not_merged)) - set(found.module_speed_ups)):
        raise BadInput(f"{path}: pull requests {strays} are not among module_speed_ups")
    return found


@dataclass(frozen=True)
class Tracked:
    """An operation whose cost the history follows, its benchmark timed in tree_map passes, and the one profiled."""

    label: str
    timed: tuple[str, str]
    profiled: str

    def cost(self, row) -> float | None:
        return row.cost if self.label == TREE_AT else row.operations.get(self.label, (None,))[0]

    def passes(self, row) -> float | None:
        return row.tree_map_passes[0] if self.label == TREE_AT else row.operations.get(self.label, (None,) * 3)[2]


TRACKED = (
    Tracked(TREE_AT, (metrics.PASSES_TREE_AT, ""), explain.PROFILED),
    *(Tracked(op.label, op.timed, op.profiled) for op in operations.OPERATIONS),
)
BY_LABEL = {tracked.label: tracked for tracked in TRACKED}


@dataclass
class OperationStep:
    operation: str
    env: str
    before: object  # the report's CommitFigures at the last commit of the old level
    after: object  # at the first commit of the new level
    cost: tuple[float, float]
    explanation: "explain.Explanation | None" = None
    not_profiled: str = "not profiled"  # why there is no explanation
    measured: "pairs.Interval | None" = None  # the time change, measured side by side
    measured_load: tuple[float, float] | None = None

    @property
    def relative(self) -> float:
        return self.cost[1] / self.cost[0] - 1

    @property
    def pull_request(self) -> int | None:
        return pull_request_of(self.after.subject)


def pull_request_of(subject: str) -> int | None:
    """The pull request the subject names, else pull_requests.toml's for a rebased one."""
    found = probes.pull_request(subject)
    return int(found) if found else pull_requests().rebased.get(subject)


def operation_steps(rows: list) -> dict[str, list[OperationStep]]:
    found = {}
    for tracked in TRACKED:
        if all(tracked.cost(row) is None for row in rows):
            continue
        found[tracked.label] = []
        for env in dict.fromkeys(row.env for row in rows):
            series = [row for row in rows if row.env == env and tracked.cost(row) is not None]
            pieces = steps.pieces([(i, tracked.cost(row)) for i, row in enumerate(series)])
            for before, after in itertools.pairwise(pieces):
                if abs(after.level / before.level - 1) <= metrics.COST_FLOOR:
                    continue
                ends = series[before.right - 1], series[after.left]
                found[tracked.label].append(OperationStep(tracked.label, env, *ends, (before.level, after.level)))
    return found


def step_key(step: OperationStep) -> str:
    return f"{step.env} | {metrics.entry(*BY_LABEL[step.operation].timed)} | {step.before.commit} | {step.after.commit}"


def largest_first(found: dict[str, list[OperationStep]]) -> list[OperationStep]:
    """The steps in the order they are profiled and measured: a campaign stopped early has the largest."""
    return sorted(itertools.chain(*found.values()), key=lambda step: -abs(step.relative))


def read_kept(path: Path) -> dict:
    return shapes.read_checked(path, "step-times", "kept step times") if path.exists() else {}


def confirm_steps(
    found: dict[str, list[OperationStep]], config: Path, max_pairs: int | None, kept_in: Path | None = None
) -> None:
    """Each step's time by the confirm step, kept as soon as measured; with ``max_pairs`` None, only what is kept."""
    from ..judging.changes import Change

    cache = kept_in or profile_cache(config) / "confirmed-steps.json"
    kept = read_kept(cache)
    groups = {}  # {(env, before, after): {step key: its change}}
    for step in largest_first(found) if max_pairs else []:
        if step_key(step) not in kept:
            tracked, before, after = BY_LABEL[step.operation], step.before, step.after
            passes = (tracked.passes(before) or 1.0, tracked.passes(after) or 1.0)
            change = Change(*tracked.timed, step.env, *passes, before.commit, after.commit, True, "tree_map passes")
            groups.setdefault((step.env, before.commit, after.commit), {})[step_key(step)] = change
    conf = util.load_asv_config(config) if groups else {}
    for changes in groups.values():
        load = [os.getloadavg()[0]]

        def keep(confirmation, changes=changes, load=load):
            interval = confirmation.interval
            load.append(os.getloadavg()[0])
            kept[next(key for key, change in changes.items() if change is confirmation.change)] = {
                "interval": None if interval is None else dataclasses.asdict(interval),
                "load": load[-2:],
            }
            util.write_atomic(cache, json.dumps(kept, indent=1, sort_keys=True).encode())

        confirm.confirmations(config, conf, list(changes.values()), max_pairs, measured=keep)
    for step in itertools.chain(*found.values()):
        if (held := kept.get(step_key(step))) is not None:
            step.measured = None if held["interval"] is None else pairs.Interval(**held["interval"])
            step.measured_load = tuple(held["load"])


def profile_cache(config: Path) -> Path:
    return (config.parent.parent if config.parent.name == "configs" else config.parent / ".asv") / PROFILES


def pair_key(step: OperationStep) -> tuple:
    return tuple(sorted(step.after.env_params.items())), step.before.commit, step.after.commit


def explain_steps(found: dict[str, list[OperationStep]], config: Path | None, profile: bool) -> None:
    """Each step's cause, from the profile cache; with ``profile``, profiled now, the largest steps first."""
    if config is None:
        return
    wanted, failed, cache = {}, {}, profile_cache(config)
    conf = util.load_asv_config(config) if found else {}
    environment = functools.cache(lambda env_params: explain.env_config(config, conf, dict(env_params), cache))
    for step in largest_first(found) if profile else []:
        wanted.setdefault(pair_key(step), set()).add(BY_LABEL[step.operation].profiled)
    for (env_params, before, after), names in wanted.items():
        try:
            explain.profile_commits(environment(env_params), {before: names, after: names}, cache)
        except Error as error:
            failed[env_params, before, after] = str(error)
    for step in largest_first(found):
        why = failed.get(pair_key(step))
        try:
            step.explanation = explain.explain(
                environment(pair_key(step)[0]),
                step.before.commit,
                step.after.commit,
                cache,
                # A pair that failed to profile is not installed again for each of its steps.
                cached_only=not profile or why is not None,
                profiled=BY_LABEL[step.operation].profiled,
            )
        except Error as error:
            why = str(error)
        if step.explanation is None:
            step.not_profiled = (
                f"not profiled ({why})" if why else "not profiled yet (scripts/overhead-report --explain)"
            )


@dataclass(frozen=True)
class PullRequestEffect:
    env: str
    commit: object  # the report's CommitFigures of the commit
    costs: dict  # operation -> (cost at the previous measured commit, cost at this one)


def pull_request_effects(rows: list) -> dict[int, list[PullRequestEffect]]:
    """{Module speed-up: its commits' effects, per environment}."""
    found = {pull: [] for pull in pull_requests().module_speed_ups}
    for env in dict.fromkeys(row.env for row in rows):
        last = {}  # {operation: its last cost}
        for row in (row for row in rows if row.env == env):
            costs = {tracked.label: tracked.cost(row) for tracked in TRACKED if tracked.cost(row) is not None}
            if (pull := pull_request_of(row.subject)) in found:
                effect = {operation: (last[operation], cost) for operation, cost in costs.items() if operation in last}
                found[pull].append(PullRequestEffect(env, row, effect))
            last.update(costs)
    return found
