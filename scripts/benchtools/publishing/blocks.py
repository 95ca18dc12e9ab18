"""The overhead report in Markdown, and the generated blocks of README.md and docs/answer.md that hold it."""

from pathlib import Path

from benchmarks import metrics, params

from .. import settings
from ..asvtools import device, operations
from ..asvtools.results import spans as result_spans
from ..project import env_label
from ..util import markdown_table
from . import build_time, generated, operation_history, operation_markdown
from .rows import (
    CALLS_PER_STEP,
    DEPTHS,
    DISPATCH_BENCHMARK,
    EAGER_BENCHMARK,
    RATIO_BENCHMARK,
    REPORT_DEPTH,
    SEED_BENCHMARK,
    STEADY_BENCHMARK,
    SWEEP_BENCHMARK,
    TRACING_BENCHMARK,
    CommitFigures,
    Interval,
    history,
    latest_rows,
    measured,
)

# The report's generated blocks (publishing/generated.py): README.md's summary, docs/answer.md's every figure.
SUMMARY_BLOCK, FULL_BLOCK = "overhead-summary", "overhead-report"
HISTORY_BLOCK = "operation-history"  # every step of each operation's cost, and the Module-speed pull requests
HISTORY_SUMMARY_BLOCK = "operation-history-summary"  # the README's: each operation's steps and its largest
BUILD_TIME_BLOCK = "build-time"  # what building the results took, from asv's timestamps
INTERVAL_NOTE = (
    "Each timing carries the interval a second run's figure can be expected in. For one asv run's figure, "
    "that is its metric's threshold on either side (benchmarks/metrics.py: set above the largest change "
    "that single runs showed on unchanged code, docs/detector.md), widened to asv's 99% confidence interval "
    "of the run's samples where asv kept samples; a ratio or tree_map-pass figure is a single sample of one "
    "process (hollow marks). Fresh processes (scripts/headline, diamonds): the median of fresh "
    "interpreters and the interval that holds a second run's median with 95%. Two figures whose intervals "
    "overlap are not a measured change: only a side-by-side measurement (scripts/regressions) decides one."
)


def fmt(value, pattern: str = "{:.2f}", spread: tuple | None = None) -> str:
    """A figure, with its interquartile range where asv kept one, "173.5 (IQR 160.1–190.2)"; or n/a."""
    if value is None:
        return "n/a"
    if spread is None:
        return pattern.format(value)
    return f"{pattern.format(value)} (IQR {pattern.format(spread[0])}–{pattern.format(spread[1])})"


def markdown(row: CommitFigures) -> str:
    ratios = [[w, timing_text(row, RATIO_BENCHMARK, repr(w))] for w in row.ratios]
    ratios += [
        ["eager surgery only", timing_text(row, "bench_overhead.EagerSurgeryRatio.track_overhead_ratio", "")],
        ["tracing a fresh step", timing_text(row, TRACING_BENCHMARK, "")],
    ]
    ratios += [[f"seed scenario, {w}", timing_text(row, SEED_BENCHMARK, repr(w))] for w in row.seed_ratios]
    depths = []
    for depth in DEPTHS:
        times = row.eager_us.get(depth, (None, None))
        spreads = zip(times, ("{:.1f}", "{:.2f}"), row.eager_iqr.get(depth, (None, None)), strict=True)
        overhead = None if None in times else times[0] - times[1]
        calls = " / ".join(fmt(count, "{:.0f}") for count in row.calls.get(depth, (None, None)))
        depths.append([depth, *(fmt(*spread) for spread in spreads), fmt(overhead, "{:.1f}"), calls])
    iqr = row.compile_iqr
    compile_iqr = "" if iqr is None else f" (tree_at's compile time: IQR {iqr[0]:.1f}–{iqr[1]:.1f} ms)"
    tuple_passes = metrics.PASSES_TREE_AT.replace("track_tree_at", "track_tuple")
    lines = [
        f"### {row.label} ({row.env})",
        "",
        markdown_table(
            ["how the step runs", "tree_at / tuple time (the interval a second run's can be expected in)"], ratios
        ),
        "",
        markdown_table(
            [
                "depth",
                "eager µs per tree_at call, median (IQR)",
                "µs per tuple update, median (IQR)",
                "overhead µs per call",
                "Python calls per tree_at / per tuple update",
            ],
            depths,
        ),
        "",
        "Absolute times are one run's, on one machine: they move by up to 2× between runs and commits "
        "of identical code (the IQR shows only the spread within the run); the tree_map-pass figure below "
        "is the steady one.",
        "",
        f"Compile overhead of a step with {CALLS_PER_STEP} updates: {fmt(row.compile_overhead_ms, '{:+.1f}')} ms"
        f"{compile_iqr}. Identical jaxprs for the tree_at and tuple steps: {row.jaxprs_identical}.",
        "",
        f"In a unit that scales with the machine, one `jax.tree_util.tree_map` over the same depth-{REPORT_DEPTH} "
        f"tree, an eager update costs {timing_text(row, metrics.PASSES_TREE_AT, '', '{:.1f}')} passes with tree_at "
        f"and {timing_text(row, tuple_passes, '', '{:.3f}')} with a tuple.",
        "",
    ]
    if not row.operations:  # a result from before the Module's operations were measured
        return "\n".join(lines)
    table = []
    for label, (module_cost, tuple_cost, *passes) in row.operations.items():
        times = None if module_cost is None or not tuple_cost else module_cost / tuple_cost
        costs = [fmt(module_cost, "{:,.0f}"), fmt(tuple_cost, "{:,.0f}"), f"{fmt(times, '{:.1f}')}×"]
        table.append([label, *costs, fmt(passes[0], "{:.2f}"), fmt(passes[1], "{:.3f}")])
    header = ["operation", "cost, Module", "cost, tuple", "cost, Module ÷ tuple", "tree_map passes, Module"]
    lines += [
        f"What each Module operation costs over its tuple twin, on a state of depth {operations.DEPTH} "
        f"with {operations.FIELDS} array fields per node:",
        "",
        markdown_table([*header, "tree_map passes, tuple"], table),
        "",
        "The costs are exact (weighted instructions: identical code gives identical values, docs/cost-metric.md). "
        "The tree_map passes are one run's in-process ratios, for orientation: their spread between runs is "
        "not measured yet.",
        "",
    ]
    return "\n".join(lines)


def step_sentence(step: operation_history.OperationStep) -> str:
    slower = step.relative > 0
    passes = ""
    if step.measured is not None:
        found = step.measured
        passes = (
            f"; its time, measured side by side in {found.pairs} pairs of fresh processes, "
            + operation_markdown.interval_text(found, f", {found.confidence:.1%} interval")
        )
        if operation_markdown.agreement(step) == operation_markdown.CONTRADICTS:
            passes += " (the time contradicts the exact cost: the cost counts no work done in C)"
    elif None not in step.passes:
        passes = (
            f"; its time {step.passes[0]:.1f} → {step.passes[1]:.1f} tree_map passes "
            f"({step.passes[1] / step.passes[0] - 1:+.0%})"
        )
        if (step.passes[1] > step.passes[0]) != slower:
            passes += (
                " (the timing disagrees with the exact cost: the cost counts no work done in C, and these "
                "times are one run's samples, not measured side by side; which is right is not known)"
            )
    counts = ""
    calls = [row.calls.get(REPORT_DEPTH, (None,))[0] for row in (step.before, step.after)]
    bytecodes = [step.before.bytecodes, step.after.bytecodes]
    if None not in calls + bytecodes:
        counts = f" (calls {calls[0]:,.0f} → {calls[1]:,.0f}, bytecodes {bytecodes[0]:,.0f} → {bytecodes[1]:,.0f})"
    return (
        f"{step.after.label} made tree_at {'slower' if slower else 'faster'}: its cost per update went "
        f"{step.cost[0]:,.0f} → {step.cost[1]:,.0f} weighted instructions ({step.relative:+.1%}){counts}"
        f"{passes}. Cause: {operation_markdown.cause_cell(step)}."
    )


def history_markdown(found: dict[str, list[operation_history.OperationStep]]) -> str:
    lines = []
    for env, found_steps in found.items():
        lines += [f"### History of tree_at's cost ({env})", ""]
        if not found_steps:
            lines += ["No step in tree_at's cost over these releases.", ""]
            continue
        lines += [
            f"Steps of the cost of one update at depth {REPORT_DEPTH} (bench_counts.PythonCost, exact) "
            f"above {metrics.COST_FLOOR:.0%}, release by release, with the measured time on each side:",
            "",
        ]
        lines += [f"- {step_sentence(step)}" for step in found_steps]
        lines.append("")
    return "\n".join(lines)


def timing_text(
    row: CommitFigures, benchmark: str, params: str, pattern: str = "{:.2f}", scale: float = 1.0, short: bool = False
) -> str:
    found = measured(row, benchmark, params)
    if found is None:
        return "n/a"
    return found.scaled(scale).text(pattern, short)


NO_GPU = (
    "Every figure here was measured on a CPU, and a GPU answers differently: docs/here.md holds a record taken on "
    "an NVIDIA H200. To take yours, run scripts/bench --here on a machine whose JAX sees a GPU."
)


def gpu_note(latest: list[CommitFigures]) -> str | None:
    return None if any(device.on_gpu(row.env_params) for row in latest) else NO_GPU


# The ways of running a step that the lead answers for, in the words of the question (Equinox discussion #572).
LEAD_WRAPPINGS = {
    "eager": "eager",
    "jit": "under jax.jit",
    "filter_jit": "under eqx.filter_jit",
    "scan": "inside lax.scan",
    "jit_scan": "inside a jitted lax.scan",
}


def _us(seconds: Interval, per: int = 1) -> str:
    """A time in µs with its interval: "1,410 (940–2,115) µs"."""
    micro = seconds.scaled(1e6 / per)
    return f"{micro.text('{:,.0f}' if micro.value >= 100 else '{:.3g}', short=True)} µs"


def twins(row: CommitFigures, benchmark: str, key: str) -> list[Interval | None]:
    return [measured(row, benchmark.replace("tree_at", twin), key) for twin in params.STRUCTURES]


def dispatch_sentence(row: CommitFigures) -> str | None:
    parts = []
    for wrapping in ("jit", "filter_jit"):
        for wait, words in (("dispatch", "dispatched alone"), ("block_until_ready", "waited for")):
            tree_at, tuple_ = twins(row, DISPATCH_BENCHMARK, f"{wrapping!r}, {wait!r}")
            if tree_at is not None and tuple_ is not None:
                parts.append(f"{LEAD_WRAPPINGS[wrapping]} {words}, {_us(tree_at)} against {_us(tuple_)}")
    return f"A call of the step, {'; '.join(parts)}." if parts else None


def sweep_sentence(row: CommitFigures) -> str | None:
    """Where the state-size sweep's compiled ratio falls below metrics.NEGLIGIBLE_RATIO and stays there."""
    parts = []
    for wrapping in params.SWEEP_WRAPPINGS:
        found = {size: measured(row, SWEEP_BENCHMARK, f"{wrapping!r}, {size}") for size in params.SWEEP_SIZES}
        ratios = {size: ratio.value for size, ratio in found.items() if ratio is not None}
        if not ratios:
            continue
        last_above = max((size for size, ratio in ratios.items() if ratio >= metrics.NEGLIGIBLE_RATIO), default=0)
        crossing = min((size for size in ratios if size > last_above), default=None)
        where = f"at no size up to {max(ratios):,} elements per leaf"
        if crossing == min(ratios):
            where = f"at every size measured, from {crossing:,} to {max(ratios):,} elements per leaf"
        elif crossing is not None:
            where = f"from {crossing:,} elements per leaf on"
        parts.append(f"{LEAD_WRAPPINGS[wrapping]} {where}")
    if not parts:
        return None
    return (
        "As the state grows, the arithmetic hides the Module's cost: the ratio falls below "
        f"{metrics.NEGLIGIBLE_RATIO}× {'; '.join(parts)}."
    )


def lead_paragraph(row: CommitFigures) -> str:
    """The answer to the question users ask (what a step costs with tree_at on an eqx.Module against a plain
    tuple), for one environment on its device.  A figure the run did not take gets no words."""
    sentences, steps = [], []
    for wrapping, words in LEAD_WRAPPINGS.items():  # a step's time with tree_at and the tuple, and their ratio
        length = params.SCAN_LENGTH if "scan" in wrapping else 1
        tree_at, tuple_ = twins(row, STEADY_BENCHMARK, f"{wrapping!r}, {REPORT_DEPTH}")
        ratio = measured(row, RATIO_BENCHMARK, repr(wrapping))
        figures = []
        if tree_at is not None and tuple_ is not None:
            per = " per step" if length > 1 else ""
            figures.append(f"{_us(tree_at, length)} against {_us(tuple_, length)}{per}")
        if ratio is not None:
            figures.append(f"{ratio.text(short=True)}× the tuple's time")
        if figures:
            steps.append(f"{words}, {', '.join(figures)}")
    if steps:
        sentences.append(
            f"A step of {CALLS_PER_STEP} updates to a depth-{REPORT_DEPTH} eqx.Module with eqx.tree_at, against "
            f"the same step rebuilding a plain tuple, takes: {'; '.join(steps)}."
        )
    surgery = twins(row, EAGER_BENCHMARK, f"{REPORT_DEPTH}, {CALLS_PER_STEP}")
    if surgery[0] is not None:
        calls = int(CALLS_PER_STEP)
        against = f" against {_us(surgery[1], calls)} for a tuple update" if surgery[1] else ""
        sentences.append(f"One eager tree_at call, the surgery alone, takes {_us(surgery[0], calls)}{against}.")
    if row.excess_equations:
        sentences.append(
            "Under every tracing wrapping the two steps trace to identical jaxprs: the compiled program is the same."
            if not any(row.excess_equations)
            else f"The jaxprs differ: tree_at's has up to {max(row.excess_equations)} more equations."
        )
    sentences += [found for found in (dispatch_sentence(row), sweep_sentence(row)) if found is not None]
    if not sentences:
        sentences.append("This run took no figure that answers the question; the figures it took follow.")
    versions = env_label({k: v for k, v in row.env_params.items() if k not in device.PARAMS})
    return f"On {device.described(row.env_params)}, Equinox {row.label} with {versions}: " + " ".join(sentences)


def summary_markdown(rows: list[CommitFigures]) -> str:
    """The newest commit's exact costs: tree_at's, then each Module operation's over its tuple twin's.  Its
    timings are one run's, so they are left to the headline (scripts/headline)."""
    latest = latest_rows(rows)
    header = ["environment", f"Python work of one tree_at update, depth {REPORT_DEPTH} (exact, weighted instructions)"]
    lines = [markdown_table(header, ([f"{row.label}, {row.env}", fmt(row.cost, "{:,.0f}")] for row in latest))]
    with_operations = [row for row in latest if row.operations]
    if with_operations:
        table = []
        for op in operations.OPERATIONS:
            cells = [op.label]
            for row in with_operations:
                module_cost, tuple_cost, *_ = row.operations.get(op.label, (None, None))
                ratio = module_cost / tuple_cost if module_cost and tuple_cost else None
                cells.append(f"{fmt(module_cost, '{:,.0f}')} ({fmt(ratio, '{:.0f}')}×)")
            table.append(cells)
        first = f"Module operation, depth {operations.DEPTH}, {operations.FIELDS} fields: exact cost (× the tuple's)"
        lines += ["", markdown_table([first, *(row.env for row in with_operations)], table)]
    return "\n".join(lines)


def answer_markdown(rows: list[CommitFigures]) -> str:
    header = ["environment", f"one tree_at update at depth {REPORT_DEPTH}, in tree_map passes (steady)"]
    passes = [
        [f"{row.label}, {row.env}", timing_text(row, metrics.PASSES_TREE_AT, "", "{:.2f}")] for row in latest_rows(rows)
    ]
    return "\n".join([summary_markdown(rows), "", markdown_table(header, passes)])


def with_history(rows: list[CommitFigures]) -> list[CommitFigures]:
    return [row for row in rows if sum(other.env == row.env for other in rows) > 1]


def full_markdown(rows: list[CommitFigures], by_operation: dict) -> str:
    found = history(rows, by_operation)
    told = {row.env: found[row.env] for row in with_history(rows)}
    histories = [history_markdown(told), operations_history_markdown(rows, by_operation)] if told else []
    return "\n".join([*(markdown(row) for row in latest_rows(rows)), *histories])


def operations_history_markdown(rows: list[CommitFigures], by_operation: dict) -> str:
    pulls = operation_history.pull_request_effects(with_history(rows))
    return "\n".join(
        [
            operation_markdown.markdown(by_operation, settings.load().project_url),
            operation_markdown.pull_requests_markdown(pulls, settings.load().project_url, by_operation),
        ]
    )


def update_markdown(path: Path, rows: list[CommitFigures], by_operation: dict, results: Path | None) -> list[str]:
    blocks = {FULL_BLOCK: lambda: full_markdown(rows, by_operation)}
    has_history = bool(with_history(rows))
    # The README takes its summary and its history from two results folders: the summary is the newest
    # release's, which the commit-level history (ending at main's newest commit) leaves as it is, and
    # results without a history (one commit, as the summary comes from) leave the history's blocks.
    if not has_history or all(row.release for row in latest_rows(rows)):
        blocks[SUMMARY_BLOCK] = lambda: summary_markdown(rows)
    if has_history:
        blocks[HISTORY_BLOCK] = lambda: operations_history_markdown(rows, by_operation)
        blocks[HISTORY_SUMMARY_BLOCK] = lambda: operation_markdown.summary_markdown(
            by_operation, settings.load().project_url
        )
        if results is not None:
            commits = {row.commit for row in rows}
            blocks[BUILD_TIME_BLOCK] = lambda: build_time.markdown(
                build_time.build_time([span for span in result_spans(results) if span[0] in commits]),
                f"the results of {len(commits)} commits",
            )
    return generated.write_blocks(path, blocks)
