"""Running the suite with asv over releases, a repository or JAX's history, and publishing its site."""

import dataclasses
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from packaging.version import Version

from benchmarks import metrics

from .. import git, settings, util
from ..asvtools import environments as asv_envs
from ..asvtools import runs
from ..errors import BadInput, Error, ExitCode, Failed
from ..history import release_history
from ..project import HERE_REPO, HISTORY_DIR, JAX_CONFIG, ROOT, UPSTREAM_CONFIG
from ..publishing import blocks, generated, page, rows, site
from . import runner

PYTHON = "3.13"
DEFAULT_RELEASES, ANSWER_RELEASES = "3", "1"  # the first answer's: the newest release
ENV_DIR = ROOT / ".asv" / "env"  # asv's environments, shared by every command that runs asv
# What a commit must change to be benchmarked: the package's code and its build and dependency declaration.
PACKAGE_PATHS = ("equinox", "pyproject.toml")
BENCH_TIME_BLOCK = "bench-time"  # what a run took, and under what load (--docs)


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
    answer: bool = False  # the newest release's exact and steady figures, then the caller's headline
    docs: Path | None = None
    here: str | None = None  # a Python whose installed JAX and Equinox are measured (running/here.py)

    def __post_init__(self):
        if self.range and not self.repo:
            raise BadInput("RANGE needs --repo; pick releases with --releases")
        if self.here is not None and (self.range or self.repo or self.jax_history or self.jax or self.retry_failed):
            raise BadInput(
                "--here measures the JAX and Equinox installed in one Python: it takes no RANGE, --repo, "
                "--jax-history, --jax or --retry-failed"
            )
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
        if args.here is not None:  # a user's own Python, its installed JAX and Equinox
            self.name, self.repo = "here", HERE_REPO
        elif args.jax_history:
            self.base, self.name, self.repo = JAX_CONFIG, "jax-history", HISTORY_DIR / "jax"
            # From the reference JAX to the newest that the newest Python of asv.jax.conf.json gets.
            since, python = Version(settings.load().reference_jax), release_history.python_series(PYTHON)
            self.history = dict(package="jax", since=since, python=python)
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
            # Declared once, in benchmarks/metrics.py; asv's step detection and the gate read them here.
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
    return (
        target.repo
        if isinstance(target.repo, Path)
        else target.config_dir / util.load_asv_config(target.base)["project"]
    )


def environments(target: Target) -> list[tuple[str, dict]]:
    """(name, matrix entry) of each environment to run; one whose Python is missing is left out, saying why."""
    named = asv_envs.named_entries(asv_envs.asv_config(target.config()))
    jax = f"JAX {', '.join(target.args.jax)}"
    if target.args.jax:
        named = [(name, entry) for name, entry in named if entry.get(("req", "jax")) in target.args.jax]
        if not named:
            raise BadInput(f"no environment has {jax}")
    chosen = asv_envs.present(named, "scripts/bench")
    if not chosen:
        raise Failed(
            f"no environment to run{f' with {jax}' if target.args.jax else ''}: its Python is missing (see above)"
        )
    return chosen


def releases(target: Target) -> list[tuple[release_history.Release, str]]:
    args = target.args
    return release_history.build(
        release_history.Options(
            repo=target.repo,
            select=None if args.releases == "all" else args.releases,
            select_option="--releases",
            **target.history,
            **({"index": args.index} if args.index else {}),
        )
    )


def hashes_by_python(selected: list[tuple[release_history.Release, str]], pythons: list[str]) -> dict[str, list[str]]:
    """For the JAX history: the commits each Python runs, since asv's matrix cannot name the benchmarked commit. A
    release runs on the oldest of ``pythons`` whose requires_python admits it (old jaxlibs have no wheels for new
    Pythons), and the newest release of one Python also on the next, so that the two lines of the history share a point.
    """
    taken, by_python = set(), {}
    for python in pythons:
        admitted = [commit for release, commit in selected if release.admits(release_history.python_series(python))]
        bridge = [commit for commit in admitted if commit in taken][-1:]
        by_python[python] = [commit for commit in admitted if commit not in taken or commit in bridge]
        taken |= set(admitted)
    return by_python


def quarantine_unreadable(target: Target) -> None:
    """Move results files that a killed run left half-written aside, never deleting them, so that asv loads the rest."""
    quarantine = target.args.output / ".asv" / "quarantine" / target.name
    for path, error in runs.unreadable(target.results_dir, target.args.machine):
        quarantine.mkdir(parents=True, exist_ok=True)
        destination = quarantine / f"{path.name}.{time.time_ns()}"
        shutil.move(path, destination)
        print(f"warning: {path} is unreadable ({error}); moved to {destination}", file=sys.stderr)


def unchanged_package(repo: Path, hashes: list[str]) -> list[str]:
    """The commits whose PACKAGE_PATHS are their first parent's, which asv would measure again (a root is kept)."""
    differs = [git.run("diff", "--quiet", f"{h}^", h, "--", *PACKAGE_PATHS, repo=repo, check=False) for h in hashes]
    return [h for h, diff in zip(hashes, differs, strict=True) if diff.returncode == 0]


def chosen_commits(target: Target, selected) -> tuple[list[str], list[str]]:
    """The commits to benchmark, and those left out as unchanged. Every argument is checked before a results file is
    moved; only NEW and EXISTING read the stored results, so they are resolved once the unreadable ones are aside."""
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
        print(
            f"{len(unchanged)} commit(s) leave the package ({', '.join(PACKAGE_PATHS)}) as their parent has it, "
            f"so they are not benchmarked and get no results: {' '.join(h[:8] for h in unchanged)}",
            file=sys.stderr,
        )
    return [h for h in hashes if h not in unchanged], unchanged


def record_last_run(target: Target, hashes: list[str], unchanged: list[str] = ()) -> None:
    """Tell scripts/regressions which results the latest run wrote, and which commits it left out as unchanged."""
    record = {
        "config": str(target.config()),
        "results_dir": str(target.results_dir),
        "html_dir": str(target.html_dir),
        "machine": target.args.machine,
        "commits": hashes,
        "unchanged": list(unchanged),
    }
    util.write_atomic(target.args.output / ".asv" / "last-run.json", json.dumps(record, indent=2).encode())


def publish(target: Target, headline: Path | None = None) -> None:
    """asv's site, self-contained, with the overhead report's page (with the ``headline`` record's figures)."""
    util.checked(util.asv("publish", "--config", target.config()))
    print(f"{target.html_dir}: {site.localize(target.html_dir)} CDN address(es) now served from vendor/")
    if target.history is not None:  # a release history: its hashes exist nowhere upstream
        linked = site.link_releases(target.html_dir, target.history["package"])
        print(f"{target.html_dir}: {linked} release(s) linked to their upstream pages")
    try:
        write_overhead_page(target, headline)
    except Exception as error:  # noqa: BLE001 - the site stands without the report page
        if not isinstance(error, Error):
            traceback.print_exc()
        print(f"scripts/overhead-report: {error}", file=sys.stderr)
        print("warning: the overhead report was not written; see above", file=sys.stderr)


def write_overhead_page(target: Target, headline: Path | None = None) -> None:
    repo = target.repo if isinstance(target.repo, Path) else HISTORY_DIR / "equinox"
    found = rows.load_rows(target.results_dir, repo, target.args.machine, headline=headline)
    # The history's causes come from the profiles cached beside the configuration: none are made here.
    print(f"wrote {page.html_page(found, rows.investigate(found, target.config()), target.html_dir)}")


class Clock:
    """Wall time by phase, and the load around it, for the time paragraph of a run."""

    def __init__(self):
        self.started = self.last = time.monotonic()
        self.load_before, self.phases = os.getloadavg()[0], {}

    def phase(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = self.phases.get(name, 0.0) + now - self.last
        self.last = now

    def took(self, what: str, before: str = "", after: str = "") -> str:
        return (
            f"{what}, took {sum(self.phases.values()) / 60:.1f} min of wall time{before}: "
            + ", ".join(f"{seconds:.0f} s {phase}" for phase, seconds in self.phases.items())
            + f"{after}. Load average before and after: {self.load_before:.2f} and {os.getloadavg()[0]:.2f}, on "
            f"{os.cpu_count()} cores."
        )


# (target, environments, newest (release, commit)) -> (the record, its table, whether it was measured now).
Headline = Callable[[Target, list[tuple[str, dict]], tuple[release_history.Release, str]], tuple[Path, str, bool]]


def bench(args: Options, headline: Headline | None = None) -> int:
    """Benchmark, measure the ``headline`` (with a release history), publish, summarize; the exit code."""
    if args.docs:
        generated.write_blocks(args.docs, {BENCH_TIME_BLOCK: ""}, write=False)
    clock, folders_before = Clock(), environment_folders(args.env_dir)
    target = Target(args)
    asv_envs.setup_pythons_first_on_path()  # where asv looks for the environments' Pythons
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
    print(
        f"\n{len(hashes)} commit(s) of {target.repo} in {len(envs)} environment(s), machine {args.machine!r}",
        file=sys.stderr,
    )
    asv_failed, ran = runner.run_stages(target, envs, env_hashes, tags, clock.phase)
    record, table, measured = None, None, False
    if headline is not None and selected:
        record, table, measured = headline(target, envs, selected[-1])
        clock.phase("measuring the headline over fresh processes")
    has_results = any(target.results_dir.glob("*/*-*.json"))
    if has_results and (ran or measured or not (target.html_dir / "index.html").is_file()):  # the site is stale
        publish(target, record)
    record_last_run(target, hashes, unchanged)
    clock.phase("publishing the site")
    what = "the first answer (the newest release's exact and steady figures, and the headline)"
    took = clock.took(
        f"`scripts/bench`, {what if args.answer else f'{len(hashes)} commit(s)'} in {len(envs)} environment(s)",
        before=" after scripts/setup",
        after=f"; {len(environment_folders(args.env_dir) - folders_before)} environment(s) were created in it",
    )
    if args.docs:
        generated.write_blocks(args.docs, {BENCH_TIME_BLOCK: took})
    print(f"\nSummary ({(time.monotonic() - clock.started) / 60:.1f} min wall time)")
    incomplete = summary(target, envs, env_hashes, tags)
    if args.answer and has_results:
        print("\n" + blocks.answer_markdown(rows.load_rows(target.results_dir, target.repo, args.machine, latest=True)))
    if table is not None:
        print(f"\nThe headline over fresh processes (scripts/headline; record: {record}):\n\n{table}\n")
    print(f"\n{took}\n")
    print_places(target)
    return ExitCode.FOUND if asv_failed or incomplete else ExitCode.OK


def environment_folders(env_dir: Path) -> set[Path]:
    return {path for path in env_dir.iterdir() if path.is_dir()} if env_dir.is_dir() else set()


def summary(target: Target, envs: list[tuple[str, dict]], env_hashes: dict, tags: dict) -> int:
    """Each environment's commits by state, printed; how many failed in part or have no results."""
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
