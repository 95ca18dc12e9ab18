"""The regression gate: the changes of a run or a comparison, judged against their thresholds.

``judge`` computes a ``Verdict``; ``render.markdown`` writes it as a report.
docs/gate.md tells how changes are found and when they count.
"""

import ast
import itertools
import math
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics, params
from benchmarks.instruction_ops import OPERATIONS as COUNTED_OPERATIONS

from ..asvtools import device
from ..asvtools.results import failed_benchmarks
from ..errors import BadInput, Error
from ..project import ROOT, VENV, env_label
from . import confirm, explain, instructions, pairs, steps
from .changes import Change, finite_non_negative
from .sources import (
    Source,
    is_single_step,
    load_result,
    params_of_graph,
    previous_revision,
    read_json,
    series,
    split_entry,
    unit_of,
)

LARGE_IMPROVEMENT = 0.10  # tree_at's cost down by this much or more is listed and explained
DIAGNOSTICS = ("bench_counts.PythonCalls", "bench_counts.BytecodeInstructions")


@dataclass
class GateOptions:
    """What the gate reads and how it judges: the latest run in ``output``, a configuration, or folders.

    ``threshold`` and ``time_threshold``, when given, replace the thresholds
    of every ratio and every time metric.
    """

    output: Path = ROOT
    config: Path | None = None
    results: Path | None = None
    html: Path | None = None
    machine: str | None = None
    threshold: float | None = None
    time_threshold: float | None = None
    explain: bool = False
    confirm: bool = True  # re-measure timing suspects side by side (confirm.py); False: --no-confirm
    max_pairs: int = pairs.MAX_PAIRS

    def __post_init__(self):
        for name in ("threshold", "time_threshold"):
            value = getattr(self, name)
            if value is not None:
                finite_non_negative(value, f"--{name.replace('_', '-')}")

    @property
    def overrides(self) -> dict:
        return {metrics.RATIO: self.threshold, metrics.TIME: self.time_threshold}

    def source(self) -> Source:
        return Source(self.output, self.config, self.results, self.html, self.machine, self.overrides)


# Why a benchmark, params or environment of a comparison was not judged.
NEW, GONE, NOT_MEASURED = "only after", "only before", "not measured"


@dataclass(frozen=True)
class Unjudged:
    """What a comparison could not judge: a whole environment (no benchmark), a benchmark (no params), or one
    combination of params."""

    benchmark: str
    params: str
    env: str
    reason: str  # NEW, GONE, or NOT_MEASURED with the sides that have no value


@dataclass(frozen=True)
class FailedCommit:
    """A commit whose results hold benchmarks that failed (no value): they are no value, regression or pass."""

    commit: str
    env: str
    benchmarks: tuple[str, ...]  # the failed benchmarks, or every benchmark when nothing ran


@dataclass
class Verdict:
    """What the gate found, as data: ``render.markdown`` is its report, and every consumer reads this.

    ``confirmations`` is None when timing changes were judged unconfirmed
    (--no-confirm); otherwise each timing suspect's confirmation, in which
    case the timing rows of ``counted`` are those confirmed slower.
    """

    source: Source
    mode: str  # how the changes were found: STEP_MODE, or "BEFORE → AFTER"
    changes: list[Change]
    counted: list[Change]
    improved: list[Change]
    confirmations: list[confirm.Confirmation] | None
    not_alerting: list[Change] = field(default_factory=list)  # timing changes beyond a threshold that never alerts
    # Instruction rises that do not count: both commits counted again side by side tonight stay within the floor
    # (a Recount), or their operation's time, re-measured side by side, was decided faster (a Confirmation).
    overruled: list[tuple[Change, "confirm.Confirmation | Recount"]] = field(default_factory=list)
    unjudged: list[Unjudged] = field(default_factory=list)
    failed: list[FailedCommit] = field(default_factory=list)
    explain_errors: list[str] = field(default_factory=list)
    # Instruction falls that, both commits counted again side by side, are no large improvement: another runner's.
    not_improved: list[tuple[Change, "Recount"]] = field(default_factory=list)

    @property
    def regression(self) -> bool:
        return bool(self.counted)

    @property
    def explained(self) -> list[Change]:
        return to_explain(self.counted, self.improved)


@dataclass(frozen=True)
class Recount:
    """An instruction rise's two commits counted again tonight, side by side in this job's environment."""

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
    """The counted rows without the instruction rises that do not survive a recount (``holds``: that the
    recount still rises beyond the floor; ``Recount.improves`` for the listed falls), those rises with their
    recount, and the errors met.

    A night compares tonight's count with the baseline's, stored by an earlier night, maybe on another runner
    image, Python patch release or valgrind, each of which moves every count (docs/instructions.md).  So both
    commits are counted again here, each in a fresh process of one environment, every operation as the
    benchmark counts them, and the rise counts only where these two counts still differ beyond its floor.  A
    rise that cannot be counted again counts as stored, its error said.
    """
    rises = [c for c in counted if c.kind == metrics.INSTRUCTIONS]
    if rises and source.config is None:
        return counted, [], ["the instruction rises count as stored: no asv configuration to count them again"]
    kept, overruled, errors = [], [], []
    names = sorted(COUNTED_OPERATIONS)
    cache = source.asv_dir / explain.PROFILES
    for change in counted:
        if change.kind != metrics.INSTRUCTIONS:
            kept.append(change)
            continue
        operation, twin = split_params(change.params)[0], twin_of(change)
        try:
            before, after = (
                instructions.counts_at(source.config, change.env_params, commit, names, cache)[operation][twin]
                for commit in (change.good, change.bad)
            )
        except Error as error:
            errors.append(f"{change.entry} could not be counted again, so it counts as stored: {error}")
            kept.append(change)
            continue
        environment = instructions.environment_at(source.config, change.env_params, change.bad, names, cache)
        again = Recount(before["instructions"], after["instructions"], environment)
        if holds(again, change):
            kept.append(change)
        else:
            overruled.append((change, again))
    return kept, overruled, errors


def twin_of(change: Change) -> str:
    return "module" if change.benchmark.endswith("track_module") else "tuple"


def step_changes(source: Source) -> list[Change]:
    """asv's jumps, each with the levels of the series just before and just after it (steps.true_step)."""
    path = source.html / "regressions.json"
    data = read_json(path, "asv regressions file", "regressions")
    changes = []
    for entry, graph, env_params, index, last_value, _best, jumps in data.get("regressions", []):
        if params_of_graph(graph).get("machine", source.machine) != source.machine:
            continue  # asv lists every machine's steps; another machine's are not this verdict's
        name, params = split_entry(entry)
        env = env_label(env_params) or "—"  # asv lists the params that differ: none with one environment
        unknown = [after_rev for _before_rev, after_rev, *_values in jumps if after_rev not in source.hash_of_revision]
        if unknown:
            raise BadInput(
                f"asv regressions file {path} names revision {unknown[0]}, which the site's index.json lacks"
            )
        points = series(source, graph, index)
        for before_rev, after_rev, before, _best_after in jumps:
            bad = source.hash_of_revision[after_rev]
            rev_before = before_rev if before_rev is not None else previous_revision(points, after_rev)
            good = source.hash_of_revision.get(rev_before, "") if rev_before is not None else ""
            step = steps.true_step(points, rev_before if rev_before is not None else after_rev - 1, after_rev, before)
            if not (is_measured(step.before) and is_measured(step.after)):
                raise BadInput(
                    f"asv regressions file {path}: {entry[:80]} steps from {step.before!r} to {step.after!r} at "
                    f"revision {after_rev}, which is not a number: the step cannot be judged"
                )
            measured = {rev for rev, value in points if value is not None}
            between = [] if rev_before is None else range(rev_before + 1, after_rev)
            changes.append(
                Change(
                    name,
                    params,
                    env,
                    step.before,
                    step.after,
                    good,
                    bad,
                    single_commit=before_rev is None,
                    unit=unit_of(source, name),
                    latest=last_value,
                    env_params=params_of_graph(graph),
                    graph=(graph, index, rev_before, after_rev),
                    # The step lies at the first commit at the new level; these in between have no value.
                    unmeasured=[
                        source.hash_of_revision[r]
                        for r in between
                        if r in source.hash_of_revision and r not in measured
                    ],
                )
            )
    return changes


def values_by_combo(result, name: str) -> dict[str, float | None]:
    """{params as "a, b": value} of one benchmark in one asv result; None for a failed, NaN for a skipped value."""
    params = result.get_result_params(name)
    values = result.get_result_value(name, params)
    return {", ".join(combo): value for combo, value in zip(itertools.product(*params), values, strict=False)}


def compare_changes(source: Source, before_name: str, after_name: str) -> tuple[list[Change], list[Unjudged]]:
    """Every benchmark and params that both commits measured, compared; and what could not be, with why.

    Benchmarks, params and environments are matched by name, so a suite whose
    params grew, or an environment that one side lacks, still has the rest
    of its combinations judged.  BadInput when nothing at all was compared.
    """
    before_commit, after_commit = source.resolve(before_name), source.resolve(after_name)
    # An environment is its asv name on its device: the same Python measures a CPU or a GPU, as its JAX finds.
    before_by_env = {(r.env_name, device.of(r.params)): r for r in load_result(source, before_commit)}
    after_by_env = {(r.env_name, device.of(r.params)): r for r in load_result(source, after_commit)}
    changes, unjudged = [], []
    for env_name in sorted(before_by_env.keys() - after_by_env.keys()):
        unjudged.append(Unjudged("", "", env_label(before_by_env[env_name].params), GONE))
    for env_name in sorted(after_by_env.keys() - before_by_env.keys()):
        unjudged.append(Unjudged("", "", env_label(after_by_env[env_name].params), NEW))
    for env_name in sorted(before_by_env.keys() & after_by_env.keys()):
        before_result, after_result = before_by_env[env_name], after_by_env[env_name]
        env = env_label(before_result.params)
        before_names, after_names = set(before_result.get_all_result_keys()), set(after_result.get_all_result_keys())
        unjudged += [Unjudged(name, "", env, GONE) for name in sorted(before_names - after_names)]
        unjudged += [Unjudged(name, "", env, NEW) for name in sorted(after_names - before_names)]
        for name in sorted(before_names & after_names):
            before_values, after_values = values_by_combo(before_result, name), values_by_combo(after_result, name)
            unjudged += [Unjudged(name, combo, env, GONE) for combo in before_values if combo not in after_values]
            unjudged += [Unjudged(name, combo, env, NEW) for combo in after_values if combo not in before_values]
            for combo in (c for c in before_values if c in after_values):
                before, after = before_values[combo], after_values[combo]
                missing = [side for side, value in (("before", before), ("after", after)) if not is_measured(value)]
                if missing:
                    unjudged.append(Unjudged(name, combo, env, f"{NOT_MEASURED} ({' and '.join(missing)})"))
                    continue
                changes.append(
                    Change(
                        name,
                        combo,
                        env,
                        before,
                        after,
                        before_commit,
                        after_commit,
                        single_commit=is_single_step(source, before_commit, after_commit),
                        unit=unit_of(source, name),
                        env_params=dict(before_result.params),
                    )
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
        for result in load_result(source, commit, missing_ok=True):
            failed = tuple(failed_benchmarks(result))
            if failed:
                found.append(FailedCommit(commit, env_label(result.params), failed))
    return found


def is_measured(value) -> bool:
    """A finite number: asv writes a failed benchmark as None and a skipped one as NaN."""
    return value is not None and not isinstance(value, bool) and math.isfinite(value)


def find_command(source: Source, change: Change) -> str | None:
    if change.single_commit or not change.good or source.config is None:
        return None
    regex = "^" + change.benchmark.replace(".", r"\.") + "$"
    return shlex.join(
        [
            str(VENV / "bin" / "asv"),
            "find",
            "--config",
            str(source.config),
            "--machine",
            source.machine,
            f"{change.good}..{change.bad}",
            regex,
        ]
    )


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
                points = dict(series(source, diagnostic_graph, index))
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
        env_params = graph_params
        points = series(source, graph, index)
        present = [value for _rev, value in sorted(points) if value is not None]
        for step in steps.steps(steps.pieces(points)):
            if step.relative <= -LARGE_IMPROVEMENT:
                found.append(
                    Change(
                        metrics.COST_TREE_AT,
                        depth,
                        env,
                        step.before,
                        step.after,
                        source.hash_of_revision.get(step.rev_before, ""),
                        source.hash_of_revision[step.rev_after],
                        single_commit=step.rev_after - step.rev_before == 1,
                        unit=unit_of(source, metrics.COST_TREE_AT),
                        latest=present[-1] if present else None,
                        env_params=env_params,
                        graph=(graph, index, step.rev_before, step.rev_after),
                    )
                )
    return found


def to_explain(counted: list[Change], improved: list[Change]) -> list[Change]:
    """The changes whose cause is profiled: counted deterministic and cost regressions, large improvements."""
    return [c for c in counted if c.kind in metrics.EXACT_KINDS] + improved


def attach_explanations(source: Source, rows: list[Change], cached_only: bool = False) -> list[str]:
    """Each row's cause at its two commits, once per (environment, commits, what is explained): an
    instruction count's from where its instructions went (instructions.explain), any other's from one
    tree_at update profiled (explain.explain); the errors met."""
    if source.config is None:
        raise BadInput("--explain needs the asv configuration of the run (--output or --config)")
    errors, done = [], {}
    for row in rows:
        if not row.good:
            continue
        counted = split_params(row.params)[0] if row.kind == metrics.INSTRUCTIONS and row.params else None
        twin = twin_of(row)
        key = (tuple(sorted(row.env_params.items())), row.good, row.bad, counted and (counted, twin))
        if key not in done:
            cache = source.asv_dir / explain.PROFILES
            try:
                if counted is not None:
                    done[key] = instructions.explain(
                        source.config, row.env_params, row.good, row.bad, cache, counted, twin, cached_only
                    )
                else:
                    done[key] = explain.explain(
                        source.config, row.env_params, row.good, row.bad, cache, cached_only=cached_only
                    )
            except Error as error:
                done[key] = None
                errors.append(f"{source.label(row.good)} → {source.label(row.bad)}: {error}")
        row.explanation = done[key]
    return errors


STEP_MODE = "asv step detection"


def place_exact_steps(source: Source, rows: list[Change]) -> None:
    """Each exact change of a comparison that spans several commits, narrowed to the commit that made it.

    A night benchmarks every commit between the two it compares, so an exact
    metric's values at those commits are in the results: where they hold the
    old level and then the new one, the change moves to the last commit at the
    old level and the first at the new one, naming the commits between that
    have no value (failed).  A change that passed through a third level keeps
    its span (the bisect command covers it); timings are never narrowed.
    """
    revision = {commit: rev for rev, commit in source.hash_of_revision.items()}
    loaded = {}

    def value_at(commit: str, change: Change):
        if commit not in loaded:
            loaded[commit] = load_result(source, commit, missing_ok=True)
        for result in loaded[commit]:
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

        def level(value, change=change, spread=spread):
            """ "before", "after", or None: which of the change's two levels ``value`` is at."""
            for name, at in (("before", change.before), ("after", change.after)):
                if value is not None and abs(value - at) <= spread * abs(at):
                    return name
            return None

        values = [value_at(commit, change) for commit in commits]
        measured = [(commit, level(value)) for commit, value in zip(commits, values, strict=True)]
        levels = [found for _, found in measured if found is not None]
        at_a_level = len(levels) == sum(value is not None for value in values)
        in_order = levels == ["before"] * levels.count("before") + ["after"] * levels.count("after")
        if not at_a_level or set(levels) != {"before", "after"} or not in_order:
            continue
        good = max(i for i, (_, found) in enumerate(measured) if found == "before")
        bad = min(i for i, (_, found) in enumerate(measured) if found == "after")
        change.good, change.bad = measured[good][0], measured[bad][0]
        change.unmeasured = [commit for commit, _ in measured[good + 1 : bad]]
        change.single_commit = True


def changes_of(source: Source, compare: tuple[str, str] | None) -> tuple[list[Change], list[Unjudged], str]:
    """The changes to judge, what could not be judged, and how they were found: step detection, or BEFORE → AFTER."""
    if not source.hash_of_revision:
        raise BadInput(f"asv site index {source.html / 'index.json'} lists no commit: nothing to judge")
    if compare:
        return *compare_changes(source, *compare), f"{compare[0]} → {compare[1]}"
    return step_changes(source), [], STEP_MODE


def judge(options: GateOptions, compare: tuple[str, str] | None = None) -> Verdict:
    """The gate as a function: the verdict on the latest run's steps, or on BEFORE → AFTER.

    With ``options.explain``, the counted deterministic and cost regressions
    and the large improvements carry their explanation (explain.py).
    """
    source = options.source()
    changes, unjudged, mode = changes_of(source, compare)
    improved = improvements(source, changes, compared=compare is not None)
    counted = source.thresholds.counted(changes)
    overruled, errors, not_improved = [], [], []
    if options.confirm and compare:
        counted, overruled, errors = recount(source, counted)
        # A fall is counted again too, so that a new runner's falls are not listed as improvements; the counts are
        # the ones explaining an improvement reads.
        improved, not_improved, also = recount(source, improved, Recount.improves)
        errors += also
    if options.confirm:
        timing_suspects = confirm.suspects(changes, source.thresholds)
        checks = time_checks(counted, changes)
        confirmations = confirm.confirmations(
            source.config, timing_suspects + [check for _, check in checks], options.max_pairs
        )
        by_change = {id(c.change): c for c in confirmations}
        slower = [by_change[id(c)].change for c in timing_suspects if by_change[id(c)].verdict == pairs.SLOWER]
        for _, check in checks:
            by_change[id(check)].note = by_change[id(check)].note or "the time of an instruction rise"
        faster = [(rise, by_change[id(check)]) for rise, check in checks if by_change[id(check)].faster]
        overruled += faster
        overruled_ids = {id(rise) for rise, _ in faster}
        counted = [c for c in counted if c.kind not in metrics.TIMING_KINDS and id(c) not in overruled_ids] + slower
    else:
        confirmations = None
    if compare:
        # The overruled rises too: the publish job's re-judgement places them, and the alert matches them by commit.
        place_exact_steps(source, counted + improved + [rise for rise, _ in overruled])
    attach_diagnostics(source, counted + improved, changes)
    if options.explain:
        errors += attach_explanations(source, to_explain(counted, improved))
    judged_commits = list(compare) if compare else source.run_commits
    failed = failed_commits(source, [source.resolve(c) if compare else c for c in judged_commits])
    not_alerting = beyond_threshold_not_alerting(source, changes)
    return Verdict(
        source,
        mode,
        changes,
        counted,
        improved,
        confirmations,
        not_alerting,
        overruled,
        unjudged,
        failed,
        errors,
        not_improved,
    )


def time_checks(counted: list[Change], changes: list[Change]) -> list[tuple[Change, Change]]:
    """(instruction rise, its operation's time between the same commits) for each counted instruction rise whose
    operation is also timed (instruction_ops.Counted.timed): the time is re-measured before the rise counts."""
    checks = []
    for rise in counted:
        if rise.kind != metrics.INSTRUCTIONS:
            continue
        operation = COUNTED_OPERATIONS.get(split_params(rise.params)[0]) if rise.params else None
        if operation is None or operation.timed is None:
            continue
        benchmark, params_ = operation.timed[0 if rise.benchmark.endswith("track_module") else 1]
        recorded = next((c for c in changes if (c.benchmark, c.params, c.env) == (benchmark, params_, rise.env)), None)
        before, after, unit = (recorded.before, recorded.after, recorded.unit) if recorded else (math.nan,) * 2 + ("",)
        checks.append(
            (
                rise,
                Change(
                    benchmark,
                    params_,
                    rise.env,
                    before,
                    after,
                    rise.good,
                    rise.bad,
                    rise.single_commit,
                    unit,
                    env_params=rise.env_params,
                ),
            )
        )
    return checks


def split_params(params: str) -> list[str]:
    """asv's params of a name, unquoted: "'construct(default)'" -> ["construct(default)"]."""
    return [str(ast.literal_eval(part.strip())) for part in params.split(", ")] if params else []


def beyond_threshold_not_alerting(source: Source, changes: list[Change]) -> list[Change]:
    """The timing changes of benchmarks that do not alert (metrics.py) beyond their threshold, worst first."""
    found = [
        c
        for c in changes
        if c.kind in metrics.TIMING_KINDS
        and not metrics.alerts(c.entry)
        and c.after > c.before * (1 + source.thresholds(c))
    ]
    return sorted(found, key=lambda c: -c.ratio)


def could_decide(change: Change) -> bool:
    """Whether a timing change that does not alert could decide once its noise is known: a ratio of twins timed
    in one process could (scripts/timing-noise has not measured its minimum detectable effect yet); an absolute
    time of one run cannot, since fresh processes move it by more than its threshold on identical code
    (docs/timing-noise.md), beyond what the confirm step resolves."""
    return change.kind != metrics.TIME


def bisect(verdict: Verdict) -> None:
    """Run `asv find` for each counted regression that spans several commits (--bisect), echoing each command."""
    for command in dict.fromkeys(find_command(verdict.source, c) for c in verdict.counted):
        if command:
            print(f"\n$ {command}", flush=True)
            subprocess.run(shlex.split(command), check=False)
