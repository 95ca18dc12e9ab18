"""The device is part of every result: JAX's own report of it, kept among the result's params, so that results
from two devices never share a graph, a comparison or a verdict.  The GPU below is a stand-in, in a fixture only."""

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from asv import results

from benchtools.asvtools import device, runs
from benchtools.errors import BadInput
from tests.asv_sites import COST, MACHINE, make_site
from tests.helpers import command

STAND_IN_GPU = "gpu-Stand-in-GPU"  # a device kind no JAX reports: for these fixtures only
FLAT = [[3000, 10000]] * 3
RISEN = [[3000, 20000]] * 3  # tree_at's cost at depth 4 doubled: a regression, were it on one device


def test_jax_reports_the_device_of_a_real_python():
    found = device.probe(sys.executable, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert (found.backend, found.kind, found.count) == ("cpu", "cpu", 1)
    assert found.params() == {device.DEVICE: "cpu"}  # a CPU reports no driver
    assert found.python == f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert set(found.versions) == set(device.PACKAGES)


def test_a_python_without_jax_is_refused_in_one_line(tmp_path):
    # -S: no site-packages, so no JAX and no Equinox, as in a fresh Python.
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    python.chmod(0o755)
    with pytest.raises(BadInput, match=r"has no jax, jaxlib, equinox installed; install them there"):
        device.probe(python)
    with pytest.raises(BadInput, match="cannot run"):
        device.probe(tmp_path / "missing")


@pytest.mark.parametrize(
    ("stand_in", "said"),
    [
        ("/bin/echo", "is not a Python"),
        # A Python 2, as far as the probe can tell: its imports fail, and it is older than the suite's oldest.
        ('#!/bin/sh\ncase "$2" in *version_info*) echo False;; *) exit 1;; esac\n', "is an older Python"),
    ],
)
def test_what_is_not_a_python_3_is_refused_as_bad_input_naming_it(tmp_path, stand_in, said):
    python = tmp_path / "python"
    if stand_in.startswith("#!"):
        python.write_text(stand_in)
        python.chmod(0o755)
    else:
        python = stand_in
    with pytest.raises(BadInput, match=f"{python} {said}: the suite measures in Python 3.10 or later"):
        device.probe(python)


def test_a_gpu_is_named_with_its_kind_count_and_driver():
    found = device.Installed("3.12", {}, "gpu", "Stand-in GPU", 2, "PJRT C API\ncuda 13000")
    # Each as a value the results branch and the site take: letters, digits and ._+!- only.
    assert found.params() == {device.DEVICE: "gpu-Stand-in-GPU-x2", device.DRIVER: "PJRT-C-API-cuda-13000"}
    assert found.device.lower() == "gpu-stand-in-gpu-x2"
    # What a reader sees: the backend, then the kind, once.
    assert device.named(found.params()) == "GPU Stand in GPU x2"
    assert device.named({device.DEVICE: "tpu-TPU-v5-lite"}) == "TPU v5 lite" and device.named({}) == "CPU"
    # A result from before devices were recorded ran in the suite's own virtualenvs: PyPI's jaxlib, the CPU.
    assert device.of({}) == device.UNRECORDED == "cpu"


def test_two_devices_never_share_a_graph_a_comparison_or_a_verdict(tmp_path):
    (tmp_path / "both").mkdir()
    (tmp_path / "one").mkdir()
    on_both = make_site(tmp_path / "both", {COST: FLAT + RISEN}, devices=["cpu"] * 3 + [STAND_IN_GPU] * 3)
    on_one = make_site(tmp_path / "one", {COST: FLAT + RISEN})
    # asv draws one graph per device, each holding only its own commits.  (Its summary/ sparkline of the
    # overview averages every environment's graph, as it always did across Pythons and JAX releases.)
    graphs = sorted((on_both.parent / "html" / "graphs" / "branch-main").rglob(f"{COST}.json"))
    by_device = {next(part for part in g.parts if part.startswith("device-")): g for g in graphs}
    assert set(by_device) == {"device-cpu", f"device-{STAND_IN_GPU}"}
    for graph in by_device.values():
        assert len(json.loads(graph.read_text())) == 3
    # The history's verdict: the rise at the switch of devices counts on one device, and on two is no step.
    assert command("regressions", "--config", on_one, "--machine", MACHINE, "--no-confirm").returncode == 1
    across = command("regressions", "--config", on_both, "--machine", MACHINE, "--no-confirm")
    assert across.returncode == 0, across.stdout + across.stderr
    # A comparison of the commits on either side of the switch compares nothing, and says so.
    compared = command(
        "regressions", "--config", on_both, "--machine", MACHINE, "--no-confirm", "--compare", "v2", "v3"
    )
    assert compared.returncode == 2
    assert "no benchmark was measured at both commits in one environment" in compared.stderr


def test_a_change_of_runner_is_never_a_regression(tmp_path):
    """asv_runner 0.3 changed what a sample is: results timed by two runners are two series, never one step."""
    runners = ["asv-0.6.6-asv_runner-0.2.5"] * 3 + ["asv-0.6.6-asv_runner-0.3.2"] * 3
    config = make_site(tmp_path, {COST: FLAT + RISEN}, runners=runners)
    across = command("regressions", "--config", config, "--machine", MACHINE, "--no-confirm")
    assert across.returncode == 0, across.stdout + across.stderr
    compared = command("regressions", "--config", config, "--machine", MACHINE, "--no-confirm", "--compare", "v2", "v3")
    assert compared.returncode == 2
    assert "no benchmark was measured at both commits in one environment" in compared.stderr


def test_another_device_or_install_is_refused_the_file_of_the_first_and_nothing_is_stamped_over_it(tmp_path):
    config = make_site(tmp_path, {COST: FLAT}, devices=["cpu"] * 3)
    (path,) = sorted((config.parent / "results" / MACHINE).glob("*-*.json"))[:1]
    first = {"python": "3.11", "jax": "0.10.2", "jaxlib": "0.10.2", device.RUNNER: "asv-0.6.6-asv_runner-0.3.2"}
    device.refuse_another(path.with_name("none.json"), MACHINE, first)  # no file yet: nothing to mix with
    device.stamp(path, MACHINE, first)
    before = path.read_bytes()
    device.refuse_another(path, MACHINE, {**first, device.DEVICE: "cpu"})  # the same install and device
    for key, other in ((device.DEVICE, STAND_IN_GPU), ("jax", "0.7.2"), ("jaxlib", "0.7.1"), ("python", "3.12")):
        with pytest.raises(BadInput, match=f"holds figures measured with {key} .*, not {other}: run under another"):
            device.refuse_another(path, MACHINE, {**first, device.DEVICE: "cpu", key: other})
    assert path.read_bytes() == before
    device.stamp(path, MACHINE, {device.DRIVER: "none"})
    stamped = results.Results.load(str(path), MACHINE)
    assert (stamped.params[device.DEVICE], stamped.params[device.DRIVER]) == ("cpu", "none")


def test_a_run_stamps_the_results_it_measured_and_leaves_the_others_byte_for_byte(tmp_path, monkeypatch):
    from asv import environment

    from benchtools.asvtools import runs
    from benchtools.running import bench

    target = bench.Target(bench.Options(output=tmp_path, machine=MACHINE, releases="2"))
    env_name = "virtualenv-py3.11-jax0.4.33"
    paths = {}
    for commit in ("a" * 40, "b" * 40):
        result = results.Results({"machine": MACHINE, "python": "3.11"}, {}, commit, 0, "3.11", env_name, {})
        result.save(str(target.results_dir))
        paths[commit] = runs.result_path(target.results_dir, MACHINE, commit, env_name)
    restored = paths["b" * 40].read_bytes()
    # The environment's Python is this one, with JAX: its device is asked for real.
    monkeypatch.setattr(bench.Target, "config", lambda self, entry=None, suffix="": tmp_path / "asv.conf.json")
    monkeypatch.setattr(bench.asv_envs, "asv_config", lambda path: None)
    monkeypatch.setattr(
        environment, "get_environments", lambda conf, names, verbose: [SimpleNamespace(_path=sys.prefix)]
    )
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    bench.record_devices(target, [(env_name, {})], {env_name: ["a" * 40]})
    assert results.Results.load(str(paths["a" * 40]), MACHINE).params[device.DEVICE] == "cpu"
    assert paths["b" * 40].read_bytes() == restored  # restored from the results branch, say: not this run's


def virtualenv(folder) -> Path:
    """A real virtualenv with pip, of the Python that runs the tests, and none of its packages."""
    subprocess.run([sys.executable, "-m", "venv", folder], check=True, capture_output=True)
    return folder / "bin" / "python"


def test_the_runner_stamped_is_the_one_the_environment_imports_and_another_than_the_lock_s_is_refused(tmp_path):
    """Issue 52, item 6: the stamp comes from the Python that timed, not from the tools' .venv."""
    lock = runs.runner_version()
    assert lock == f"asv-{metadata.version('asv')}-asv_runner-{metadata.version('asv_runner')}"
    assert runs.runner_version(Path(sys.executable)) == lock  # the tools' Python imports the lock's
    python = virtualenv(tmp_path / "env")
    assert runs.runner_version(python) == f"asv-{metadata.version('asv')}-asv_runner-none"
    # --here lends a Python the lock's asv_runner alone, first on its PYTHONPATH: that is what it imports.
    lent = tmp_path / "lent"
    lent.mkdir()
    (lent / "asv_runner").symlink_to(runs.runner_package(), target_is_directory=True)
    assert runs.runner_version(python, {**os.environ, "PYTHONPATH": str(lent)}) == lock
    with pytest.raises(BadInput) as refused:
        runs.refuse_another_runner(python)
    assert str(refused.value) == (
        f"the asv environment {tmp_path / 'env'} times with asv-{metadata.version('asv')}-asv_runner-none, not the "
        f"lock's {lock}: remove it (rm -rf {tmp_path / 'env'}), and scripts/bench builds it again with the lock's"
    )
    runs.refuse_another_runner(Path(sys.executable))  # the lock's: measured
    runs.refuse_another_runner(tmp_path / "not-built" / "bin" / "python")  # asv builds it, with the constraint


@pytest.mark.slow(minutes=0.2)
def test_an_environment_that_kept_an_older_asv_runner_is_refused(tmp_path):
    """An asv environment built before the constraint: asv_runner 0.2.5, from the package index, as asv installed it."""
    python = virtualenv(tmp_path / "env")
    subprocess.run([python, "-m", "pip", "install", "-q", "asv_runner==0.2.5"], check=True, capture_output=True)
    assert runs.runner_version(python) == f"asv-{metadata.version('asv')}-asv_runner-0.2.5"
    with pytest.raises(BadInput, match=r"times with asv-[\d.]+-asv_runner-0\.2\.5, not the lock's "):
        runs.refuse_another_runner(python)
