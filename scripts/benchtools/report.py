#!/usr/bin/env python3
"""Answer "what does tree_at cost over a tuple?" for each benchmarked release.

Reads asv results (by default those of scripts/bench's release runs) and, for
each commit and environment, gives:

* the tree_at / tuple time ratio per wrapping (eager, jit, scan, jit_scan);
* eager overhead per tree_at call, in microseconds, against pytree depth;
* tracing and compile overhead;
* whether the jaxprs of the tree_at and tuple steps are identical.

Without options it prints Markdown for every commit.  --html DIR writes the
report as a page with PNG plots across releases into DIR/overhead/ and links
it from the asv site in DIR.  --readme FILE rewrites the part of FILE between
the overhead-report markers with the newest release's summary.
"""

import html
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import params

from . import cli, git
from .cli import BadInput
from .project import HISTORY_DIR, ROOT, env_label

# asv stores parameter values as their repr; the report reads them as plain strings.
WRAPPINGS = params.WRAPPINGS
DEPTHS = tuple(str(depth) for depth in params.DEPTHS)
CALLS_PER_STEP = str(params.DEFAULT_N_CALLS)  # the eager per-call figures come from steps of this many updates
REPORT_DEPTH = str(params.DEFAULT_DEPTH)  # the depth of the headline figures
README_START = "<!-- overhead-report:start -->"
README_END = "<!-- overhead-report:end -->"
NAV_ANCHOR = '<li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li>'
NAV_LINK = '<li id="nav-li-overhead"><a href="overhead/index.html">tree_at overhead</a></li>'


@dataclass
class Row:
    """The overhead figures of one commit in one environment; None where not measured."""

    label: str
    env: str
    date: int
    ratios: dict = field(default_factory=dict)  # wrapping -> tree_at / tuple
    surgery_ratio: float | None = None
    tracing_ratio: float | None = None
    compile_overhead_ms: float | None = None
    seed_ratios: dict = field(default_factory=dict)
    eager_us: dict = field(default_factory=dict)  # depth -> (tree_at µs per call, tuple µs per update)
    # The same figures' spread: asv's own q_25 and q_75 of the run's samples (None where asv kept none).
    eager_iqr: dict = field(default_factory=dict)  # depth -> ((q_25, q_75) of tree_at, of tuple), µs
    compile_iqr: tuple | None = None  # (q_25, q_75) of tree_at's compile time, ms
    calls: dict = field(default_factory=dict)  # depth -> (tree_at calls, tuple calls)
    tree_map_passes: tuple = (None, None)  # one update, tree_at and tuple, in tree_map passes
    excess_equations: list = field(default_factory=list)

    @property
    def jaxprs_identical(self) -> str:
        if not self.excess_equations:
            return "not measured"
        return "yes" if not any(self.excess_equations) else f"NO (+{max(self.excess_equations)} equations)"


def parse_args(argv):
    parser = cli.parser("scripts/overhead-report", __doc__)
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "releases",
                        help="asv results directory (default: %(default)s)")
    parser.add_argument("--repo", type=Path, default=HISTORY_DIR / "equinox",
                        help="the benchmarked git repository, to name commits by tag (default: %(default)s)")
    parser.add_argument("--machine", help="only results of this asv machine (default: all)")
    parser.add_argument("--latest", action="store_true", help="only the most recent commit")
    parser.add_argument("--html", type=Path, metavar="DIR", help="write DIR/overhead/ and link it from the site in DIR")
    parser.add_argument("--readme", type=Path, metavar="FILE",
                        help=f"rewrite FILE between {README_START} and {README_END}")
    return parser.parse_args(argv)


def values(result, key):
    """{param tuple: value} of one benchmark, with parameters as plain strings; NaN and None as None."""
    if key not in result.get_all_result_keys():
        return {}
    params = result.get_result_params(key)
    combos = itertools.product(*[[p.strip("'") for p in dim] for dim in params])
    return {combo: (None if value is None or value != value else value)
            for combo, value in zip(combos, result.get_result_value(key, params))}


def spreads(result, key, scale: float = 1.0):
    """{param tuple: (q_25, q_75) * scale} from asv's stats of a time benchmark; missing ones left out."""
    if key not in result.get_all_result_keys():
        return {}
    params = result.get_result_params(key)
    combos = itertools.product(*[[p.strip("'") for p in dim] for dim in params])
    return {combo: (stats["q_25"] * scale, stats["q_75"] * scale)
            for combo, stats in zip(combos, result.get_result_stats(key, params))
            if stats and stats.get("q_25") is not None and stats.get("q_75") is not None}


def with_spread(value, spread, pattern: str) -> str:
    """A figure and its interquartile range, "173.5 (IQR 160.1–190.2)": never a bare absolute time."""
    if value is None or spread is None:
        return fmt(value, pattern)
    return f"{pattern.format(value)} (IQR {pattern.format(spread[0])}–{pattern.format(spread[1])})"


def only(mapping):
    return next(iter(mapping.values()), None)


def per_call_us(seconds):
    return None if seconds is None else seconds / int(CALLS_PER_STEP) * 1e6


def row_of(result, label: str) -> Row:
    row = Row(label, env_label(result), result.date or 0)
    row.ratios = {w: v for (w,), v in values(result, "bench_overhead.SteadyStateRatio.track_overhead_ratio").items()}
    row.surgery_ratio = only(values(result, "bench_overhead.EagerSurgeryRatio.track_overhead_ratio"))
    row.tracing_ratio = only(values(result, "bench_overhead.TracingRatio.track_overhead_ratio"))
    compile_tree_at = values(result, "bench_trace.Compile.time_tree_at").get((CALLS_PER_STEP,))
    compile_tuple = values(result, "bench_trace.Compile.time_tuple").get((CALLS_PER_STEP,))
    if compile_tree_at is not None and compile_tuple is not None:
        row.compile_overhead_ms = (compile_tree_at - compile_tuple) * 1e3
        row.compile_iqr = spreads(result, "bench_trace.Compile.time_tree_at", 1e3).get((CALLS_PER_STEP,))
    row.seed_ratios = {w: v for (w,), v in values(result, "bench_seed.SeedScenario.track_overhead_ratio").items()}
    row.tree_map_passes = tuple(only(values(result, f"bench_overhead.EagerSurgeryInTreeMapPasses.track_{twin}"))
                                for twin in ("tree_at", "tuple"))
    tree_at = values(result, "bench_eager.EagerSurgery.time_tree_at")
    tuple_ = values(result, "bench_eager.EagerSurgery.time_tuple")
    calls_tree_at = values(result, "bench_counts.PythonCalls.track_tree_at")
    calls_tuple = values(result, "bench_counts.PythonCalls.track_tuple")
    for depth in DEPTHS:
        key = (depth, CALLS_PER_STEP)
        if key in tree_at:
            row.eager_us[depth] = (per_call_us(tree_at[key]), per_call_us(tuple_.get(key)))
            scale = 1e6 / int(CALLS_PER_STEP)
            row.eager_iqr[depth] = tuple(spreads(result, f"bench_eager.EagerSurgery.time_{twin}", scale).get(key)
                                         for twin in ("tree_at", "tuple"))
        if (depth,) in calls_tree_at:
            row.calls[depth] = (calls_tree_at[(depth,)], calls_tuple.get((depth,)))
    row.excess_equations = [v for v in values(result, "bench_counts.JaxprExcessEquations.track_excess_equations")
                            .values() if v is not None]
    return row


def fmt(value, pattern="{:.2f}"):
    return "n/a" if value is None else pattern.format(value)


def tag_of(repo: Path, commit: str) -> str:
    tags = git.out("tag", "--points-at", commit, repo=repo, check=False).split()
    return tags[0] if tags else commit[:8]


def load_rows(results: Path, repo: Path, machine: str | None = None, latest: bool = False) -> list[Row]:
    from asv import results as asv_results

    if not results.is_dir():
        raise BadInput(f"no results directory at {results}; run scripts/bench first")
    found = [r for r in asv_results.iter_results(str(results))
             if machine is None or r.params.get("machine") == machine]
    if not found:
        raise BadInput(f"no results in {results}" + (f" for machine {machine!r}" if machine else ""))
    found.sort(key=lambda r: (r.date or 0, r.env_name))
    if latest:
        found = [r for r in found if r.commit_hash == found[-1].commit_hash]
    return [row_of(r, tag_of(repo, r.commit_hash)) for r in found]


def markdown(row: Row) -> str:
    lines = [f"### {row.label} ({row.env})", "", "| how the step runs | tree_at / tuple time |", "|---|---|"]
    lines += [f"| {w} | {fmt(v)} |" for w, v in row.ratios.items()]
    lines += [f"| eager surgery only | {fmt(row.surgery_ratio)} |",
              f"| tracing a fresh step | {fmt(row.tracing_ratio)} |"]
    lines += [f"| seed scenario, {w} | {fmt(v)} |" for w, v in row.seed_ratios.items()]
    lines += ["", "| depth | eager µs per tree_at call, median (IQR) | µs per tuple update, median (IQR) "
              "| overhead µs per call | Python calls per tree_at / per tuple update |", "|---|---|---|---|---|"]
    for depth in DEPTHS:
        tree_at_us, tuple_us = row.eager_us.get(depth, (None, None))
        tree_at_iqr, tuple_iqr = row.eager_iqr.get(depth, (None, None))
        overhead = None if None in (tree_at_us, tuple_us) else tree_at_us - tuple_us
        calls = row.calls.get(depth, (None, None))
        lines.append(f"| {depth} | {with_spread(tree_at_us, tree_at_iqr, '{:.1f}')} "
                     f"| {with_spread(tuple_us, tuple_iqr, '{:.2f}')} | "
                     f"{fmt(overhead, '{:.1f}')} | {fmt(calls[0], '{:.0f}')} / {fmt(calls[1], '{:.0f}')} |")
    lines += ["", "Absolute times are one run's, on one machine: they move by up to 2× between runs and commits "
              "of identical code (the IQR shows only the spread within the run); the tree_map-pass figure below "
              "is the steady one.", "",
              f"Compile overhead of a step with {CALLS_PER_STEP} updates: "
              f"{fmt(row.compile_overhead_ms, '{:+.1f}')} ms"
              + ("" if row.compile_iqr is None else
                 f" (tree_at's compile time: IQR {row.compile_iqr[0]:.1f}–{row.compile_iqr[1]:.1f} ms)") + ". "
              f"Identical jaxprs for the tree_at and tuple steps: {row.jaxprs_identical}.", "",
              f"In a unit that scales with the machine, one `jax.tree_util.tree_map` over the same depth-{REPORT_DEPTH} "
              f"tree, an eager update costs {fmt(row.tree_map_passes[0], '{:.1f}')} passes with tree_at and "
              f"{fmt(row.tree_map_passes[1], '{:.3f}')} with a tuple.", ""]
    return "\n".join(lines)


def history_table(rows: list[Row]) -> list[str]:
    header = ["release", "environment", *WRAPPINGS, f"eager µs/call, depth {REPORT_DEPTH} (IQR)",
              "tree_map passes/call",
              "tracing",
              "compile ms", "jaxprs identical"]
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row.label, row.env, *[fmt(row.ratios.get(w)) for w in WRAPPINGS],
                 with_spread(row.eager_us.get(REPORT_DEPTH, (None,))[0], row.eager_iqr.get(REPORT_DEPTH, (None,))[0],
                             "{:.1f}"), fmt(row.tree_map_passes[0], "{:.1f}"),
                 fmt(row.tracing_ratio),
                 fmt(row.compile_overhead_ms, "{:+.1f}"), row.jaxprs_identical]
        table.append("| " + " | ".join(cells) + " |")
    return table


def plot(rows: list[Row], out: Path) -> list[str]:
    """PNG plots across releases, one line per environment and series; returns their file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = sorted({row.env for row in rows})
    labels = list(dict.fromkeys(row.label for row in rows))
    position = {label: i for i, label in enumerate(labels)}
    figures = {
        "ratios.png": ("tree_at / tuple time (log scale)",
                       {w: (lambda r, w=w: r.ratios.get(w)) for w in WRAPPINGS}),
        "eager-per-call.png": ("eager µs per tree_at call",
                               {f"depth {d}": (lambda r, d=d: r.eager_us.get(d, (None,))[0]) for d in DEPTHS}),
        "tracing.png": ("tracing: tree_at / tuple time",
                        {"tracing ratio": lambda r: r.tracing_ratio}),
    }
    written = []
    for name, (ylabel, series) in figures.items():
        fig, ax = plt.subplots(figsize=(max(6, len(labels) * 0.35), 3.5))
        for env, (title, getter) in itertools.product(envs, series.items()):
            points = [(position[r.label], getter(r)) for r in rows if r.env == env and getter(r) is not None]
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker="o", label=f"{title} ({env})" if len(envs) > 1 else title)
        ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        if "log" in ylabel:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / name, dpi=90)
        plt.close(fig)
        written.append(name)
    return written


def html_page(rows: list[Row], site: Path) -> Path:
    index = site / "index.html"
    if not index.is_file():
        raise BadInput(f"no asv site at {site}; run asv publish (scripts/bench) first")
    out = site / "overhead"
    out.mkdir(exist_ok=True)
    images = plot(rows, out)
    latest = [row for row in rows if row.label == rows[-1].label]
    parts = ["<!doctype html><meta charset='utf-8'><title>tree_at overhead</title>",
             "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}</style>",
             "<p><a href='../index.html'>← benchmarks</a></p>",
             "<h1>What does eqx.tree_at cost over a tuple?</h1>",
             f"<p>{html.escape(summary_sentence(latest[0]))}</p>"]
    parts += [f"<p><img src='{name}' alt='{name}'></p>" for name in images]
    parts.append("<h2>Per release</h2>")
    parts.append(table_html(history_table(rows)))
    for row in latest:
        parts.append(f"<h2>{html.escape(row.label)} in detail ({html.escape(row.env)})</h2>")
        parts.append("<pre>" + html.escape(markdown(row)) + "</pre>")
    (out / "index.html").write_text("\n".join(parts), encoding="utf-8")
    link_from_site(index)
    return out / "index.html"


def table_html(markdown_table: list[str]) -> str:
    rows = [[html.escape(cell.strip()) for cell in line.strip("|").split("|")]
            for line in markdown_table if not line.startswith("|---")]
    head, body = rows[0], rows[1:]
    return ("<table><tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in body) + "</table>")


def link_from_site(index: Path) -> None:
    text = index.read_text(encoding="utf-8")
    if NAV_LINK in text:
        return
    if NAV_ANCHOR not in text:
        raise BadInput(f"{index} has no Regressions link to put the overhead link beside; "
                          "has asv's page layout changed?")
    index.write_text(text.replace(NAV_ANCHOR, NAV_ANCHOR + "\n\t" + NAV_LINK), encoding="utf-8")


def summary_sentence(row: Row) -> str:
    eager = row.eager_us.get(REPORT_DEPTH, (None, None))
    spread = row.eager_iqr.get(REPORT_DEPTH, (None, None))
    return (f"{row.label} with {row.env}: at depth {REPORT_DEPTH}, an eager tree_at call costs "
            f"{with_spread(eager[0], spread[0], '{:.0f}')} µs in this run against {fmt(eager[1], '{:.1f}')} µs "
            f"for a tuple update, or {fmt(row.tree_map_passes[0], '{:.1f}')} tree_map passes, the steady unit. "
            f"A jitted step runs at {fmt(row.ratios.get('jit'))}× the tuple version's time, a scan at "
            f"{fmt(row.ratios.get('scan'))}×, jit around the scan at {fmt(row.ratios.get('jit_scan'))}×; "
            f"tracing takes {fmt(row.tracing_ratio)}× as long. Identical jaxprs: {row.jaxprs_identical}.")


def update_readme(readme: Path, rows: list[Row]) -> None:
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise BadInput(f"{readme} has no {README_START} ... {README_END} section")
    latest = [row for row in rows if row.label == rows[-1].label]
    body = "\n".join([README_START, "", *(markdown(row) for row in latest), README_END])
    readme.write_text(pattern.sub(lambda _: body, text), encoding="utf-8")


def write_page(results: Path, site: Path, machine: str | None, repo: Path) -> Path:
    """The report's page and plots, into SITE/overhead/, linked from the asv site in SITE."""
    written = html_page(load_rows(results, repo, machine), site)
    print(f"wrote {written}")
    return written


def main(argv):
    args = parse_args(argv)
    rows = load_rows(args.results, args.repo, args.machine, args.latest)
    if args.html:
        print(f"wrote {html_page(rows, args.html)}")
    if args.readme:
        update_readme(args.readme, rows)
        print(f"updated {args.readme}")
    if not (args.html or args.readme):
        print("\n".join(markdown(row) for row in rows))
    return 0
