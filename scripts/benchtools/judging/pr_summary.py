"""What merging a pull request does, as data: every measure of the gate's comparison (BASE → HEAD) in exactly one
section, so that nothing is left out.  An exact kind is any kind benchmarks/metrics.py does not declare a timing."""

from dataclasses import dataclass, field
from typing import NamedTuple

from benchmarks import metrics
from benchmarks import params as params_
from benchmarks.instruction_ops import OPERATIONS as COUNTED

from ..asvtools import operations
from . import explain, instructions, verdicts
from .changes import Change
from .confirm import Confirmation
from .gate import Verdict
from .pairs import FLOOR, SAME, SAME_BELOW, SLOWER

# The sections, in the order the summary shows them, with what each holds; the first two are "what changed".
FASTER, SLOWER_ = "faster", "slower"
UNCHANGED = "unchanged"
BELOW_FLOOR = "changed below its floor"
NOT_COUNTED = "diagnostics changed, never counted alone"
TIMING_SAME = "timings re-measured: no change"
TIMING_UNDECIDED = "timings re-measured: undecided"
TIMING_UNCONFIRMED = "timings not re-measured"
NOT_ALERTING = "timings that never alert"
SECTIONS = {
    SLOWER_: "",
    FASTER: "",
    UNCHANGED: "The same value on both sides.",
    BELOW_FLOOR: f"An exact cost that moved by less than its +{metrics.COST_FLOOR:.0%} floor: real, but below "
    "anything a timing can see.",
    NOT_COUNTED: "Counts that explain a cost (Python calls, bytecodes) and never count on their own.",
    TIMING_SAME: "Timings re-measured side by side whose whole interval lies within ±2%.",
    TIMING_UNDECIDED: "Timings re-measured side by side whose interval decides neither way.",
    TIMING_UNCONFIRMED: "Alerting timings compared from one run of each side and not re-measured (within their "
    "suspect threshold): no claim either way.",
    NOT_ALERTING: "Timings that never alert (benchmarks/metrics.py): absolute times, and ratios whose "
    "minimum detectable effect is not measured yet. Shown, never counted.",
}
CHANGED = (SLOWER_, FASTER)

# Benchmarks that are no Module operation but that users know by another name.
KNOWN = {
    metrics.COST_TREE_AT: "`eqx.tree_at` update, whole model",
    metrics.PASSES_TREE_AT: "`eqx.tree_at` update, whole model",
    metrics.ANSWER_RATIO: "the answer: one step's × over its tuple twin",
    "bench_counts.JaxprExcessEquations.track_excess_equations": "jaxpr equations beyond the tuple twin's",
    "bench_memory.LargeStateUpdate.track_copied_bytes_tree_at": "bytes copied by `tree_at`",
}
INSTRUCTIONS_SUFFIX = ", instructions"  # how an operation's instruction count is named beside its other measures
# The instruction counts' operations (benchmarks/instruction_ops.py) that are no operation of asvtools/operations.py.
COUNTED_WORDS = {
    "dispatch(jit)": "`jax.jit` dispatch of a tiny step, waited for",
    "dispatch(filter_jit)": "`eqx.filter_jit` dispatch of a tiny step, waited for",
    "dispatch alone(jit)": "`jax.jit` dispatch of a tiny step alone, not waited for",
    "dispatch alone(filter_jit)": "`eqx.filter_jit` dispatch of a tiny step alone, not waited for",
    **{f"tree_at({depth})": f"`eqx.tree_at` update, whole model, depth {depth}" for depth in params_.DEPTHS},
}


def is_exact(change: Change) -> bool:
    return change.kind not in metrics.TIMING_KINDS


class Words(NamedTuple):  # what a benchmark at its params is to a user; its rank sorts Module operations first
    operation: str
    rank: tuple


def words(benchmark: str, params: str) -> Words:
    """The operation in the words users know (asvtools/operations.py, else KNOWN, else its class and method), ranked
    the Module's own first and default params first; an instruction count beside its operation's other measures."""
    if benchmark.startswith(instructions.BENCHMARK + ".track_"):
        name = params.strip("'")
        twin = ("" if benchmark.endswith("track_module") else ", tuple twin") + INSTRUCTIONS_SUFFIX
        timed = COUNTED[name].timed if name in COUNTED else None
        timed = timed and metrics.entry(*timed[0])
        for number, operation in enumerate(operations.OPERATIONS):
            if timed == metrics.entry(*operation.timed):
                return Words(operation.label + twin, (0, number, 0))
        return Words(COUNTED_WORDS.get(name, name) + twin, (1, 0, 0))
    for number, operation in enumerate(operations.OPERATIONS):
        for module_class, side_params in ((operation.cost, "cost_params"), (operation.time, "time_params")):
            for side, twin in ((operation.module, ""), (operation.tuple_, ", tuple twin")):
                if benchmark == f"{module_class}.{side.method}":
                    default = operations.asv_params(getattr(side, side_params))
                    if params == default:
                        return Words(operation.label + twin, (0, number, 0))
                    if params.split(", ")[:1] == default.split(", ")[:1]:
                        return Words(f"{operation.label}{twin} ({params})", (0, number, 1))
    shown = f" ({params})" if params else ""
    if benchmark in KNOWN:
        return Words(KNOWN[benchmark] + shown, (1, 0, 0))
    return Words(f"`{benchmark.split('.', 1)[-1]}`{shown}", (2, 0, 0))


def profiled(change: Change) -> str | None:
    """The one call whose profile explains ``change``: its Module operation's, tree_at's update, or None."""
    for operation in operations.OPERATIONS:
        if change.benchmark in (f"{operation.cost}.{operation.module.method}", operation.timed[0]):
            return operation.profiled
    return explain.PROFILED if change.benchmark in (metrics.COST_TREE_AT, metrics.PASSES_TREE_AT) else None


@dataclass
class PlacedChange:
    change: Change
    section: str
    words: Words
    confirmation: Confirmation | None = None
    cause: str | None = None

    @property
    def mde(self) -> float | None:
        """The smallest change this re-measurement would have resolved: the floor plus its interval's half-width
        on the side of no change."""
        if (found := self.confirmation and self.confirmation.interval) is None:
            return None
        return FLOOR + (found.estimate - found.low if found.estimate >= 0 else found.high - found.estimate)


@dataclass
class Summary:
    title: str
    rows: list[PlacedChange]
    unjudged: list = field(default_factory=list)  # finding.Unjudged
    failed: list = field(default_factory=list)  # finding.FailedCommit
    environments: list[str] = field(default_factory=list)
    nothing_to_measure: str | None = None  # why, when the change touches no package path
    seconds: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)
    base: str = ""
    head: str = ""
    touched: list[str] = field(default_factory=list)  # the package's paths that differ between base and head
    verdict: Verdict | None = None  # the gate's, None when there was nothing to measure

    def section(self, name: str) -> list[PlacedChange]:
        return [row for row in self.rows if row.section == name]

    def counts(self) -> dict[str, int]:
        return {name: len(self.section(name)) for name in SECTIONS}

    def broken(self) -> list[tuple[str, str]]:
        """(environment, benchmark) of each benchmark that failed on the head and not on the base: merging breaks
        it."""
        on_base = {(f.env, n) for f in self.failed if f.commit == self.base for n in f.benchmarks}
        return [
            (f.env, n) for f in self.failed if f.commit == self.head for n in f.benchmarks if (f.env, n) not in on_base
        ]

    @property
    def regression(self) -> bool:
        return bool(self.section(SLOWER_) or self.broken())


def timing_section(found: Confirmation) -> str:
    """A re-measured timing's section: slower as the gate decides, faster below -FLOOR, no change within
    ±SAME_BELOW, else undecided."""
    interval = found.interval
    if found.verdict == SLOWER:
        return SLOWER_
    if interval is not None and interval.high < -FLOOR:
        return FASTER
    if interval is not None and found.verdict == SAME and interval.low > -SAME_BELOW:
        return TIMING_SAME
    return TIMING_UNDECIDED


def section_of(change: Change, verdict: Verdict, confirmed: dict) -> str:
    if any(change is c for c in verdict.counted):
        return SLOWER_
    if not is_exact(change):
        if not metrics.alerts(change.entry):
            return NOT_ALERTING
        return timing_section(confirmed[id(change)]) if id(change) in confirmed else TIMING_UNCONFIRMED
    if change.after == change.before:
        return UNCHANGED
    if not metrics.alerts(change.entry):
        return NOT_COUNTED
    # Faster: fallen by as much as a rise that would count (any for a deterministic, the floor for a cost).
    return FASTER if change.after < change.before * (1 - verdict.source.thresholds(change)) else BELOW_FLOOR


def changed_exact(verdict: Verdict) -> list[Change]:
    """The exact measures that a summary shows as changed (faster or slower): those whose cause is wanted."""
    return [c for c in verdict.changes if is_exact(c) and section_of(c, verdict, {}) in CHANGED]


def summarize(verdict: Verdict, title: str, causes: dict | None = None, faster_confirmations=(), **facts) -> Summary:
    confirmed = {id(found.change): found for found in [*(verdict.confirmations or []), *faster_confirmations]}
    rows = [
        PlacedChange(
            change,
            section_of(change, verdict, confirmed),
            words(change.benchmark, change.params),
            confirmed.get(id(change)),
            (causes or {}).get((change.benchmark, change.params, change.env)),
        )
        for change in verdict.changes
    ]
    rows.sort(key=lambda r: (list(SECTIONS).index(r.section), r.words.rank, r.change.env, r.change.ratio))
    return Summary(title, rows, list(verdict.unjudged), list(verdict.failed), verdict=verdict, **facts)


def data(summary: Summary) -> dict:
    """The verdict file: the gate's document (the shape the alert reads), plus what merging does: the faster
    and slower measures, the untouched count and each section's count."""
    verdict = summary.verdict
    nothing = f"nothing to measure: {summary.nothing_to_measure}"

    def row_data(row: PlacedChange) -> dict:
        found = row.confirmation
        return {
            **verdicts.change_data(row.change, verdict.source.thresholds(row.change)),
            "operation": row.words.operation,
            "section": row.section,
            "exact": is_exact(row.change),
            "cause": row.cause,
            "confirmation": found and {**verdicts.confirmation_data(found), "mde": verdicts.number(row.mde)},
        }

    return {
        **(verdicts.data(verdict) if verdict else {**verdicts.nothing_judged(nothing, "", ""), "summary": nothing}),
        "check": {
            "title": summary.title,
            "base": summary.base,
            "head": summary.head,
            "environments": list(summary.environments),
            "seconds": round(summary.seconds, 1),
            "load": [round(value, 2) for value in summary.load],
        },
        "sections": summary.counts(),
        "faster": [row_data(row) for row in summary.section(FASTER)],
        "slower": [row_data(row) for row in summary.section(SLOWER_)],
        "untouched": len(summary.section(UNCHANGED)),
        # Every timing re-measured side by side, slower and faster suspects alike, whatever its section.
        "remeasured": [row_data(row) for row in summary.rows if row.confirmation is not None],
    }
