"""The overhead report in Markdown, and the generated blocks of README.md and docs/here.md that hold it."""

import math
import re
from pathlib import Path

from benchmarks import metrics, params

from .. import settings
from ..asvtools import device, operations
from ..asvtools.results import spans as result_spans
from ..project import HERE_RECORDS, env_label
from ..util import markdown_table
from . import build_time, generated, operation_history, operation_markdown
from .rows import (
    ANSWER_DEFAULT,
    ANSWER_DISPATCH,
    ANSWER_JAXPRS,
    ANSWER_PROVENANCE,
    ANSWER_STEP,
    ANSWER_SWEEP,
    CALLS_PER_STEP,
    RATIO_BENCHMARK,
    REPORT_DEPTH,
    TRACING_BENCHMARK,
    CommitFigures,
    Interval,
    answer_figure,
    latest_rows,
    measured,
)

# The report's generated blocks (publishing/generated.py); its every figure is the site's page (publishing/page).
SUMMARY_BLOCK = "overhead-summary"  # README.md's: the newest release's exact costs
HISTORY_BLOCK = "operation-history"  # every step of each operation's cost, and the Module-speed pull requests
HISTORY_SUMMARY_BLOCK = "operation-history-summary"  # the README's: each operation's steps and its largest
BUILD_TIME_BLOCK = "build-time"  # what building the results took, from asv's timestamps
INTERVAL_NOTE = (
    "Each timing carries the interval a second run's figure can be expected in. For one asv run's figure, "
    "that is its metric's threshold on either side (benchmarks/metrics.py: set above the largest change "
    "that single runs showed on unchanged code, docs/detector.md), widened to asv's 99% confidence interval "
    "of the run's samples where asv kept samples; a ratio or tree_map-pass figure is a single sample of one "
    "process (hollow marks). Two figures whose intervals overlap are not a measured change: only a "
    "side-by-side measurement (scripts/regressions) decides one."
)
# The ways of running a step that the lead answers for, in the words of the question (Equinox discussion #572).
LEAD_WRAPPINGS = {
    "eager": "eager",
    "jit": "under jax.jit",
    "filter_jit": "under eqx.filter_jit",
    "scan": "inside lax.scan",
    "jit_scan": "inside a jitted lax.scan",
}


def fmt(value, pattern: str = "{:.2f}") -> str:
    return "n/a" if value is None else pattern.format(value)


def timing_text(row: CommitFigures, benchmark: str, key: str, pattern="{:.2f}", scale=1.0, short=False) -> str:
    found = measured(row, benchmark, key)
    return "n/a" if found is None else found.scaled(scale).text(pattern, short)


def times_tuple(costs: tuple, pattern: str) -> str:
    """A Module operation's cost over its tuple twin's (operations.Operation.figures), "12.3×"."""
    return f"{fmt(costs[0] / costs[1] if costs[0] is not None and costs[1] else None, pattern)}×"


def markdown(row: CommitFigures) -> str:
    ratios = [[words, timing_text(row, RATIO_BENCHMARK, repr(w))] for w, words in LEAD_WRAPPINGS.items()]
    ratios += [["tracing a fresh step", timing_text(row, TRACING_BENCHMARK, "")]]
    tuple_passes = metrics.PASSES_TREE_AT.replace("track_tree_at", "track_tuple")
    return f"""### {row.label} ({row.env})

{markdown_table(["how the step runs", "× (tree_at ÷ tuple), and where its interval comes from"], ratios)}

Identical jaxprs for the tree_at and tuple steps: {row.jaxprs_identical}.

In a unit that scales with the machine, one `jax.tree_util.tree_map` over the same depth-{REPORT_DEPTH} tree, \
an eager update costs {timing_text(row, metrics.PASSES_TREE_AT, "", "{:.1f}")} passes with tree_at \
and {timing_text(row, tuple_passes, "", "{:.3f}")} with a tuple.
"""


def device_note(latest: list[CommitFigures]) -> str:
    """Which devices these figures were measured on, and where the records of the others are."""
    measured_on = sorted({device.named(row.env_params) for row in latest})
    text = HERE_RECORDS.read_text(encoding="utf-8") if HERE_RECORDS.is_file() else ""
    bodies = re.findall(r"<!-- here-answer-(\S+):start -->\s*(\S.*?)<!-- here-answer-\1:end -->", text, re.S)
    recorded = [device.named({device.DEVICE: name}) for name, _ in bodies]
    others = [name for name in dict.fromkeys(recorded) if name not in measured_on]
    return (
        f"Measured on {' and '.join(measured_on)}. docs/here.md holds the record of each device measured so far: "
        f"{', '.join(others) or 'no other'}. To take yours, run scripts/bench --here on a machine whose JAX sees it."
    )


def microseconds(seconds: Interval, per: int = 1) -> str:
    """A time in µs with its interval: "1,410 (940–2,115) µs"."""
    micro = seconds.scaled(1e6 / per)
    return f"{micro.text('{:,.0f}' if micro.value >= 100 else '{:.3g}', short=True)} µs"


def answer_rows(row: CommitFigures, benchmark: str, cases: dict, extra=lambda at: []) -> list[list[str]]:
    """A table's rows: each case's tree_at and tuple µs (per step, for a scan), and their ×, from one measurement."""
    found = []
    for at, (words, per) in cases.items():
        figures = [answer_figure(row, benchmark + side, at) for side in (*params.STRUCTURES, "ratio")]
        if None not in figures:
            found.append([words, *(microseconds(f, per) for f in figures[:2]), f"{figures[2].text(short=True)}×"])
            found[-1] += extra(at)
    return found


def here_answer(row: CommitFigures, dispatch: bool = True) -> str | None:
    """The answer for one environment on its device: a sentence, the steps by wrapping, on a CPU under JAX's own
    dispatch too, the calls dispatched alone (where ``dispatch``), and the sweep; None where the run took no answer."""
    scans = {w: params.SCAN_LENGTH if "scan" in w else 1 for w in LEAD_WRAPPINGS}
    steps = {
        repr(w): (words + f", per step of {scans[w]}" * (scans[w] > 1), scans[w]) for w, words in LEAD_WRAPPINGS.items()
    }
    jaxprs = {0: "yes", 1: "NO"}
    provenance = {what: row.exact.get((ANSWER_PROVENANCE, repr(what))) for what in params.PROVENANCE}
    machine = {repr(w): machine_taken(provenance, w) for w in LEAD_WRAPPINGS}
    shown = any(machine.values())
    table = answer_rows(
        row,
        ANSWER_STEP,
        steps,
        lambda at: [jaxprs.get(row.exact.get((ANSWER_JAXPRS, at)), "not measured")] + [machine[at] or "—"] * shown,
    )
    if not table:
        return None
    table[0][4] = "not traced" if table[0][0] == "eager" else table[0][4]
    ratio = {w: answer_figure(row, ANSWER_STEP + "ratio", repr(w)) for w in ("eager", "jit")}
    sentence = f"On {on_device(row, f'Equinox {row.label}')}: "
    if None not in ratio.values():
        sentence += (
            f"yes, a step of {CALLS_PER_STEP} tree_at updates costs {ratio['eager'].value:.1f}× the same step on a "
            f"tuple when run eagerly, and {ratio['jit'].value:.2f}× under jax.jit, where both compile to one program "
            "and what is left is the Module's flattening at every call; it fades as the arithmetic grows."
        )
    busy = any(TOO_BUSY in (cell or "") for cell in machine.values())
    if busy:
        sentence += " The machine was too busy for the figures marked below: they are not to be trusted."
    header = ["how the step runs", "tree_at", "tuple", "× (tree_at ÷ tuple)", "identical jaxprs"]
    header += ["time the machine took"] * shown
    early = {w: provenance[f"{w} returned before ready"] for w in params.DISPATCH_WRAPPINGS}
    alone = {repr(w): (f"{LEAD_WRAPPINGS[w]}, dispatched alone", 1) for w, share in early.items() if (share or 0) > 0.5}
    own = answer_rows(row, ANSWER_DEFAULT, {repr(w): (LEAD_WRAPPINGS[w], 1) for w in params.DEFAULT_WRAPPINGS})
    own += answer_rows(row, ANSWER_DISPATCH, alone) if dispatch else []
    computed = [w for w, share in early.items() if share is not None and share <= 0.5 and dispatch]
    computed = computed and (
        f"No row times a call dispatched alone {' or '.join(LEAD_WRAPPINGS[w] for w in computed)}: here at most "
        f"{max(early[w] for w in computed):.0%} of its calls returned before their result was computed (is_ready() "
        "straight after the call), so its time would hold the computation."
    )
    defaults = provenance["default-dispatch processes"]
    taken = None not in (provenance[what] for what in RUN_PROVENANCE) and (
        f"Each figure{' of the first table' * bool(defaults)}: the median of {provenance['processes']:.0f} fresh "
        f"processes, one after the other, in {provenance['seconds']:.0f} s; in each, tree_at's and the tuple's steady "
        "calls timed in alternating batches, and tree_at's µs are the tuple's times the pairs' ratio. "
        + (
            f"A quick run (--quick): one spell of a few pairs a figure, so that each interval in brackets is the range "
            f"of its pairs, which holds the median with {provenance['level']:.0%} only. "
            if provenance["quick"]
            else f"Each step in {params.ANSWER_ROUNDS} spells, the first process's before the sweep and after it; in "
            f"brackets, from the lowest to the highest of the spells' intervals of their medians (each at least "
            f"{provenance['level']:.1%}). "
        )
        + f"Load average {provenance['load before']:.2f} before and {provenance['load after']:.2f} after."
        + (
            " Each spell also measures the time the machine took from it, its wall time less its thread's CPU time "
            "(synchronous dispatch runs each call on its thread): a spell of which the machine took more than "
            f"{params.BUSY:.0%} is left out of its figure, and a step none of whose spells was below is marked "
            f"{TOO_BUSY} (docs/timing-load.md)."
        )
        * shown
        + (
            " JAX's CPU dispatch made synchronous there, so that its figures repeat (docs/timing-noise.md). The "
            "second table is what your own timeit reads under JAX's own dispatch: first thing in each of "
            f"{defaults:.0f} more fresh processes, the median of {params.TIMEIT_REPEATS} repeats of timeit's "
            "autorange, as docs/here.md's check times it; each figure their median, in brackets the lowest and the "
            "highest of them"
            + (
                f", which hold one more process's timeit with {level:.0%} ((n - 1) / (n + 1) of n processes, whatever "
                "the timeits' spread)."
                if (level := provenance["default level"]) is not None
                else "."
            )
        )
        * bool(defaults)
    )
    own = own and markdown_table(["a call under JAX's own dispatch", *header[1:4]], own) + (
        f"\n\n{TOO_BUSY}: these were timed in the same run, on the same busy machine, and are not to be trusted "
        "either." * busy
    )
    return "\n\n".join(
        filter(None, [sentence, markdown_table(header, table), own, computed, sweep_sentence(row), taken])
    )


TOO_BUSY = "**too busy**"
# What the sentence under the answer states: a run that did not record one of them states none.
RUN_PROVENANCE = ("processes", "default-dispatch processes", "level", "quick", "load before", "load after", "seconds")


def machine_taken(provenance: dict, wrapping: str) -> str | None:
    """The median share of a step's spells that the machine took, and how many were kept; None where not measured
    (off a CPU, or by a run from before)."""
    taken, kept = provenance.get(f"{wrapping} taken"), provenance.get(f"{wrapping} quiet spells")
    if taken is None or kept is None or math.isnan(taken):
        return None
    spells = provenance["processes"] * (1 if provenance["quick"] else params.ANSWER_ROUNDS)
    kept_text = f"{kept:.0f} of {spells:.0f} spells kept" if kept else f"{TOO_BUSY}: all {spells:.0f} spells above"
    return f"{taken:.0%}, {kept_text}"


def on_device(row: CommitFigures, label: str = "") -> str:
    """ "TPU v5 lite, Equinox v0.13.8 with Python 3.11, jax 0.10.2": the device, then the label and the versions."""
    versions = env_label({k: v for k, v in row.env_params.items() if k not in device.PARAMS})
    return f"{device.named(row.env_params)}, {f'{label} with ' if label else ''}{versions}"


def devices_markdown(rows: list[CommitFigures]) -> str:
    """The answer's × per wrapping, a column per device, each from its own run (docs/here.md's records)."""
    found = {(w, row.env): answer_figure(row, ANSWER_STEP + "ratio", repr(w)) for w in LEAD_WRAPPINGS for row in rows}
    cells = [
        [words, *(f.text(short=True) if (f := found[w, row.env]) else "not measured" for row in rows)]
        for w, words in LEAD_WRAPPINGS.items()
    ]
    return markdown_table(["tree_at ÷ tuple", *map(on_device, rows)], cells)


def sweep_sentence(row: CommitFigures) -> str | None:
    """Where the sweep's compiled ratio falls below metrics.NEGLIGIBLE_RATIO and stays there."""
    parts = []
    for wrapping in params.SWEEP_WRAPPINGS:
        at = {size: answer_figure(row, ANSWER_SWEEP + "ratio", f"{wrapping!r}, {size}") for size in params.SWEEP_SIZES}
        ratios = {size: ratio.value for size, ratio in at.items() if ratio is not None}
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


def summary_markdown(rows: list[CommitFigures]) -> str:
    """The newest commit's exact costs: tree_at's, then each Module operation's over its tuple twin's."""
    latest = latest_rows(rows)
    header = ["environment", f"Python work of one tree_at update, depth {REPORT_DEPTH} (exact, weighted instructions)"]
    text = markdown_table(header, ([f"{row.label}, {row.env}", fmt(row.cost, "{:,.0f}")] for row in latest))
    measured_operations = [row for row in latest if row.operations]
    if not measured_operations:
        return text
    table = []
    for op in operations.OPERATIONS:
        figures = [row.operations.get(op.label, (None, None)) for row in measured_operations]
        table.append([op.label, *(f"{fmt(costs[0], '{:,.0f}')} ({times_tuple(costs, '{:.0f}')})" for costs in figures)])
    first = f"Module operation, depth {operations.DEPTH}, {operations.FIELDS} fields: exact cost (× the tuple's)"
    return f"{text}\n\n{markdown_table([first, *(row.env for row in measured_operations)], table)}"


def answer_markdown(rows: list[CommitFigures]) -> str:
    """The first answer: each environment's answer, then the newest release's exact and steady figures."""
    header = ["environment", f"one tree_at update at depth {REPORT_DEPTH}, in tree_map passes (steady)"]
    latest = latest_rows(rows)
    passes = [[f"{row.label}, {row.env}", timing_text(row, metrics.PASSES_TREE_AT, "")] for row in latest]
    answers = filter(None, (here_answer(row, dispatch=False) for row in latest))
    return "\n\n".join([*answers, summary_markdown(rows), markdown_table(header, passes)])


def with_history(rows: list[CommitFigures]) -> list[CommitFigures]:
    return [row for row in rows if sum(other.env == row.env for other in rows) > 1]


def operations_history_markdown(rows: list[CommitFigures], by_operation: dict) -> str:
    project_url = settings.load().project_url
    pulls = operation_history.pull_request_effects(with_history(rows))
    operations_text = operation_markdown.markdown(by_operation, project_url)
    return f"{operations_text}\n{operation_markdown.pull_requests_markdown(pulls, project_url, by_operation)}"


def update_markdown(path: Path, rows: list[CommitFigures], by_operation: dict, results: Path | None) -> list[str]:
    blocks = {}
    has_history = bool(with_history(rows))
    # The README's summary is the newest release's and its history the commit-level one's: each results folder
    # writes only its own blocks.
    if not has_history or all(row.release for row in latest_rows(rows)):
        blocks[SUMMARY_BLOCK] = lambda: summary_markdown(rows)
    if has_history:
        project_url = settings.load().project_url
        blocks[HISTORY_BLOCK] = lambda: operations_history_markdown(rows, by_operation)
        blocks[HISTORY_SUMMARY_BLOCK] = lambda: operation_markdown.summary_markdown(by_operation, project_url)
    if has_history and results is not None:
        commits = {row.commit for row in rows}
        blocks[BUILD_TIME_BLOCK] = lambda: build_time.markdown(
            build_time.build_time([span for span in result_spans(results) if span[0] in commits]),
            f"the results of {len(commits)} commits",
        )
    return generated.write_blocks(path, blocks)
