"""Timing noise between fresh processes, measured A/A: the MDE and a night's false-alarm rate (docs/timing-noise.md)."""

import itertools
import json
import math
import os
import random
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics

from .. import settings, util
from ..asvtools import environments as asv_envs
from ..asvtools import shapes, sides
from ..asvtools.lock import exclusive
from ..asvtools.sides import LAUNCH_METHOD, log, param_index
from ..judging import confirm, pairs
from ..running import bench
from ..running.bench import ENV_DIR
from ..util import markdown_table

POWER = 0.9  # "calls it slower 9 times in 10"
SIMULATIONS = 400
LARGEST_EFFECT = 1.0  # an MDE above +100% is reported as "above"
SCHEMA = 1
FRESH, PAIRED = "fresh", "paired"


@dataclass
class Options:
    release: str = field(default_factory=lambda: settings.load().reference_equinox)
    jax: str = field(default_factory=lambda: settings.load().reference_jax)
    pairs: int = 16
    bench: list[str] = field(default_factory=list)  # regexes of names; empty: every alerting timing one
    suspects: int = 10  # the night the MDE and the false-alarm rate are also given for
    record: Path = Path("timing-noise.json")
    env_dir: Path = ENV_DIR
    seed: int = 0  # of the resampling, so that a record's figures can be recomputed
    hash_seed: str = FRESH  # FRESH: each process draws its own (the confirm step's way); PAIRED: a pair shares one


@dataclass
class Measured:
    benchmark: str
    params: str
    before: list[float]
    after: list[float]
    seconds: float

    @property
    def log_ratios(self) -> list[float]:
        return [math.log(a / b) for b, a in zip(self.before, self.after, strict=True)]


def resampled(log_ratios: list[float], simulations: int, rng: random.Random) -> list[list[float]]:
    centre = statistics.median(log_ratios)
    centred = [d - centre for d in log_ratios]
    return [[rng.choice(centred) for _ in range(pairs.MAX_PAIRS)] for _ in range(simulations)]


def called_slower(run: list[float], shift: float, suspects: int) -> bool:
    def measure(first: int, count: int) -> list[tuple[float, float]]:
        return [(1.0, math.exp(d + shift)) for d in run[first : first + count]]

    return pairs.sequential(measure, suspects=suspects)[0] == pairs.SLOWER


def power(runs: list[list[float]], effect: float, suspects: int) -> float:
    return statistics.fmean(called_slower(run, math.log1p(effect), suspects) for run in runs)


def minimum_detectable_effect(
    log_ratios: list[float], suspects: int, simulations: int = SIMULATIONS, seed: int = 0
) -> float | None:
    """None: above LARGEST_EFFECT.  Every effect is tried on the same runs, so that the search has one answer."""
    runs = resampled(log_ratios, simulations, random.Random(seed))
    if power(runs, LARGEST_EFFECT, suspects) < POWER:
        return None
    low, high = pairs.FLOOR, LARGEST_EFFECT  # nothing at or below the floor is ever called slower
    while high - low > 0.001:
        middle = (low + high) / 2
        low, high = (low, middle) if power(runs, middle, suspects) >= POWER else (middle, high)
    return high


def night_false_alarm(measured: list[Measured], suspects: int, nights: int, seed: int = 0) -> float:
    rng = random.Random(seed)
    # Each night's suspects are all drawn before any is judged, so that the draws do not depend on the verdicts.
    drawn = ([resampled(rng.choice(measured).log_ratios, 1, rng)[0] for _ in range(suspects)] for _ in range(nights))
    return sum(any(called_slower(run, 0.0, suspects) for run in night) for night in drawn) / nights


def analysis(measured: Measured, suspects: int, seed: int) -> dict:
    found = pairs.interval(measured.before, measured.after, pairs.look_confidence(1))
    threshold = metrics.threshold(metrics.entry(measured.benchmark, measured.params))
    d = measured.log_ratios
    lag1 = statistics.correlation(d[:-1], d[1:]) if len(d) > 2 and statistics.pstdev(d) > 0 else None
    mde = {str(m): minimum_detectable_effect(d, m, seed=seed) for m in (1, suspects)}
    # The confirm step's own verdict on these pairs, in the order measured: "slower" would be a false alarm.
    measured_pairs = list(zip(measured.before, measured.after, strict=True))
    verdict = pairs.sequential(lambda first, count: measured_pairs[first : first + count], max_pairs=len(d))[0]
    return {
        "benchmark": measured.benchmark,
        "params": measured.params,
        "pairs": len(d),
        "seconds": round(measured.seconds, 1),
        "sd_log_ratio": statistics.stdev(d),
        "lag1_correlation": lag1,
        **{f"aa_{key}": getattr(found, key) for key in ("estimate", "low", "high", "confidence")},
        "aa_covers_zero": found.low <= 0 <= found.high,
        "aa_verdict": verdict,
        "threshold": threshold,
        "mde": mde,
        "reaches_threshold": all(value is not None and value <= threshold for value in mde.values()),
    }


def campaign(options: Options) -> dict:
    """One release measured against itself in one asv environment, the record written after each benchmark."""
    target = bench.Target(bench.Options(releases=options.release, jax=[options.jax], env_dir=options.env_dir))
    [(_release, commit)], [(_name, entry)] = bench.releases(target), bench.environments(target)
    label = f"Python {asv_envs.python_of(entry)}, jax {asv_envs.requirements_of(entry).get('jax')}"
    config = target.config(entry, "-timing-noise")
    root = confirm.env_root(config, util.load_asv_config(config))
    record = {
        "schema": SCHEMA,
        "release": options.release,
        "commit": commit,
        "environment": label,
        "launch_method": LAUNCH_METHOD,
        **{key: getattr(options, key) for key in ("hash_seed", "pairs", "suspects")},
        "power": POWER,
        "night_false_alarm_bound": pairs.NIGHT_FALSE_ALARM,
        "started": now(),
        "load_before": list(os.getloadavg()),
        "benchmarks": [],
    }

    def write() -> None:
        util.write_atomic(options.record, (json.dumps(record, indent=1, allow_nan=False) + "\n").encode())

    with exclusive(root):
        suite = sides.prepare(config, label, {"before": commit, "after": commit}, [], root)
        measured = []
        for name in sorted(suite["before"].benchmarks):
            if not any(re.search(r, name) for r in options.bench or [""]):
                continue
            listed = suite["before"].benchmarks[name]
            for combo in [", ".join(c) for c in itertools.product(*listed["params"])]:  # no params: [""]
                if not metrics.alerting_timing(metrics.entry(name, combo)):  # the answer's: its median alone
                    continue
                started = time.monotonic()
                index = param_index(listed, combo)
                seeds = random.Random(options.seed) if options.hash_seed == PAIRED else None
                values = confirm.measure_pairs(suite, name, index, seeds)(0, options.pairs)
                m = Measured(name, combo, [b for b, _ in values], [a for _, a in values], time.monotonic() - started)
                measured.append(m)
                analysed = analysis(m, options.suspects, options.seed)
                record["benchmarks"].append({**analysed, "before_values": m.before, "after_values": m.after})
                log(f"timing-noise: {metrics.entry(name, combo)}: sd {analysed['sd_log_ratio']:.2%}")
                write()
    record["night_false_alarm"] = {
        str(m): night_false_alarm(measured, m, nights=2000, seed=options.seed) for m in (1, options.suspects)
    }
    record.update(load_after=list(os.getloadavg()), finished=now())
    write()
    return record


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def read(path: Path) -> dict:
    return shapes.read_checked(path, "timing-noise", "timing-noise record")


def percent(value: float | None) -> str:
    return f"above +{LARGEST_EFFECT:.0%}" if value is None else f"+{value:.1%}"


def table(record: dict) -> str:
    m, benchmarks = str(record["suspects"]), record["benchmarks"]
    confidence = pairs.look_confidence(1)
    head = ["benchmark", "params", "sd of ln(after/before)", "A/A estimate", f"A/A interval ({confidence:.2%})"]
    head += ["A/A verdict", "MDE, 1 suspect", f"MDE, {m} suspects", "threshold", "alerts", "s per pair"]
    rows = [
        [f"`{row['benchmark'].split('.', 1)[1]}`", row["params"] or "—", f"{row['sd_log_ratio']:.2%}"]
        + [f"{row['aa_estimate']:+.2%}", f"{row['aa_low']:+.2%} to {row['aa_high']:+.2%}", row["aa_verdict"]]
        + [percent(row["mde"]["1"]), percent(row["mde"][m]), f"+{row['threshold']:.0%}"]
        + ["yes" if row["reaches_threshold"] else "**MDE above the threshold**"]
        + [f"{row['seconds'] / row['pairs']:.1f}"]
        for row in benchmarks
    ]
    text = (
        f"Equinox {record['release']} against itself, {record['environment']}, {record['pairs']} A/A pairs of "
        f"fresh interpreters ({record['launch_method']}, hash seeds {record['hash_seed']}) per benchmark; "
        f"load average before and after: "
        f"{record['load_before'][0]:.2f} and {record.get('load_after', [math.nan])[0]:.2f}. MDE: the slowdown that "
        f"the confirm step calls slower in {record['power']:.0%} of {SIMULATIONS} resampled runs, on a night of "
        f"1 suspect and of {m}.\n\n{markdown_table(head, rows)}\n\n"
        f"A/A intervals that cover 0: {sum(row['aa_covers_zero'] for row in benchmarks)} of {len(benchmarks)}. "
        "A/A pairs that the confirm step, judging them as measured, calls slower (a false alarm): "
        f"{sum(row['aa_verdict'] == pairs.SLOWER for row in benchmarks)} of {len(benchmarks)}."
    )
    if "night_false_alarm" in record:
        rates = record["night_false_alarm"]
        text += (
            f"\nSimulated nights on which nothing changed that confirm any suspect slower: {rates['1']:.2%} with 1 "
            f"suspect, {rates[m]:.2%} with {m} (2,000 nights each; the bound is "
            f"{record['night_false_alarm_bound']:.0%})."
        )
    return text
