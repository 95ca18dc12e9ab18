"""Each benchmark's kind of metric and regression threshold, declared once.

A pure module (no JAX, no Equinox): the tools in scripts/ import it, and so may the suite.  Everything that judges a
change reads it, asv's own step detection included (``asv_thresholds``, written by scripts/bench).  docs/gate.md says
how each kind is judged:

  deterministic  exact checks (jaxpr equations, copied bytes): identical code gives identical values;
  instructions   machine instructions per operation under valgrind, C included: a rise counts beyond SPREAD_MARGIN x
                 its operation's spread between fresh processes (SPREAD_DATA);
  cost           the exact Python cost of an update (bench_counts.PythonCost), counted beyond COST_FLOOR; the Module
                 operations' costs miss their C work and do not alert: their instruction counts do;
  diagnostic     the counts a cost is made of, never counted alone (calls rose while the cost and the time fell,
                 from 0.11.6 to 0.13.6);
  ratio          two timings side by side in one process, so that the machine's drift mostly cancels;
  time           absolute times and memory, which carry the noise between processes and runs.

A rule's ``alerts`` says whether a change can count as a regression.  Absolute times do not: fresh processes move them
by more than the confirm step resolves (docs/detector.md).  An alerting timing counts when after > before * (1 +
threshold), set above the largest change scripts/detector-trial saw on unchanged code (docs/detector.md).
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

DETERMINISTIC, INSTRUCTIONS, COST, DIAGNOSTIC, RATIO, TIME = (
    "deterministic",
    "instructions",
    "cost",
    "diagnostic",
    "ratio",
    "time",
)
KINDS = (DETERMINISTIC, INSTRUCTIONS, COST, RATIO, TIME, DIAGNOSTIC)  # the order of the gate's report
EXACT_KINDS = (DETERMINISTIC, INSTRUCTIONS, COST)  # the same on every run: never re-measured, placed on their commit
TIMING_KINDS = (RATIO, TIME)  # re-measured side by side (the confirm step) before they count

CALL_WEIGHT = 16
"""What one Python call weighs in ``bench_counts.PythonCost``, in bytecode instructions: fitted against tree_at's
time over 26 releases (docs/cost-metric.md; refit with ``scripts/fit-cost``)."""
COST_FLOOR = 0.01  # the rise of PythonCost that counts (see "cost" above)
# Each instruction count's floor comes from the spread that scripts/instruction-spread measured between fresh
# processes of identical code in one environment, the way the gate counts both sides of a rise (judging/gate.py),
# and wrote here: {"runs": [{"counts": {operation: {twin: instructions per call}}}], "environment": ...}.
SPREAD_DATA = Path(__file__).with_name("instruction_spread.json")
# A floor is this many times its operation's measured spread (largest - smallest) / smallest: a range of a few runs
# understates the process's own, and the A/A test's two processes differed by 0.72% in dispatch(jit), whose six-run
# range was 0.38% (docs/instructions.md): 1.9 times.
SPREAD_MARGIN = 2


def measured_spreads(path: Path = SPREAD_DATA) -> dict[tuple[str, str], float]:
    """{(operation, twin): (largest - smallest) / smallest} over the runs of ``path`` that counted the operation: a
    run made before an operation was added is kept for the others."""
    runs = json.loads(path.read_text())["runs"]
    found = {}
    for name, twins in {name: twins for run in runs for name, twins in run["counts"].items()}.items():
        for twin in twins:
            values = [run["counts"][name][twin] for run in runs if name in run["counts"]]
            found[(name, twin)] = max(values) / min(values) - 1
    return found


INSTRUCTIONS_SPREADS = measured_spreads()
# The most that fresh processes of identical code differed in an alerting (Module) twin's count.
INSTRUCTIONS_SPREAD = max(spread for (_, twin), spread in INSTRUCTIONS_SPREADS.items() if twin == "module")
# The floor of a count no operation's own floor covers (the tuple twins, which do not alert): the widest.
INSTRUCTIONS_FLOOR = SPREAD_MARGIN * INSTRUCTIONS_SPREAD


def instruction_spread(operation: str, twin: str) -> float:
    """How far fresh processes of identical code counted ``operation``'s ``twin`` apart; the widest where not measured.
    An operation's own: one noisy operation (dispatch alone(jit), the widest) must not blur the others' steps."""
    return INSTRUCTIONS_SPREADS.get((operation, twin), INSTRUCTIONS_SPREAD)


COST_TREE_AT = "bench_counts.PythonCost.track_tree_at"  # the cost of one tree_at update, params (depth,)
PASSES_TREE_AT = "bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at"  # its time, in tree_map passes
# The answer's × (tree_at ÷ tuple) of a step, params (wrapping, statistic): the suite's one timing of the question.
ANSWER_RATIO = "bench_answer.AnswerStep.track_ratio"
# A tree_at / tuple time ratio below this is a Module cost that no user would notice: the answer's sweep
# (bench_answer.AnswerSweep) reports the smallest state at which each compiled wrapping falls below it.
NEGLIGIBLE_RATIO = 1.05
DIAGNOSTIC_THRESHOLD = 1e9  # never reached: asv's step detection records no jump for a diagnostic


@dataclass(frozen=True)
class Rule:
    """Benchmarks whose name (``module.Class.method``, then ``(params)`` for asv) starts with ``pattern``."""

    pattern: str  # a regular expression, matched at the start of "name(params)" (metrics.entry)
    kind: str
    threshold: float
    alerts: bool  # a change beyond the threshold can count as a regression (see the module's docstring)
    # With confirmation (scripts/benchtools/judging/confirm.py), a timing change beyond ``suspect`` is re-measured
    # side by side before it counts; None: the threshold.  Lower than the threshold, because the
    # confirm step removes the false alarms that the threshold was set to avoid.
    suspect: float | None = None

    def __post_init__(self):
        if self.kind == DIAGNOSTIC and self.alerts:
            raise ValueError(f"rule {self.pattern!r}: a diagnostic explains a cost change and never alerts")


# The first rule that matches a benchmark decides; the last matches every benchmark.
RULES = (
    # The tuple twins run no Equinox code: within an environment only noise moves them, so they do not alert.
    Rule(r"bench_instructions\.Instructions\.track_tuple", INSTRUCTIONS, INSTRUCTIONS_FLOOR, alerts=False),
    # Each Module twin above its own measured spread: construction's varies by hundredths of a percent, a jitted
    # call waited for by tenths, and a jitted call alone by percents (glibc's malloc_consolidate in some processes'
    # windows, docs/instructions.md).
    *(
        Rule(
            re.escape(f"bench_instructions.Instructions.track_module({name!r})"),
            INSTRUCTIONS,
            SPREAD_MARGIN * spread,
            alerts=True,
        )
        for (name, twin), spread in INSTRUCTIONS_SPREADS.items()
        if twin == "module"
    ),
    Rule(r"bench_instructions\.", INSTRUCTIONS, INSTRUCTIONS_FLOOR, alerts=True),
    Rule(r"bench_counts\.PythonCost\.", COST, COST_FLOOR, alerts=True),
    # The Module operations' costs (bench_construct, bench_update, ...): their instruction counts alert.
    Rule(r"bench_\w+\.\w*Cost\.", COST, COST_FLOOR, alerts=False),
    Rule(r"bench_counts\.(?:PythonCalls|BytecodeInstructions)\.", DIAGNOSTIC, DIAGNOSTIC_THRESHOLD, alerts=False),
    Rule(r"bench_counts\.", DETERMINISTIC, 0.0, alerts=True),
    # The answer (bench_answer): its × per wrapping, at its median over fresh processes, is the figure users read and
    # the one the gate's timing alarm watches.  Its interval's ends, its µs, the sweep and the calls are drawn, never
    # judged.
    Rule(r"bench_answer\.AnswerJaxprs\.", DETERMINISTIC, 0.0, alerts=False),
    Rule(r"bench_answer\.AnswerProvenance\.", DIAGNOSTIC, DIAGNOSTIC_THRESHOLD, alerts=False),
    # Named without params (check-pr's choice of what to run), the ×'s benchmark is its alerting median's.
    Rule(ANSWER_RATIO.replace(".", r"\.") + r"(?:\('\w+', 'median'\)|$)", RATIO, 0.10, alerts=True, suspect=0.05),
    Rule(r"bench_answer\.\w+\.track_ratio", RATIO, 0.50, alerts=False),
    Rule(r"bench_memory\.LargeStateUpdate\.track_copied_bytes_", DETERMINISTIC, 0.0, alerts=True),
    # Any increase is a suspect: a 3% slowdown must be suspected before it can be confirmed, and
    # one asv run moves this metric by a few % on identical code (docs/gate.md, "Confirmed verdicts").
    Rule(r"bench_overhead\.EagerSurgeryInTreeMapPasses\.track_tree_at", RATIO, 0.10, alerts=True, suspect=0.0),
    Rule(r"bench_overhead\.", RATIO, 0.50, alerts=True),
    # The Module operations' times: not alerting until scripts/timing-noise has measured their MDE.
    Rule(r"bench_\w+\.\w+InTreeMapPasses\.", RATIO, 0.10, alerts=False),
    Rule(r"", TIME, 0.50, alerts=False),
)


def entry(benchmark: str, params: str) -> str:
    """A benchmark at its params as asv names it, "name(params)", and as the rules match it."""
    return f"{benchmark}({params})" if params else benchmark


def rule(name: str) -> Rule:
    """The rule for a benchmark: its name, with or without ``(params)``."""
    return next(r for r in RULES if re.match(r.pattern, name))


def kind(name: str) -> str:
    return rule(name).kind


def threshold(name: str) -> float:
    return rule(name).threshold


def alerts(name: str) -> bool:
    """Whether a change of this benchmark can count as a regression (its rule's declaration)."""
    return rule(name).alerts


def alerting_timing(name: str) -> bool:
    """A timing benchmark whose suspects the confirm step re-measures, and which can count when confirmed slower."""
    return kind(name) in TIMING_KINDS and alerts(name)


def asv_first_commits() -> dict[str, None]:
    """``regressions_first_commits`` for asv: step detection off (null) for the diagnostics (docs/gate.md)."""
    return {r.pattern: None for r in RULES if r.kind == DIAGNOSTIC}


def suspect_threshold(name: str) -> float | None:
    """The increase beyond which a timing change is re-measured (confirm step); None: its threshold."""
    return rule(name).suspect


def asv_thresholds() -> dict[str, float]:
    """``regressions_thresholds`` for asv: one regex per rule, each excluding what an earlier rule matches (a
    negative lookahead), since asv takes the largest threshold among the regexes that match."""
    thresholds = {}
    for number, current in enumerate(RULES):
        earlier = "|".join(r.pattern for r in RULES[:number])
        thresholds[f"(?!{earlier}){current.pattern}" if earlier else current.pattern] = current.threshold
    return thresholds
