"""How the gate finds changes (docs/gate.md): asv's steps in a site, or two commits' results compared; and what it
adds to them (the large improvements, each exact change placed at its commit, a cost's diagnostics)."""

import itertools
import math
import re
from dataclasses import dataclass

from benchmarks import metrics, params

from ..asvtools import device, shapes
from ..asvtools.results import combinations, failed_benchmarks
from ..errors import BadInput
from ..project import env_label
from . import steps
from .changes import Change
from .sources import Source, params_of_graph, split_entry

LARGE_IMPROVEMENT = 0.10  # tree_at's cost down by this much or more is listed and explained
DIAGNOSTICS = ("bench_counts.PythonCalls", "bench_counts.BytecodeInstructions")

STEP_MODE = "asv step detection"

# Why a benchmark, params or environment of a comparison was not judged.
NEW, GONE, NOT_MEASURED = "only after", "only before", "not measured"


@dataclass(frozen=True)
class Unjudged:
    """What a comparison could not judge: an environment (no benchmark), a benchmark (no params), or one combo."""

    benchmark: str
    params: str
    env: str
    reason: str  # NEW, GONE, or NOT_MEASURED with the sides that have no value


@dataclass(frozen=True)
class FailedCommit:
    """A commit whose results hold benchmarks that failed (no value): no value, regression or pass."""

    commit: str
    env: str
    benchmarks: tuple[str, ...]  # the failed benchmarks, or every benchmark when nothing ran


def step_changes(source: Source) -> list[Change]:
    """asv's jumps, each with the levels of the series just before and just after it (steps.true_step)."""
    path = source.html / "regressions.json"
    data = shapes.read_checked(path, "regressions", "asv regressions file")
    changes = []
    for entry, graph, env_params, index, last_value, _best, jumps in data.get("regressions", []):
        graph_params = params_of_graph(graph)
        if graph_params.get("machine", source.machine) != source.machine:
            continue  # asv lists every machine's steps; another machine's are not this verdict's
        name, params = split_entry(entry)
        env = env_label(env_params) or "—"  # asv lists the params that differ: none with one environment
        unknown = [after_rev for _before_rev, after_rev, *_values in jumps if after_rev not in source.hash_of_revision]
        if unknown:
            raise BadInput(
                f"asv regressions file {path} names revision {unknown[0]}, which the site's index.json lacks"
            )
        points = source.series(graph, index)
        measured = {rev for rev, value in points if value is not None}
        series = {"unit": source.units.get(name, ""), "latest": last_value, "env_params": graph_params}
        for before_rev, after_rev, before, _best_after in jumps:
            bad = source.hash_of_revision[after_rev]
            # Else the last revision before the jump that has a value.
            rev_before = (
                before_rev if before_rev is not None else max((r for r in measured if r < after_rev), default=None)
            )
            good = source.hash_of_revision.get(rev_before, "")
            step = steps.true_step(points, rev_before if rev_before is not None else after_rev - 1, after_rev, before)
            if not (is_measured(step.before) and is_measured(step.after)):
                raise BadInput(
                    f"asv regressions file {path}: {entry[:80]} steps from {step.before!r} to {step.after!r} at "
                    f"revision {after_rev}, which is not a number: the step cannot be judged"
                )
            # The step lies at the first commit at the new level; those in between have no value.
            between = [] if rev_before is None else set(range(rev_before + 1, after_rev)) - measured
            unmeasured = [source.hash_of_revision[r] for r in sorted(between) if r in source.hash_of_revision]
            at = {"graph": (graph, index, rev_before, after_rev), "single_commit": before_rev is None}
            changes.append(
                Change(name, params, env, step.before, step.after, good, bad, unmeasured=unmeasured, **at, **series)
            )
    return changes


def values_by_combo(result, name: str) -> dict[str, float | None]:
    """{params as "a, b": value} of one benchmark in one asv result; None for a failed, NaN for a skipped value."""
    return {", ".join(combo): value for combo, value, _ in combinations(result, name, plain=False)}


def compare_changes(source: Source, before_name: str, after_name: str) -> tuple[list[Change], list[Unjudged]]:
    """Every benchmark and params that both commits measured (matched by name, so that a suite whose params grew
    still has the rest judged), compared; and what could not be, with why.  BadInput when nothing was compared."""
    good, bad = source.resolve(before_name), source.resolve(after_name)
    single_commit = source.revision_of_hash.get(bad, -1) - source.revision_of_hash.get(good, -2) == 1
    # An environment is its asv name on its device: the same Python measures a CPU or a GPU, as its JAX finds.
    before_by_env = {(r.env_name, device.of(r.params)): r for r in source.results_of(good)}
    after_by_env = {(r.env_name, device.of(r.params)): r for r in source.results_of(bad)}
    changes, unjudged = [], []
    for only, other, reason in ((before_by_env, after_by_env, GONE), (after_by_env, before_by_env, NEW)):
        unjudged += [Unjudged("", "", env_label(only[e].params), reason) for e in sorted(only.keys() - other.keys())]
    for env_name in sorted(before_by_env.keys() & after_by_env.keys()):
        before_result, after_result = before_by_env[env_name], after_by_env[env_name]
        env, env_params = env_label(before_result.params), dict(before_result.params)
        before_names, after_names = set(before_result.get_all_result_keys()), set(after_result.get_all_result_keys())
        unjudged += [Unjudged(name, "", env, GONE) for name in sorted(before_names - after_names)]
        unjudged += [Unjudged(name, "", env, NEW) for name in sorted(after_names - before_names)]
        for name in sorted(before_names & after_names):
            before_values, after_values = values_by_combo(before_result, name), values_by_combo(after_result, name)
            unjudged += [Unjudged(name, combo, env, GONE) for combo in before_values if combo not in after_values]
            unjudged += [Unjudged(name, combo, env, NEW) for combo in after_values if combo not in before_values]
            unit = source.units.get(name, "")
            for combo in (c for c in before_values if c in after_values):
                before, after = before_values[combo], after_values[combo]
                missing = [side for side, value in (("before", before), ("after", after)) if not is_measured(value)]
                if missing:
                    unjudged.append(Unjudged(name, combo, env, f"{NOT_MEASURED} ({' and '.join(missing)})"))
                    continue
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
    """The benchmarks that failed (asv stores no value) in each of ``commits``' results, commit by commit."""
    found = []
    for commit in dict.fromkeys(commits):
        if commit not in source.hash_of_revision.values():
            continue
        for result in source.results_of(commit, missing_ok=True):
            failed = tuple(failed_benchmarks(result))
            if failed:
                found.append(FailedCommit(commit, env_label(result.params), failed))
    return found


def is_measured(value) -> bool:
    """A finite number: asv writes a failed benchmark as None and a skipped one as NaN."""
    return value is not None and not isinstance(value, bool) and math.isfinite(value)


def attach_diagnostics(source: Source, rows: list[Change], changes: list[Change]) -> None:
    """Beside each cost change, its diagnostics (calls, bytecodes) at the same two commits."""
    for row in rows:
        if row.kind != metrics.COST:
            continue
        twin = row.benchmark.rsplit(".", 1)[1]
        for prefix in DIAGNOSTICS:
            name = f"{prefix}.{twin}"
            if row.graph:  # step detection: the diagnostic's own graph, at the step's two revisions
                graph, index, rev_before, rev_after = row.graph
                diagnostic_graph = graph.rsplit("/", 1)[0] + f"/{name}.json"
                if not (source.html / diagnostic_graph).is_file():
                    continue
                points = dict(source.series(diagnostic_graph, index))
                before, after = points.get(rev_before), points.get(rev_after)
            else:
                twin_change = next(
                    (c for c in changes if c.benchmark == name and c.params == row.params and c.env == row.env), None
                )
                before, after = (twin_change.before, twin_change.after) if twin_change else (None, None)
            if before is not None and after is not None:
                row.diagnostics.append((name, before, after))


def improvements(source: Source, changes: list[Change], compared: bool) -> list[Change]:
    """tree_at's cost at the default depth down by LARGE_IMPROVEMENT or more: every such step, or the comparison;
    in a comparison, also each operation's instruction count down as much."""
    depth = str(params.DEFAULT_DEPTH)
    if compared:
        return [
            c
            for c in changes
            if ((c.benchmark == metrics.COST_TREE_AT and c.params == depth) or c.kind == metrics.INSTRUCTIONS)
            and c.ratio <= 1 - LARGE_IMPROVEMENT
        ]
    listed = source.benchmarks.get(metrics.COST_TREE_AT)
    if not listed or not (source.html / "graphs").is_dir():
        return []
    combos = [", ".join(combo) for combo in itertools.product(*listed.get("params", []))]
    index = combos.index(depth) if depth in combos else None
    if combos and index is None:
        return []
    graphs = {}
    for path in sorted((source.html / "graphs").rglob(f"{metrics.COST_TREE_AT}.json")):
        graph = path.relative_to(source.html).as_posix()
        graph_params = params_of_graph(graph)
        if "summary" not in graph.split("/") and graph_params.get("machine", source.machine) == source.machine:
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
    """Each exact change of a comparison that spans several commits, narrowed to the commit that made it, from the
    values at the commits between (a night benchmarks them all).  A change that passed through a third level keeps
    its span (the bisect command covers it); timings are never narrowed."""
    revision = source.revision_of_hash

    def value_at(commit: str, change: Change):
        for result in source.results_of(commit, missing_ok=True):
            if dict(result.params) == change.env_params:
                value = values_by_combo(result, change.benchmark).get(change.params)
                return value if is_measured(value) else None
        return None

    for change in rows:
        if change.kind not in metrics.EXACT_KINDS or change.single_commit or not change.good:
            continue
        first, last = revision.get(change.good), revision.get(change.bad)
        if first is None or last is None:
            continue
        commits = [source.hash_of_revision[rev] for rev in range(first, last + 1) if rev in source.hash_of_revision]
        # An instruction count repeats within its spread, the other exact metrics to the last digit.
        spread = metrics.INSTRUCTIONS_SPREAD if change.kind == metrics.INSTRUCTIONS else 0.0

        def mark(value, change=change, spread=spread) -> str:
            """b or a: at the change's level before or after; - no value; x another level."""
            if value is None:
                return "-"
            levels = (("b", change.before), ("a", change.after))
            return next((m for m, at in levels if abs(value - at) <= spread * abs(at)), "x")

        marks = "".join(mark(value_at(commit, change)) for commit in commits)
        if re.fullmatch(r"[b-]*b-*a[a-]*", marks):
            good, bad = marks.rindex("b"), marks.index("a")
            change.good, change.bad, change.unmeasured = commits[good], commits[bad], commits[good + 1 : bad]
            change.single_commit = True
