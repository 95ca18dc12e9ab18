"""How the gate finds changes (docs/gate.md): asv's steps in a site, or two commits' results compared."""

import itertools
import math
import re
from dataclasses import dataclass

from benchmarks import metrics, params

from ..asvtools import device, shapes
from ..asvtools.results import combinations, failed_benchmarks
from ..errors import BadInput
from ..project import env_label, environment
from . import steps
from .changes import Change
from .sources import Source, params_of_graph, split_entry

LARGE_IMPROVEMENT = 0.10  # tree_at's cost down by this much or more is listed and explained
DIAGNOSTICS = ("bench_counts.PythonCalls", "bench_counts.BytecodeInstructions")

STEP_MODE = "asv step detection"

NEW, GONE, NOT_MEASURED = "only after", "only before", "not measured"


@dataclass(frozen=True)
class Unjudged:
    """An environment (no benchmark), a benchmark (no params), or one combo that a comparison could not judge."""

    benchmark: str
    params: str
    env: str
    reason: str  # NEW, GONE, or NOT_MEASURED with the sides that have no value


@dataclass(frozen=True)
class FailedCommit:
    commit: str
    env: str
    benchmarks: tuple[str, ...]  # the failed benchmarks, or every benchmark when nothing ran


def is_measured(value) -> bool:
    """A finite number: asv writes a failed benchmark as None and a skipped one as NaN."""
    return value is not None and not isinstance(value, bool) and math.isfinite(value)


def step_changes(source: Source) -> list[Change]:
    """asv's jumps, each with the levels of the series just before and just after it (steps.true_step)."""
    path = source.html / "regressions.json"
    data = shapes.read_checked(path, "regressions", "asv regressions file")
    commit_at, changes = source.hash_of_revision, []
    for entry, graph, env_params, index, last_value, _best, jumps in data.get("regressions", []):
        graph_params = params_of_graph(graph)
        if graph_params.get("machine", source.machine) != source.machine:
            continue  # asv lists every machine's steps; another machine's are not this verdict's
        if unknown := [after_rev for _before_rev, after_rev, *_values in jumps if after_rev not in commit_at]:
            raise BadInput(
                f"asv regressions file {path} names revision {unknown[0]}, which the site's index.json lacks"
            )
        name, params_ = split_entry(entry)
        env = env_label(env_params) or "—"  # asv lists the params that differ: none with one environment
        points = source.series(graph, index)
        measured = {rev for rev, value in points if value is not None}
        series = {"unit": source.units.get(name, ""), "latest": last_value, "env_params": graph_params}
        for before_rev, after_rev, before, _best_after in jumps:
            rev_before = (
                before_rev if before_rev is not None else max((r for r in measured if r < after_rev), default=None)
            )
            step = steps.true_step(points, after_rev - 1 if rev_before is None else rev_before, after_rev, before)
            if not (is_measured(step.before) and is_measured(step.after)):
                raise BadInput(
                    f"asv regressions file {path}: {entry[:80]} steps from {step.before!r} to {step.after!r} at "
                    f"revision {after_rev}, which is not a number: the step cannot be judged"
                )
            between = [] if rev_before is None else sorted(set(range(rev_before + 1, after_rev)) - measured)
            at = {"graph": (graph, index, rev_before, after_rev), "single_commit": before_rev is None}
            good, bad = commit_at.get(rev_before, ""), commit_at[after_rev]
            unmeasured = [commit_at[r] for r in between if r in commit_at]
            changes.append(
                Change(name, params_, env, step.before, step.after, good, bad, unmeasured=unmeasured, **at, **series)
            )
    return changes


def values_by_combo(result, name: str) -> dict[str, float | None]:
    """{params as "a, b": value} of one benchmark in one asv result."""
    return {", ".join(combo): value for combo, value, _ in combinations(result, name, plain=False)}


def matched(before: dict, after: dict) -> tuple[dict, list[tuple]]:
    """{key: (before, after)} of the keys both sides have; and (key, value, reason) of each key one side lacks."""
    gone = [(key, value, GONE) for key, value in before.items() if key not in after]
    new = [(key, value, NEW) for key, value in after.items() if key not in before]
    return {key: (value, after[key]) for key, value in before.items() if key in after}, gone + new


def compare_changes(source: Source, before_name: str, after_name: str) -> tuple[list[Change], list[Unjudged]]:
    """Every benchmark and params that both commits measured, matched by name; and what could not be compared."""
    good, bad = source.resolve(before_name), source.resolve(after_name)
    single_commit = source.revision_of_hash[bad] - source.revision_of_hash[good] == 1  # resolve gives listed commits

    def by_environment(commit: str) -> dict:
        # The same Python measures a CPU or a GPU, and asv_runner 0.3 changed what a sample is.
        found = {(r.env_name, device.of(r.params), r.params.get(device.RUNNER)): r for r in source.results_of(commit)}
        return {key: found[key] for key in sorted(found)}

    environments, lacking = matched(by_environment(good), by_environment(bad))
    unjudged = [Unjudged("", "", env_label(result.params), reason) for _, result, reason in lacking]
    changes = []
    for results in environments.values():
        env, env_params = env_label(results[0].params), environment(results[0].params)
        names, lacking = matched(*(dict.fromkeys(sorted(result.get_all_result_keys())) for result in results))
        unjudged += [Unjudged(name, "", env, reason) for name, _, reason in lacking]
        for name in names:
            combos, lacking = matched(*(values_by_combo(result, name) for result in results))
            unjudged += [Unjudged(name, combo, env, reason) for combo, _, reason in lacking]
            for combo, (before, after) in combos.items():
                missing = [side for side, value in (("before", before), ("after", after)) if not is_measured(value)]
                if missing:
                    unjudged.append(Unjudged(name, combo, env, f"{NOT_MEASURED} ({' and '.join(missing)})"))
                    continue
                unit = source.units.get(name, "")
                changes.append(
                    Change(name, combo, env, before, after, good, bad, single_commit, unit, env_params=env_params)
                )
    if not changes:
        raise BadInput(
            f"{before_name} → {after_name}: no benchmark was measured at both commits in one environment, so "
            f"nothing can be judged ({len(unjudged)} not comparable); a comparison that compares nothing is not a pass"
        )
    return changes, unjudged


def failed_commits(source: Source, commits: list[str]) -> list[FailedCommit]:
    """The benchmarks that failed (asv stores no value) in each of ``commits``' results."""
    return [
        FailedCommit(commit, env_label(result.params), failed)
        for commit in dict.fromkeys(commits)
        if commit in source.revision_of_hash
        for result in source.results_of(commit, missing_ok=True)
        if (failed := tuple(failed_benchmarks(result)))
    ]


def attach_diagnostics(source: Source, rows: list[Change], changes: list[Change]) -> None:
    """Beside each cost change, its diagnostics (calls, bytecodes) at the same two commits."""
    compared = {(c.benchmark, c.params, c.env): c for c in reversed(changes)}  # the first of a kind
    for row in (r for r in rows if r.kind == metrics.COST):
        for name in (f"{prefix}.{row.benchmark.rsplit('.', 1)[1]}" for prefix in DIAGNOSTICS):
            if row.graph:  # step detection
                graph, index, rev_before, rev_after = row.graph
                graph = graph.rsplit("/", 1)[0] + f"/{name}.json"
                points = dict(source.series(graph, index)) if (source.html / graph).is_file() else {}
                before, after = points.get(rev_before), points.get(rev_after)
            else:
                twin = compared.get((name, row.params, row.env))
                before, after = (twin.before, twin.after) if twin else (None, None)
            if before is not None and after is not None:
                row.diagnostics.append((name, before, after))


def improvements(source: Source, changes: list[Change], compared: bool) -> list[Change]:
    """tree_at's cost, or in a comparison an operation's instruction count, down by LARGE_IMPROVEMENT or more."""
    depth = str(params.DEFAULT_DEPTH)
    if compared:
        return [
            c
            for c in changes
            if ((c.benchmark == metrics.COST_TREE_AT and c.params == depth) or c.kind == metrics.INSTRUCTIONS)
            and c.ratio <= 1 - LARGE_IMPROVEMENT
        ]
    if not (listed := source.benchmarks.get(metrics.COST_TREE_AT)) or not (source.html / "graphs").is_dir():
        return []
    combos = [", ".join(combo) for combo in itertools.product(*listed["params"])]  # the depth, its one param
    if depth not in combos:
        return []
    index = combos.index(depth)
    graphs = {}
    for path in sorted((source.html / "graphs").rglob(f"{metrics.COST_TREE_AT}.json")):
        graph = path.relative_to(source.html).as_posix()
        graph_params = params_of_graph(graph)
        if "summary" not in graph.split("/") and graph_params["machine"] == source.machine:
            graphs[graph] = graph_params
    # Named as asv names an environment in regressions.json: by the parameters that differ between graphs.
    varying = {key for params_ in graphs.values() for key in params_ if len({p.get(key) for p in graphs.values()}) > 1}
    found = []
    for graph, graph_params in graphs.items():
        env = ", ".join(f"{k} {v}" for k, v in sorted(graph_params.items()) if k in varying) or "—"
        points = source.series(graph, index)
        present = [value for _rev, value in sorted(points) if value is not None]
        series = {"unit": source.units.get(metrics.COST_TREE_AT, ""), "latest": present[-1] if present else None}
        for before, after in itertools.pairwise(steps.pieces(points)):
            step = steps.Step(before.right - 1, after.left, before.level, after.level)
            if step.relative <= -LARGE_IMPROVEMENT:
                good, bad = source.hash_of_revision.get(step.rev_before, ""), source.hash_of_revision[step.rev_after]
                at = {"graph": (graph, index, step.rev_before, step.rev_after), "env_params": graph_params}
                single = step.rev_after - step.rev_before == 1
                found.append(
                    Change(metrics.COST_TREE_AT, depth, env, step.before, step.after, good, bad, single, **at, **series)
                )
    return found


def place_exact_steps(source: Source, rows: list[Change]) -> None:
    """Each exact change of a comparison that spans several commits, narrowed to the commit that made it."""
    revision, commit_at = source.revision_of_hash, source.hash_of_revision
    for change in rows:
        first, last = revision.get(change.good), revision.get(change.bad)
        if change.kind not in metrics.EXACT_KINDS or change.single_commit or first is None or last is None:
            continue
        commits = [commit_at[rev] for rev in range(first, last + 1) if rev in commit_at]
        # An instruction count repeats within its operation's spread, the other exact metrics to the last digit.
        twin, operation = change.benchmark.rsplit("_", 1)[-1], change.params.strip("'")
        spread = metrics.instruction_spread(operation, twin) if change.kind == metrics.INSTRUCTIONS else 0.0
        levels = (("b", change.before), ("a", change.after))
        # b or a: at the change's level before or after; - no value; x another level.
        marks = "".join(
            "-" if value is None else next((m for m, at in levels if abs(value - at) <= spread * abs(at)), "x")
            for value in (value_at(source, commit, change) for commit in commits)
        )
        if re.fullmatch(r"[b-]*b-*a[a-]*", marks):
            good, bad = marks.rindex("b"), marks.index("a")
            change.good, change.bad, change.unmeasured = commits[good], commits[bad], commits[good + 1 : bad]
            change.single_commit = True


def value_at(source: Source, commit: str, change: Change) -> float | None:
    for result in source.results_of(commit, missing_ok=True):
        if environment(result.params) == environment(change.env_params):
            value = values_by_combo(result, change.benchmark).get(change.params)
            return value if is_measured(value) else None
    return None
