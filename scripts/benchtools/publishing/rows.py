"""The overhead report's rows: each commit's figures in one environment, each timing with its interval."""

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from benchmarks import metrics, params

from .. import git
from ..asvtools import operations
from ..asvtools.results import entries, only, stat_pairs, stored, values
from ..errors import BadInput
from ..project import env_label
from . import operation_history

# asv stores parameter values as their repr; the report reads them as plain strings.
WRAPPINGS = params.WRAPPINGS
CALLS_PER_STEP = str(params.DEFAULT_N_CALLS)  # the answer's step makes this many updates
REPORT_DEPTH = str(params.DEFAULT_DEPTH)  # the depth of the summary's figures
RATIO_BENCHMARK = metrics.ANSWER_RATIO
TRACING_BENCHMARK = "bench_overhead.TracingRatio.track_overhead_ratio"
# The answer (bench_answer): each figure at its params, then its statistic, from the run's fresh processes.
ANSWER_MODULE = "bench_answer."
ANSWER_STEP, ANSWER_DEFAULT, ANSWER_DISPATCH, ANSWER_SWEEP = (
    f"{ANSWER_MODULE}Answer{n}.track_" for n in ("Step", "Default", "Dispatch", "Sweep")
)
ANSWER_JAXPRS = f"{ANSWER_MODULE}AnswerJaxprs.track_jaxprs_differ"
ANSWER_PROVENANCE = f"{ANSWER_MODULE}AnswerProvenance.track_provenance"

# Where a timing figure's interval comes from (Interval.source), in the words the page and the plots use.
SINGLE_SAMPLE = "a single sample"  # a track value: one process's, with no spread of its own
ONE_RUN = "one run"  # a time benchmark: asv's samples, all from one run


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float
    source: str

    def text(self, pattern: str = "{:.2f}", short: bool = False) -> str:
        """The figure and its interval; ``short``, without the source, where the text around names it."""
        value, low, high = map(pattern.format, (self.value, self.low, self.high))
        return f"{value} ({low}–{high})" if short else f"{value} ({self.source}: {low} to {high})"

    def scaled(self, scale: float) -> "Interval":
        return Interval(self.value * scale, self.low * scale, self.high * scale, self.source)


@dataclass
class CommitFigures:
    label: str
    env: str
    tree_map_passes: tuple = (None, None)  # one update, tree_at and tuple, in tree_map passes
    excess_equations: list = field(default_factory=list)
    commit: str = ""
    release: bool = False  # the commit is tagged, as every commit of a release history is
    subject: str = ""  # the commit's subject line, from the repository
    commit_date: str = ""  # YYYY-MM-DD
    env_params: dict = field(default_factory=dict)
    cost: float | None = None  # bench_counts.PythonCost of one tree_at update at REPORT_DEPTH
    bytecodes: float | None = None  # bench_counts.BytecodeInstructions of the same
    operations: dict = field(default_factory=dict)  # the Module's operations: label -> operations.Operation.figures
    # Every figure of the result by (benchmark, params as asv names them, "'jit'" or "4, 8"): the exact ones
    # (each kind of benchmarks/metrics.py but the timing kinds) as values, the timings as Intervals.
    exact: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    @property
    def jaxprs_identical(self) -> str:
        if not self.excess_equations:
            return "not measured"
        return "yes" if not any(self.excess_equations) else f"NO (+{max(self.excess_equations)} equations)"


def row_of(result, label: str) -> CommitFigures:
    row = CommitFigures(label, env_label(result.params), commit=result.commit_hash, env_params=dict(result.params))
    row.cost = values(result, metrics.COST_TREE_AT).get((REPORT_DEPTH,))
    row.bytecodes = values(result, "bench_counts.BytecodeInstructions.track_tree_at").get((REPORT_DEPTH,))
    passes = (values(result, f"bench_overhead.EagerSurgeryInTreeMapPasses.track_{t}") for t in params.STRUCTURES)
    row.tree_map_passes = tuple(map(only, passes))
    equations = values(result, "bench_counts.JaxprExcessEquations.track_excess_equations")
    row.excess_equations = [v for v in equations.values() if v is not None]
    row.operations = operations.figures(result)
    ci_99 = functools.cache(lambda benchmark: stat_pairs(result, benchmark, "ci_99_a", "ci_99_b"))
    for (benchmark, combo), value in entries(result).items():
        joined = ", ".join(combo)
        name = metrics.entry(benchmark, joined)
        if value is None:
            continue
        if metrics.kind(name) not in metrics.TIMING_KINDS:
            row.exact[benchmark, joined] = value
            continue
        # Where a second run's figure is expected (blocks.INTERVAL_NOTE).
        grown = 1 + metrics.threshold(name)
        interval = Interval(value, value / grown, value * grown, SINGLE_SAMPLE)
        ci = ci_99(benchmark).get(tuple(p.strip("'") for p in combo))
        if ci is not None and all(map(math.isfinite, ci)):  # asv's interval of a single sample is infinite
            interval = Interval(value, min(interval.low, ci[0]), max(interval.high, ci[1]), ONE_RUN)
        row.timings[benchmark, joined] = interval
    return row


def descending(version: str | None) -> tuple:
    try:
        return tuple(-part for part in Version(version or "0").release)
    except InvalidVersion:
        return ()


def newest_first(result) -> tuple:
    """Sort key within one commit: the newest Python, then the newest JAX, first, so that reports lead with them."""
    return tuple(descending(result.params.get(name)) for name in ("python", "jax"))


def load_rows(results: Path, repo: Path, machine: str | None = None, latest: bool = False) -> list[CommitFigures]:
    if not results.is_dir():
        raise BadInput(f"no results directory at {results}; run scripts/bench first")
    found = stored(results, machine)
    if not found:
        raise BadInput(f"no results in {results}" + (f" for machine {machine!r}" if machine else ""))
    order = git.topological_order(repo)
    found.sort(key=lambda r: (order.get(r.commit_hash, len(order)), r.date or 0, newest_first(r), r.env_name))
    if latest:
        found = [r for r in found if r.commit_hash == found[-1].commit_hash]
    tags, subjects = git.tag_of_commit(repo), git.commit_subjects(repo)
    rows = [row_of(r, tags.get(r.commit_hash, r.commit_hash[:8])) for r in found]
    for row in rows:
        row.subject, row.commit_date = subjects.get(row.commit, ("", ""))
        row.release = row.commit in tags
    return rows


def latest_rows(rows: list[CommitFigures]) -> list[CommitFigures]:
    return [row for row in rows if row.label == rows[-1].label]


@dataclass(frozen=True)
class Series:
    label: str
    benchmark: str
    params: str  # as asv names them: "'jit'", "4, 8", "" without params
    scale: float = 1.0  # from the benchmark's unit to the plot's

    def at(self, row: CommitFigures) -> Interval | None:
        found = measured(row, self.benchmark, self.params)
        return None if found is None else found.scaled(self.scale)


def measured(row: CommitFigures, benchmark: str, params: str) -> Interval | None:
    """A timing figure of ``row`` (the answer's: ``params`` without the statistic), None where not taken."""
    if benchmark.startswith(ANSWER_MODULE):
        return answer_figure(row, benchmark, params)
    return row.timings.get((benchmark, params))


def answer_figure(row: CommitFigures, benchmark: str, at: str) -> Interval | None:
    """A figure of the answer (``ANSWER_STEP + "ratio"`` at ``"'jit'"``) with its interval; None where not taken."""
    found = [row.timings.get((benchmark, f"{at}, {statistic!r}")) for statistic in params.STATISTICS]
    if None in found:
        return None
    processes = row.exact.get((ANSWER_PROVENANCE, "'processes'"), 0)
    return Interval(*(figure.value for figure in found), f"{processes:.0f} fresh processes")


def history(rows: list[CommitFigures], by_operation: dict) -> dict[str, list[operation_history.OperationStep]]:
    found = by_operation.get(operation_history.TREE_AT, [])
    return {env: [step for step in found if step.env == env] for env in dict.fromkeys(row.env for row in rows)}


def investigate(
    rows: list[CommitFigures],
    config: Path | None,
    profile: bool = False,
    confirm_pairs: int | None = None,
    step_times: Path | None = None,
) -> dict:
    by_operation = operation_history.operation_steps(rows)
    operation_history.explain_steps(by_operation, config, profile)
    if config is not None or step_times is not None:  # the times measured before, with confirm_pairs the others
        operation_history.confirm_steps(by_operation, config, confirm_pairs, step_times)
    return by_operation
