"""The overhead report's PNG plots (matplotlib), each timing drawn with its interval."""

import statistics
from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics, params

from . import blocks, operation_history
from . import rows as report_rows
from .rows import WRAPPINGS, CommitFigures, Series, answer_figure

# Panels about 1,000 by 260 px, text at 8 pt or more: readable in the page's 1,200 px column.
PLOT_DPI = 100
PANEL_INCHES = (10.0, 2.6)
INCHES_PER_LABEL = 0.4  # so that the release labels do not overlap
MIN_PANEL_PX = (800, 180)  # the smallest rendered panel the browser test accepts
RATIO_PLOTS = ("ratios.png", "tracing.png")  # ratios of twins: a log axis from 1, where there is no overhead
TIMING_PLOTS = {
    "ratios.png": (
        "the answer's × (tree_at ÷ tuple, log)",
        [Series(w, report_rows.RATIO_BENCHMARK, repr(w)) for w in WRAPPINGS],
    ),
    "tracing.png": (
        "tracing: tree_at / tuple time (log)",
        [Series("tracing ratio", report_rows.TRACING_BENCHMARK, "")],
    ),
}
ERROR_BARS = {"capsize": 3, "markersize": 4, "linewidth": 0.8, "elinewidth": 1.2}


@dataclass(frozen=True)
class Plot:
    name: str
    panels: int  # one per environment, or per operation
    timing_series: int = 0  # for the browser test to check
    with_interval: int = 0


def panels(count: int, labels: list, height: float = PANEL_INCHES[1]):
    """``count`` stacked panels, wide enough for ``labels``; matplotlib, imported here, takes a second."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = max(PANEL_INCHES[0], len(labels) * INCHES_PER_LABEL)
    return plt.subplots(count, 1, figsize=(width, height * count), sharex=True, squeeze=False)


def finish_panel(ax, title: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=9, loc="left")
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:  # right of the panel, never over the data
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def save(fig, axes, labels: list, path: Path, counted=(), ticks: bool = True) -> Plot:
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer

    if ticks:
        axes[-1, 0].set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=8)
        axes[-1, 0].set_xlim(-0.5, len(labels) - 0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=PLOT_DPI, bbox_inches="tight")
    plt.close(fig)
    handles = [handle for ax in counted for handle in ax.get_legend_handles_labels()[0]]
    with_interval = sum(isinstance(h, ErrorbarContainer) and h.has_yerr for h in handles)
    return Plot(path.name, len(axes), len(handles), with_interval)


def points(series: Series, rows: list[CommitFigures], xs) -> list:
    return [(x, found) for x, r in zip(xs, rows, strict=True) if (found := series.at(r))]


def draw_series(ax, label: str, drawn: list, **style) -> None:
    """The points with their intervals as error bars, asv's single samples hollow."""
    if not drawn:
        return
    xs, found = zip(*drawn, strict=True)
    yerr = [[i.value - i.low for i in found], [i.high - i.value for i in found]]
    hollow = {"mfc": "none"} if all(i.source == report_rows.SINGLE_SAMPLE for i in found) else {}
    label_with_source = f"{label} ({' / '.join(dict.fromkeys(i.source for i in found))})"
    ax.errorbar(xs, [i.value for i in found], yerr=yerr, label=label_with_source, **ERROR_BARS, **hollow, **style)


def mark_step(ax, x: float, step, y: float, separator: str) -> None:
    colour = "tab:red" if step.relative > 0 else "tab:green"
    ax.axvline(x, color=colour, alpha=0.5)
    ax.text(x + 0.1, y, f"{step.after.label}{separator}{step.relative:+.0%}", transform=ax.get_xaxis_transform(),
            va="top", fontsize=8, color=colour)  # fmt: skip


def plot(rows: list[CommitFigures], out: Path) -> list[Plot]:
    """One panel per environment; a log axis, so that a change within the intervals never fills a panel."""
    from matplotlib.ticker import LogFormatter

    envs = sorted({row.env for row in rows})
    labels = list(dict.fromkeys(row.label for row in rows))
    written = []
    for name, (ylabel, series) in TIMING_PLOTS.items():
        drawn = {}
        for env in envs:
            at = [r for r in rows if r.env == env]
            drawn[env] = [points(s, at, [labels.index(r.label) for r in at]) for s in series]
        shown = [env for env in envs if any(drawn[env])]
        if not shown:
            continue
        fig, axes = panels(len(shown), labels)
        for ax, env in zip(axes[:, 0], shown, strict=True):
            for number, (s, run) in enumerate(zip(series, drawn[env], strict=True)):
                draw_series(ax, s.label, run, marker="o", color=f"C{number}")
            # Ticks that read as plain numbers (2, 5, 10), not powers of ten.
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(LogFormatter())
            ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False))
            if name in RATIO_PLOTS:
                lowest = min((i.low for run in drawn[env] for _, i in run), default=1.0)
                ax.set_ylim(bottom=min(1.0, lowest / 1.1))
            finish_panel(ax, env, ylabel)
        written.append(save(fig, axes, labels, out / name, counted=axes[:, 0]))
    return written


def plot_operations(rows: list[CommitFigures], found: dict, out: Path) -> list[Plot]:
    costs = {op: operation_history.BY_LABEL[op].cost for op in found}
    drawn = [op for op in found if len({row.commit for row in rows if costs[op](row) is not None}) > 1]
    if not drawn:
        return []
    labels = list(dict.fromkeys(row.label for row in rows))
    fig, axes = panels(len(drawn), labels)
    for ax, operation in zip(axes[:, 0], drawn, strict=True):
        value = costs[operation]
        for env in dict.fromkeys(row.env for row in rows):
            at = [(labels.index(r.label), value(r)) for r in rows if r.env == env and value(r) is not None]
            ax.plot(*zip(*at, strict=True), marker="o", markersize=3, label=env)
        for step in {step.after.label: step for step in found[operation]}.values():
            mark_step(ax, labels.index(step.after.label) - 0.5, step, 0.95, " ")
        finish_panel(ax, operation.replace("`", ""), "weighted instructions")
    return [save(fig, axes, labels, out / "operations.png")]


def plot_history(
    rows: list[CommitFigures], found: dict[str, list[operation_history.OperationStep]], out: Path
) -> list[Plot]:
    passes = Series("time: tree_map passes per update", metrics.PASSES_TREE_AT, "")
    written = []
    for number, (env, found_steps) in enumerate(found.items()):
        series = [row for row in rows if row.env == env]
        if not any(row.cost is not None for row in series):
            continue
        labels = [row.label for row in series]
        fig, axes = panels(1, labels, PANEL_INCHES[1] * 1.5)
        cost_axis = axes[0, 0]
        costs = [(x, r.cost) for x, r in enumerate(series) if r.cost is not None]
        label = "work: cost per update (weighted instructions)"
        cost_axis.plot(*zip(*costs, strict=True), marker="o", color="tab:blue", label=label)
        cost_axis.set_ylabel("weighted instructions per update", color="tab:blue")
        time_axis = cost_axis.twinx()
        timed = points(passes, series, range(len(series)))
        draw_series(time_axis, passes.label, timed, marker="s", color="tab:orange", linestyle="--")
        time_axis.set_ylabel("tree_map passes per update", color="tab:orange")
        # One scale for both (time = median ratio × cost), so that the lines meet where the cost tells the time.
        both = [(r.cost, passes.at(r).value) for r in series if r.cost and passes.at(r)]
        if both:
            scale = statistics.median(time / cost for cost, time in both)
            ends = [r.cost for r in series if r.cost]
            ends += [end / scale for _, i in timed for end in (i.low, i.high)]
            low, high = min(ends), max(ends)
            margin = (high - low) * 0.08 or high * 0.05
            cost_axis.set_ylim(low - margin, high + margin)
            time_axis.set_ylim((low - margin) * scale, (high + margin) * scale)
        for step in found_steps:
            mark_step(cost_axis, labels.index(step.after.label) - 0.5, step, 0.97, "\n")
        cost_axis.set_title(f"tree_at at depth {report_rows.REPORT_DEPTH}, {env}", fontsize=9)
        cost_axis.grid(alpha=0.3)
        handles = cost_axis.get_legend_handles_labels()[0] + time_axis.get_legend_handles_labels()[0]
        fig.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
        written.append(save(fig, axes, labels, out / f"history-{number + 1}.png", counted=[time_axis]))
    return written


def sweep_plot(rows: list[CommitFigures], path: Path) -> Plot | None:
    """The answer's sweep: tree_at ÷ tuple against the elements per leaf; None where none was measured."""
    sweep, wrappings = report_rows.ANSWER_SWEEP + "ratio", params.SWEEP_WRAPPINGS
    drawn = {
        (w, row.env): [(s, f) for s in params.SWEEP_SIZES if (f := answer_figure(row, sweep, f"{w!r}, {s}"))]
        for w in wrappings
        for row in rows
    }
    if not any(drawn.values()):
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = panels(len(wrappings), [], height=PANEL_INCHES[1] * 1.2)
    for ax, wrapping in zip(axes[:, 0], wrappings, strict=True):
        for number, row in enumerate(rows):
            draw_series(ax, blocks.on_device(row), drawn[wrapping, row.env], marker="o", color=f"C{number}")
        ax.axhline(metrics.NEGLIGIBLE_RATIO, color="grey", linestyle="--", label=f"{metrics.NEGLIGIBLE_RATIO}×")
        ax.set_xscale("log")
        finish_panel(ax, wrapping, "tree_at ÷ tuple")
    axes[-1, 0].set_xlabel("elements per leaf", fontsize=8)
    return save(fig, axes, [], path, counted=axes[:, 0], ticks=False)
