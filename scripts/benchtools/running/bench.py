"""The suite run with asv over releases, a repository or JAX's history, in stages under locks; its site published."""

import concurrent.futures
import dataclasses
import hashlib
import itertools
import json
import os
import platform
import re
import shutil
import subprocess
import time
import traceback
from pathlib import Path

from packaging.version import Version

from benchmarks import metrics, params
from benchmarks.instruction_ops import OPERATIONS, TWINS

from .. import git, settings, util
from ..asvtools import device, runs, suite
from ..asvtools import environments as asv_envs
from ..asvtools.lock import exclusive, one_environment
from ..asvtools.sides import discovery_regex, log
from ..errors import BadInput, Error, ExitCode, Failed
from ..history import release_history
from ..judging.instructions import BENCHMARK
from ..project import HERE_REPO, HISTORY_DIR, JAX_CONFIG, ROOT, UPSTREAM_CONFIG, asv_home
from ..publishing import blocks, generated, page, rows, site

DEFAULT_RELEASES, ANSWER_RELEASES = "3", "1"  # the first answer's: the newest release
ENV_DIR = ROOT / ".asv" / "env"  # shared by every command that runs asv
PACKAGE_PATHS = ("equinox", "pyproject.toml")  # what a commit must change to be benchmarked
BENCH_TIME_BLOCK = "bench-time"
STEADY_UNIT = "tree_map passes"  # a time in a unit that scales with the machine (benchmarks/bench_overhead.py)


@dataclasses.dataclass
class Options:
    range: str | None = None
    quick: bool = False
    releases: str = DEFAULT_RELEASES
    repo: str | None = None
    jax_history: bool = False
    branch: str = "main"
    jax: list[str] = dataclasses.field(default_factory=list)
    machine: str = platform.node() or "localhost"
    output: Path = ROOT
    retry_failed: bool = False
    env_dir: Path = ENV_DIR
    index: str | None = None
    bench: list[str] = dataclasses.field(default_factory=list)
    include_unchanged: bool = False
    answer: bool = False  # the newest release's answer, and its exact and steady figures
    docs: list[Path] = dataclasses.field(default_factory=list)
    here: str | None = None  # a Python whose installed JAX and Equinox are measured (running/here.py)

    def __post_init__(self):
        if self.range and not self.repo:
            raise BadInput("RANGE needs --repo; pick releases with --releases")
        selected = self.repo or self.jax_history or self.quick or self.bench or self.releases != ANSWER_RELEASES
        if self.answer and selected:
            raise BadInput(
                "the first answer is the newest release's exact and steady figures: it takes no "
                "--repo, --jax-history, --quick, --bench or --releases"
            )
        # asv resolves some paths against its own working folder, so relative ones would point elsewhere.
        self.output = Path(self.output).resolve()
        self.env_dir = Path(self.env_dir).resolve()


class Target:
    """What a run measures (a repository, its branch, the release history it follows) and where its files go."""

    def __init__(self, args: Options):
        self.args, self.base, self.branch, self.history = args, UPSTREAM_CONFIG, "main", None
        if args.here is not None:
            self.name, self.repo = "here", HERE_REPO
        elif args.jax_history:
            self.base, self.name, self.repo = JAX_CONFIG, "jax-history", HISTORY_DIR / "jax"
            # From the reference JAX to the newest that the newest Python of asv.jax.conf.json gets.
            config = settings.load()
            python = release_history.python_series(max(config.jax["pythons"], key=Version))
            self.history = dict(package="jax", since=Version(config.reference_jax), python=python)
        elif args.repo:
            self.branch = args.branch
            local = not util.is_remote(args.repo)
            self.repo = Path(args.repo).resolve() if local else args.repo
            if local and not (self.repo / ".git").exists() and not (self.repo / "objects").is_dir():
                raise BadInput(f"--repo {args.repo}: not a git repository")
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(args.repo.rstrip("/")).name.removesuffix(".git"))
            digest = hashlib.sha256(args.repo.encode()).hexdigest()[:8]
            self.name = "upstream" if args.repo.rstrip("/") == settings.load().upstream_url else f"repo-{stem}-{digest}"
        else:
            self.name, self.repo = "answer" if args.answer else "releases", HISTORY_DIR / "equinox"
            self.history = dict(package="equinox")
        self.name += "-quick" * args.quick
        self.results_dir = args.output / "results" / self.name
        self.html_dir = args.output / "html" / self.name
        self.config_dir = args.output / ".asv" / "configs"

    def config(self, env: dict | None = None, suffix: str = "") -> Path:
        config = util.load_asv_config(self.base)
        config.update(
            repo=str(self.repo),
            branches=[self.branch],
            benchmark_dir=str(ROOT / config["benchmark_dir"]),
            env_dir=str(self.args.env_dir),
            results_dir=str(self.results_dir),
            html_dir=str(self.html_dir),
            regressions_thresholds=metrics.asv_thresholds(),
            regressions_first_commits=metrics.asv_first_commits(),
        )
        if env is not None:
            asv_envs.restrict(config, env)
        path = self.config_dir / f"{self.name}{suffix}.conf.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=2))
        return path


def git_dir(target: Target) -> Path:
    """The git repository of the target's commits: the path given, or asv's mirror of a remote one."""
    if isinstance(target.repo, Path):
        return target.repo
    return target.config_dir / util.load_asv_config(target.base)["project"]


def environments(target: Target) -> list[tuple[str, dict]]:
    """(name, matrix entry) of each environment to run; one whose Python is missing is left out, saying why."""
    named = asv_envs.named_entries(asv_envs.asv_config(target.config()))
    wanted, jax = target.args.jax, f"JAX {', '.join(target.args.jax)}"
    if wanted and not (named := [(name, entry) for name, entry in named if entry.get(("req", "jax")) in wanted]):
        raise BadInput(f"no environment has {jax}")
    if target.args.answer and not wanted:  # each Python's newest JAX: the one that its users install today
        by_python = {}
        for name, entry in named:
            by_python.setdefault(asv_envs.python_of(entry), []).append((name, entry))
        named = [max(envs, key=lambda env: Version(env[1][("req", "jax")])) for envs in by_python.values()]
    if not (chosen := asv_envs.present(named, "scripts/bench")):
        raise Failed(f"no environment to run{f' with {jax}' if wanted else ''}: its Python is missing (see above)")
    return chosen


def releases(target: Target) -> list[tuple[release_history.Release, str]]:
    args = target.args
    select = None if args.releases == "all" else args.releases
    index = {"index": args.index} if args.index else {}
    return release_history.build(
        release_history.Options(repo=target.repo, select=select, select_option="--releases", **target.history, **index)
    )


def hashes_by_python(selected: list[tuple[release_history.Release, str]], pythons: list[str]) -> dict[str, list[str]]:
    """For the JAX history, each release on the oldest Python that admits it (old jaxlibs have no new wheels), the
    last one also on the next, so that the lines meet."""
    taken, by_python = set(), {}
    for python in pythons:
        admitted = [commit for release, commit in selected if release.admits(release_history.python_series(python))]
        bridge = [commit for commit in admitted if commit in taken][-1:]
        by_python[python] = [commit for commit in admitted if commit not in taken or commit in bridge]
        taken |= set(admitted)
    return by_python


def quarantine_unreadable(target: Target) -> None:
    """Move the results files that a killed run left half-written aside, so that asv loads the rest."""
    quarantine = target.args.output / ".asv" / "quarantine" / target.name
    for path, error in runs.unreadable(target.results_dir, target.args.machine):
        quarantine.mkdir(parents=True, exist_ok=True)
        destination = quarantine / f"{path.name}.{time.time_ns()}"
        shutil.move(path, destination)
        log(f"warning: {path} is unreadable ({error}); moved to {destination}")


def unchanged_package(repo: Path, hashes: list[str]) -> list[str]:
    """The commits whose PACKAGE_PATHS are their first parent's, which asv would measure again (a root is kept)."""
    differs = [git.run("diff", "--quiet", f"{h}^", h, "--", *PACKAGE_PATHS, repo=repo, check=False) for h in hashes]
    return [h for h, diff in zip(hashes, differs, strict=True) if diff.returncode == 0]


def chosen_commits(target: Target, selected) -> tuple[list[str], list[str]]:
    """The commits to benchmark, and those left out as unchanged; NEW and EXISTING read the results once sound."""
    args = target.args
    reads_results = selected is None and args.range in ("NEW", "EXISTING")
    if selected is not None:
        hashes = [commit for _release, commit in selected]
    elif not reads_results:
        hashes = runs.range_hashes(target.config(), target.branch, args.range, target.results_dir)
    quarantine_unreadable(target)
    if reads_results:
        hashes = runs.range_hashes(target.config(), target.branch, args.range, target.results_dir)
    if selected is not None or args.include_unchanged:
        return hashes, []
    unchanged = unchanged_package(git_dir(target), hashes)
    if unchanged:
        log(
            f"{len(unchanged)} commit(s) leave the package ({', '.join(PACKAGE_PATHS)}) as their parent has it, "
            f"so they are not benchmarked and get no results: {' '.join(h[:8] for h in unchanged)}"
        )
    return [h for h in hashes if h not in unchanged], unchanged


def record_last_run(target: Target, hashes: list[str], unchanged: list[str] = ()) -> None:
    """Tell scripts/regressions which results the latest run wrote, and which commits it left out."""
    record = {"config": str(target.config()), "results_dir": str(target.results_dir), "html_dir": str(target.html_dir)}
    record |= {"machine": target.args.machine, "commits": hashes, "unchanged": list(unchanged)}
    util.write_atomic(target.args.output / ".asv" / "last-run.json", json.dumps(record, indent=2).encode())


def publish(target: Target) -> None:
    util.checked(util.asv("publish", "--config", target.config()))
    print(f"{target.html_dir}: {site.localize(target.html_dir)} CDN address(es) now served from vendor/")
    if target.history is not None:  # a release history: its hashes exist nowhere upstream
        linked = site.link_releases(target.html_dir, target.history["package"])
        print(f"{target.html_dir}: {linked} release(s) linked to their upstream pages")
    try:
        write_overhead_page(target)
    except Exception as error:  # noqa: BLE001 - the site stands without the report page
        if not isinstance(error, Error):
            traceback.print_exc()
        log(f"scripts/overhead-report: {error}\nwarning: the overhead report was not written; see above")


def write_overhead_page(target: Target) -> None:
    repo = target.repo if isinstance(target.repo, Path) else HISTORY_DIR / "equinox"
    found = rows.load_rows(target.results_dir, repo, target.args.machine)
    print(f"wrote {page.html_page(found, rows.investigate(found, target.config()), target.html_dir)}")


class Clock:
    """Wall time by phase, and the load around it, for the --docs files' BLOCK (checked before anything runs)."""

    def __init__(self, docs: list[Path], block: str):
        for path in docs:
            generated.write_blocks(path, {block: ""}, write=False)
        self.docs, self.block = docs, block
        self.started = self.last = time.monotonic()
        self.load_before, self.phases = os.getloadavg()[0], {}

    def phase(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = self.phases.get(name, 0.0) + now - self.last
        self.last = now

    def finish(self, what: str, before: str = "", after: str = "") -> str:
        self.phase("publishing the site")
        took = (
            f"{what}, took {sum(self.phases.values()) / 60:.1f} min of wall time{before}: "
            + ", ".join(f"{seconds:.0f} s {phase}" for phase, seconds in self.phases.items())
            + f"{after}. Load average before and after: {self.load_before:.2f} and {os.getloadavg()[0]:.2f}, on "
            f"{os.cpu_count()} cores."
        )
        for path in self.docs:
            generated.write_blocks(path, {self.block: took})
        return took


def bench(args: Options) -> int:
    clock, folders_before = Clock(args.docs, BENCH_TIME_BLOCK), environment_folders(args.env_dir)
    target = Target(args)
    asv_envs.setup_pythons_first_on_path()
    envs = environments(target)
    selected = releases(target) if target.history is not None else None
    hashes, unchanged = chosen_commits(target, selected)
    env_hashes = {name: hashes for name, _ in envs}
    if args.jax_history:
        pythons = sorted({asv_envs.python_of(entry) for _, entry in envs}, key=release_history.python_series)
        by_python = hashes_by_python(selected, pythons)
        env_hashes = {name: by_python[asv_envs.python_of(entry)] for name, entry in envs}
    tags = git.tag_of_commit(target.repo) if isinstance(target.repo, Path) else {}
    clock.phase("choosing the commits (the release history built or updated)")
    log(f"\n{len(hashes)} commit(s) of {target.repo} in {len(envs)} environment(s), machine {args.machine!r}")
    for number, (_, entry) in enumerate(envs, 1):  # an environment built before the lock's runner is never measured
        runs.refuse_another_runner(runs.environment_python(target.config(entry, f"-{number}")))
    asv_failed, ran = run_stages(target, envs, env_hashes, tags, clock.phase)
    has_results = any(target.results_dir.glob("*/*-*.json"))
    if has_results and (ran or not (target.html_dir / "index.html").is_file()):  # the site is stale
        publish(target)
    record_last_run(target, hashes, unchanged)
    what = "the first answer (the newest release's answer, and its exact and steady figures)"
    took = clock.finish(
        f"`scripts/bench`, {what if args.answer else f'{len(hashes)} commit(s)'} in {len(envs)} environment(s)",
        before=" after scripts/setup",
        after=f"; {len(environment_folders(args.env_dir) - folders_before)} environment(s) were created in it",
    )
    print(f"\nSummary ({(time.monotonic() - clock.started) / 60:.1f} min wall time)")
    incomplete = summary(target, envs, env_hashes, tags)
    if args.answer and has_results:
        print("\n" + blocks.answer_markdown(rows.load_rows(target.results_dir, target.repo, args.machine, latest=True)))
    print(f"\n{took}\n")
    print_places(target)
    return ExitCode.FOUND if asv_failed or incomplete else ExitCode.OK


def environment_folders(env_dir: Path) -> set[Path]:
    return {path for path in env_dir.iterdir() if path.is_dir()} if env_dir.is_dir() else set()


def summary(target: Target, envs: list[tuple[str, dict]], env_hashes: dict, tags: dict) -> int:
    """Print each environment's commits by state; how many failed in part or have no results."""
    incomplete = 0
    for env_name, _ in envs:
        by_state = {state: [] for state in ("ran", "failed", "skipped", "missing")}
        for h in env_hashes[env_name]:
            path = runs.result_path(target.results_dir, target.args.machine, h, env_name)
            state, failures = runs.classify(path, target.args.machine)
            partial = state == "ran" and failures
            incomplete += bool(partial) + (state == "missing")
            by_state[state].append(tags.get(h, h[:8]) + (f"({failures} failed)" if partial else ""))
        print(f"  {env_name}:")
        for state, names in by_state.items():
            if names:
                print(f"    {state:8} {len(names):3}  {' '.join(names)}")
    return incomplete


def print_places(target: Target) -> None:
    print(f"  results: {target.results_dir}")
    if (target.html_dir / "index.html").is_file():
        print(f"  site:    {target.html_dir / 'index.html'}")
        print(f"  serve:   {' '.join(map(str, util.asv('preview', '--config', target.config())))}")


def answer_benchmarks(described: dict) -> tuple[list[str], list[str]]:
    """The first answer's benchmarks: (the exact ones, measured beside other runs; the timed ones, measured alone).
    No instruction count: only the gate reads them, across commits, and the first answer's pages show none."""
    steady_class, timing = metrics.PASSES_TREE_AT.rsplit(".", 1)[0] + ".", set(metrics.TIMING_KINDS)
    kinds = {
        name: {metrics.kind(metrics.entry(name, ", ".join(c))) for c in itertools.product(*benchmark["params"])}
        for name, benchmark in described.items()
        if name != "version"
    }
    alone = {
        name
        for name in kinds
        if name.startswith(rows.ANSWER_MODULE)
        or described[name]["unit"] == STEADY_UNIT
        and name.startswith(steady_class)
    }
    exact = [
        name for name, found in kinds.items() if not found & (timing | {metrics.INSTRUCTIONS}) and name not in alone
    ]
    timed = [name for name, found in kinds.items() if name in alone or found & timing and found - timing]
    return sorted(exact), sorted(timed)


@dataclasses.dataclass(frozen=True)
class Stage:
    phase: str
    # Every environment's run at once, for figures that no load moves; else one at a time, so a timing runs alone.
    overlapping: bool
    benchmarks: tuple[str, ...] = ()  # empty: --bench's regexes, or every benchmark


def stages(answer: bool) -> list[Stage]:
    if not answer:
        return [Stage("running asv (creating and installing its environments)", overlapping=False)]
    exact, timed = answer_benchmarks(json.loads(suite.description()))
    measuring = "creating the environments and measuring the exact figures, all at once"
    return [
        Stage(measuring, overlapping=True, benchmarks=tuple(exact)),
        Stage("timing the answer and tree_at's steady figures, one environment at a time", False, tuple(timed)),
    ]


def run_asv(target: Target, config, lock, regexes: list[str], *extra: str, prefix=None, pythonpath=None) -> int:
    """asv run under LOCK, with a HOME of its own; unbuffered with PREFIX, so that lines come as written."""
    args = target.args
    cmd = util.asv("run", "--config", config, "--machine", args.machine, "--show-stderr", *extra)
    cmd += ["--quick"] * args.quick + [word for regex in regexes for word in ("--bench", regex)]
    with lock, asv_home() as env:
        env[params.QUICK_VARIABLE] = "1" if args.quick else ""
        env[params.OPERATIONS_VARIABLE] = json.dumps(counted) if (counted := counted_operations(regexes)) else ""
        record_machine(args.machine, target.base, env)
        env["PIP_CONSTRAINT"] = str(runs.runner_constraint())  # the lock's asv_runner
        if pythonpath:  # asv's existing environment runs with PYTHONPATH, an environment's Python with ASV_PYTHONPATH
            env["PYTHONPATH"] = env["ASV_PYTHONPATH"] = os.pathsep.join(
                filter(None, [pythonpath, env.get("PYTHONPATH")])
            )
        return util.run(cmd if prefix is None else [cmd[0], "-u", *cmd[1:]], prefix=prefix, env=env).returncode


def counted_operations(regexes: list[str]) -> list[str]:
    """The operations of bench_instructions that asv's --bench REGEXES select, as asv selects parameters; [] where
    they select all or none of them, as the one valgrind process then counts all."""
    names = [
        operation
        for operation in OPERATIONS
        if any(re.search(regex, f"{BENCHMARK}.track_{twin}({operation!r})") for regex in regexes for twin in TWINS)
    ]
    return names if len(names) < len(OPERATIONS) else []


def record_machine(machine: str, config, env: dict) -> None:
    util.checked(
        util.asv("machine", "--yes", "--machine", machine, "--config", config), stdout=subprocess.DEVNULL, env=env
    )


def asv_run(target: Target, stage: Stage, number: int, env_name: str, entry: dict, pending: list[str]) -> int:
    """The stage over ``pending`` in one environment, under its lock; asv's exit code."""
    hashfile = target.config_dir / f"{target.name}-{number}.hashes"
    hashfile.write_text("\n".join(pending) + "\n")
    env_dir = target.args.env_dir
    lock = one_environment(env_dir, env_name) if stage.overlapping else exclusive(env_dir)
    regexes = target.args.bench or discovery_regex(list(stage.benchmarks))
    extra = ("--no-interleave-rounds", "--skip-existing-successful", f"HASHFILE:{hashfile}")
    prefix = f"[{number}] " if stage.overlapping else None
    return run_asv(target, target.config(entry, f"-{number}"), lock, regexes, *extra, prefix=prefix)


def run_stages(target: Target, envs: list[tuple[str, dict]], env_hashes: dict, tags: dict, phase) -> tuple[bool, dict]:
    """Each stage over the commits each environment lacks; whether asv failed, and {environment: commits run}."""
    args, asv_failed, ran = target.args, False, {}
    for stage in stages(args.answer):
        calls = []
        for number, (env_name, entry) in enumerate(envs, 1):
            pending = [h for h in env_hashes[env_name] if needs_run(target, env_name, h, stage.benchmarks)]
            log(
                f"\n=== {stage.phase}: environment {number}/{len(envs)}: {env_name}\n"
                f"=== {len(env_hashes[env_name]) - len(pending)} commit(s) already done, {len(pending)} to run: "
                f"{', '.join(tags.get(h, h[:8]) for h in pending) or 'nothing'}"
            )
            if pending:
                calls.append((number, env_name, entry, pending))
                ran.setdefault(env_name, {}).update(dict.fromkeys(pending))
        # All at once: their installs wait on the network, and the exact figures' total CPU is the same in any order.
        workers = len(calls) if stage.overlapping else 1
        # Two asv runs that start together race to make the machine's folder, and the second fails (FileExistsError).
        (target.results_dir / args.machine).mkdir(parents=True, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(max(workers, 1)) as pool:
            running = {pool.submit(asv_run, target, stage, *call): call[1] for call in calls}
            for future, env_name in running.items():
                code = future.result()
                if code not in (0, 2):  # asv exits 2 when a benchmark failed, and saves the results all the same
                    asv_failed = True
                    log(f"asv run exited {code} in {env_name}; going on")
        phase(stage.phase)
    if ran:
        record_devices(target, envs, ran)
    return asv_failed, ran


def needs_run(target: Target, env_name: str, commit: str, names: tuple[str, ...]) -> bool:
    args = target.args
    path = runs.result_path(target.results_dir, args.machine, commit, env_name)
    if not path.exists() or (names and not set(names) <= runs.result_keys(path, args.machine)):
        return True
    return args.retry_failed and runs.classify(path, args.machine) != ("ran", 0)


def record_devices(target: Target, envs: list[tuple[str, dict]], ran: dict) -> None:
    """Stamp the results this run measured with their environment's device; the others are left byte for byte."""
    machine = target.args.machine
    for number, (env_name, entry) in enumerate(envs, 1):
        paths = [runs.result_path(target.results_dir, machine, commit, env_name) for commit in ran.get(env_name, ())]
        paths = [path for path in paths if path.exists()]
        if not paths:
            continue
        python = runs.environment_python(target.config(entry, f"-{number}"))
        try:
            measured_on = device.probe(python, needs=("jax", "jaxlib")).params()
            measured_on[device.RUNNER] = runs.runner_version(python)
        except Error as error:  # the results stand, read as device.UNRECORDED
            log(f"warning: the device of {env_name} is not recorded: {error}")
            continue
        for path in paths:
            device.stamp(path, machine, measured_on)
