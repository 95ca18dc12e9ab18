"""benchtools/asvtools/results.py: values read from a real asv result, and ``only`` refusing several; runs.py:
a real git history's ranges, and real results files classified, summed up and read, as asv wrote them."""

import json
import math
import os
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from asv import results, runner

from benchtools.asvtools import environments, runs, sides
from benchtools.asvtools.results import only, values
from benchtools.errors import BadInput
from tests.helpers import ROOT, git


def result_with(name: str, params: list, value: list) -> results.Results:
    result = results.Results({"machine": "m", "python": "3.11"}, {}, "0" * 40, 0, "3.11", "env", {})
    benchmark = {
        "name": name,
        "params": params,
        "param_names": [f"p{i}" for i in range(len(params))],
        "unit": "unit",
        "type": "track",
        "version": "1",
    }
    result.add_result(
        benchmark,
        runner.BenchmarkResult(
            result=value, samples=[None] * len(value), number=[None] * len(value), errcode=0, stderr="", profile=None
        ),
    )
    return result


def test_only_gives_the_value_of_a_benchmark_without_parameters():
    result = result_with("bench_x.Passes.track_one", [], [7.5])
    assert values(result, "bench_x.Passes.track_one") == {(): 7.5}
    assert only(values(result, "bench_x.Passes.track_one")) == 7.5
    assert only(values(result, "bench_x.Passes.not_there")) is None


def test_only_refuses_a_benchmark_with_several_values():
    result = result_with("bench_x.Passes.track_depth", [["1", "4"]], [1.0, 2.0])
    with pytest.raises(BadInput, match=r"found 2: \[\('1',\), \('4',\)\]"):
        only(values(result, "bench_x.Passes.track_depth"))


# asvtools/runs.py: a real git history, a real asv configuration, results saved by asv's own Results class.

MACHINE = "runs-tests"


def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """A configuration over three commits on main, tagged v0, v1, v2 a day apart, and their hashes, oldest first."""
    repo = tmp_path / "repo"
    git(repo.parent, "init", "-q", "-b", "main", repo.name)
    for i in range(3):
        (repo / "file.txt").write_text(str(i))
        git(repo, "add", "file.txt")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"c{i}", "--date", f"2026-01-0{i + 1}")
        git(repo, "tag", f"v{i}")
    config = tmp_path / "asv.conf.json"
    settings = {"version": 1, "project": "demo", "repo": str(repo), "branches": ["main"]}
    config.write_text(
        json.dumps(settings | {"results_dir": str(tmp_path / "results"), "env_dir": str(tmp_path / "env")})
    )
    return config, git(repo, "log", "--reverse", "--format=%H").split()


def saved(results_dir: Path, commit: str, day: int, measured: dict, machine: str = MACHINE, env: str = "env") -> Path:
    """A result of COMMIT saved by asv: MEASURED[name] holds its values, one per param of a 'jit'/'scan' dimension
    (a single value: no params); NaN is skipped, None failed."""
    result = results.Results({"machine": machine}, {}, commit, 1_767_225_600_000 + day * 86_400_000, "3.11", env, {})
    for name, value in measured.items():
        params = [["'jit'", "'scan'"]] if len(value) == 2 else []
        benchmark = {"name": name, "params": params, "param_names": ["wrapping"] * len(params)}
        done = runner.BenchmarkResult(
            result=value, samples=[None] * len(value), number=[None] * len(value), errcode=0, stderr="", profile=None
        )
        result.add_result(benchmark | {"unit": "seconds", "type": "track", "version": "1"}, done)
    result.save(str(results_dir))
    machine_file = results_dir / machine / "machine.json"
    machine_file.write_text(json.dumps({"machine": machine, "version": 1}))
    return results_dir / results.get_filename(machine, commit, env)


def test_range_hashes_resolves_each_of_asvs_ranges_oldest_first(tmp_path):
    config, (h0, h1, h2) = history(tmp_path)
    results_dir = tmp_path / "results"
    assert runs.range_hashes(config, "main", None, results_dir) == [h2]
    assert runs.range_hashes(config, "v1", None, results_dir) == [h1]
    assert runs.range_hashes(config, "main", "v0..v2", results_dir) == [h1, h2]
    assert runs.range_hashes(config, "main", "ALL", results_dir) == [h0, h1, h2]
    assert runs.range_hashes(config, "main", "NEW", results_dir) == [h0, h1, h2]
    assert runs.range_hashes(config, "main", "EXISTING", results_dir) == []  # no results folder yet
    assert runs.range_hashes(config, "main", "TAGS", results_dir) == [h0, h1, h2]
    assert runs.range_hashes(config, "main", "HEAD", results_dir) == [h2]
    saved(results_dir, h1, 1, {"bench.x": [1.0]})
    assert runs.range_hashes(config, "main", "NEW", results_dir) == [h2]
    assert runs.range_hashes(config, "main", "EXISTING", results_dir) == [h1]
    names = tmp_path / "hashes.txt"
    names.write_text(f"v2\n{h0[:8]}\n")
    assert runs.range_hashes(config, "main", f"HASHFILE:{names}", results_dir) == [h2, h0]  # in the file's order


@pytest.mark.parametrize(
    ("branch", "range_spec", "named"),
    [("gone", None, "'gone'"), ("main", "v0..gone", "'v0..gone'"), ("main", "HASHFILE:/no/such", "'HASHFILE:")],
)
def test_range_hashes_refuses_what_git_cannot_resolve(tmp_path, branch, range_spec, named):
    config, _ = history(tmp_path)
    with pytest.raises(BadInput, match=rf"^cannot resolve {re.escape(named)}.* in {tmp_path / 'repo'}: "):
        runs.range_hashes(config, branch, range_spec, tmp_path / "results")


def site_results(tmp_path: Path) -> tuple[Path, list[str], list[Path]]:
    """A results folder as asv run leaves it: benchmarks.json, machine.json, and three commits' results."""
    _, hashes = history(tmp_path)
    results_dir = tmp_path / "results"
    (results_dir / MACHINE).mkdir(parents=True)
    (results_dir / "benchmarks.json").write_text(json.dumps({"version": 2}))
    measured = [{"bench.a": [1.0, 2.0], "bench.b": [3.0]}, {"bench.a": [None, 5.0]}, {"bench.a": [None, None]}]
    paths = [saved(results_dir, commit, day, m) for day, (commit, m) in enumerate(zip(hashes, measured, strict=True))]
    return results_dir, hashes, paths


def test_unreadable_names_each_file_asv_cannot_load_and_only_those(tmp_path):
    results_dir, _, paths = site_results(tmp_path)
    assert runs.unreadable(results_dir, MACHINE) == []
    assert runs.unreadable(results_dir, "elsewhere") == []  # benchmarks.json is shared
    paths[1].write_text(paths[1].read_text()[:40])  # a killed run's half-written result
    (results_dir / MACHINE / "machine.json").write_text("{}")  # no version
    (results_dir / "benchmarks.json").write_text(json.dumps({"version": 1}))  # another api
    found = runs.unreadable(results_dir, MACHINE)
    in_machine = sorted([results_dir / MACHINE / "machine.json", paths[1]])
    assert [path for path, _ in found] == [results_dir / "benchmarks.json", *in_machine]
    assert all(isinstance(error, Exception) for _, error in found)
    (results_dir / "benchmarks.json").unlink()
    assert [path for path, _ in runs.unreadable(results_dir, MACHINE)] == in_machine


def test_a_results_path_is_where_asv_saves_and_holds_its_keys(tmp_path):
    results_dir, hashes, paths = site_results(tmp_path)
    assert runs.result_path(results_dir, MACHINE, hashes[0], "env") == paths[0]
    assert paths[0].is_file()
    assert runs.result_keys(paths[0], MACHINE) == {"bench.a", "bench.b"}
    assert runs.result_keys(paths[2], MACHINE) == {"bench.a"}


def test_classify_tells_ran_failed_skipped_and_missing_with_the_failures(tmp_path):
    results_dir, hashes, paths = site_results(tmp_path)
    nan = math.nan
    assert runs.classify(paths[0], MACHINE) == ("ran", 0)
    assert runs.classify(paths[1], MACHINE) == ("ran", 1)
    assert runs.classify(paths[2], MACHINE) == ("failed", 2)
    assert runs.classify(results_dir / "none.json", MACHINE) == ("missing", 0)
    cases = {
        "skipped": ({"bench.a": [nan, nan]}, ("skipped", 0)),
        "skipped-and-failed": ({"bench.a": [nan, None]}, ("failed", 1)),
        "one-ran": ({"bench.a": [nan, 1.0], "bench.b": [None]}, ("ran", 1)),
        "nothing": ({}, ("failed", 0)),
    }
    for env, (measured, state) in cases.items():
        assert runs.classify(saved(results_dir, hashes[0], 0, measured, env=env), MACHINE) == state, env


def test_a_result_that_names_another_machine_is_refused_not_read_as_this_ones(tmp_path):
    results_dir, hashes, _ = site_results(tmp_path)
    stray = saved(results_dir, hashes[0], 0, {"bench.c": [1.0]}, machine="elsewhere", env="stray")
    moved = stray.rename(results_dir / MACHINE / stray.name)
    assert [path for path, _ in runs.unreadable(results_dir, MACHINE)] == [moved]
    for read in (runs.result_keys, runs.classify):
        with pytest.raises(Exception, match=f"machine name is not '{MACHINE}'"):
            read(moved, MACHINE)


def test_newest_with_results_is_the_latest_commit_measured_on_the_machine(tmp_path):
    results_dir, hashes, _ = site_results(tmp_path)
    saved(results_dir, hashes[0], 9, {"bench.a": [1.0]}, machine="elsewhere")  # newer, on another machine
    assert runs.newest_with_results(results_dir, MACHINE) == hashes[2]
    assert runs.newest_with_results(results_dir, MACHINE, leave_out={hashes[2]}) == hashes[1]
    assert runs.newest_with_results(results_dir, MACHINE, leave_out=set(hashes)) is None
    assert runs.newest_with_results(results_dir, "elsewhere") == hashes[0]
    assert runs.newest_with_results(results_dir, "nowhere") is None


def test_summaries_count_each_results_files_benchmarks_and_failures(tmp_path):
    results_dir, hashes, paths = site_results(tmp_path)
    saved(results_dir, hashes[1], 1, {"bench.a": [1.0]}, machine="elsewhere", env="other")
    (results_dir / "a-killed-run").mkdir()
    (results_dir / "a-killed-run" / "half.json").write_text("{")  # read first: what follows is still summed
    stray = saved(results_dir, hashes[2], 2, {"bench.a": [1.0]}, machine="elsewhere", env="stray")
    stray.rename(results_dir / MACHINE / stray.name)  # names another machine than its folder's: not one of its
    ours = [
        {"commit": hashes[0], "env": "env", "ran": 2, "failed": 0},
        {"commit": hashes[1], "env": "env", "ran": 1, "failed": 0},  # one of its two params measured
        {"commit": hashes[2], "env": "env", "ran": 1, "failed": 1},
    ]
    elsewhere = {"commit": hashes[1], "env": "other", "ran": 1, "failed": 0}
    assert runs.summaries(results_dir) == [elsewhere, *sorted(ours, key=lambda s: s["commit"])]  # by path
    assert runs.summaries(tmp_path / "none") == []


def test_value_at_finds_one_params_value_in_any_results_folder(tmp_path):
    _, hashes = history(tmp_path)
    root = tmp_path / "runs"
    saved(root / "first", hashes[0], 0, {"bench.a": [1.0, 2.0]})
    saved(root / "second", hashes[1], 1, {"bench.a": [3.0, None], "bench.b": [4.0]})
    assert runs.value_at(root, MACHINE, hashes[1], "bench.a", ("'jit'",)) == 3.0
    assert runs.value_at(root, MACHINE, hashes[0], "bench.a", ("'scan'",)) == 2.0
    assert runs.value_at(root, MACHINE, hashes[1], "bench.b", ()) == 4.0
    assert runs.value_at(root, MACHINE, hashes[1], "bench.a", ("'scan'",)) is None  # failed
    assert runs.value_at(root, MACHINE, hashes[1], "bench.a", ("jit",)) is None  # asv's names, quoted
    assert runs.value_at(root, MACHINE, hashes[2], "bench.a", ("'jit'",)) is None
    assert runs.value_at(root, "elsewhere", hashes[0], "bench.a", ("'jit'",)) is None


def test_environment_python_is_the_python_of_asvs_one_environment(tmp_path, monkeypatch, capsys):
    from asv.environment import ExistingEnvironment

    installed = []  # what asv installs (a virtualenv's pip, here only said), where, and at which commit

    def install(_env, conf, repo, commit):
        installed.append((conf.env_dir, repo.get_hash_from_name(commit)))
        print(f"installing {commit}")

    monkeypatch.setattr(ExistingEnvironment, "install_project", install)
    config, hashes = history(tmp_path)
    settings = json.loads(config.read_text())
    plugins = environments.asv_config(ROOT / "asv.conf.json").plugins  # the project's, as asv loads them
    existing = {"environment_type": "existing", "pythons": [sys.executable], "plugins": plugins}
    config.write_text(json.dumps(settings | existing))
    python = runs.environment_python(config)
    assert python.relative_to(tmp_path / "env").parts[1:] == ("bin", "python")  # in asv's folder of that environment
    assert not (tmp_path / "env").exists()  # without INSTALL, nothing is built or installed
    assert runs.environment_python(config, install=hashes[0]) == python
    assert (tmp_path / "env" / ".scripts-bench.lock").is_file()  # installed under the environments' lock
    assert installed == [(str(tmp_path / "env"), hashes[0])]
    assert capsys.readouterr() == ("", f"installing {hashes[0]}\n")  # asv's words on stderr: stdout is the command's


def test_existing_env_name_is_the_name_asv_gives_a_results_file_of_that_python(tmp_path):
    from asv import environment

    config, _ = history(tmp_path)
    conf = environments.asv_config(config)
    python = Path(os.path.abspath(sys.executable))  # as asv's environment keeps it
    assert runs.existing_env_name(python) == environment.ExistingEnvironment(conf, str(python), {}, {}).name
    assert runs.existing_env_name(Path("/opt/py/bin/python3")) == "existing-py_opt_py_bin_python3"


def test_runner_version_names_the_asv_runner_a_python_imports(tmp_path):
    lock = f"asv-{metadata.version('asv')}-asv_runner-{metadata.version('asv_runner')}"
    assert runs.runner_version() == lock
    assert runs.runner_version(Path(sys.executable)) == lock
    bare = Path(sys._base_executable)  # the Python the tools' environment was made from: no asv_runner
    assert runs.runner_version(bare) == f"asv-{metadata.version('asv')}-asv_runner-none"
    lent = tmp_path / "lent"
    (lent / "asv_runner").mkdir(parents=True)
    (lent / "asv_runner" / "__init__.py").write_text('__version__ = "0.1.0"\n')
    assert runs.runner_version(bare, {**os.environ, "PYTHONPATH": str(lent)}) == lock.replace(
        metadata.version("asv_runner"), "0.1.0"
    )


def test_another_asv_runner_is_refused_with_the_command_that_removes_it(tmp_path):
    env = tmp_path / "env" / "virtualenv-py3.11"
    (env / "bin").mkdir(parents=True)
    python = env / "bin" / "python"
    python.symlink_to(sys._base_executable)  # imports no asv_runner
    none = f"asv-{metadata.version('asv')}-asv_runner-none"
    with pytest.raises(BadInput) as refused:
        runs.refuse_another_runner(python)
    assert str(refused.value) == (
        f"the asv environment {env} times with {none}, not the lock's {runs.runner_version()}: remove it "
        f"(rm -rf {env}), and scripts/bench builds it again with the lock's"
    )
    runs.refuse_another_runner(Path(sys.executable))  # the lock's
    runs.refuse_another_runner(tmp_path / "not-built" / "bin" / "python")  # asv builds it with the constraint


@pytest.mark.equivalent("benchtools.asvtools.runs.169:4: a call's statement dropped")
def test_runner_constraint_pins_the_locks_asv_runner(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "CONSTRAINTS", tmp_path / "fresh" / ".asv" / "constraint.txt")  # a fresh clone's
    assert runs.runner_constraint() == tmp_path / "fresh" / ".asv" / "constraint.txt"
    assert (
        tmp_path / "fresh" / ".asv" / "constraint.txt"
    ).read_text() == f"asv_runner=={metadata.version('asv_runner')}\n"
    assert runs.runner_constraint().read_text() == f"asv_runner=={metadata.version('asv_runner')}\n"  # again


def test_runner_package_is_the_folder_a_python_imports_asv_runner_from(tmp_path):
    import asv_runner

    assert runs.runner_package() == Path(asv_runner.__file__).parent
    assert (runs.runner_package() / "__init__.py").is_file()


def test_a_remote_repository_is_mirrored_and_fetched_again_before_its_range_is_resolved(tmp_path, monkeypatch):
    """asv keeps a mirror of a repository named by URL beside the configuration: each resolution fetches it first,
    so that the first finds the branch and a later one its new tip (the URL led by git to a bare clone here)."""
    config, (_, _, h2) = history(tmp_path)
    work, origin, url = tmp_path / "repo", tmp_path / "origin.git", "https://example.invalid/demo.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), origin.name)
    (tmp_path / "gitconfig").write_text(f'[url "{origin}"]\n\tinsteadOf = {url}\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    config.write_text(json.dumps(json.loads(config.read_text()) | {"repo": url}))
    assert runs.range_hashes(config, "main", None, tmp_path / "results") == [h2]
    (work / "file.txt").write_text("3")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "c3")
    git(work, "push", "-q", str(origin), "main")
    assert runs.range_hashes(config, "main", None, tmp_path / "results") == [git(work, "rev-parse", "HEAD").strip()]


class RecordedEnvironment:
    """asv's environment, its steps recorded in ``made``: where a commit is installed, and what was done first."""

    def __init__(self, path: Path, made: list):
        self._path, self.made, self.name, self.python, self.requirements = str(path), made, "env", "3.11", {}

    def create(self):
        self.made.append("create")

    def install_project(self, conf, repo, commit):
        self.made.append(f"install {commit}")


def test_an_environment_s_python_with_a_commit_is_made_by_asv_s_steps_after_its_plugins(tmp_path, monkeypatch):
    """As asv's commands do: the configuration's plugins loaded (uv_install), the environment created, then the
    commit installed into it."""
    from asv import environment, repo
    from asv.plugin_manager import plugin_manager

    config, (_, _, h2) = history(tmp_path)
    config.write_text(json.dumps(json.loads(config.read_text()) | {"plugins": ["asv_plugin_x"]}))
    made = []
    monkeypatch.setattr(environment, "get_environments", lambda *_, **__: [RecordedEnvironment(tmp_path / "e", made)])
    monkeypatch.setattr(plugin_manager, "import_plugin", lambda name: made.append(f"plugin {name}"))
    monkeypatch.setattr(repo, "get_repo", lambda conf: None)
    assert runs.environment_python(config, install=h2) == tmp_path / "e" / "bin" / "python"
    assert made == ["plugin asv_plugin_x", "create", f"install {h2}"]
    made.clear()
    assert runs.environment_python(config) == tmp_path / "e" / "bin" / "python" and made == []


def test_each_side_to_confirm_is_created_and_installed_after_the_suite_s_pythons_lead_path(tmp_path, monkeypatch):
    """sides.prepare: the Pythons scripts/setup builds first on PATH before asv resolves an environment (its 3.13 is
    found there), then each side's environment created and its commit installed into it."""
    from asv import environment, repo
    from asv.benchmarks import Benchmarks

    config, (_, h1, h2) = history(tmp_path)
    made = []

    def resolved(*_, **__):
        made.append("environments")
        return [RecordedEnvironment(tmp_path / "e", made)]

    monkeypatch.setattr(environments, "setup_pythons_first_on_path", lambda: made.append("pythons first"))
    monkeypatch.setattr(environment, "get_environments", resolved)
    monkeypatch.setattr(repo, "get_repo", lambda conf: None)
    monkeypatch.setattr(Benchmarks, "discover", lambda *_, **__: {"bench.x": {}})
    prepared = sides.prepare(config, "", {"before": h1, "after": h2}, ["bench.x"], tmp_path / "confirm-env")
    assert {side: found.commit for side, found in prepared.items()} == {"before": h1, "after": h2}
    steps = [step for commit in (h1, h2) for step in ("environments", "create", f"install {commit}")]
    assert made == ["pythons first", *steps]
