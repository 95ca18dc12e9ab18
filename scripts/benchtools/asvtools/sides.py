"""A commit installed in its own asv environment, measured one fresh process at a time on asv's machinery."""

import contextlib
import copy
import dataclasses
import itertools
import re
import sys
from pathlib import Path

from benchmarks import metrics, params

from .. import util
from ..errors import BadInput, Failed
from ..project import env_label
from . import device, environments, private
from .lock import exclusive

LAUNCH_METHOD = "spawn"  # whatever the asv configuration says
QUICK = {"number": 1, "repeat": 1, "warmup_time": 0, "rounds": 1}  # asv run --quick's


def install_errors() -> tuple[type[Exception], ...]:
    from asv import util as asv_util

    return OSError, asv_util.ProcessError, asv_util.UserError


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclasses.dataclass(eq=False)
class Side:
    conf: object
    env: object
    benchmarks: object
    commit: str
    spawner: object = None
    cache_dirs: dict = dataclasses.field(default_factory=dict)

    def open(self):
        from asv import runner

        self.spawner = runner.get_spawner(self.env, self.benchmarks.benchmark_dir, LAUNCH_METHOD)

    def close_caches(self):
        from asv import util as asv_util

        for cache_dir in self.cache_dirs.values():
            asv_util.long_path_rmtree(cache_dir, True)
        self.cache_dirs = {}

    def close(self):
        self.close_caches()
        if self.spawner is not None:
            with contextlib.redirect_stdout(sys.stderr):
                self.spawner.close()
            self.spawner = None

    def run(self, name: str, param_index: int | None, profile: bool = False, extra_params: dict | None = None):
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
        index = param_index if benchmark["params"] else None
        result = private.run_one_process(benchmark, self.spawner, index, profile, extra_params or {}, cwd)
        if result.errcode != 0 or result.result[0] is None:
            raise Failed(
                f"{name} failed at {self.commit[:8]} (exit {result.errcode}): {(result.stderr or '').strip()[-500:]}"
            )
        return result

    def value(self, name: str, param_index: int | None, hash_seed: str | None = None) -> float:
        """One fresh process's track value or median sample; ``hash_seed`` None: each process draws its own."""
        from asv_runner.statistics import compute_stats

        one_step = answer_step(name, self.benchmarks[name], param_index)
        with util.environ(PYTHONHASHSEED=hash_seed, **one_step):
            result = self.run(name, param_index)
        if one_step:
            self.close_caches()
        value, samples, number = result.result[0], result.samples[0], result.number[0]
        if samples is not None and number is not None:
            value = compute_stats(samples, number)[0]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise Failed(f"{name} gave {value!r} at {self.commit[:8]}: a confirmable value must be a positive number")
        return float(value)

    def profile(self, name: str, param_index: int | None) -> bytes:
        """cProfile's data of one call in a fresh process, after one timed call, as asv profile makes it."""
        if not (result := self.run(name, param_index, profile=True, extra_params=QUICK)).profile:
            raise Failed(f"{name} gave no profile at {self.commit[:8]}")
        return result.profile


def answer_step(name: str, benchmark: dict, index: int | None) -> dict[str, str]:
    """For the answer's figures, the variable that makes setup_cache measure one wrapping's step alone."""
    if not name.startswith(metrics.ANSWER_RATIO.rsplit(".", 1)[0] + "."):
        return {}
    wrapping = list(itertools.product(*benchmark["params"]))[index][0]
    return {params.ONE_STEP_VARIABLE: wrapping.strip("'")}


def label_requirements(label: str) -> set[str]:
    """An environment label's Python and requirements; not its device and driver, which asv does not install."""
    parts = {part.strip() for part in label.split(",") if part.strip() and part.strip() != "—"}
    return {part for part in parts if part.split(" ", 1)[0] not in device.PARAMS}


def env_requirements(env) -> set[str]:
    """An asv environment's Python and pinned requirements, as the gate labels them."""
    return label_requirements(env_label({**env.requirements, "python": env.python}))


def param_index(benchmark: dict, params: str) -> int | None:
    """The flat index of ``params`` ("a, b"); None without params, -1: none."""
    if not benchmark["params"]:
        return None
    combos = [", ".join(combo) for combo in itertools.product(*benchmark["params"])]
    return combos.index(params) if params in combos else -1


def discovery_regex(names: list[str]) -> list[str]:
    """asv's benchmark regexes for exactly these benchmarks; asv matches a parameterized one as "name(params)"."""
    return ["^" + re.escape(name) + r"(\(|$)" for name in names]


def prepare(config: Path, env_label: str, commits: dict[str, str], names: list[str], root: Path) -> dict[str, Side]:
    """{side: Side} of each commit installed in ``root``/side, in the first environment that has ``env_label``."""
    from asv import environment
    from asv.benchmarks import Benchmarks
    from asv.config import Config
    from asv.repo import get_repo

    conf = Config.load(str(config))
    wanted = label_requirements(env_label)
    sides = {}
    environments.setup_pythons_first_on_path()
    with contextlib.chdir(config.parent), contextlib.redirect_stdout(sys.stderr):
        repo = get_repo(conf)
        if not Path(conf.repo).exists():
            repo.pull()
        for side, commit in commits.items():
            side_conf = copy.deepcopy(conf)
            side_conf.env_dir = str(root / side)
            declared = environment.get_environments(side_conf, None, verbose=False)
            if (env := next((e for e in declared if env_requirements(e) >= wanted), None)) is None:
                raise BadInput(f"confirming needs the environment {env_label!r}, which {config} does not declare")
            log(f"{side}: {commit[:8]} in {env.name} ({side_conf.env_dir})")
            env.create()
            env.install_project(side_conf, repo, commit)
            sides[side] = (side_conf, env)
        first, (side_conf, env) = next(iter(sides.items()))
        found = Benchmarks.discover(side_conf, repo, [env], [commits[first]], regex=discovery_regex(names))
    return {side: Side(side_conf, env, found, commits[side]) for side, (side_conf, env) in sides.items()}


@contextlib.contextmanager
def installed(config: Path, side: str, commit: str, names: list[str], root: Path, *, failure: str):
    """The one side of ``commit`` prepared in ``root``, under its lock; Failed, saying ``failure``, if asv cannot."""
    with exclusive(root):
        try:
            [prepared] = prepare(config, "", {side: commit}, names, root).values()
        except install_errors() as error:
            raise Failed(f"{failure}: {error}") from None
        yield prepared
