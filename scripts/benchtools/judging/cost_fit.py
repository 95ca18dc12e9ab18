"""The cost metric's call weight fitted against measured time, per environment."""

import statistics
from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics, params

from .. import git
from ..asvtools import operations
from ..asvtools.results import only, stored, values
from ..errors import BadInput
from ..project import env_label
from ..util import markdown_table

CALLS = "bench_counts.PythonCalls.track_tree_at"
BYTECODES = "bench_counts.BytecodeInstructions.track_tree_at"
PASSES = metrics.PASSES_TREE_AT


@dataclass(frozen=True)
class Point:
    label: str
    calls: float
    bytecodes: float
    passes: float


@dataclass
class Fit:
    weight: float
    best_weight: float
    best_error: float  # the largest relative error over the versions, at best_weight
    bytecodes_error: float
    calls_error: float
    scale: float  # tree_map passes per weighted instruction, at ``weight``
    versions: list  # [(labels, calls, bytecodes, median passes, relative error)]
    points: list  # [(Point, relative error)]


def fit(points: list[Point], weight: float = metrics.CALL_WEIGHT) -> Fit:
    import numpy as np

    grouped = {}
    for point in points:
        grouped.setdefault((point.calls, point.bytecodes), []).append(point)
    if len(grouped) < 2:
        raise BadInput(f"{len(grouped)} code version(s) with all three metrics: at least 2 are needed to fit")
    calls, bytecodes = np.array(list(grouped), dtype=float).T
    y = np.array([statistics.median(p.passes for p in group) for group in grouped.values()])

    def least_squares(*columns) -> tuple[list[float], float]:
        x = np.column_stack(columns) / y[:, None]
        solution = np.linalg.lstsq(x, np.ones(len(y)), rcond=None)[0]
        return solution.tolist(), float(np.abs(x @ solution - 1).max())

    (a, b), best_error = least_squares(bytecodes, calls)
    costs = bytecodes + weight * calls
    scale = statistics.geometric_mean((y / costs).tolist())
    figures = zip(calls.tolist(), bytecodes.tolist(), y.tolist(), (scale * costs / y - 1).tolist(), strict=True)
    return Fit(
        weight=weight,
        best_weight=b / a,
        best_error=best_error,
        bytecodes_error=least_squares(bytecodes)[1],
        calls_error=least_squares(calls)[1],
        scale=scale,
        versions=[([p.label for p in group], *row) for group, row in zip(grouped.values(), figures, strict=True)],
        points=[(p, scale * (p.bytecodes + weight * p.calls) / p.passes - 1) for p in points],
    )


def markdown(result: Fit, title: str = "") -> str:
    lines = [
        f"## Cost fit{f': {title}' if title else ''}",
        "",
        f"Best weight: bytecodes + **{result.best_weight:.1f}** × calls, largest error over the "
        f"{len(result.versions)} code versions {result.best_error:.1%} "
        f"(bytecodes alone {result.bytecodes_error:.1%}, calls alone {result.calls_error:.1%}).",
        "",
        f"With the weight in use, {result.weight:g}: {result.scale * 1000:.3g} tree_map passes per 1,000 "
        f"weighted instructions; largest error {max(abs(e) for *_, e in result.versions):.1%} over the "
        f"versions, {max(abs(e) for _, e in result.points):.1%} over the commits.",
        "",
        markdown_table(
            ["code version (commits)", "calls", "bytecodes", "cost", "tree_map passes (median)", "error"],
            (
                [labels[0] if len(labels) == 1 else f"{labels[0]} … {labels[-1]} ({len(labels)})"]
                + [f"{calls:,.0f}", f"{bytecodes:,.0f}", f"{bytecodes + result.weight * calls:,.0f}"]
                + [f"{passes:.2f}", f"{error:+.1%}"]
                for labels, calls, bytecodes, passes, error in result.versions
            ),
        ),
        "",
        markdown_table(
            ["commit", "tree_map passes", "predicted", "error"],
            (
                [point.label, f"{point.passes:.2f}", f"{point.passes * (1 + error):.2f}", f"{error:+.1%}"]
                for point, error in result.points
            ),
        ),
    ]
    return "\n".join(lines) + "\n"


def read(results: Path, repo: Path, machine: str | None = None) -> tuple[dict, dict]:
    """Per environment, oldest first: tree_at's [Point] per commit, and each commit's (label, [OperationCheck])."""
    if not results.is_dir():
        raise BadInput(f"no results directory at {results}")
    depth = (str(params.DEFAULT_DEPTH),)
    tags = git.tag_of_commit(repo)
    points, checks = {}, {}
    for result in stored(results, machine):
        label, env = tags.get(result.commit_hash, result.commit_hash[:8]), env_label(result.params)
        calls, bytecodes = values(result, CALLS).get(depth), values(result, BYTECODES).get(depth)
        passes, tree_at_cost = only(values(result, PASSES)), values(result, metrics.COST_TREE_AT).get(depth)
        if None not in (calls, bytecodes, passes):
            points.setdefault(env, []).append(Point(label, calls, bytecodes, passes))
        if None in (tree_at_cost, passes):
            continue
        found = [
            OperationCheck(op.label, cost, op_passes, cost * passes / tree_at_cost)
            for op in operations.OPERATIONS
            for cost, _, op_passes, _ in [op.figures(result)]
            if cost and op_passes
        ]
        if found:
            checks.setdefault(env, []).append((label, found))
    return points, checks


@dataclass(frozen=True)
class OperationCheck:
    label: str
    cost: float
    passes: float
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.passes - 1


def operations_markdown(by_env: dict[str, list[tuple]]) -> str:
    lines = [
        "## The weight on the Module's operations",
        "",
        f"Each operation's time (tree_map passes, one run) against its cost × tree_at's passes per weighted "
        f"instruction in the same result, CALL_WEIGHT = {metrics.CALL_WEIGHT}:",
        "",
    ]
    for env, found in by_env.items():
        label, checks = found[-1]
        worst = max((abs(c.error), c.label, commit) for commit, cs in found for c in cs)
        lines += [
            f"### {env}, {label}",
            "",
            markdown_table(
                ["operation", "cost", "tree_map passes", "predicted", "error"],
                (
                    [c.label, f"{c.cost:,.0f}", f"{c.passes:.2f}", f"{c.predicted:.2f}", f"{c.error:+.0%}"]
                    for c in checks
                ),
            ),
            "",
            f"Largest error over the {len(found)} commit(s): {worst[0]:.0%} ({worst[1]}, {worst[2]}).",
            "",
        ]
    return "\n".join(lines)
