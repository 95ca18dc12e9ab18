"""The confirm step: every timing suspect re-measured side by side, on asv's own machinery.

Each commit gets its own asv environment (asv's Environment.create and
install_project); benchmark processes run in balanced order A B, B A, ... and
give one value each (a track_ value, or the median of a time_ benchmark's
samples); ``pairs`` turns them into a verdict.  Every process is a fresh
interpreter (asv's "spawn" launch method), with its own hash seed and memory
layout, as pyperf's workers are: forks of one server per side share the
server's, which move the timings, so their pairs were not independent and
the interval was too narrow (docs/timing-noise.md).
asv's own ``--interleave-rounds`` keeps one value of a track_ benchmark per
run, not per process, and reinstalls the commit at every switch, hence this
loop over asv's private one-process call (asvtools/private.py, which checks
that asv is the version pyproject.toml pins).  docs/gate.md has the design.
"""

import contextlib
import itertools
import random
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics

from .. import util
from ..asvtools import device, private
from ..asvtools import environments as asv_envs
from ..asvtools.lock import exclusive
from ..errors import BadInput, Failed
from .pairs import MAX_PAIRS, UNDECIDED, Interval, balanced_order, decided_faster, sequential

LAUNCH_METHOD = "spawn"  # a fresh interpreter per measured process, whatever the asv configuration says
QUICK = {"number": 1, "repeat": 1, "warmup_time": 0, "rounds": 1}  # asv run --quick's: one timed call

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
    """The alerting timing changes to confirm, worst first."""
    found = [
        c
        for c in changes
        if metrics.alerting_timing(c.entry) and c.after > c.before * (1 + suspect_threshold(c, thresholds))
    ]
    return sorted(found, key=lambda c: -c.ratio)


@dataclass
class Confirmation:
    change: object  # a changes.Change
    verdict: str
    interval: Interval | None
    seconds: float
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)
    note: str = ""

    @property
    def faster(self) -> bool:
        return self.interval is not None and decided_faster(self.interval)


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

        self.spawner = runner.get_spawner(self.env, self.benchmarks.benchmark_dir, LAUNCH_METHOD)

    def close(self):
        from asv import util as asv_util

        for cache_dir in self.cache_dirs.values():
            asv_util.long_path_rmtree(cache_dir, True)
        self.cache_dirs = {}
        if self.spawner is not None:
            with contextlib.redirect_stdout(sys.stderr):
                self.spawner.close()
            self.spawner = None

    def run(self, name: str, param_index: int | None, profile: bool = False, extra_params: dict | None = None):
        """One fresh process of benchmark ``name`` at ``param_index``: asv's result, its profile with ``profile``."""
        benchmark = self.benchmarks[name]
        if benchmark.get("timeout") is None:  # as asv.runner.run_benchmarks sets it
            benchmark["timeout"] = private.default_benchmark_timeout(self.env)
        key = benchmark.get("setup_cache_key")
        cwd = None
        if key is not None:
            if key not in self.cache_dirs:
                cache_dir, stderr = self.spawner.create_setup_cache(name, benchmark["timeout"], "{}")
                if cache_dir is None:
                    raise Failed(f"{name}: setup_cache failed at {self.commit[:8]}: {stderr}")
                self.cache_dirs[key] = cache_dir
            cwd = self.cache_dirs[key]
        result = private.run_one_process(
            benchmark,
            self.spawner,
            param_index if benchmark["params"] else None,
            profile=profile,
            extra_params=extra_params or {},
            cwd=cwd,
        )
        if result.errcode != 0 or result.result[0] is None:
            raise Failed(
                f"{name} failed at {self.commit[:8]} (exit {result.errcode}): {(result.stderr or '').strip()[-500:]}"
            )
        return result

    def value(self, name: str, param_index: int | None, hash_seed: str | None = None) -> float:
        """One fresh process of benchmark ``name`` at ``param_index``: its track value or median sample.

        Its PYTHONHASHSEED is ``hash_seed``; None: unset, so that it draws its
        own, as every fresh interpreter does (a seed set for this process would
        make all of them alike).
        """
        from asv_runner.statistics import compute_stats

        with util.environ(PYTHONHASHSEED=hash_seed):
            result = self.run(name, param_index)
        value, samples, number = result.result[0], result.samples[0], result.number[0]
        if samples is not None and number is not None:
            value = compute_stats(samples, number)[0]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise Failed(f"{name} gave {value!r} at {self.commit[:8]}: a confirmable value must be a positive number")
        return float(value)

    def profile(self, name: str, param_index: int | None) -> bytes:
        """cProfile's data of one call of benchmark ``name`` at ``param_index`` in a fresh process, after one
        timed call (asv run --quick's: its caches warm), as asv profile makes it."""
        result = self.run(name, param_index, profile=True, extra_params=QUICK)
        if not result.profile:
            raise Failed(f"{name} gave no profile at {self.commit[:8]}")
        return result.profile


def env_requirements(env) -> set[str]:
    """An asv environment's Python and pinned requirements as 'name version' strings, as the gate labels them."""
    found = {f"Python {env.python}"}
    for key, version in env.requirements.items():
        name = key[1] if isinstance(key, tuple) else key
        if version:
            found.add(f"{name} {version}")
    return found


def label_requirements(label: str) -> set[str]:
    """An environment label's Python and requirements; the device and driver it names (asvtools/device.py) are where
    a result was measured, which asv does not install, so they are left out."""
    parts = {part.strip() for part in label.split(",") if part.strip() and part.strip() != "—"}
    return {part for part in parts if part.split(" ", 1)[0] not in device.PARAMS}


def env_root(config: Path) -> Path:
    """Where the confirm step keeps its two environments: confirm-env/{before,after} beside the config's env_dir."""
    env_dir = Path(util.load_asv_config(config).get("env_dir", "env"))
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


def prepare(config: Path, env_label: str, commits: dict[str, str], names: list[str], root: Path):
    """{side: Side} for one (before, after) pair of commits in one environment, each installed once in
    ``root``/side; the benchmarks ``names`` are discovered in the first side.  The environment is the first
    whose Python and requirements include ``env_label``'s ("" takes the configuration's first)."""
    from asv import benchmarks as asv_benchmarks
    from asv import environment
    from asv.config import Config
    from asv.repo import get_repo

    conf = Config.load(str(config))
    sides = {}
    asv_envs.setup_pythons_first_on_path()  # where asv looks for a 3.13 environment's Python
    with contextlib.chdir(config.parent), contextlib.redirect_stdout(sys.stderr):
        repo = get_repo(conf)
        if not Path(conf.repo).exists():
            repo.pull()
        for side, commit in commits.items():
            side_conf = Config.load(str(config))
            side_conf.env_dir = str(root / side)
            wanted = label_requirements(env_label)
            envs = [
                env
                for env in environment.get_environments(side_conf, None, verbose=False)
                if env_requirements(env) >= wanted
            ]
            if not envs:
                raise BadInput(f"confirming needs the environment {env_label!r}, which {config} does not declare")
            env = envs[0]
            log(f"{side}: {commit[:8]} in {env.name} ({side_conf.env_dir})")
            env.create()
            env.install_project(side_conf, repo, commit)
            sides[side] = (side_conf, env)
        first = next(iter(commits))
        side_conf, env = sides[first]
        found = asv_benchmarks.Benchmarks.discover(
            side_conf, repo, [env], [commits[first]], regex=discovery_regex(names)
        )
    return {side: Side(side_conf, env, found, commits[side]) for side, (side_conf, env) in sides.items()}


def measure_pairs(
    sides: dict, name: str, index: int | None, paired_seeds: random.Random | None = None
) -> Callable[[int, int], list[tuple[float, float]]]:
    """The ``measure`` of ``sequential``: one batch of pairs, each value a fresh interpreter.

    With ``paired_seeds``, both processes of a pair share one PYTHONHASHSEED
    drawn from it, a new one each pair (scripts/timing-noise --hash-seed
    paired: whether that narrows the spread); otherwise each draws its own.
    """

    def measure(first: int, count: int) -> list[tuple[float, float]]:
        for side in sides.values():
            side.open()
        try:
            pairs = []
            for order in balanced_order(first, count):
                seed = str(paired_seeds.randrange(2**32)) if paired_seeds else None
                values = {side: sides[side].value(name, index, seed) for side in order}
                pairs.append((values["before"], values["after"]))
            return pairs
        finally:
            for side in sides.values():
                side.close()

    return measure


def check_can_confirm(config: Path | None) -> None:
    """Exit 2 (BadInput) naming what is missing when suspects cannot be re-measured."""
    if config is None:
        raise BadInput(
            "confirming timing suspects needs the asv configuration of the run (the latest "
            "scripts/bench run's .asv/last-run.json, --output or --config), not only --results and "
            "--html; or pass --no-confirm for the unconfirmed quick look"
        )
    if not Path(config).is_file():
        raise BadInput(f"confirming needs the asv configuration {config}, which is missing; or pass --no-confirm")
    repo = util.load_asv_config(config).get("repo", "")
    if not (util.is_remote(repo) or Path(repo).exists()):
        raise BadInput(f"confirming needs the benchmarked repository {repo}, which is missing; or pass --no-confirm")


def confirmation(change, sides: dict, max_pairs: int, suspects: int) -> Confirmation:
    """One suspect's verdict, its benchmark measured in pairs on the two installed ``sides``."""
    started = time.monotonic()
    name = change.benchmark
    if name not in sides["before"].benchmarks:
        return Confirmation(change, UNDECIDED, None, 0.0, note="not in the suite any more")
    index = param_index(sides["before"].benchmarks[name], change.params)
    if index == -1:
        return Confirmation(change, UNDECIDED, None, 0.0, note="params not in the suite")
    verdict, found, b, a = sequential(measure_pairs(sides, name, index), max_pairs, suspects)
    seconds = time.monotonic() - started
    log(
        f"confirm: {change.entry}: {verdict}, {found.estimate:+.1%} "
        f"[{found.low:+.1%}, {found.high:+.1%}], {found.pairs} pairs, {seconds:.0f} s"
    )
    return Confirmation(change, verdict, found, seconds, b, a)


def confirmations(
    config: Path | None,
    suspects_: list,
    max_pairs: int = MAX_PAIRS,
    root: Path | None = None,
    measured: Callable[[Confirmation], None] | None = None,
) -> list[Confirmation]:
    """Each suspect's verdict, measuring both commits side by side.

    Suspects are grouped per (before, after, environment), so that the two
    environments are installed once per group.  The night's error rate is
    shared by all of them (pairs.look_confidence).  ``measured`` is called
    with each confirmation as soon as it is measured, so that a caller can
    keep it before the next one starts.
    """
    if not suspects_:
        return []
    check_can_confirm(config)
    from asv import util as asv_util

    config = Path(config).resolve()  # prepare reads it from the config's own folder
    root = root or env_root(config)
    results = {}
    groups = {}
    for change in suspects_:
        if not change.good:
            results[id(change)] = Confirmation(change, UNDECIDED, None, 0.0, note="no earlier commit to compare with")
            continue
        groups.setdefault((change.good, change.bad, change.env), []).append(change)
    for (before, after, env_label), changes in groups.items():
        names = sorted({c.benchmark for c in changes})
        started = time.monotonic()
        with exclusive(root):
            try:
                sides = prepare(Path(config), env_label, {"before": before, "after": after}, names, root)
            except (OSError, asv_util.ProcessError, asv_util.UserError) as error:
                raise Failed(f"cannot install {before[:8]} and {after[:8]} to confirm: {error}") from None
            setup_seconds = time.monotonic() - started
            log(
                f"confirm: {len(changes)} suspect(s) of {before[:8]} → {after[:8]} ({env_label}); "
                f"environments ready in {setup_seconds:.0f} s"
            )
            for change in changes:
                results[id(change)] = confirmation(change, sides, max_pairs, len(suspects_))
                if measured is not None:
                    measured(results[id(change)])
    return [results[id(change)] for change in suspects_]
