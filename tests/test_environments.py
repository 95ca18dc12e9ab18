"""benchtools/asvtools/environments.py and the asv configurations: the matrices, scripts/setup's Pythons
first on PATH, one environment per JAX, a missing Python 3.13 dropped with its reason (docs/python313.md)."""

import os

import pytest

from benchtools import cli, settings, util
from benchtools.asvtools import environments
from benchtools.commands import bench as bench_command
from benchtools.errors import BadInput, Failed
from benchtools.running import bench
from tests.helpers import ROOT, fake_python313

# The Pythons each JAX release supports: jax 0.4.33 to 0.10.2 need >=3.10 or
# >=3.11 (jaxlib 0.4.33 has no 3.13 wheel); JAX 0.11 and later need >=3.12.
JAX_PYTHONS = {"0.4.33": {"3.11"}, "0.10.2": {"3.11", "3.13"}, "0.12.0.1": {"3.13"}}


def matrix(config_name: str) -> list[dict]:
    from asv import config, environment

    conf = config.Config.load(str(ROOT / config_name))
    return [
        {key[1] or key[0]: value for key, value in entry.items()}
        for entry in environment.iter_matrix(conf.environment_type, conf.pythons, conf)
    ]


def test_asv_conf_resolves_to_three_possible_environments():
    entries = matrix("asv.conf.json")
    assert sorted((e["python"], e["jax"]) for e in entries) == sorted(
        [("3.11", "0.4.33"), ("3.11", "0.10.2"), ("3.13", "0.12.0.1")]
    )
    for entry in entries:
        assert entry["jaxlib"] == entry["jax"], entry
        assert entry["python"] in JAX_PYTHONS[entry["jax"]], entry


def test_asv_jax_conf_has_one_environment_per_python():
    entries = matrix("asv.jax.conf.json")
    assert sorted(e["python"] for e in entries) == ["3.11", "3.13"]
    assert all(e["equinox"] == settings.load().reference_equinox for e in entries)


def test_a_missing_313_drops_its_environment_with_the_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    (tmp_path / "skipped-3.13").write_text("no apt-get on this machine (not Debian)\n")
    target = bench.Target(bench_command.options(cli.parse("bench", ["--output", str(tmp_path / "out")])))
    assert [entry[("req", "jax")] for _, entry in bench.environments(target)] == ["0.10.2"]  # the first answer's
    skipped = [line for line in capsys.readouterr().err.splitlines() if "skipped" in line]
    assert skipped == ["scripts/bench: Python 3.13 environments skipped: no apt-get on this machine (not Debian)"]
    every = bench.Target(bench_command.options(cli.parse("bench", ["--full", "--output", str(tmp_path / "out")])))
    assert [entry[("req", "jax")] for _, entry in bench.environments(every)] == ["0.4.33", "0.10.2"]
    only_313 = bench.Target(
        bench_command.options(cli.parse("bench", ["--jax", "0.12.0.1", "--output", str(tmp_path / "out")]))
    )
    with pytest.raises(Failed, match="no environment to run with JAX 0.12.0.1: its Python is missing"):
        bench.environments(only_313)
    # A JAX that no environment has is the user's mistake, whatever the Pythons.
    with pytest.raises(BadInput, match="no environment has JAX 0.5.0"):
        bench.environments(
            bench.Target(
                bench_command.options(cli.parse("bench", ["--jax", "0.5.0", "--output", str(tmp_path / "out")]))
            )
        )


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
        target = bench.Target(
            bench_command.options(cli.parse("bench", ["--jax", jax, "--output", str(tmp_path / "out")]))
        )
        ((name, entry),) = bench.environments(target)
        assert entry[("python", None)] == python
        # The one-environment configuration that asv runs resolves to that environment alone.
        conf = config.Config.load(str(target.config(entry, "-1")))
        assert conf.pythons == [python]
        assert [env.name for env in environment.get_environments(conf, None)] == [name]
    # The first answer's: each Python's newest JAX, the one that its users install today.
    answer = bench.Target(bench_command.options(cli.parse("bench", ["--output", str(tmp_path / "out")])))
    assert [entry[("req", "jax")] for _, entry in bench.environments(answer)] == ["0.10.2", "0.12.0.1"]


def test_the_profiler_picks_the_environment_by_its_python(tmp_path, monkeypatch):
    """The JAX history's two environments have the same requirements: only the Python tells them apart."""
    from asv import config

    from benchtools.judging import explain

    monkeypatch.setattr(environments, "SETUP_PYTHONS", tmp_path)
    monkeypatch.setenv("PATH", os.environ["PATH"])  # env_config puts setup's Pythons first
    fake_python313(tmp_path / "bin" / "python3.13")
    jax_config = ROOT / "asv.jax.conf.json"
    conf = util.load_asv_config(jax_config)
    for python in ("3.11", "3.13"):
        name, path, root = explain.env_config(
            jax_config, conf, {"machine": "m", "python": python, "equinox": "0.13.8"}, tmp_path
        )
        # beside the env dir, which the configuration names resolved (.asv is a link where scripts/mutants runs)
        assert f"-py{python}-" in name and root == (ROOT / ".asv").resolve() / explain.PROFILE_ENVS
        assert config.Config.load(str(path)).pythons == [python]
    (tmp_path / "bin" / "python3.13").unlink()
    (tmp_path / "skipped-3.13").write_text("no apt-get\n")
    with pytest.raises(Failed, match="Python 3.13 environments skipped: no apt-get"):
        explain.env_config(jax_config, conf, {"python": "3.13"}, tmp_path)
