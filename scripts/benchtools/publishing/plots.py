"""The overhead report's PNG plots (matplotlib): the timings across commits, each point with its interval;
tree_at's cost and time across releases, its steps marked; each Module operation's cost."""

import statistics
from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics

from . import operation_history
from .rows import (
    CALLS_PER_STEP,
    DEPTHS,
    EAGER_BENCHMARK,
    RATIO_BENCHMARK,
    REPORT_DEPTH,
    SINGLE_SAMPLE,
    TRACING_BENCHMARK,
    WRAPPINGS,
    CommitFigures,
    HistoryStep,
    Interval,
    Series,
)

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


def pyplot():
    """matplotlib's pyplot, drawing to files only (imported when a plot is drawn: it takes a second)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def mark_step(ax, x: float, step, y: float, separator: str) -> None:
    """A step's commit and size at ``x``: red where it made the operation slower, green where faster."""
    colour = "tab:red" if step.relative > 0 else "tab:green"
    ax.axvline(x, color=colour, alpha=0.5)
    ax.text(x + 0.1, y, f"{step.after.label}{separator}{step.relative:+.0%}", transform=ax.get_xaxis_transform(),
            va="top", fontsize=8, color=colour)  # fmt: skip


def plot(rows: list[CommitFigures], out: Path) -> list[Plot]:
    """PNG plots across releases: one panel per environment, one series per figure, each point with its
    interval (INTERVAL_NOTE), scripts/headline's beside the run's where attached; a log axis, from 1 for the
    ratios of twins, so that a change within the intervals never fills a panel; the legend outside; a plot
    with nothing measured is left out."""
    plt = pyplot()
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


def plot_operations(rows: list[CommitFigures], out: Path, name: str = "operations.png") -> list[Plot]:
    """Each operation's exact cost across the commits, one panel per operation, one line per environment, each
    step above the floor marked with its commit; nothing when no operation was measured at two commits."""
    plt = pyplot()
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
            mark_step(ax, position[step.after.label] - 0.5, step, 0.95, " ")
        finish_panel(ax, operation.replace("`", ""), "weighted instructions")
    return [save_panels(fig, axes, labels, out / name)]


def plot_history(rows: list[CommitFigures], found: dict[str, list[HistoryStep]], out: Path) -> list[Plot]:
    """tree_at's work (cost) and time (tree_map passes) across releases, steps marked; one PNG per environment."""
    plt = pyplot()
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
            mark_step(cost_axis, labels.index(step.after.label) - 0.5, step, 0.97, "\n")
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
