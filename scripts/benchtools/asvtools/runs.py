"""asv's repositories, results and environments as the runs (running/, trial/) read them."""

import contextlib
import math
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from .. import util
from ..errors import BadInput
from ..project import CONSTRAINTS
from . import environments, private, publishable
from .lock import exclusive
from .results import combinations, failed_benchmarks, stored


def range_hashes(config: Path, branch: str, range_spec: str | None, results_dir: Path) -> list[str]:
    """The commits of RANGE (None: the branch's tip), as `asv run RANGE` resolves them."""
    from asv import results
    from asv import util as asv_util
    from asv.repo import NoSuchNameError, get_repo

    conf = environments.asv_config(config)
    with contextlib.chdir(config.parent):  # asv keeps its mirror of a remote repository beside the configuration
        try:
            repo = get_repo(conf)
            repo.pull()
            if range_spec is None:
                return [repo.get_hash_from_name(branch)]
            if range_spec.startswith("HASHFILE:"):
                names = Path(range_spec.removeprefix("HASHFILE:")).read_text().split()
                return [repo.get_hash_from_name(name) for name in names]
            existing = results.get_existing_hashes(str(results_dir)) if results_dir.is_dir() else []
            special = {
                "ALL": lambda: repo.get_new_branch_commits(conf.branches, []),
                "NEW": lambda: repo.get_new_branch_commits(conf.branches, existing),
                "EXISTING": lambda: existing,
                "TAGS": lambda: list(reversed(list(repo.get_tags().values()))),
                "HEAD": lambda: [repo.get_hash_from_name("HEAD")],
            }
            hashes = special[range_spec]() if range_spec in special else repo.get_hashes_from_range(range_spec)
        except (NoSuchNameError, asv_util.ProcessError, OSError) as error:
            raise BadInput(f"cannot resolve {range_spec or branch!r} in {conf.repo}: {error}") from None
    return list(reversed(hashes))  # oldest first, as in a history


def unreadable(results_dir: Path, machine: str) -> list[tuple[Path, Exception]]:
    """The files of a results folder that asv cannot read, with why."""
    found, described = [], results_dir / "benchmarks.json"
    for path in [described] * described.exists() + sorted((results_dir / machine).glob("*.json")):
        kind = "benchmarks" if path == described else "machine" if path.name == "machine.json" else "result"
        try:
            publishable.read_as_asv(kind, path, machine)
        except Exception as error:  # noqa: BLE001 - whatever asv cannot load is set aside
            found.append((path, error))
    return found


def result_path(results_dir: Path, machine: str, commit: str, env_name: str) -> Path:
    from asv import results

    return results_dir / results.get_filename(machine, commit, env_name)


def result_keys(path: Path, machine: str) -> set[str]:
    from asv import results

    return set(results.Results.load(str(path), machine).get_all_result_keys())


def classify(path: Path, machine: str) -> tuple[str, int]:
    """('ran', 'failed', 'skipped' or 'missing', how many benchmarks failed) of one commit in one environment."""
    from asv import results

    if not path.exists():
        return "missing", 0
    result = results.Results.load(str(path), machine)
    values = [value for key in result.get_all_result_keys() for _, value, _ in combinations(result, key)]
    failures = sum(v is None for v in values)
    if any(v is not None and not math.isnan(v) for v in values):
        return "ran", failures
    return ("failed" if failures or not values else "skipped"), failures


def newest_with_results(results_dir: Path, machine: str, leave_out=()) -> str | None:
    return next((r.commit_hash for r in reversed(stored(results_dir, machine)) if r.commit_hash not in leave_out), None)


def summaries(folder: Path) -> list[dict]:
    """Every results file under FOLDER that asv can load: its commit, environment, and benchmarks run and failed."""
    from asv import results

    found = []
    for path in sorted(folder.glob("**/*.json")) if folder.is_dir() else []:
        if path.name in ("machine.json", "benchmarks.json"):
            continue
        try:
            result = results.Results.load(str(path), path.parent.name)
        except Exception:  # noqa: BLE001 - what a run left unreadable is no result of a commit
            continue
        ran, failed = len(result.get_all_result_keys()), len(failed_benchmarks(result))
        found.append({"commit": result.commit_hash, "env": result.env_name, "ran": ran, "failed": failed})
    return found


def value_at(results_root: Path, machine: str, commit: str, name: str, params: tuple) -> float | None:
    """One benchmark's value at ``params`` in one commit's results, in any folder of RESULTS_ROOT."""
    from asv import results

    for results_dir in results_root.iterdir():
        for result in results.iter_results_for_machine_and_hash(str(results_dir), machine, commit):
            for combo, value, _ in combinations(result, name, plain=False):
                if combo == params:
                    return value
    return None


def environment_python(config: Path, install: str | None = None) -> Path:
    """The Python of the configuration's one environment; with INSTALL, that commit installed by asv's own steps."""
    from asv import environment
    from asv.repo import get_repo

    conf = environments.asv_config(config)
    (env,) = environment.get_environments(conf, None, verbose=False)
    if install is not None:
        from asv.plugin_manager import plugin_manager

        for plugin in conf.plugins:  # as asv's commands load them (uv_install)
            plugin_manager.import_plugin(plugin)
        with exclusive(Path(conf.env_dir)), contextlib.chdir(config.parent), contextlib.redirect_stdout(sys.stderr):
            env.create()
            env.install_project(conf, get_repo(conf), install)
    return private.env_python(env)


def existing_env_name(python: Path) -> str:
    from asv import environment

    return environment.get_env_name("existing", str(python).replace(os.path.sep, "_"), {}, {})


# Its own, or the one that --here lends it (no metadata there).
IMPORTED_RUNNER = "import asv_runner; print(asv_runner.__version__)"


def runner_version(python: Path | None = None, env: dict | None = None) -> str:
    """asv's version and that of the asv_runner that ``python`` (default: the tools') imports, as a param value."""
    version = metadata.version("asv_runner")
    if python is not None:
        ran = subprocess.run([str(python), "-c", IMPORTED_RUNNER], capture_output=True, text=True, env=env)
        version = ran.stdout.strip() if ran.returncode == 0 else "none"
    return f"asv-{metadata.version('asv')}-asv_runner-{version}"


def refuse_another_runner(python: Path) -> None:
    """BadInput where an environment built before ``runner_constraint`` imports another asv_runner than the lock's."""
    if python.exists() and (found := runner_version(python)) != (lock := runner_version()):
        env = python.parents[1]
        raise BadInput(
            f"the asv environment {env} times with {found}, not the lock's {lock}: remove it (rm -rf {env}), and "
            "scripts/bench builds it again with the lock's"
        )


def runner_constraint() -> Path:
    """A pip constraints file that pins asv_runner to this asv's: asv installs it unpinned in every environment."""
    CONSTRAINTS.parent.mkdir(parents=True, exist_ok=True)
    util.write_atomic(CONSTRAINTS, f"asv_runner=={metadata.version('asv_runner')}\n".encode())
    return CONSTRAINTS


def runner_package() -> Path:
    import asv_runner

    return Path(asv_runner.__file__).parent
