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

from benchmarks import metrics

from .. import git, util
from ..asvtools import environments as asv_envs
from ..asvtools import readers, runs
from ..errors import BadInput, Error, ExitCode, Failed
from ..history import release_history
from ..project import HERE_REPO, HISTORY_DIR, JAX_CONFIG, ROOT, UPSTREAM_CONFIG
from ..publishing import blocks, generated, page, rows, site
from ..settings import reference_jax, upstream_url
from . import runner

PYTHON = "3.13"
DEFAULT_RELEASES = "3"
HERE = "here"  # the folder of --here's results and site: a user's own Python, its installed JAX and Equinox
ANSWER = "answer"  # the first answer's folder: the newest release, its exact and steady figures (Options.answer)
ENV_DIR = ROOT / ".asv" / "env"  # asv's environments, shared by every command that runs asv


@dataclasses.dataclass
class Options:
    """One run of scripts/bench (see --help): what to benchmark, where, and how."""

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
    include_unchanged: bool = False  # also the commits that leave the package as their parent had it
    # The first answer: the newest release only, its exact figures and tree_at's steady one (runner.answer_benchmarks),
    # into a folder of its own; the caller adds the headline's figures over fresh processes (bench's headline).
    answer: bool = False
    # A file whose BENCH_TIME_BLOCK gets what the run took (took_markdown); with --here, here.py's blocks.
    docs: Path | None = None
    # scripts/bench --here: the Python (a path, or a name on PATH) whose installed JAX and Equinox are measured, through
    # asv's existing-environment mode (running/here.py); None: asv's own virtualenvs.
    here: str | None = None

    def __post_init__(self):
        if self.range and not self.repo:
            raise BadInput("RANGE needs --repo; pick releases with --releases")
        if self.here is not None and (self.range or self.repo or self.jax_history or self.jax or self.retry_failed):
            raise BadInput(
                "--here measures the JAX and Equinox installed in one Python: it takes no RANGE, --repo, "
                "--jax-history, --jax or --retry-failed"
            )
        if self.answer and (self.repo or self.jax_history or self.quick or self.bench or self.releases != "1"):
            raise BadInput(
                "the first answer is the newest release's exact and steady figures: it takes no "
                "--repo, --jax-history, --quick, --bench or --releases"
            )
        # asv resolves some paths against its own working folder, so relative ones would point elsewhere.
        self.output = Path(self.output).resolve()
        self.env_dir = Path(self.env_dir).resolve()


class Target:
    """What one invocation benchmarks: a base asv configuration, a repository, a folder name."""

    def __init__(self, args: Options):
        self.args = args
        if args.here is not None:
            self.base, self.name, self.history = UPSTREAM_CONFIG, HERE, None
            self.repo, self.branch = HERE_REPO, "main"
        elif args.jax_history:
            self.base, self.name = JAX_CONFIG, "jax-history"
            self.repo, self.branch = HISTORY_DIR / "jax", "main"
            # From the reference JAX to the newest that the newest Python of asv.jax.conf.json gets.
            self.history = dict(package="jax", since=reference_jax(), python=PYTHON)
        elif args.repo:
            self.base, self.branch, self.history = UPSTREAM_CONFIG, args.branch, None
            self.repo = self._repo_location(args.repo)
            self.name = self._repo_name(args.repo)
        else:
            self.base, self.name = UPSTREAM_CONFIG, ANSWER if args.answer else "releases"
            self.repo, self.branch = HISTORY_DIR / "equinox", "main"
            self.history = dict(package="equinox")
        if args.quick:
            self.name += "-quick"
        self.results_dir = args.output / "results" / self.name
        self.html_dir = args.output / "html" / self.name
        self.config_dir = args.output / ".asv" / "configs"

    @staticmethod
    def _repo_location(repo: str):
        if util.is_remote(repo):
            return repo
        path = Path(repo).resolve()
        if not (path / ".git").exists() and not (path / "objects").is_dir():
            raise BadInput(f"--repo {repo}: not a git repository")
        return path

    @staticmethod
    def _repo_name(repo: str) -> str:
        if repo.rstrip("/") == upstream_url():
            return "upstream"
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(repo.rstrip("/")).name.removesuffix(".git"))
        return f"repo-{stem}-{hashlib.sha256(repo.encode()).hexdigest()[:8]}"

    def config(self, env: dict | None = None, suffix: str = "") -> Path:
        """The base configuration pointed at this target, restricted to one environment if given."""
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


def environments(target: Target) -> list[tuple[str, dict]]:
    """(environment name, its matrix entry) for each environment to run.

    An environment whose Python scripts/setup could not provide is left out, with one line that says why
    (environments.present).
    """
    named = asv_envs.named_entries(readers.asv_config(target.config()))
    if target.args.jax:
        named = [(name, entry) for name, entry in named if entry.get(("req", "jax")) in target.args.jax]
        if not named:
            raise BadInput(f"no environment has JAX {', '.join(target.args.jax)}")
    chosen = asv_envs.present(named, "scripts/bench")
    if not chosen:
        raise Failed(
            "no environment to run"
            + (f" with JAX {', '.join(target.args.jax)}" if target.args.jax else "")
            + ": its Python is missing (see above)"
        )
    return chosen


def releases(target: Target) -> list[tuple[release_history.Release, str]]:
    """The selected releases of the target's history (built or updated first), with their commits, oldest first."""
    from packaging.version import Version

    history = dict(target.history)
    if "since" in history:
        history["since"] = Version(history["since"])
    if "python" in history:
        history["python"] = release_history.python_series(history["python"])
    options = release_history.Options(
        repo=target.repo,
        select=None if target.args.releases == "all" else target.args.releases,
        select_option="--releases",
        **history,
    )
    if target.args.index:
        options.index = target.args.index
    return release_history.build(options)


def hashes_by_python(selected: list[tuple[release_history.Release, str]], pythons: list[str]) -> dict[str, list[str]]:
    """For the JAX history: the commits of the releases each Python runs, oldest first.

    asv runs every commit in every environment, and its matrix and exclude rules can name an environment's Python and
    requirements but not the benchmarked commit, so the commit cannot choose the Python there. Each environment gets its
    own list instead: a release runs on the oldest of ``pythons`` (oldest first) whose requires_python admits it (old
    jaxlibs have no wheels for new Pythons), and the newest release of one Python also runs on the next, so that the two
    lines of the history share a point.
    """
    taken: set[str] = set()
    by_python = {}
    for python in pythons:
        admitted = [commit for release, commit in selected if release.admits(release_history.python_series(python))]
        own = [commit for commit in admitted if commit not in taken]
        bridge = [commit for commit in admitted if commit in taken][-1:]
        by_python[python] = [commit for commit in admitted if commit in own or commit in bridge]
        taken |= set(own)
    return by_python


def range_hashes(target: Target, range_spec: str | None) -> list[str]:
    return runs.range_hashes(target.config(), target.branch, range_spec, target.results_dir)


def quarantine_unreadable(target: Target) -> None:
    """Move results files that a killed run left half-written into a quarantine, so that asv can load the rest."""
    quarantine = target.args.output / ".asv" / "quarantine" / target.name
    for path, error in runs.unreadable(target.results_dir, target.args.machine):
        move_aside(path, quarantine, error)


def move_aside(path: Path, quarantine: Path, error: Exception) -> None:
    """Move an unreadable PATH into QUARANTINE, never deleting it."""
    quarantine.mkdir(parents=True, exist_ok=True)
    destination = quarantine / f"{path.name}.{time.time_ns()}"
    shutil.move(path, destination)
    print(f"warning: {path} is unreadable ({error}); moved to {destination}", file=sys.stderr)


def record_last_run(target: Target, hashes: list[str], unchanged: list[str] = ()) -> None:
    """Tell scripts/regressions which results the latest run wrote (OUTPUT/.asv/last-run.json).

    ``unchanged`` are the commits left out because the package is their parent's.
    """
    last_run = target.args.output / ".asv" / "last-run.json"
    last_run.parent.mkdir(parents=True, exist_ok=True)
    last_run.write_text(
        json.dumps(
            {
                "config": str(target.config()),
                "results_dir": str(target.results_dir),
                "html_dir": str(target.html_dir),
                "machine": target.args.machine,
                "commits": hashes,
                "unchanged": list(unchanged),
            },
            indent=2,
        )
    )


# What a commit must change to be benchmarked: the package's code and its build and dependency declaration.
PACKAGE_PATHS = ("equinox", "pyproject.toml")


def git_dir(target: Target) -> Path:
    """The git repository of the target's commits: the path given, or asv's mirror of a remote one."""
    if isinstance(target.repo, Path):
        return target.repo
    return target.config_dir / util.load_asv_config(target.base)["project"]


def unchanged_package(repo: Path, hashes: list[str]) -> list[str]:
    """The commits whose PACKAGE_PATHS are those of their first parent (docs, CI or examples only).

    asv would install the same package and measure the same code again; a commit without a parent, or where a path
    cannot be read, is kept.
    """
    found = []
    for commit in hashes:
        objects = [f"{commit}{suffix}:{path}" for suffix in ("", "^") for path in PACKAGE_PATHS]
        listed = git.run("rev-parse", *objects, repo=repo, check=False)
        trees = listed.stdout.split()
        if (
            listed.returncode == 0
            and len(trees) == 2 * len(PACKAGE_PATHS)
            and trees[: len(PACKAGE_PATHS)] == trees[len(PACKAGE_PATHS) :]
        ):
            found.append(commit)
    return found


def publish(target: Target, headline: Path | None = None) -> None:
    """asv's site, self-contained, with the overhead report's page (with the ``headline`` record's figures)."""
    util.checked(util.asv("publish", "--config", target.config()))
    replaced = site.localize(target.html_dir)
    print(f"{target.html_dir}: {replaced} CDN address(es) now served from vendor/")
    if target.history is not None:  # a release history: its hashes exist nowhere upstream
        linked = site.link_releases(target.html_dir, target.history["package"])
        print(f"{target.html_dir}: {linked} release(s) linked to their upstream pages")
    repo = target.repo if isinstance(target.repo, Path) else HISTORY_DIR / "equinox"
    try:
        page.write_page(
            target.results_dir, target.html_dir, target.args.machine, repo, config=target.config(), headline=headline
        )
    except Exception as error:  # noqa: BLE001 - the site stands without the report page
        if not isinstance(error, Error):
            traceback.print_exc()
        print(f"scripts/overhead-report: {error}", file=sys.stderr)
        print("warning: the overhead report was not written; see above", file=sys.stderr)


# Measures the headline's figures over fresh processes once the suite has run: given the target, its environments and
# the newest selected (release, commit), the record (which the page shows), its table, and whether it was measured now
# (False: an earlier record of the same commit and environment was kept).
Headline = Callable[[Target, list[tuple[str, dict]], tuple[release_history.Release, str]], tuple[Path, str, bool]]
BENCH_TIME_BLOCK = "bench-time"  # what a run took, and under what load (--docs)


def environment_folders(env_dir: Path) -> set[Path]:
    """asv's environments (where the first answer's headline measures too), as folders."""
    return {path for path in env_dir.iterdir() if path.is_dir()} if env_dir.is_dir() else set()


def took_markdown(answer: bool, phases: dict[str, float], loads: tuple, created: int, commits: int, envs: int) -> str:
    """One paragraph: what the run was, its wall time by phase, the environments it created, and the load."""
    what = (
        "the first answer (the newest release's exact and steady figures, and the headline)"
        if answer
        else f"{commits} commit(s)"
    )
    return (
        f"`scripts/bench`, {what} in {envs} environment(s), took {sum(phases.values()) / 60:.1f} min of wall "
        "time after scripts/setup: "
        + ", ".join(f"{seconds:.0f} s {phase}" for phase, seconds in phases.items())
        + f"; {created} environment(s) were created in it. Load average before and after: {loads[0]:.2f} and "
        f"{loads[1]:.2f}, on {os.cpu_count()} cores."
    )


def chosen_commits(target: Target, selected) -> tuple[list[str], list[str]]:
    """The commits to benchmark, and those left out because they leave the package as their parent had it.

    Every argument is checked (--jax, --releases, RANGE) before a results file is moved; only NEW and EXISTING read the
    stored results, so they are resolved once the unreadable ones are out of the way.
    """
    args = target.args
    reads_results = selected is None and args.range in ("NEW", "EXISTING")
    hashes = [commit for _release, commit in selected] if selected is not None else None
    if selected is None and not reads_results:
        hashes = range_hashes(target, args.range)
    quarantine_unreadable(target)
    if reads_results:
        hashes = range_hashes(target, args.range)
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


def bench(args: Options, headline: Headline | None = None) -> int:
    """Benchmark, measure the ``headline`` (with a release history), publish, summarize; the exit code."""
    if args.docs:
        generated.write_blocks(args.docs, {BENCH_TIME_BLOCK: ""}, write=False)
    started = last = time.monotonic()
    load_before, folders_before = os.getloadavg()[0], environment_folders(args.env_dir)
    phases = {}

    def phase(name: str) -> None:
        nonlocal last
        now = time.monotonic()
        phases[name] = phases.get(name, 0.0) + now - last
        last = now

    target = Target(args)
    asv_envs.setup_pythons_first_on_path()  # where asv looks for the environments' Pythons
    envs = environments(target)
    selected = releases(target) if target.history is not None else None
    hashes, unchanged = chosen_commits(target, selected)
    if args.jax_history:
        pythons = sorted({asv_envs.python_of(entry) for _, entry in envs}, key=release_history.python_series)
        by_python = hashes_by_python(selected, pythons)
        env_hashes = {name: by_python[asv_envs.python_of(entry)] for name, entry in envs}
    else:
        env_hashes = {name: hashes for name, _ in envs}
    tags = git.tag_of_commit(target.repo) if isinstance(target.repo, Path) else {}
    phase("choosing the commits (the release history built or updated)")
    print(
        f"\n{len(hashes)} commit(s) of {target.repo} in {len(envs)} environment(s), machine {args.machine!r}",
        file=sys.stderr,
    )
    asv_failed, ran = runner.run_stages(target, envs, env_hashes, tags, phase)
    record = table = None
    measured = False
    if headline is not None and selected:
        record, table, measured = headline(target, envs, selected[-1])
        phase("measuring the headline over fresh processes")
    site_is_stale = ran or measured or not (target.html_dir / "index.html").is_file()
    if site_is_stale and any(target.results_dir.glob("*/*-*.json")):
        publish(target, record)
    record_last_run(target, hashes, unchanged)
    phase("publishing the site")
    created = len(environment_folders(args.env_dir) - folders_before)
    loads = (load_before, os.getloadavg()[0])
    took = took_markdown(args.answer, phases, loads, created, len(hashes), len(envs))
    if args.docs:
        generated.write_blocks(args.docs, {BENCH_TIME_BLOCK: took})
    print(f"\nSummary ({(time.monotonic() - started) / 60:.1f} min wall time)")
    incomplete = summary(target, envs, env_hashes, tags)
    if args.answer and any(target.results_dir.glob("*/*-*.json")):
        print("\n" + blocks.answer_markdown(rows.load_rows(target.results_dir, target.repo, args.machine, latest=True)))
    if table is not None:
        print(f"\nThe headline over fresh processes (scripts/headline; record: {record}):\n\n{table}\n")
    print(f"\n{took}\n")
    print_places(target)
    return ExitCode.FOUND if asv_failed or incomplete else ExitCode.OK


def print_places(target: Target) -> None:
    """Where the results and the site are, and how to serve the site."""
    print(f"  results: {target.results_dir}")
    if (target.html_dir / "index.html").is_file():
        print(f"  site:    {target.html_dir / 'index.html'}")
        print(f"  serve:   {' '.join(map(str, util.asv('preview', '--config', target.config())))}")


def summary(target: Target, envs: list[tuple[str, dict]], env_hashes: dict, tags: dict) -> int:
    """Each environment's commits by state, printed; how many failed in part or have no results."""
    incomplete = 0
    for env_name, _ in envs:
        by_state = {}
        for h in env_hashes[env_name]:
            path = runs.result_path(target.results_dir, target.args.machine, h, env_name)
            state, failures = runs.classify(path, target.args.machine)
            name = tags.get(h, h[:8]) + (f"({failures} failed)" if state == "ran" and failures else "")
            incomplete += bool(state == "ran" and failures) + (state == "missing")
            by_state.setdefault(state, []).append(name)
        print(f"  {env_name}:")
        for state in ("ran", "failed", "skipped", "missing"):
            names = by_state.get(state, [])
            if names:
                print(f"    {state:8} {len(names):3}  {' '.join(names)}")
    return incomplete
