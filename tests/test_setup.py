"""Python 3.13 and JAX 0.12: scripts/setup's interpreter, the asv matrices, the per-Python JAX history.

scripts/setup's 3.13 step is tested on a copy of the script in a scratch
project, with fake apt-get, dpkg and interpreters on PATH, so that nothing is
built or installed; the real build is timed in the README.
"""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from benchtools.asvtools import environments
from benchtools.commands import bench as bench_command
from benchtools.errors import BadInput, Failed
from benchtools.history import release_history
from benchtools.running import bench
from tests.helpers import ROOT, script

SETUP = ROOT / "scripts" / "setup"
PY313_VERSION = "3.13.5"
SKIP_LINE = "scripts/setup: Python 3.13 environments skipped: "


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def project(tmp_path):
    """A scratch project with a copy of scripts/setup, a cache folder and fake apt tools first on PATH."""
    root = tmp_path / "project"
    shutil.copy(SETUP, executable(root / "scripts" / "setup", ""))
    fake_bin = tmp_path / "bin"
    calls = tmp_path / "calls"
    # Every apt tool records its call and fails, as on a machine cut off from Debian.
    for tool in ("apt-get", "apt-cache"):
        executable(fake_bin / tool, f'#!/bin/sh\necho "{tool} $*" >> {calls}\necho "E: cannot reach" >&2\nexit 100\n')
    executable(fake_bin / "dpkg", "#!/bin/sh\nexit 0\n")  # every build dependency is installed
    sources = tmp_path / "debian.sources"
    sources.write_text("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n")
    env = {k: v for k, v in os.environ.items() if k not in ("EQXB_PYTHON313", "EQXB_CACHE")}
    env.update(PATH=f"{fake_bin}{os.pathsep}{env['PATH']}", XDG_CACHE_HOME=str(tmp_path / "cache"),
               EQXB_APT_SOURCES=str(sources))

    class Project:
        pass

    p = Project()
    p.root, p.env, p.calls, p.sources = root, env, calls, sources
    p.cache = tmp_path / "cache" / "equinox-benchmarks"
    p.prefix = p.cache / f"cpython-{PY313_VERSION}"
    p.link = root / ".asv" / "python" / "bin" / "python3.13"
    p.skipped = root / ".asv" / "python" / "skipped-3.13"
    p.apt_calls = lambda: calls.read_text().splitlines() if calls.exists() else []

    def run(*args, **env):
        return subprocess.run([str(root / "scripts" / "setup"), "--python313", *args], capture_output=True,
                              text=True, env={**p.env, **env}, timeout=60)
    p.run = run
    return p


def skip_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(SKIP_LINE)]


def fake_python313(path: Path) -> Path:
    """A stand-in that answers every `python3.13 -c ...` with success, as a working 3.13 does."""
    return executable(path, "#!/bin/sh\nexit 0\n")


def test_a_failing_build_skips_the_313_environments_in_one_line_and_exits_0(project):
    result = project.run()
    assert result.returncode == 0, result.stderr
    lines = skip_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert "apt-get update from http://deb.debian.org/debian trixie failed" in lines[0]
    assert "--retry" in lines[0]
    assert not project.link.exists()
    assert project.skipped.read_text().startswith("apt-get update")
    # The system's apt configuration is not used: its own source list and lists folder.
    (update,) = project.apt_calls()
    assert "Dir::Etc::sourceparts=-" in update and "Dir::State::Lists=" in update and "update" in update


def test_a_remembered_failure_skips_at_once_and_retry_tries_again(project):
    project.run()
    assert len(project.apt_calls()) == 1
    again = project.run()
    assert again.returncode == 0 and len(skip_lines(again.stderr)) == 1
    assert len(project.apt_calls()) == 1, "a remembered failure must not try apt again"
    retried = project.run("--retry")
    assert retried.returncode == 0 and len(skip_lines(retried.stderr)) == 1
    assert len(project.apt_calls()) == 2


def test_no_debian_mirror_is_a_clear_reason(project):
    result = project.run(EQXB_APT_SOURCES=str(project.sources.parent / "missing.sources"))
    assert result.returncode == 0
    (line,) = skip_lines(result.stderr)
    assert "no Debian mirror" in line
    assert project.apt_calls() == []


def test_a_finished_build_is_linked_without_building_again(project):
    fake_python313(project.prefix / "bin" / "python3.13")
    # Without the stamp a build is attempted (and fails here)...
    assert skip_lines(project.run().stderr)
    assert not project.link.exists()
    # ...with it, the build is done: linked at once, the skip forgotten.
    (project.prefix / ".built").write_text("2026-01-01T00:00:00Z\n")
    result = project.run("--retry")
    assert result.returncode == 0 and skip_lines(result.stderr) == [], result.stderr
    assert project.link.resolve() == (project.prefix / "bin" / "python3.13").resolve()
    assert not project.skipped.exists()
    assert len(project.apt_calls()) == 1


def test_eqxb_python313_overrides_the_build(project, tmp_path):
    other = fake_python313(tmp_path / "elsewhere" / "python3.13")
    result = project.run(EQXB_PYTHON313=str(other))
    assert result.returncode == 0 and skip_lines(result.stderr) == [], result.stderr
    assert project.link.resolve() == other.resolve()
    assert project.apt_calls() == []
    # An interpreter that is not 3.13 is refused, visibly, and unlinked.
    not_313 = project.run(EQXB_PYTHON313=sys.executable)
    (line,) = skip_lines(not_313.stderr)
    assert "is not a working Python 3.13" in line
    assert not project.link.exists()


def test_setup_help_documents_the_313_options():
    result = subprocess.run([str(SETUP), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for word in ("--python313", "--retry", "EQXB_PYTHON313", PY313_VERSION):
        assert word in result.stdout


# ---- the asv configurations -------------------------------------------------

# The Pythons each JAX release supports: jax 0.4.33 to 0.10.2 need >=3.10 or
# >=3.11 (jaxlib 0.4.33 has no 3.13 wheel); JAX 0.11 and later need >=3.12.
JAX_PYTHONS = {"0.4.33": {"3.11"}, "0.10.2": {"3.11", "3.13"}, "0.12.0.1": {"3.13"}}


def matrix(config_name: str) -> list[dict]:
    from asv import config, environment

    conf = config.Config.load(str(ROOT / config_name))
    return [{key[1] or key[0]: value for key, value in entry.items()}
            for entry in environment.iter_matrix(conf.environment_type, conf.pythons, conf)]


def test_asv_conf_resolves_to_three_possible_environments():
    entries = matrix("asv.conf.json")
    assert sorted((e["python"], e["jax"]) for e in entries) == sorted(
        [("3.11", "0.4.33"), ("3.11", "0.10.2"), ("3.13", "0.12.0.1")])
    for entry in entries:
        assert entry["jaxlib"] == entry["jax"], entry
        assert entry["python"] in JAX_PYTHONS[entry["jax"]], entry


def test_asv_jax_conf_has_one_environment_per_python():
    entries = matrix("asv.jax.conf.json")
    assert sorted(e["python"] for e in entries) == ["3.11", "3.13"]
    assert all(e["equinox"] == "0.13.8" for e in entries)


def test_a_missing_313_drops_its_environment_with_the_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    (tmp_path / "skipped-3.13").write_text("no apt-get on this machine (not Debian)\n")
    target = bench.Target(bench_command.parse_args(["--output", str(tmp_path / "out")]))
    envs = bench.environments(target)
    assert [entry[("req", "jax")] for _, entry in envs] == ["0.4.33", "0.10.2"]
    skipped = [line for line in capsys.readouterr().err.splitlines() if "skipped" in line]
    assert skipped == ["scripts/bench: Python 3.13 environments skipped: no apt-get on this machine (not Debian)"]
    only_313 = bench.Target(bench_command.parse_args(["--jax", "0.12.0.1", "--output", str(tmp_path / "out")]))
    with pytest.raises(Failed, match="no environment to run with JAX 0.12.0.1: its Python is missing"):
        bench.environments(only_313)
    # A JAX that no environment has is the user's mistake, whatever the Pythons.
    with pytest.raises(BadInput, match="no environment has JAX 0.5.0"):
        bench.environments(bench.Target(bench_command.parse_args(["--jax", "0.5.0", "--output", str(tmp_path / "out")])))


def test_an_unbuilt_313_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    assert environments.setup_python_missing("3.13") == "scripts/setup has not provided it"
    assert environments.setup_python_missing("3.11") is None, "3.11 is the machine's, not setup's"
    fake_python313(tmp_path / "bin" / "python3.13")
    assert environments.setup_python_missing("3.13") is None


def test_setup_pythons_go_first_on_path_once(tmp_path, monkeypatch):
    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin")
    environments.setup_pythons_first_on_path()
    environments.setup_pythons_first_on_path()
    assert os.environ["PATH"] == f"{tmp_path / 'bin'}{os.pathsep}/usr/bin"


def test_jax_picks_one_environment_and_names_it_as_asv_does(tmp_path, monkeypatch):
    from asv import config, environment

    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    fake_python313(tmp_path / "bin" / "python3.13")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    for jax, python in [("0.4.33", "3.11"), ("0.10.2", "3.11"), ("0.12.0.1", "3.13")]:
        target = bench.Target(bench_command.parse_args(["--jax", jax, "--output", str(tmp_path / "out")]))
        ((name, entry),) = bench.environments(target)
        assert entry[("python", None)] == python
        # The one-environment configuration that asv runs resolves to that environment alone.
        conf = config.Config.load(str(target.config(entry, "-1")))
        assert conf.pythons == [python]
        assert [env.name for env in environment.get_environments(conf, None)] == [name]


def test_the_profiler_picks_the_environment_by_its_python(tmp_path, monkeypatch):
    """The JAX history's two environments have the same requirements: only the Python tells them apart."""
    from asv import config

    from benchtools.judging import explain

    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    monkeypatch.setenv("PATH", os.environ["PATH"])  # env_config puts setup's Pythons first
    fake_python313(tmp_path / "bin" / "python3.13")
    for python in ("3.11", "3.13"):
        name, path = explain.env_config(ROOT / "asv.jax.conf.json", {"machine": "m", "python": python,
                                                                     "equinox": "0.13.8"}, tmp_path / "configs")
        assert f"-py{python}-" in name
        assert config.Config.load(str(path)).pythons == [python]
    (tmp_path / "bin" / "python3.13").unlink()
    (tmp_path / "skipped-3.13").write_text("no apt-get\n")
    with pytest.raises(Failed, match="Python 3.13 environments skipped: no apt-get"):
        explain.env_config(ROOT / "asv.jax.conf.json", {"python": "3.13"}, tmp_path / "configs")


def jax_release(version: str, requires_python: str) -> tuple[release_history.Release, str]:
    """A release of the JAX history and its commit (here the version, for readable assertions)."""
    import datetime

    return release_history.Release(Version(version), f"jax-{version}.tar.gz", "", "", datetime.datetime(2026, 1, 1),
                                   requires_python), version


def test_jax_history_runs_each_release_on_the_oldest_python_that_admits_it():
    selected = [jax_release("0.4.33", ">=3.10"), jax_release("0.9.2", ">=3.11"), jax_release("0.10.2", ">=3.11"),
                jax_release("0.11.0", ">=3.12"), jax_release("0.12.0.1", ">=3.12")]
    by_python = bench.hashes_by_python(selected, ["3.11", "3.13"])
    # 3.13 also runs the newest 3.11 release, so that the two lines of the history meet.
    assert by_python == {"3.11": ["0.4.33", "0.9.2", "0.10.2"], "3.13": ["0.10.2", "0.11.0", "0.12.0.1"]}
    # A selection of new releases only: no bridge, nothing on 3.11.
    assert bench.hashes_by_python(selected[3:], ["3.11", "3.13"]) == {"3.11": [], "3.13": ["0.11.0", "0.12.0.1"]}
    # Without the 3.13 environment (setup could not provide it), the new releases run nowhere.
    assert bench.hashes_by_python(selected, ["3.11"]) == {"3.11": ["0.4.33", "0.9.2", "0.10.2"]}


@pytest.mark.parametrize("workflow, job", [("nightly.yml", "run"), ("backfill.yml", "shard")])
def test_the_benchmark_jobs_get_python_313_from_the_pinned_setup_python(workflow, job):
    import yaml

    steps = yaml.safe_load((ROOT / ".github" / "workflows" / workflow).read_text())["jobs"][job]["steps"]
    setups = [s for s in steps if s.get("uses", "").startswith("actions/setup-python@")]
    assert [s["with"]["python-version"] for s in setups] == [PY313_VERSION, "3.11"]
    assert setups[0]["uses"] == setups[1]["uses"], "the same pinned commit of actions/setup-python"
    (bench_step,) = [s for s in steps if "scripts/nightly" in s.get("run", "")]
    assert bench_step["env"]["EQXB_PYTHON313"] == "${{ steps.%s.outputs.python-path }}" % setups[0]["id"]


def test_the_overhead_report_leads_with_the_newest_python_and_jax(tmp_path):
    """One commit in three environments: Python 3.13 with JAX 0.12.0.1 comes first, then the older JAX."""
    import json

    from asv import results, runner

    ratio = "bench_overhead.SteadyStateRatio.track_overhead_ratio"
    benchmark = {"name": ratio, "params": [["'jit'"]], "param_names": ["wrapping"], "unit": "ratio",
                 "type": "track", "version": "1"}
    folder = tmp_path / "results"
    (folder / "m").mkdir(parents=True)
    (folder / "m" / "machine.json").write_text(json.dumps({"machine": "m", "version": 1}))
    (folder / "benchmarks.json").write_text(json.dumps({ratio: benchmark, "version": 2}))
    for python, jax in [("3.11", "0.4.33"), ("3.11", "0.10.2"), ("3.13", "0.12.0.1")]:
        result = results.Results({"machine": "m", "python": python, "jax": jax, "jaxlib": jax},
                                 {"jax": jax, "jaxlib": jax}, "a" * 40, 1_767_225_600_000, python,
                                 f"virtualenv-py{python}-jax{jax}-jaxlib{jax}", {})
        result.add_result(benchmark, runner.BenchmarkResult(result=[1.5], samples=[[1.5]], number=[1], errcode=0,
                                                             stderr="", profile=None))
        result.save(str(folder))
    printed = script("overhead-report", "--results", folder, "--repo", tmp_path)
    assert printed.returncode == 0, printed.stderr
    headings = [line for line in printed.stdout.splitlines() if line.startswith("### ")]
    envs = [f"Python {p}, jax {j}, jaxlib {j}" for p, j in [("3.13", "0.12.0.1"), ("3.11", "0.10.2"), ("3.11", "0.4.33")]]
    assert [h for h in headings if h.startswith("### aaaaaaaa")] == [f"### aaaaaaaa ({env})" for env in envs]
    assert [h for h in headings if h.startswith("### History")] == [f"### History of tree_at's cost ({env})"
                                                                    for env in envs]


@pytest.mark.slow
def test_one_release_runs_the_quick_suite_in_the_313_environment(history, tmp_path):
    """v0.13.8 on Python 3.13 with JAX 0.12.0.1, every benchmark once; where setup could not provide
    Python 3.13 this skips, with setup's reason."""
    import json

    link = ROOT / ".asv" / "python" / "bin" / "python3.13"
    if not link.exists():
        reason = ROOT / ".asv" / "python" / "skipped-3.13"
        pytest.skip("Python 3.13 environments skipped: "
                    + (reason.read_text().strip() if reason.exists() else "scripts/setup has not run"))
    result = script("bench", "--quick", "--repo", history, "--jax", "0.12.0.1", "--machine", "bench-tests",
                    "--output", tmp_path, "v0.13.8^!")
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    (folder,) = (tmp_path / "results").iterdir()
    (path,) = (folder / "bench-tests").glob("*-virtualenv-py3.13-*jax0.12.0.1*.json")
    saved = json.loads(path.read_text())
    assert saved["params"]["python"] == "3.13" and saved["params"]["jax"] == "0.12.0.1"
    # Every benchmark measured every parameter combination (asv stores a failure as None).
    for name, columns in saved["results"].items():
        values = columns[0] if isinstance(columns[0], list) else [columns[0]]
        assert columns[0] is not None and None not in values, name
    summary = result.stdout[result.stdout.index("Summary"):]
    assert "ran" in summary and "failed" not in summary
