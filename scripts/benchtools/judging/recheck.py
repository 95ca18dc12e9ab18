"""What the gate checks again before a change counts or is listed: instruction counts, their time, the causes."""

import ast
import math
from dataclasses import dataclass

from benchmarks import metrics
from benchmarks.instruction_ops import OPERATIONS as COUNTED_OPERATIONS

from ..errors import BadInput, Error
from . import explain, instructions
from .changes import Change
from .finding import LARGE_IMPROVEMENT
from .sources import Source


@dataclass(frozen=True)
class Recount:
    """An instruction change's two commits counted again tonight, side by side in this job's environment."""

    before: float
    after: float
    environment: dict | None  # tonight's counting environment (callgrind.environment)

    def counts(self, change: Change) -> bool:
        return self.after > self.before * (1 + metrics.threshold(change.entry))

    def improves(self, _change: Change) -> bool:
        return self.after <= self.before * (1 - LARGE_IMPROVEMENT)


def recount(
    source: Source, counted: list[Change], holds=Recount.counts
) -> tuple[list[Change], list[tuple[Change, Recount]], list[str]]:
    """The rows without the instruction changes that fail ``holds`` once recounted, those, and the errors met: a
    stored count may come from another runner image (docs/instructions.md)."""
    if source.config is None and any(c.kind == metrics.INSTRUCTIONS for c in counted):
        return counted, [], ["the instruction rises count as stored: no asv configuration to count them again"]
    kept, overruled, errors = [], [], []
    names = counted_operations(counted)
    for change in counted:
        if change.kind != metrics.INSTRUCTIONS:
            kept.append(change)
            continue
        operation, twin = split_params(change.params)[0], twin_of(change)
        try:
            env = explain.env_config(source.config, source.conf, change.env_params, source.profiles)
            commits = (change.good, change.bad)
            held = instructions.pair_names(env, commits, names)
            (before, _), (after, environment) = (instructions.counts_at(env, commit, held) for commit in commits)
        except Error as error:
            errors.append(f"{change.entry} could not be counted again, so it counts as stored: {error}")
            kept.append(change)
            continue
        again = Recount(before[operation][twin]["instructions"], after[operation][twin]["instructions"], environment)
        if holds(again, change):
            kept.append(change)
        else:
            overruled.append((change, again))
    return kept, overruled, errors


def twin_of(change: Change) -> str:
    return "module" if change.benchmark.endswith("track_module") else "tuple"


def time_checks(counted: list[Change], changes: list[Change]) -> list[tuple[Change, Change]]:
    """(instruction rise, its operation's time between the same commits) for each rise whose operation is timed."""
    checks = []
    for rise in (c for c in counted if c.kind == metrics.INSTRUCTIONS):
        operation = COUNTED_OPERATIONS.get(split_params(rise.params)[0]) if rise.params else None
        if operation is None or operation.timed is None:
            continue
        benchmark, params_ = operation.timed[0 if twin_of(rise) == "module" else 1]
        recorded = next((c for c in changes if (c.benchmark, c.params, c.env) == (benchmark, params_, rise.env)), None)
        before, after, unit = (recorded.before, recorded.after, recorded.unit) if recorded else (math.nan,) * 2 + ("",)
        check = Change(benchmark, params_, rise.env, before, after, rise.good, rise.bad, rise.single_commit, unit)
        check.env_params = rise.env_params
        checks.append((rise, check))
    return checks


def split_params(params: str) -> list[str]:
    """asv's params of a name, unquoted: "'construct(default)'" -> ["construct(default)"]."""
    return [str(ast.literal_eval(part.strip())) for part in params.split(", ")] if params else []


def counted_operations(changes: list[Change]) -> list[str]:
    """The operations of the instruction counts among ``changes``: what a recount and an explanation of them count,
    in one process a commit (a count of all fifteen takes about 2.5 times one's)."""
    return sorted({split_params(c.params)[0] for c in changes if c.kind == metrics.INSTRUCTIONS and c.params})


def to_explain(counted: list[Change], improved: list[Change]) -> list[Change]:
    return [c for c in counted if c.kind in metrics.EXACT_KINDS] + improved


def attach_explanations(source: Source, counted: list[Change], improved: list[Change]) -> list[str]:
    """The cause of each exact change counted and each improvement; the errors met."""
    if source.config is None:
        raise BadInput("--explain needs the asv configuration of the run (--output or --config)")
    errors, done, names = [], {}, counted_operations(to_explain(counted, improved))
    for row in (r for r in to_explain(counted, improved) if r.good):
        operation = split_params(row.params)[0] if row.kind == metrics.INSTRUCTIONS and row.params else None
        twin = twin_of(row)
        key = (tuple(sorted(row.env_params.items())), row.good, row.bad, operation and (operation, twin))
        if key not in done:
            try:
                env = explain.env_config(source.config, source.conf, row.env_params, source.profiles)
                if operation is not None:
                    done[key] = instructions.explain(env, row.good, row.bad, operation, twin, names)
                else:
                    done[key] = explain.explain(env, row.good, row.bad, source.profiles)
            except Error as error:
                done[key] = None
                errors.append(f"{source.label(row.good)} → {source.label(row.bad)}: {error}")
        row.explanation = done[key]
    return errors
