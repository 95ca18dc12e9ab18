"""The confirm step: every timing suspect re-measured side by side before it counts.

A *suspect* is a timing change (kinds ratio and time in benchmarks/metrics.py)
that the gate saw between two commits in results measured at different
times.  This machine's speed drifts between commits by more than the change
one wants to see, so a suspect only counts once both commits have been
measured again, alternately:

  * each commit gets its own asv environment (its own env dir, the commit
    installed once, with asv's own Environment.create / install_project);
  * fresh benchmark processes (asv's spawner, the configuration's launch
    method) run in balanced order A B, B A, A B, B A ... so that a drift
    over time hits both commits alike; each batch of pairs gets fresh
    forkservers;
  * one value per process: a track_ benchmark's value, or the median of a
    time_ benchmark's samples (asv_runner.statistics.compute_stats);
  * per pair d = ln(after / before) (every metric is oriented bigger-is-
    worse), and a paired interval on d, reported as a relative change with
    a CONFIDENCE interval: the Hodges-Lehmann estimate (the median of the
    Walsh averages (d_i + d_j) / 2) with the exact interval of the Wilcoxon
    signed-rank test, not the paired t interval first planned: measured per-
    process values here are tight (about 1.5%) with gross outliers (10.8
    among values of 20.x, when the machine's neighbours strike one process),
    and one such outlier widens a t interval past any use (README);
  * sequential, as Chromium's Pinpoint: START_PAIRS pairs, STEP_PAIRS more
    while undecided, at most MAX_PAIRS (--confirm-max-pairs).

Verdicts:
  slower     the whole interval lies above +FLOOR: smaller slowdowns are
             never called slower;
  same       the whole interval lies below +SAME_BELOW (a speed-up is "same"
             too: it is not a regression);
  undecided  neither, after the cap.
Only *slower* counts towards the gate's exit 1.

asv's own `asv run --interleave-rounds -a rounds=N` alternates the order of
two commits every other round, but it keeps one value of a track_ benchmark
(all the suite's ratios) instead of one per process, and reinstalls the
commit in the environment at every switch; so the loop is written here, on
asv's environments, benchmark discovery and spawner, and on
asv.runner._run_benchmark_single_param (private in asv 0.6.6: pinned in
requirements.txt for that reason).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from benchmarks import metrics

from . import environments as asv_envs
from .cli import BadInput, Failed

# The constants of the verdict, declared once (README, "Confirmed verdicts").
CONFIDENCE = 0.99
FLOOR = 0.01  # slower only when the whole interval lies above +1%
SAME_BELOW = 0.02  # same when the whole interval lies below +2%
START_PAIRS = 8
STEP_PAIRS = 8  # even, so that every look ends on a whole A B / B A block
MAX_PAIRS = 32
MIN_PAIRS = 8  # the fewest with which the signed-rank interval can exclude anything at 99%

SLOWER, SAME, UNDECIDED = "slower", "same", "undecided"
VERDICTS = (SLOWER, SAME, UNDECIDED)
TIMING_KINDS = (metrics.RATIO, metrics.TIME)


@dataclass(frozen=True)
class Interval:
    """The relative change after / before - 1, its CONFIDENCE interval, and the pairs it rests on."""

    estimate: float
    low: float
    high: float
    pairs: int
    sd: float  # of the per-pair log ratios


def signed_rank_cdf(n: int) -> list[float]:
    """P(W <= w) for w = 0 .. n(n+1)/2, W the Wilcoxon signed-rank statistic of n pairs (exact, no ties)."""
    counts = [1]  # counts[w]: subsets of {1..k} summing to w
    for k in range(1, n + 1):
        grown = counts + [0] * k
        for w, count in enumerate(counts):
            grown[w + k] += count
        counts = grown
    total, running, cdf = 2 ** n, 0, []
    for count in counts:
        running += count
        cdf.append(running / total)
    return cdf


def interval(before: Sequence[float], after: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The Hodges-Lehmann estimate of d = ln(after / before) and its exact signed-rank interval, as relative changes.

    The interval is [A(k+1), A(M-k)] of the M = n(n+1)/2 sorted Walsh
    averages, k the largest with P(W <= k) <= (1 - confidence) / 2; it
    covers the true shift with at least ``confidence`` for any symmetric
    distribution of d, whatever its tails.  Fewer than 8 pairs cannot give a
    99% interval at all (P(W = 0) = 2**-n): the interval is then unbounded.
    """
    if len(before) != len(after) or len(before) < 2:
        raise ValueError("a paired interval needs at least two pairs of equal length")
    if any(not (value > 0) for value in (*before, *after)):
        raise ValueError("values must be positive to take log ratios")
    d = [math.log(a / b) for b, a in zip(before, after)]
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    cdf = signed_rank_cdf(n)
    k = -1  # stays -1 when even W = 0 is likelier than the tail allows
    while k + 1 < len(cdf) and cdf[k + 1] <= (1 - confidence) / 2:
        k += 1
    low, high = (walsh[k], walsh[len(walsh) - 1 - k]) if k >= 0 else (-math.inf, math.inf)
    return Interval(math.expm1(statistics.median(walsh)), math.expm1(low), math.expm1(high), n, statistics.stdev(d))


def decide(found: Interval) -> str:
    if found.low > FLOOR:
        return SLOWER
    if found.high < SAME_BELOW:
        return SAME
    return UNDECIDED


def balanced_order(first: int, count: int) -> list[tuple[str, str]]:
    """The order of pairs first .. first+count-1: A B for even pairs, B A for odd (A B B A A B ...)."""
    return [("before", "after") if number % 2 == 0 else ("after", "before") for number in range(first, first + count)]


def sequential(measure: Callable[[int, int], list[tuple[float, float]]], max_pairs: int = MAX_PAIRS,
               start: int = START_PAIRS, step: int = STEP_PAIRS) -> tuple[str, Interval, list, list]:
    """Measure pairs until decided or at the cap: (verdict, interval, befores, afters).

    ``measure(first, count)`` returns ``count`` (before, after) values for
    pairs ``first`` onwards, in balanced_order(first, count).
    """
    if max_pairs < MIN_PAIRS:
        raise BadInput(f"--confirm-max-pairs {max_pairs}: at least {MIN_PAIRS} pairs are needed")
    before, after = [], []
    count = min(start, max_pairs)
    while True:
        for b, a in measure(len(before), count):
            before.append(b)
            after.append(a)
        found = interval(before, after)
        verdict = decide(found)
        if verdict != UNDECIDED or len(before) >= max_pairs:
            return verdict, found, before, after
        count = min(step, max_pairs - len(before))


# Which changes are suspects.

def suspect_threshold(change, thresholds) -> float:
    """The increase beyond which a timing change is a suspect.

    metrics.py's ``suspect`` where a rule declares one (lower than its
    threshold, because confirmation removes the false alarms), else the
    gate's threshold; a --threshold / --time-threshold override wins.
    """
    if thresholds.overrides.get(change.kind) is not None:
        return thresholds.overrides[change.kind]
    declared = metrics.suspect_threshold(change.entry)
    return thresholds(change) if declared is None else min(declared, thresholds(change))


def suspects(changes: Iterable, thresholds) -> list:
    """The timing changes to confirm, worst first."""
    found = [c for c in changes
             if c.kind in TIMING_KINDS and c.after > c.before * (1 + suspect_threshold(c, thresholds))]
    return sorted(found, key=lambda c: -c.ratio)


@dataclass
class Verdict:
    change: object  # a gate.Change
    verdict: str
    interval: Interval | None
    seconds: float
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)
    note: str = ""


# The measurement, on asv's machinery.

def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Side:
    """One commit in its own asv environment: the env, its spawner, and how to measure one process."""

    def __init__(self, conf, env, benchmarks, commit: str):
        self.conf, self.env, self.benchmarks, self.commit = conf, env, benchmarks, commit
        self.spawner = None
        self.cache_dirs = {}

    def open(self):
        from asv import runner

        self.spawner = runner.get_spawner(self.env, self.benchmarks.benchmark_dir, self.conf.launch_method)
        success, out = self.spawner.preimport()
        if not success:
            raise Failed(f"the benchmark suite does not import in {self.env.name} at {self.commit[:8]}: "
                         f"{out.strip()[-500:]}")

    def close(self):
        from asv import util

        for cache_dir in self.cache_dirs.values():
            util.long_path_rmtree(cache_dir, True)
        self.cache_dirs = {}
        if self.spawner is not None:
            with contextlib.redirect_stdout(sys.stderr):
                self.spawner.close()
            self.spawner = None

    def value(self, name: str, param_index: int) -> float:
        """One fresh process of benchmark ``name`` at ``param_index``: its track value or median sample."""
        from asv import runner
        from asv_runner.statistics import compute_stats

        benchmark = self.benchmarks[name]
        if benchmark.get("timeout") is None:  # as asv.runner.run_benchmarks sets it
            benchmark["timeout"] = self.env._default_benchmark_timeout
        key = benchmark.get("setup_cache_key")
        cwd = None
        if key is not None:
            if key not in self.cache_dirs:
                cache_dir, stderr = self.spawner.create_setup_cache(name, benchmark["timeout"], "{}")
                if cache_dir is None:
                    raise Failed(f"{name}: setup_cache failed at {self.commit[:8]}: {stderr}")
                self.cache_dirs[key] = cache_dir
            cwd = self.cache_dirs[key]
        # Private in asv 0.6.6: the one function that runs one parameter combination in one process.
        result = runner._run_benchmark_single_param(benchmark, self.spawner, param_index if benchmark["params"]
                                                    else None, profile=False, extra_params={}, cwd=cwd)
        value, samples, number = result.result[0], result.samples[0], result.number[0]
        if result.errcode != 0 or value is None:
            raise Failed(f"{name} failed while confirming at {self.commit[:8]} (exit {result.errcode}): "
                         f"{(result.stderr or '').strip()[-500:]}")
        if samples is not None and number is not None:
            value = compute_stats(samples, number)[0]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise Failed(f"{name} gave {value!r} at {self.commit[:8]}: a confirmable value must be a positive number")
        return float(value)


def env_requirements(env) -> set[str]:
    """An asv environment's Python and pinned requirements as 'name version' strings, as the gate labels them."""
    found = {f"Python {env.python}"}
    for key, version in env.requirements.items():
        name = key[1] if isinstance(key, tuple) else key
        if version:
            found.add(f"{name} {version}")
    return found


def label_requirements(label: str) -> set[str]:
    return {part.strip() for part in label.split(",") if part.strip() and part.strip() != "—"}


def env_root(config: Path) -> Path:
    """Where the confirm step keeps its two environments: confirm-env/{before,after} beside the config's env_dir."""
    from asv import util

    env_dir = Path(util.load_json(str(config), js_comments=True).get("env_dir", "env"))
    return (Path(config).parent / env_dir).resolve().parent / "confirm-env"


def param_index(benchmark: dict, params: str) -> int | None:
    if not benchmark["params"]:
        return None
    for index, combo in enumerate(itertools.product(*benchmark["params"])):
        if ", ".join(combo) == params:
            return index
    return -1


def discovery_regex(names: list[str]) -> list[str]:
    """asv's benchmark regexes for exactly these benchmarks; asv matches a parameterized one as "name(params)"."""
    return ["^" + re.escape(name) + r"(\(|$)" for name in names]


def _prepare(config: Path, env_label: str, commits: dict[str, str], names: list[str], root: Path):
    """{side: Side} for one (before, after) pair of commits in one environment, each installed once."""
    from asv import benchmarks as asv_benchmarks
    from asv import environment
    from asv.config import Config
    from asv.repo import get_repo

    from .bench import working_directory

    conf = Config.load(str(config))
    sides = {}
    asv_envs.setup_pythons_first_on_path()  # where asv looks for a 3.13 environment's Python
    with working_directory(config.parent), contextlib.redirect_stdout(sys.stderr):
        repo = get_repo(conf)
        if not Path(conf.repo).exists():
            repo.pull()
        for side, commit in commits.items():
            side_conf = Config.load(str(config))
            side_conf.env_dir = str(root / side)
            wanted = label_requirements(env_label)
            envs = [env for env in environment.get_environments(side_conf, None, verbose=False)
                    if env_requirements(env) >= wanted]
            if not envs:
                raise BadInput(f"confirming needs the environment {env_label!r}, which {config} does not declare")
            env = envs[0]
            log(f"confirm: {side} = {commit[:8]} in {env.name} ({side_conf.env_dir})")
            env.create()
            env.install_project(side_conf, repo, commit)
            sides[side] = (side_conf, env)
        side_conf, env = sides["before"]
        found = asv_benchmarks.Benchmarks.discover(side_conf, repo, [env], [commits["before"]],
                                                   regex=discovery_regex(names))
    return {side: Side(side_conf, env, found, commits[side]) for side, (side_conf, env) in sides.items()}


def measure_pairs(sides: dict, name: str, index: int | None) -> Callable[[int, int], list[tuple[float, float]]]:
    """The ``measure`` of ``sequential``: one batch of pairs, on fresh spawners."""

    def measure(first: int, count: int) -> list[tuple[float, float]]:
        for side in sides.values():
            side.open()
        try:
            pairs = []
            for order in balanced_order(first, count):
                values = {side: sides[side].value(name, index) for side in order}
                pairs.append((values["before"], values["after"]))
            return pairs
        finally:
            for side in sides.values():
                side.close()

    return measure


def check_can_confirm(config: Path | None) -> None:
    """Exit 2 (BadInput) naming what is missing when suspects cannot be re-measured."""
    if config is None:
        raise BadInput("confirming timing suspects needs the asv configuration of the run (the latest "
                       "scripts/bench run's .asv/last-run.json, --output or --config), not only --results and "
                       "--html; or pass --no-confirm for the unconfirmed quick look")
    if not Path(config).is_file():
        raise BadInput(f"confirming needs the asv configuration {config}, which is missing; or pass --no-confirm")
    from asv import util

    repo = util.load_json(str(config), js_comments=True).get("repo", "")
    if not (repo.startswith(("http://", "https://", "git@", "ssh://", "git://")) or Path(repo).exists()):
        raise BadInput(f"confirming needs the benchmarked repository {repo}, which is missing; "
                       "or pass --no-confirm")


def verdicts(config: Path | None, suspects_: list, max_pairs: int = MAX_PAIRS,
             root: Path | None = None) -> list[Verdict]:
    """Each suspect's verdict, measuring both commits side by side.

    Suspects are grouped per (before, after, environment), so that the two
    environments are installed once per group.
    """
    if not suspects_:
        return []
    check_can_confirm(config)
    from asv import util

    from .bench import exclusive

    root = root or env_root(Path(config))
    results = {}
    groups = {}
    for change in suspects_:
        if not change.first:
            results[id(change)] = Verdict(change, UNDECIDED, None, 0.0, note="no earlier commit to compare with")
            continue
        groups.setdefault((change.first, change.last, change.env), []).append(change)
    for (before, after, env_label), changes in groups.items():
        names = sorted({c.benchmark for c in changes})
        started = time.monotonic()
        with exclusive(root):
            try:
                sides = _prepare(Path(config), env_label, {"before": before, "after": after}, names, root)
            except (OSError, util.ProcessError, util.UserError) as error:
                raise Failed(f"cannot install {before[:8]} and {after[:8]} to confirm: {error}") from None
            setup_seconds = time.monotonic() - started
            log(f"confirm: {len(changes)} suspect(s) of {before[:8]} → {after[:8]} ({env_label}); "
                f"environments ready in {setup_seconds:.0f} s")
            for change in changes:
                started = time.monotonic()
                name = change.benchmark
                if name not in sides["before"].benchmarks:
                    results[id(change)] = Verdict(change, UNDECIDED, None, 0.0, note="not in the suite any more")
                    continue
                index = param_index(sides["before"].benchmarks[name], change.params)
                if index == -1:
                    results[id(change)] = Verdict(change, UNDECIDED, None, 0.0, note="params not in the suite")
                    continue
                verdict, found, b, a = sequential(measure_pairs(sides, name, index), max_pairs)
                seconds = time.monotonic() - started
                log(f"confirm: {change.entry}: {verdict}, {found.estimate:+.1%} "
                    f"[{found.low:+.1%}, {found.high:+.1%}], {found.pairs} pairs, {seconds:.0f} s")
                results[id(change)] = Verdict(change, verdict, found, seconds, b, a)
    return [results[id(change)] for change in suspects_]


def render(found: list[Verdict], label: Callable[[str], str] = lambda commit: commit[:8]) -> str:
    """The Markdown section listing every suspect with its verdict, estimate, interval and pairs."""
    lines = ["", "## Timing suspects, re-measured side by side", "",
             f"Each timing change beyond its suspect threshold, measured again in fresh processes of both "
             f"commits in balanced order (A B B A …); Hodges-Lehmann estimate of ln(after / before) with its "
             f"exact signed-rank interval at {CONFIDENCE:.0%}. Slower: the whole interval above +{FLOOR:.0%}; "
             f"same: the whole interval below +{SAME_BELOW:.0%}; undecided otherwise after {START_PAIRS} to the cap of pairs. "
             "Only slower counts.", ""]
    if not found:
        lines.append("No timing suspect.")
        return "\n".join(lines) + "\n"
    lines += [f"| verdict | kind | benchmark | params | environment | commits | change | {CONFIDENCE:.0%} interval "
              "| pairs | s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for v in found:
        c = v.change
        span = f"{label(c.first)} → {label(c.last)}" if c.first else label(c.last)
        if v.interval is None:
            estimate = interval_text = pairs = "—"
        else:
            estimate = f"{v.interval.estimate:+.1%}"
            interval_text = f"{v.interval.low:+.1%} to {v.interval.high:+.1%}"
            pairs = str(v.interval.pairs)
        verdict = f"**{v.verdict}**" if v.verdict == SLOWER else v.verdict
        if v.note:
            verdict += f" ({v.note})"
        lines.append(f"| {verdict} | {c.kind} | `{c.benchmark}` | {c.params or '—'} | {c.env} | {span} "
                     f"| {estimate} | {interval_text} | {pairs} | {v.seconds:.0f} |")
    return "\n".join(lines) + "\n"
