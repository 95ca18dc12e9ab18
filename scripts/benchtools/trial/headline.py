"""The headline figures over fresh processes: one process is one draw (two fresh runs of v0.13.8 gave a jit ratio of
2.25 and 1.15, issue 18), so, as pyperf does, each figure is measured in fresh interpreters, interleaved so that the
machine's drift spreads over all. The interval holds if two runs' processes are exchangeable, as two real runs check.
"""

import calendar
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from benchmarks import metrics, params

from .. import settings, util
from ..asvtools import device, private, shapes, sides
from ..asvtools.lock import exclusive
from ..asvtools.sides import LAUNCH_METHOD, log, param_index
from ..errors import BadInput
from ..judging import confirm
from ..running import bench
from ..util import markdown_table
from .campaign import STAMP, Campaign

CONFIDENCE = 0.95
SCHEMA = 1


# How far a figure can be trusted, in FIGURES' order, which the headline shows: the exact cost is the same in every
# process; tree_map passes are a time in a unit that scales with the machine, whose second-run interval is a few %
# wide (docs/timing-noise.md). Time ratios and µs are the answer's (benchmarks/bench_answer.py), measured in pairs of
# steady calls with the CPU's dispatch made synchronous: one place, so that no second figure contradicts them.
EXACT, STEADY = "exact", "steady"


@dataclass(frozen=True)
class Figure:
    label: str
    benchmark: str
    params: str
    kind: str
    pattern: str

    @property
    def exact(self) -> bool:  # the same in every process: measured once
        return self.kind == EXACT


FIGURES = (
    Figure(
        f"Python work of one tree_at update, depth {params.DEFAULT_DEPTH} (weighted instructions)",
        metrics.COST_TREE_AT,
        str(params.DEFAULT_DEPTH),
        EXACT,
        "{:,.0f}",
    ),
    Figure("one tree_at update, in tree_map passes", metrics.PASSES_TREE_AT, "", STEADY, "{:.2f}"),
)


@dataclass
class Options:
    release: str = field(default_factory=lambda: settings.load().reference_equinox)
    jax: list[str] = field(default_factory=list)  # empty: every environment the release runs in
    processes: int = 10
    record: Path = Path("headline.json")
    env_dir: Path = bench.ENV_DIR


def below_probability(n: int, k: int, above: int) -> float:
    """P(at least ``above`` of a second run's n values exceed the k-th largest of the first run's n), if the 2n values
    are exchangeable: that count is negative hypergeometric, P(U = u) = C(u+k-1, u) C(2n-u-k, n-u) / C(2n, n).
    """
    below = sum(math.comb(u + k - 1, u) * math.comb(2 * n - u - k, n - u) for u in range(above, n + 1))
    return below / math.comb(2 * n, n)


def second_run_interval(values: list[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The narrowest [k-th smallest, k-th largest] of ``values`` that holds the median of a second run of as many values
    with at least ``confidence``; None when even [min, max] does not (too few values).

    A second run's median lies above the k-th largest value when at least ceil(n / 2) of its values do (for an even n,
    when its upper middle value does: a conservative reading of the median); below the k-th smallest likewise, by
    symmetry.
    """
    n, ordered = len(values), sorted(values)
    # The interval narrows as k grows, so the coverage falls: the last k that holds is the narrowest.
    held = [k for k in range(1, n // 2 + 1) if 1 - 2 * below_probability(n, k, math.ceil(n / 2)) >= confidence]
    return (ordered[held[-1] - 1], ordered[n - held[-1]]) if held else None


def campaign(options: Options) -> dict:
    run = Campaign.of(options.release, options.jax, options.env_dir, options.record)
    fields = {"processes": options.processes, "confidence": CONFIDENCE, "launch_method": LAUNCH_METHOD}
    record = run.opened(SCHEMA, fields, "environments")
    names = sorted({f.benchmark for f in FIGURES})
    for label, config in run.environments("-headline"):
        root = lock = confirm.env_root(config, util.load_asv_config(config))
        side_name = "before"
        values = {f: [] for f in FIGURES}
        with exclusive(lock):
            [side] = sides.prepare(config, label, {side_name: run.commit}, names, root).values()
            measured_on = device.probe(private.env_python(side.env), needs=("jax", "jaxlib")).device
            indexes = {f: param_index(side.benchmarks[f.benchmark], f.params) for f in FIGURES}
            if missing := [f.label for f, index in indexes.items() if index == -1]:
                raise BadInput(f"the suite has no params for {', '.join(missing)}: benchmarks/params.py changed")
            side.open()
            try:
                for process in range(options.processes):
                    for figure in [f for f in FIGURES if process == 0 or not f.exact]:  # exact: measured once
                        values[figure].append(side.value(figure.benchmark, indexes[figure]))
                    log(f"headline: {label}: {process + 1} of {options.processes} processes")
            finally:
                side.close()
        figures = [figure_record(f, values[f]) for f in FIGURES]
        record["environments"].append({"environment": label, "figures": figures, "device": measured_on})
        run.write(record)
    return run.finish(record)


def figure_record(figure: Figure, values: list[float]) -> dict:
    """A timing's median, interval and scale (1: older records held figures scaled from their benchmark's unit) are
    recorded for readers that cannot compute them (the overhead page)."""
    found = {key: getattr(figure, key) for key in ("label", "benchmark", "params", "exact")} | {"values": values}
    if not figure.exact:
        found.update(scale=1.0, median=statistics.median(values), interval=second_run_interval(values))
    return found


def read(path: Path) -> dict:
    return shapes.read_checked(path, "headline", "headline record")


def newest_jax_first(env: dict):
    return tuple(-part for part in Version(env["environment"].rsplit("jax ", 1)[-1]).release), env["environment"]


def table(record: dict) -> str:
    took = ""
    if "finished" in record:
        started, finished = (calendar.timegm(time.strptime(record[key], STAMP)) for key in ("started", "finished"))
        took = f"; the run took {(finished - started) / 60:.1f} min, its environments' installs included"
    rows = []
    for env in sorted(record["environments"], key=newest_jax_first):
        # A record from before the device was recorded was measured in asv's own environments: the CPU.
        where = [env["environment"], env.get("device", device.UNRECORDED)]
        # In FIGURES' order; a record from before the time ratios moved to the answer holds them too: not shown again.
        found = {f["label"]: f["values"] for f in env["figures"]}
        for figure, values in ((f, found[f.label]) for f in FIGURES if f.label in found):
            if figure.exact:
                rows.append([*where, figure.label, figure.pattern.format(values[0]), "—", EXACT])
                continue
            interval = second_run_interval(values, record["confidence"])
            within = "too few processes" if interval is None else " to ".join(map(figure.pattern.format, interval))
            rows.append([*where, figure.label, figure.pattern.format(statistics.median(values)), within, figure.kind])
    head = ["environment", "device", "figure", "value", "a second run's median lies in", "kind"]
    return (
        f"Equinox {record['release']}, each timing figure the median of {record['processes']} fresh interpreters "
        f"({record['launch_method']}); the interval holds a second run's median with at least "
        f"{record['confidence']:.0%} if the two runs' processes are alike. Load average before and after: "
        f"{record['load_before'][0]:.2f} and {record.get('load_after', [math.nan])[0]:.2f}{took}. Kind: *exact* is "
        "the same in every run; *steady* is a time in a unit that scales with the machine. The time ratios and µs are "
        f"the answer's (scripts/bench --here).\n\n{markdown_table(head, rows)}"
    )


def timing_values(record: dict) -> dict[tuple[str, str], list[float]]:
    return {
        (env["environment"], figure["label"]): figure["values"]
        for env in record["environments"]
        for figure in env["figures"]
        if not figure["exact"]
    }


def timing_noise_runs(record: dict) -> list[dict]:
    """The same release installed twice, fresh processes each."""
    return [
        {
            (record["environment"], metrics.entry(row["benchmark"].split(".", 1)[1], row["params"])): row[side]
            for row in record["benchmarks"]
        }
        for side in ("before_values", "after_values")
    ]


def agreement_table(first: dict, second: dict, what: str) -> str:
    def shown(interval):
        return "too few values" if interval is None else f"{interval[0]:.3g} to {interval[1]:.3g}"

    rows = []
    for key in [key for key in first if key in second]:
        medians = [statistics.median(run[key]) for run in (first, second)]
        intervals = [second_run_interval(run[key]) for run in (first, second)]
        agree = "—"
        if None not in intervals:
            held = all(low <= median <= high for median, (low, high) in zip(medians, intervals[::-1], strict=True))
            agree = "yes" if held else "**no**"
        rows.append([*key, f"{medians[0]:.4g}", shown(intervals[0]), f"{medians[1]:.4g}", shown(intervals[1]), agree])
    head = ["environment", "figure", "median, run 1", "interval, run 1", "median, run 2", "interval, run 2", "agree"]
    return (
        f"Two runs ({what}): each figure's median in each run, its interval for a second run, and whether each "
        f"median lies in the other run's interval.\n\n{markdown_table(head, rows)}"
        f"\n\nAgree: {sum(row[-1] == 'yes' for row in rows)} of {len(rows)}."
    )
