"""The overhead report: tree_at against the tuple, per environment, as Markdown, a page and plots."""

import html
import itertools
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from benchmarks import metrics, params

from .. import git, util
from ..asvtools import operations, shapes
from ..asvtools.results import confidence_intervals, entries, only, spreads, values
from ..asvtools.results import spans as result_spans
from ..errors import BadInput
from ..judging import explain, pairs, steps
from ..project import ROOT, env_label
from . import generated, operation_history
from .markdown import markdown_html, table_html

# asv stores parameter values as their repr; the report reads them as plain strings.
WRAPPINGS = params.WRAPPINGS
DEPTHS = tuple(str(depth) for depth in params.DEPTHS)
CALLS_PER_STEP = str(params.DEFAULT_N_CALLS)  # the eager per-call figures come from steps of this many updates
REPORT_DEPTH = str(params.DEFAULT_DEPTH)  # the depth of the headline figures
# The report's generated blocks (publishing/generated.py): README.md's summary, docs/answer.md's every figure.
SUMMARY_BLOCK, FULL_BLOCK = "overhead-summary", "overhead-report"
HISTORY_BLOCK = "operation-history"  # every step of each operation's cost, and the Module-speed pull requests
HISTORY_SUMMARY_BLOCK = "operation-history-summary"  # the README's: each operation's steps and its largest
BUILD_TIME_BLOCK = "build-time"  # what building the results took, from asv's timestamps
# The timing figures that the plots and the summary show.
RATIO_BENCHMARK = "bench_overhead.SteadyStateRatio.track_overhead_ratio"
EAGER_BENCHMARK = "bench_eager.EagerSurgery.time_tree_at"
TRACING_BENCHMARK = "bench_overhead.TracingRatio.track_overhead_ratio"
SEED_BENCHMARK = "bench_seed.SeedScenario.track_overhead_ratio"
NAV_ANCHOR = '<li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li>'
NAV_LINK = '<li id="nav-li-overhead"><a href="overhead/index.html">tree_at overhead</a></li>'


# Where a timing figure's interval comes from (Interval.source), in the words the page and the plots use.
SINGLE_SAMPLE = "a single sample"  # a track value: one process's, with no spread of its own
ONE_RUN = "one run"  # a time benchmark: asv's samples, all from one run
FRESH_PROCESSES = "fresh processes"  # scripts/headline's median and the interval a second run's median lies in
INTERVAL_NOTE = (
    "Each timing carries the interval a second run's figure can be expected in. For one asv run's figure, "
    "that is its metric's threshold on either side (benchmarks/metrics.py: set above the largest change "
    "that single runs showed on unchanged code, docs/detector.md), widened to asv's 99% confidence interval "
    "of the run's samples where asv kept samples; a ratio or tree_map-pass figure is a single sample of one "
    "process (hollow marks). Fresh processes (scripts/headline, diamonds): the median of fresh "
    "interpreters and the interval that holds a second run's median with 95%. Two figures whose intervals "
    "overlap are not a measured change: only a side-by-side measurement (scripts/regressions) decides one."
)


@dataclass(frozen=True)
class Interval:
    """A timing figure, the interval it is shown with, and where that interval comes from (SOURCES)."""

    value: float
    low: float
    high: float
    source: str

    def text(self, pattern: str = "{:.2f}") -> str:
        return (
            f"{pattern.format(self.value)} ({self.source}: {pattern.format(self.low)} to {pattern.format(self.high)})"
        )

    def short(self, pattern: str = "{:.2f}") -> str:
        """The figure and its interval, for a table whose header names the source."""
        return f"{pattern.format(self.value)} ({pattern.format(self.low)}–{pattern.format(self.high)})"

    def scaled(self, scale: float) -> "Interval":
        return Interval(self.value * scale, self.low * scale, self.high * scale, self.source)


def one_run_interval(name: str, value: float, ci: tuple | None) -> Interval:
    """A timing figure of one asv run (``name`` as metrics.entry writes it) with the interval a second run's
    figure can be expected in: its threshold (benchmarks/metrics.py) on either side, widened to asv's 99%
    confidence interval ``ci`` where asv kept samples; without them the figure is a single sample."""
    grown = 1 + metrics.threshold(name)
    low, high = value / grown, value * grown
    if ci is None or not all(map(math.isfinite, ci)):  # asv's interval of a single sample is infinite
        return Interval(value, low, high, SINGLE_SAMPLE)
    return Interval(value, min(low, ci[0]), max(high, ci[1]), ONE_RUN)


@dataclass
class Row:
    """The overhead figures of one commit in one environment; None where not measured."""

    label: str
    env: str
    date: int
    ratios: dict = field(default_factory=dict)  # wrapping -> tree_at / tuple
    compile_overhead_ms: float | None = None
    seed_ratios: dict = field(default_factory=dict)
    eager_us: dict = field(default_factory=dict)  # depth -> (tree_at µs per call, tuple µs per update)
    # The same figures' spread: asv's own q_25 and q_75 of the run's samples (None where asv kept none).
    eager_iqr: dict = field(default_factory=dict)  # depth -> ((q_25, q_75) of tree_at, of tuple), µs
    compile_iqr: tuple | None = None  # (q_25, q_75) of tree_at's compile time, ms
    calls: dict = field(default_factory=dict)  # depth -> (tree_at calls, tuple calls)
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
    # The same keys: scripts/headline's figures (attach_fresh), as (label, scale, Interval in the benchmark's unit).
    fresh: dict = field(default_factory=dict)

    @property
    def jaxprs_identical(self) -> str:
        if not self.excess_equations:
            return "not measured"
        return "yes" if not any(self.excess_equations) else f"NO (+{max(self.excess_equations)} equations)"


def with_spread(value, spread, pattern: str) -> str:
    """A figure and its interquartile range, "173.5 (IQR 160.1–190.2)": never a bare absolute time."""
    if value is None or spread is None:
        return fmt(value, pattern)
    return f"{pattern.format(value)} (IQR {pattern.format(spread[0])}–{pattern.format(spread[1])})"


def per_call_us(seconds):
    return None if seconds is None else seconds / int(CALLS_PER_STEP) * 1e6


def row_of(result, label: str) -> Row:
    row = Row(
        label, env_label(result.params), result.date or 0, commit=result.commit_hash, env_params=dict(result.params)
    )
    row.cost = values(result, metrics.COST_TREE_AT).get((REPORT_DEPTH,))
    row.bytecodes = values(result, "bench_counts.BytecodeInstructions.track_tree_at").get((REPORT_DEPTH,))
    row.ratios = {w: v for (w,), v in values(result, RATIO_BENCHMARK).items()}
    compile_tree_at = values(result, "bench_trace.Compile.time_tree_at").get((CALLS_PER_STEP,))
    compile_tuple = values(result, "bench_trace.Compile.time_tuple").get((CALLS_PER_STEP,))
    if compile_tree_at is not None and compile_tuple is not None:
        row.compile_overhead_ms = (compile_tree_at - compile_tuple) * 1e3
        row.compile_iqr = spreads(result, "bench_trace.Compile.time_tree_at", 1e3).get((CALLS_PER_STEP,))
    row.seed_ratios = {w: v for (w,), v in values(result, SEED_BENCHMARK).items()}
    row.tree_map_passes = tuple(
        only(values(result, f"bench_overhead.EagerSurgeryInTreeMapPasses.track_{twin}"))
        for twin in ("tree_at", "tuple")
    )
    tree_at = values(result, EAGER_BENCHMARK)
    tuple_ = values(result, "bench_eager.EagerSurgery.time_tuple")
    calls_tree_at = values(result, "bench_counts.PythonCalls.track_tree_at")
    calls_tuple = values(result, "bench_counts.PythonCalls.track_tuple")
    for depth in DEPTHS:
        key = (depth, CALLS_PER_STEP)
        if key in tree_at:
            row.eager_us[depth] = (per_call_us(tree_at[key]), per_call_us(tuple_.get(key)))
            scale = 1e6 / int(CALLS_PER_STEP)
            row.eager_iqr[depth] = tuple(
                spreads(result, f"bench_eager.EagerSurgery.time_{twin}", scale).get(key)
                for twin in ("tree_at", "tuple")
            )
        if (depth,) in calls_tree_at:
            row.calls[depth] = (calls_tree_at[(depth,)], calls_tuple.get((depth,)))
    row.excess_equations = [
        v for v in values(result, "bench_counts.JaxprExcessEquations.track_excess_equations").values() if v is not None
    ]
    row.operations = operations.figures(result)
    intervals = {}
    for (benchmark, combo), value in entries(result).items():
        params = ", ".join(combo)
        name = metrics.entry(benchmark, params)
        if value is None:
            continue
        if metrics.kind(name) not in metrics.TIMING_KINDS:
            row.exact[benchmark, params] = value
            continue
        if benchmark not in intervals:
            intervals[benchmark] = confidence_intervals(result, benchmark)
        ci = intervals[benchmark].get(tuple(p.strip("'") for p in combo))
        row.timings[benchmark, params] = one_run_interval(name, value, ci)
    return row


def read_headline(path: Path) -> dict:
    """A scripts/headline record, checked before attach_fresh reads it."""
    return shapes.read_checked(path, "headline", "headline record")


def attach_fresh(rows: list[Row], record: dict) -> int:
    """Give the rows of a scripts/headline record's commit, in its environments, the record's timing figures
    (median and second-run interval, in the benchmark's unit); how many figures were attached.  A record
    from before the figures carried their interval (or with too few processes for one) attaches nothing."""
    attached = 0
    for env in record.get("environments", []):
        wanted = {part.strip() for part in env["environment"].split(",")}
        matching = [
            row
            for row in rows
            if row.commit == record.get("commit") and wanted <= {part.strip() for part in row.env.split(",")}
        ]
        for figure in env["figures"]:
            if figure["exact"] or figure.get("interval") is None or "scale" not in figure:
                continue
            scale = figure["scale"]
            found = Interval(figure["median"] / scale, *(v / scale for v in figure["interval"]), FRESH_PROCESSES)
            for row in matching:
                row.fresh[figure["benchmark"], figure["params"]] = (figure["label"], scale, found)
                attached += 1
    return attached


def fmt(value, pattern="{:.2f}"):
    return "n/a" if value is None else pattern.format(value)


def newest_first(result) -> tuple:
    """Sort key within one commit: the newest Python, then the newest JAX, first, so that reports lead with them."""

    def descending(version) -> tuple:
        try:
            return tuple(-part for part in Version(version or "0").release)
        except InvalidVersion:
            return ()

    return descending(result.params.get("python")), descending(result.params.get("jax"))


def load_rows(results: Path, repo: Path, machine: str | None = None, latest: bool = False) -> list[Row]:
    from asv import results as asv_results

    if not results.is_dir():
        raise BadInput(f"no results directory at {results}; run scripts/bench first")
    found = [r for r in asv_results.iter_results(str(results)) if machine is None or r.params.get("machine") == machine]
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


def markdown(row: Row) -> str:
    lines = [
        f"### {row.label} ({row.env})",
        "",
        "| how the step runs | tree_at / tuple time (the interval a second run's can be expected in) |",
        "|---|---|",
    ]
    lines += [f"| {w} | {timing_text(row, RATIO_BENCHMARK, repr(w))} |" for w in row.ratios]
    lines += [
        f"| eager surgery only | {timing_text(row, 'bench_overhead.EagerSurgeryRatio.track_overhead_ratio', '')} |",
        f"| tracing a fresh step | {timing_text(row, TRACING_BENCHMARK, '')} |",
    ]
    lines += [f"| seed scenario, {w} | {timing_text(row, SEED_BENCHMARK, repr(w))} |" for w in row.seed_ratios]
    lines += [
        "",
        "| depth | eager µs per tree_at call, median (IQR) | µs per tuple update, median (IQR) "
        "| overhead µs per call | Python calls per tree_at / per tuple update |",
        "|---|---|---|---|---|",
    ]
    for depth in DEPTHS:
        tree_at_us, tuple_us = row.eager_us.get(depth, (None, None))
        tree_at_iqr, tuple_iqr = row.eager_iqr.get(depth, (None, None))
        overhead = None if None in (tree_at_us, tuple_us) else tree_at_us - tuple_us
        calls = row.calls.get(depth, (None, None))
        lines.append(
            f"| {depth} | {with_spread(tree_at_us, tree_at_iqr, '{:.1f}')} "
            f"| {with_spread(tuple_us, tuple_iqr, '{:.2f}')} | "
            f"{fmt(overhead, '{:.1f}')} | {fmt(calls[0], '{:.0f}')} / {fmt(calls[1], '{:.0f}')} |"
        )
    lines += [
        "",
        "Absolute times are one run's, on one machine: they move by up to 2× between runs and commits "
        "of identical code (the IQR shows only the spread within the run); the tree_map-pass figure below "
        "is the steady one.",
        "",
        f"Compile overhead of a step with {CALLS_PER_STEP} updates: "
        f"{fmt(row.compile_overhead_ms, '{:+.1f}')} ms"
        + (
            ""
            if row.compile_iqr is None
            else f" (tree_at's compile time: IQR {row.compile_iqr[0]:.1f}–{row.compile_iqr[1]:.1f} ms)"
        )
        + ". "
        f"Identical jaxprs for the tree_at and tuple steps: {row.jaxprs_identical}.",
        "",
        f"In a unit that scales with the machine, one `jax.tree_util.tree_map` over the same depth-{REPORT_DEPTH} "
        f"tree, an eager update costs {timing_text(row, metrics.PASSES_TREE_AT, '', '{:.1f}')} passes with tree_at "
        f"and {timing_text(row, metrics.PASSES_TREE_AT.replace('track_tree_at', 'track_tuple'), '', '{:.3f}')} "
        "with a tuple.",
        "",
    ]
    return "\n".join(lines + operations_table(row))


def operations_table(row: Row) -> list[str]:
    """The Module's own operations beside the tuple, when this result measured them."""
    if not row.operations:
        return []
    lines = [
        f"What each Module operation costs over its tuple twin, on a state of depth {operations.DEPTH} "
        f"with {operations.FIELDS} array fields per node:",
        "",
        "| operation | cost, Module | cost, tuple | cost, Module ÷ tuple "
        "| tree_map passes, Module | tree_map passes, tuple |",
        "|---|---|---|---|---|---|",
    ]
    for label, (module_cost, tuple_cost, module_passes, tuple_passes) in row.operations.items():
        times = None if None in (module_cost, tuple_cost) or not tuple_cost else module_cost / tuple_cost
        lines.append(
            f"| {label} | {fmt(module_cost, '{:,.0f}')} | {fmt(tuple_cost, '{:,.0f}')} | {fmt(times, '{:.1f}')}× "
            f"| {fmt(module_passes, '{:.2f}')} | {fmt(tuple_passes, '{:.3f}')} |"
        )
    lines += [
        "",
        "The costs are exact (weighted instructions: identical code gives identical values, docs/cost-metric.md). "
        "The tree_map passes are one run's in-process ratios, for orientation: their spread between runs is "
        "not measured yet.",
        "",
    ]
    return lines


def history_table(rows: list[Row]) -> list[str]:
    """Every commit's figures in one table, each timing with the interval a second run's can be expected in
    (INTERVAL_NOTE)."""
    header = [
        "release",
        "environment",
        *WRAPPINGS,
        f"eager µs/call, depth {REPORT_DEPTH}",
        "tree_map passes/call",
        "tracing",
        "compile ms (one run)",
        "jaxprs identical",
    ]
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [
            row.label,
            row.env,
            *[timing_text(row, RATIO_BENCHMARK, repr(w), short=True) for w in WRAPPINGS],
            timing_text(
                row, EAGER_BENCHMARK, f"{REPORT_DEPTH}, {CALLS_PER_STEP}", "{:.1f}", 1e6 / int(CALLS_PER_STEP), True
            ),
            timing_text(row, metrics.PASSES_TREE_AT, "", "{:.1f}", short=True),
            timing_text(row, TRACING_BENCHMARK, "", short=True),
            fmt(row.compile_overhead_ms, "{:+.1f}"),
            row.jaxprs_identical,
        ]
        table.append("| " + " | ".join(cells) + " |")
    return table


# The plots' size: panels about 1,000 px wide and 260 px tall at PLOT_DPI, text at 8 pt or more, so that
# they stay readable in the page's 1,200 px column; the browser test checks the rendered size.
PLOT_DPI = 100
PANEL_INCHES = (10.0, 2.6)
INCHES_PER_LABEL = 0.4  # wider panels for long histories, so that the release labels do not overlap
MIN_PANEL_PX = (800, 180)  # the smallest rendered panel the browser test accepts


@dataclass(frozen=True)
class Plot:
    """A PNG of the page and how many panels it stacks (one per environment)."""

    name: str
    panels: int
    timing_series: int = 0  # the timing series drawn (interval_counts), for the browser test to check
    with_interval: int = 0  # of them, those drawn with their interval


def interval_counts(axes) -> tuple[int, int]:
    """(series in the legends of ``axes``, those of them drawn as error bars): read from the figure itself."""
    from matplotlib.container import ErrorbarContainer

    handles = [handle for ax in axes for handle in ax.get_legend_handles_labels()[0]]
    return len(handles), sum(isinstance(h, ErrorbarContainer) and h.has_yerr for h in handles)


def panel_width(labels: list) -> float:
    return max(PANEL_INCHES[0], len(labels) * INCHES_PER_LABEL)


def legend_outside(ax) -> None:
    """The legend right of the panel, never over the data."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def finish_panel(ax, title: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=9, loc="left")
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(alpha=0.3)
    legend_outside(ax)


def save_panels(fig, axes, labels: list, path: Path, timing: bool = False) -> Plot:
    """The stacked panels, the commits named under the last, as a PNG; the plot (its timing series counted)."""
    import matplotlib.pyplot as plt

    axes[-1, 0].set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=8)
    axes[-1, 0].set_xlim(-0.5, len(labels) - 0.5)  # room for scripts/headline's figure beside the run's
    fig.tight_layout()
    fig.savefig(path, dpi=PLOT_DPI, bbox_inches="tight")
    plt.close(fig)
    return Plot(path.name, len(axes), *(interval_counts(axes[:, 0]) if timing else ()))


@dataclass(frozen=True)
class Series:
    """One timing figure across the commits: a line of a plot, with its interval at every point."""

    label: str
    benchmark: str
    params: str  # as asv names them: "'jit'", "4, 8", "" without params
    scale: float = 1.0  # from the benchmark's unit to the plot's

    def at(self, row: Row, fresh: bool = False) -> Interval | None:
        key = self.benchmark, self.params
        found = (row.fresh[key][2] if key in row.fresh else None) if fresh else row.timings.get(key)
        return None if found is None else found.scaled(self.scale)


RATIO_PLOTS = ("ratios.png", "tracing.png")  # ratios of twins: a log axis from 1, where there is no overhead
TIMING_PLOTS = {
    "ratios.png": (
        "tree_at / tuple time (log)",
        [Series(w, RATIO_BENCHMARK, f"'{w}'") for w in WRAPPINGS],
    ),
    "eager-per-call.png": (
        "eager µs per tree_at call (log)",
        [
            Series(
                f"depth {d}",
                EAGER_BENCHMARK,
                f"{d}, {CALLS_PER_STEP}",
                1e6 / int(CALLS_PER_STEP),
            )
            for d in DEPTHS
        ],
    ),
    "tracing.png": (
        "tracing: tree_at / tuple time (log)",
        [Series("tracing ratio", TRACING_BENCHMARK, "")],
    ),
}
FRESH_OFFSET = 0.2  # scripts/headline's figure beside the asv run's at the same commit


def draw_intervals(ax, points: list[tuple[float, Interval]], label: str, **style):
    """Points with their intervals as error bars (asv's single samples hollow), labelled with their source;
    the errorbar container."""
    xs = [x for x, _ in points]
    values = [i.value for _, i in points]
    single = all(i.source == SINGLE_SAMPLE for _, i in points)
    sources = " / ".join(dict.fromkeys(i.source for _, i in points))
    return ax.errorbar(
        xs,
        values,
        yerr=[[i.value - i.low for _, i in points], [i.high - i.value for _, i in points]],
        capsize=3,
        markersize=4,
        linewidth=0.8,
        elinewidth=1.2,
        label=f"{label} ({sources})",
        **({"mfc": "none"} if single else {}),
        **style,
    )


def log_axis(ax) -> None:
    """A log scale whose ticks read as plain numbers (2, 5, 10), not powers of ten; matplotlib's LogFormatter
    thins the minor labels where the axis spans decades."""
    from matplotlib.ticker import LogFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(LogFormatter())
    ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False))


def plot(rows: list[Row], out: Path) -> list[Plot]:
    """PNG plots across releases: one panel per environment, one series per figure, each point with its
    interval (INTERVAL_NOTE), scripts/headline's beside the run's where attached; a log axis, from 1 for the
    ratios of twins, so that a change within the intervals never fills a panel; the legend outside; a plot
    with nothing measured is left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = sorted({row.env for row in rows})
    labels = list(dict.fromkeys(row.label for row in rows))
    position = {label: i for i, label in enumerate(labels)}
    written = []
    for name, (ylabel, series) in TIMING_PLOTS.items():
        drawn = {
            (env, s): [(position[r.label], s.at(r)) for r in rows if r.env == env and s.at(r) is not None]
            for env in envs
            for s in series
        }
        fresh = {
            (env, s): [
                (position[r.label] + FRESH_OFFSET, s.at(r, fresh=True))
                for r in rows
                if r.env == env and s.at(r, fresh=True) is not None
            ]
            for env in envs
            for s in series
        }
        shown = [env for env in envs if any(drawn[env, s] or fresh[env, s] for s in series)]
        if not shown:
            continue  # nothing measured: no empty plot, nor an empty panel
        fig, axes = plt.subplots(
            len(shown), 1, figsize=(panel_width(labels), PANEL_INCHES[1] * len(shown)), sharex=True, squeeze=False
        )
        for ax, env in zip(axes[:, 0], shown, strict=True):
            for number, s in enumerate(series):  # one colour per series: the run's dots, the headline's diamonds
                if drawn[env, s]:
                    draw_intervals(ax, drawn[env, s], s.label, marker="o", color=f"C{number}")
                if fresh[env, s]:
                    draw_intervals(ax, fresh[env, s], s.label, marker="D", color=f"C{number}", linestyle="none")
            log_axis(ax)
            if name in RATIO_PLOTS:
                lowest = min((i.low for points in (drawn, fresh) for (e, _), p in points.items() if e == env
                              for _, i in p), default=1.0)  # fmt: skip
                ax.set_ylim(bottom=min(1.0, lowest / 1.1))
            finish_panel(ax, env, ylabel)
        written.append(save_panels(fig, axes, labels, out / name, timing=True))
    return written


def plot_operations(rows: list[Row], out: Path, name: str = "operations.png") -> list[Plot]:
    """Each operation's exact cost across the commits, one panel per operation, one line per environment, each
    step above the floor marked with its commit; nothing when no operation was measured at two commits."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = operation_history.operation_steps(rows)
    series = operation_history.cost_series()
    drawn = [op for op in found if len({row.commit for row in rows if series[op](row) is not None}) > 1]
    if not drawn:
        return []
    labels = list(dict.fromkeys(row.label for row in rows))
    position = {label: i for i, label in enumerate(labels)}
    fig, axes = plt.subplots(
        len(drawn), 1, figsize=(panel_width(labels), PANEL_INCHES[1] * len(drawn)), sharex=True, squeeze=False
    )
    for ax, operation in zip(axes[:, 0], drawn, strict=True):
        value = series[operation]
        for env in dict.fromkeys(row.env for row in rows):
            points = [(position[r.label], value(r)) for r in rows if r.env == env and value(r) is not None]
            ax.plot(*zip(*points, strict=True), marker="o", markersize=3, label=env)
        # One mark per commit: every environment that has the step has it there.
        for step in {step.after.label: step for step in found[operation]}.values():
            x = position[step.after.label] - 0.5
            colour = "tab:red" if step.relative > 0 else "tab:green"
            ax.axvline(x, color=colour, alpha=0.5)
            ax.text(x + 0.1, 0.95, f"{step.after.label} {step.relative:+.0%}", transform=ax.get_xaxis_transform(),
                    va="top", fontsize=8, color=colour)  # fmt: skip
        finish_panel(ax, operation.replace("`", ""), "weighted instructions")
    return [save_panels(fig, axes, labels, out / name)]


# ---- the history: the steps of tree_at's cost, with their time and their cause


@dataclass
class HistoryStep:
    """A step of tree_at's cost between two adjacent releases, with the time and counts on both sides."""

    env: str
    before: Row  # the last release at the old level
    after: Row  # the first release at the new level
    cost: tuple  # the levels of the cost (exact)
    passes: tuple  # the median time of one update, in tree_map passes, over each level's releases
    explanation: "explain.Explanation | None" = None
    not_profiled: str = ""  # why there is no explanation
    measured: "pairs.Interval | None" = None  # the time change, measured side by side (investigate)

    @property
    def relative(self) -> float:
        return self.cost[1] / self.cost[0] - 1

    def sentence(self) -> str:
        slower = self.relative > 0
        passes = ""
        if self.measured is not None:
            found = self.measured
            passes = (
                f"; its time, measured side by side in {found.pairs} pairs of fresh processes, "
                f"{found.estimate:+.1%} ({found.low:+.1%} to {found.high:+.1%}, {found.confidence:.1%} interval)"
            )
            if (found.high < 0) if slower else (found.low > 0):
                passes += " (the time contradicts the exact cost: the cost counts no work done in C)"
        elif None not in self.passes:
            passes = (
                f"; its time {self.passes[0]:.1f} → {self.passes[1]:.1f} tree_map passes "
                f"({self.passes[1] / self.passes[0] - 1:+.0%})"
            )
            if (self.passes[1] > self.passes[0]) != slower:
                # Either can be wrong: the cost does not see work done in C (a builtin's calls), and these
                # times are single samples of one run each, never measured side by side.
                passes += (
                    " (the timing disagrees with the exact cost: the cost counts no work done in C, and these "
                    "times are one run's samples, not measured side by side; which is right is not known)"
                )
        counts = ""
        calls = (self.before.calls.get(REPORT_DEPTH, (None,))[0], self.after.calls.get(REPORT_DEPTH, (None,))[0])
        if None not in calls and None not in (self.before.bytecodes, self.after.bytecodes):
            counts = (
                f" (calls {calls[0]:,.0f} → {calls[1]:,.0f}, bytecodes {self.before.bytecodes:,.0f} → "
                f"{self.after.bytecodes:,.0f})"
            )
        cause = (
            f" Cause: {self.explanation.sentence()}."
            if self.explanation and self.explanation.rows
            else f" Cause: {self.not_profiled}."
            if self.not_profiled
            else ""
        )
        return (
            f"{self.after.label} made tree_at {'slower' if slower else 'faster'}: its cost per update went "
            f"{self.cost[0]:,.0f} → {self.cost[1]:,.0f} weighted instructions ({self.relative:+.1%}){counts}"
            f"{passes}.{cause}"
        )


def history(rows: list[Row]) -> dict[str, list[HistoryStep]]:
    """{environment: the steps of tree_at's cost above its floor}, from asv's step detection over the releases."""
    found = {}
    for env in dict.fromkeys(row.env for row in rows):
        series = [row for row in rows if row.env == env and row.cost is not None]
        pieces = steps.pieces([(i, row.cost) for i, row in enumerate(series)])
        level_rows = {(p.left, p.right): series[p.left : p.right] for p in pieces}
        found[env] = []
        for before, after in itertools.pairwise(pieces):
            if abs(after.level / before.level - 1) <= metrics.COST_FLOOR:
                continue
            medians = tuple(
                statistics.median(passes) if passes else None
                for passes in (
                    [r.tree_map_passes[0] for r in level_rows[(p.left, p.right)] if r.tree_map_passes[0] is not None]
                    for p in (before, after)
                )
            )
            found[env].append(
                HistoryStep(env, series[before.right - 1], series[after.left], (before.level, after.level), medians)
            )
    return found


def investigate(
    rows: list[Row],
    found: dict[str, list[HistoryStep]],
    config: Path | None,
    profile: bool = False,
    confirm_pairs: int | None = None,
    step_times: Path | None = None,
) -> dict:
    """Every operation's steps (operation_history), each with its cause from the profiles (made now with
    ``profile``, else those cached beside ``config``) and its time measured side by side (kept in
    ``step_times``, by default beside ``config``; with ``confirm_pairs``, measured now where not kept);
    tree_at's history steps take theirs
    from its operation's, so that nothing is measured twice."""
    by_operation = operation_history.operation_steps(rows)
    operation_history.explain_steps(by_operation, config, profile)
    if config is not None or step_times is not None:  # the times measured before, with confirm_pairs the others
        operation_history.confirm_steps(by_operation, config, confirm_pairs, step_times)
    investigated = {
        (step.env, step.before.commit, step.after.commit): step
        for step in by_operation.get(operation_history.TREE_AT, [])
    }
    for step in itertools.chain(*found.values()):
        same = investigated.get((step.env, step.before.commit, step.after.commit))
        if same is not None:
            step.explanation, step.not_profiled, step.measured = same.explanation, same.not_profiled, same.measured
    return by_operation


def history_markdown(found: dict[str, list[HistoryStep]]) -> str:
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
        lines += [f"- {step.sentence()}" for step in found_steps]
        lines.append("")
    return "\n".join(lines)


def plot_history(rows: list[Row], found: dict[str, list[HistoryStep]], out: Path) -> list[Plot]:
    """tree_at's work (cost) and time (tree_map passes) across releases, steps marked; one PNG per environment."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for number, (env, found_steps) in enumerate(found.items()):
        series = [row for row in rows if row.env == env]
        if not any(row.cost is not None for row in series):
            continue
        labels = [row.label for row in series]
        fig, cost_axis = plt.subplots(figsize=(panel_width(labels), PANEL_INCHES[1] * 1.5))
        xs = range(len(series))
        cost_axis.plot(
            [x for x, r in zip(xs, series, strict=True) if r.cost is not None],
            [r.cost for r in series if r.cost is not None],
            marker="o",
            color="tab:blue",
            label="work: cost per update (weighted instructions)",
        )
        cost_axis.set_ylabel("weighted instructions per update", color="tab:blue")
        time_axis = cost_axis.twinx()
        passes = Series("time: tree_map passes per update", metrics.PASSES_TREE_AT, "")
        timed = [(x, passes.at(r)) for x, r in zip(xs, series, strict=True) if passes.at(r) is not None]
        if timed:
            draw_intervals(time_axis, timed, passes.label, marker="s", color="tab:orange", linestyle="--")
        fresh = [(x + FRESH_OFFSET, passes.at(r, True)) for x, r in zip(xs, series, strict=True) if passes.at(r, True)]
        if fresh:
            draw_intervals(time_axis, fresh, passes.label, marker="D", color="tab:orange", linestyle="none")
        time_axis.set_ylabel("tree_map passes per update", color="tab:orange")
        # One scale for both: time = s x cost, s the median ratio, so that the lines meet where the cost tells
        # the time; the limits hold every interval, so that a change within them never fills the panel.
        both = [(r.cost, passes.at(r).value) for r in series if r.cost and passes.at(r)]
        if both:
            scale = statistics.median(time / cost for cost, time in both)
            ends = [r.cost for r in series if r.cost]
            ends += [end / scale for _, i in timed + fresh for end in (i.low, i.high)]
            low, high = min(ends), max(ends)
            margin = (high - low) * 0.08 or high * 0.05
            cost_axis.set_ylim(low - margin, high + margin)
            time_axis.set_ylim((low - margin) * scale, (high + margin) * scale)
        for step in found_steps:
            x = labels.index(step.after.label) - 0.5
            colour = "tab:red" if step.relative > 0 else "tab:green"
            cost_axis.axvline(x, color=colour, alpha=0.5)
            cost_axis.text(
                x + 0.1,
                0.97,
                f"{step.after.label}\n{step.relative:+.0%}",
                transform=cost_axis.get_xaxis_transform(),
                va="top",
                fontsize=8,
                color=colour,
            )
        cost_axis.set_xticks(list(xs), labels, rotation=60, ha="right", fontsize=8)
        cost_axis.set_xlim(-0.5, len(labels) - 0.5)
        cost_axis.set_title(f"tree_at at depth {REPORT_DEPTH}, {env}", fontsize=9)
        cost_axis.grid(alpha=0.3)
        handles = cost_axis.get_legend_handles_labels()[0] + time_axis.get_legend_handles_labels()[0]
        # Below the panel: the right of it holds the time axis.
        fig.legend(
            handles,
            [h.get_label() for h in handles],
            fontsize=8,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=2,
            frameon=False,
        )
        fig.tight_layout()
        name = f"history-{number + 1}.png"
        fig.savefig(out / name, dpi=PLOT_DPI, bbox_inches="tight")
        plt.close(fig)
        written.append(Plot(name, 1, *interval_counts([time_axis])))
    return written


# ---- Markdown into HTML, for the page


def html_page(
    rows: list[Row], site: Path, found: dict[str, list[HistoryStep]] | None = None, by_operation: dict | None = None
) -> Path:
    index = site / "index.html"
    if not index.is_file():
        raise BadInput(f"no asv site at {site}; run asv publish (scripts/bench) first")
    out = site / "overhead"
    out.mkdir(exist_ok=True)
    found = history(rows) if found is None else found
    by_operation = operation_history.operation_steps(rows) if by_operation is None else by_operation
    images = plot(rows, out)
    history_images = plot_history(rows, found, out)
    latest = latest_rows(rows)
    parts = [
        "<!doctype html><meta charset='utf-8'><title>tree_at overhead</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
        "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #ccc;padding:3px 8px}"
        "li{margin:0.4em 0}summary{cursor:pointer;margin:0.4em 0}</style>",
        "<p><a href='../index.html'>← benchmarks</a></p>",
        "<h1>What does eqx.tree_at cost over a tuple?</h1>",
        f"<p>{html.escape(summary_sentence(latest[0]))}</p>",
        "<h2 id='exact'>Exact metrics: the same on every run</h2>",
        "<p>Counts that identical code repeats exactly, so that any difference between two commits is a real "
        f"change, with no noise to allow for: the newest commit ({html.escape(latest[0].label)}) in each "
        "environment, tree_at's and each Module operation's cost first, then every exact figure by its kind "
        "(benchmarks/metrics.py), and where it changed over the commits shown (a kind with a change is "
        "open).</p>",
        markdown_html(summary_markdown(rows)),
    ]
    for kind, lines in exact_tables(rows).items():
        changed = sum(1 for line in lines[2:] if not line.endswith("| — |"))
        opened = " open" if changed else ""
        parts.append(
            f"<details{opened} data-kind='{html.escape(kind)}'><summary>{html.escape(kind)}: {len(lines) - 2} "
            f"figures, {changed} changed over the commits shown</summary>{table_html(lines)}</details>"
        )
    parts.append("<h2 id='timings'>Timings, each with its interval</h2>")
    if any(row.fresh for row in rows):
        parts.append(markdown_html("\n".join(fresh_table(latest))))
    parts.append(f"<p>{html.escape(INTERVAL_NOTE)}</p>")
    parts += [image_html(image) for image in images]
    parts.append("<h2 id='history'>History: what made tree_at slower or faster</h2>")
    parts.append(
        "<p>The work of one eager tree_at update at depth "
        f"{REPORT_DEPTH} (bench_counts.PythonCost: bytecode instructions + {metrics.CALL_WEIGHT} × Python "
        "calls, exact) and its measured time (in tree_map passes), release by release; each step of the "
        "work is marked, and explained below by the functions whose calls per update changed.</p>"
    )
    parts += [image_html(image) for image in history_images]
    parts.append(markdown_html(history_markdown(found)))
    for step in itertools.chain(*found.values()):
        if step.explanation is not None:
            parts.append(
                f"<h4>{html.escape(step.before.label)} → {html.escape(step.after.label)} "
                f"({html.escape(step.env)}): the functions whose calls changed</h4>"
            )
            parts.append(markdown_html("\n".join(step.explanation.markdown())))
    parts += [image_html(image) for image in plot_operations(rows, out)]
    parts.append(markdown_html(operations_history_markdown(rows, by_operation)))
    parts.append("<h2>Per release</h2>")
    parts.append(table_html(history_table(rows)))
    for row in latest:
        parts.append(f"<h2>{html.escape(row.label)} in detail ({html.escape(row.env)})</h2>")
        parts.append(markdown_html("\n".join(markdown(row).splitlines()[1:])))
    (out / "index.html").write_text("\n".join(parts), encoding="utf-8")
    link_from_site(index)
    return out / "index.html"


def exact_value(value) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def exact_tables(rows: list[Row]) -> dict[str, list[str]]:
    """{kind: a Markdown table} of every exact figure of the newest commit, one column per environment, and
    where each changed over the rows' commits; the kinds in benchmarks/metrics.py's order, timings left out."""
    latest = latest_rows(rows)
    envs = [row.env for row in latest]
    kinds = [kind for kind in metrics.KINDS if kind not in metrics.TIMING_KINDS]
    tables = {}
    for key in sorted({key for row in latest for key in row.exact}):
        kind = metrics.kind(metrics.entry(*key))
        if kind not in tables:
            tables[kind] = [
                "| benchmark | params | " + " | ".join(envs) + " | changed over the commits shown |",
                "|---" * (len(envs) + 3) + "|",
            ]
        changes = []
        for env in envs:
            series = [(row.label, row.exact[key]) for row in rows if row.env == env and key in row.exact]
            changes += [
                f"{label} ({env}): {exact_value(before)} → {exact_value(after)}"
                for (_, before), (label, after) in itertools.pairwise(series)
                if after != before
            ]
        cells = [exact_value(row.exact[key]) if key in row.exact else "n/a" for row in latest]
        tables[kind].append(
            f"| `{key[0]}` | {key[1] or '—'} | " + " | ".join(cells) + f" | {'; '.join(changes) or '—'} |"
        )
    return {kind: tables[kind] for kind in sorted(tables, key=lambda k: kinds.index(k) if k in kinds else len(kinds))}


def fresh_table(latest: list[Row]) -> list[str]:
    """The newest commit's figures over fresh processes (scripts/headline), with the asv run's beside them."""
    lines = [
        "| environment | figure | fresh processes: median (interval for a second run's) | this run |",
        "|---|---|---|---|",
    ]
    for row in latest:
        for key, (label, scale, found) in row.fresh.items():
            run = row.timings.get(key)
            lines.append(
                f"| {row.env} | {label} | {found.scaled(scale).short('{:.4g}')} "
                f"| {run.scaled(scale).text('{:.4g}') if run else 'not run'} |"
            )
    return lines


def image_html(image: Plot) -> str:
    return (
        f"<p><img src='{image.name}' alt='{image.name}' data-panels='{image.panels}' "
        f"data-timing-series='{image.timing_series}' data-with-interval='{image.with_interval}' "
        "style='max-width:100%'></p>"
    )


def link_from_site(index: Path) -> None:
    text = index.read_text(encoding="utf-8")
    if NAV_LINK in text:
        return
    if NAV_ANCHOR not in text:
        raise BadInput(
            f"{index} has no Regressions link to put the overhead link beside; has asv's page layout changed?"
        )
    index.write_text(text.replace(NAV_ANCHOR, NAV_ANCHOR + "\n\t" + NAV_LINK), encoding="utf-8")


def timing_text(
    row: Row, benchmark: str, params: str, pattern: str = "{:.2f}", scale: float = 1.0, short: bool = False
) -> str:
    """A timing figure with its interval: scripts/headline's where attached, else the asv run's; or n/a."""
    series = Series("", benchmark, params, scale)
    found = series.at(row, fresh=True) or series.at(row)
    if found is None:
        return "n/a"
    return found.short(pattern) if short else found.text(pattern)


def summary_sentence(row: Row) -> str:
    """The newest figures in one sentence: the exact cost first, then each timing with its interval."""
    eager = row.eager_us.get(REPORT_DEPTH, (None, None))
    per_call = 1e6 / int(CALLS_PER_STEP)
    eager_params = f"{REPORT_DEPTH}, {CALLS_PER_STEP}"
    ratios = ", ".join(
        f"{what} at {timing_text(row, RATIO_BENCHMARK, repr(wrapping))}×"
        for what, wrapping in (("a jitted step runs", "jit"), ("a scan", "scan"), ("jit around the scan", "jit_scan"))
    )
    return (
        f"{row.label} with {row.env}: one eager tree_at update at depth {REPORT_DEPTH} does "
        f"{fmt(row.cost, '{:,.0f}')} weighted instructions of Python work (exact), and takes "
        f"{timing_text(row, metrics.PASSES_TREE_AT, '', '{:.1f}')} tree_map passes, the steady unit of time; "
        f"an eager tree_at call takes {timing_text(row, EAGER_BENCHMARK, eager_params, '{:.0f}', per_call)} "
        f"µs against {fmt(eager[1], '{:.1f}')} µs for a tuple update. Against the tuple version's time, {ratios}; "
        f"tracing takes {timing_text(row, TRACING_BENCHMARK, '')}× as long. "
        f"Identical jaxprs: {row.jaxprs_identical}."
    )


def latest_rows(rows: list[Row]) -> list[Row]:
    """The rows of the newest commit, one per environment."""
    return [row for row in rows if row.label == rows[-1].label]


def summary_markdown(rows: list[Row]) -> str:
    """One small table of the newest commit's exact costs: tree_at's, then each Module operation's over its
    tuple twin's.  Its timings are one run's, so they are left to the headline (scripts/headline), which
    measures each over fresh processes with the interval a second run lies in."""
    lines = [
        f"| environment | Python work of one tree_at update, depth {REPORT_DEPTH} (exact, weighted instructions) |",
        "|---|---|",
    ]
    for row in latest_rows(rows):
        lines.append(f"| {row.label}, {row.env} | {fmt(row.cost, '{:,.0f}')} |")
    return "\n".join(lines + summary_operations(latest_rows(rows)))


def answer_markdown(rows: list[Row]) -> str:
    """The first answer (scripts/bench): the newest commit's exact costs (summary_markdown), then tree_at's
    steady time in each environment, with its interval."""
    lines = [
        summary_markdown(rows),
        "",
        f"| environment | one tree_at update at depth {REPORT_DEPTH}, in tree_map passes (steady) |",
        "|---|---|",
    ]
    for row in latest_rows(rows):
        lines.append(f"| {row.label}, {row.env} | {timing_text(row, metrics.PASSES_TREE_AT, '', '{:.2f}')} |")
    return "\n".join(lines)


def summary_operations(latest: list[Row]) -> list[str]:
    """The Module's operations at the newest commit: each one's exact cost over its tuple twin's, per environment."""
    measured = [row for row in latest if row.operations]
    if not measured:
        return []
    lines = [
        "",
        f"| Module operation, depth {operations.DEPTH}, {operations.FIELDS} fields: exact cost (× the tuple's) "
        + "".join(f"| {row.env} " for row in measured)
        + "|",
        "|---" * (len(measured) + 1) + "|",
    ]
    for op in operations.OPERATIONS:
        cells = []
        for row in measured:
            module_cost, tuple_cost, *_ = row.operations.get(op.label, (None, None))
            ratio = module_cost / tuple_cost if module_cost and tuple_cost else None
            cells.append(f"{fmt(module_cost, '{:,.0f}')} ({fmt(ratio, '{:.0f}')}×)")
        lines.append(f"| {op.label} | " + " | ".join(cells) + " |")
    return lines


def full_markdown(rows: list[Row], found: dict[str, list[HistoryStep]], by_operation: dict | None = None) -> str:
    """Every figure of the newest commit per environment, and the histories of the environments with one."""
    told = {env: s for env, s in found.items() if sum(row.env == env for row in rows) > 1}
    histories = [history_markdown(told), operations_history_markdown(rows, by_operation)] if told else []
    return "\n".join([*(markdown(row) for row in latest_rows(rows)), *histories])


def operations_history_markdown(rows: list[Row], by_operation: dict | None = None) -> str:
    """Every step of each operation's cost (its commit, pull request, time and cause), then what each
    Module-speed pull request did to each operation: HISTORY_BLOCK."""
    with_history = [row for row in rows if sum(other.env == row.env for other in rows) > 1]
    if by_operation is None:
        by_operation = operation_history.operation_steps(with_history)
    pulls = operation_history.pull_request_effects(with_history)
    return "\n".join(
        [
            operation_history.markdown(by_operation, project_url()),
            operation_history.pull_requests_markdown(pulls, project_url(), by_operation),
        ]
    )


def project_url() -> str:
    """Upstream's page, as asv.conf.json names it (its pull requests are under /pull/N)."""
    return util.load_asv_config(ROOT / "asv.conf.json")["project_url"]


def update_markdown(
    path: Path,
    rows: list[Row],
    found: dict[str, list[HistoryStep]] | None = None,
    by_operation: dict | None = None,
    results: Path | None = None,
) -> list[str]:
    """Rewrite each generated block that PATH holds (FULL_BLOCK; SUMMARY_BLOCK unless the rows are a history of
    commits that ends after the newest release; where the rows have a history, HISTORY_BLOCK,
    HISTORY_SUMMARY_BLOCK and, with ``results``, the folder they came from, BUILD_TIME_BLOCK); the blocks
    rewritten."""
    found = history(rows) if found is None else found
    blocks = {FULL_BLOCK: lambda: full_markdown(rows, found, by_operation)}
    has_history = any(sum(other.env == row.env for other in rows) > 1 for row in rows)
    # The README takes its summary and its history from two results folders: the summary is the newest
    # release's, which the commit-level history (ending at main's newest commit) leaves as it is, and
    # results without a history (one commit, as the summary comes from) leave the history's blocks.
    if not has_history or all(row.release for row in latest_rows(rows)):
        blocks[SUMMARY_BLOCK] = lambda: summary_markdown(rows)
    if has_history:
        blocks[HISTORY_BLOCK] = lambda: operations_history_markdown(rows, by_operation)
        blocks[HISTORY_SUMMARY_BLOCK] = lambda: operation_history.summary_markdown(
            operation_history.operation_steps(rows) if by_operation is None else by_operation, project_url()
        )
        if results is not None:
            blocks[BUILD_TIME_BLOCK] = lambda: build_time_markdown(results, rows)
    return generated.write_blocks(path, blocks)


def build_time_markdown(results: Path, rows: list[Row]) -> str:
    """What building these rows' results took (BUILD_TIME_BLOCK)."""
    commits = {row.commit for row in rows}
    found = operation_history.build_time([span for span in result_spans(results) if span[0] in commits])
    return operation_history.build_time_markdown(found, f"the results of {len(commits)} commits")


def write_page(
    results: Path,
    site: Path,
    machine: str | None,
    repo: Path,
    config: Path | None = None,
    headline: Path | None = None,
) -> Path:
    """The report's page and plots, into SITE/overhead/, linked from the asv site in SITE.

    With ``config``, the history's causes come from the profiles cached beside it (none are made here); with
    ``headline``, a scripts/headline record, its figures over fresh processes are shown beside the run's.
    """
    rows = load_rows(results, repo, machine)
    if headline is not None:
        attach_fresh(rows, read_headline(headline))
    found = history(rows)
    by_operation = investigate(rows, found, config)
    written = html_page(rows, site, found, by_operation)
    print(f"wrote {written}")
    return written
