"""The cause of a change, named: a real history with a known injected change, benchmarked and profiled by asv.

The history is Equinox 0.13.7 and 0.13.8 from PyPI (conftest's ``history``)
and a copy of 0.13.8 whose tree_at first makes 100 calls to a new function,
``_detector_trial_noop`` (benchtools/detector.py's ``inject``).  scripts/bench
measures the cost in a real asv virtualenv; the gate, with --explain,
profiles one update in both commits with asv profile and must name the
function.
"""

import shutil
import subprocess
import sys

import pytest

from benchtools.running import bench
from benchtools.trial import detector
from tests.asv_sites import ROOT, git

INJECTED = 100


@pytest.mark.slow
def test_the_explanation_names_the_function_that_an_injected_change_calls(tmp_path, history):
    repo = tmp_path / "repo"
    shutil.copytree(history, repo)
    git(repo, "checkout", "-q", "-B", "trial", "v0.13.8")
    tree = repo / "equinox" / "_tree.py"
    tree.write_text(detector.inject(tree.read_text(), INJECTED))
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "tree_at calls a no-op 100 times")
    git(repo, "tag", "injected")

    output = tmp_path / "out"
    status = bench.bench(bench.Options(repo=str(repo), branch="trial", jax=["0.4.33"], machine="explain-test",
                                       output=output, range="v0.13.8^..trial", quick=True,
                                       bench=[r"bench_counts\.PythonCost"]))
    assert status == 0

    gate = subprocess.run([sys.executable, str(ROOT / "scripts" / "regressions"), "--output", str(output),
                           "--compare", "v0.13.8", "injected", "--explain"], capture_output=True, text=True)
    assert gate.returncode == 1, gate.stdout + gate.stderr[-3000:]
    assert "| cost | `bench_counts.PythonCost.track_tree_at` | 4 |" in gate.stdout
    assert "## What changed in the code that ran" in gate.stdout
    assert f"| `equinox._tree._detector_trial_noop` | 0 → {INJECTED} |" in gate.stdout, gate.stdout
    # The profiles are cached per (environment, commit): a rerun profiles nothing.
    cached = [p for p in (output / ".asv" / "profiles").glob("*/*.json") if p.parent.name != "configs"]
    assert sorted(p.stem for p in cached) == sorted(git(repo, "rev-parse", tag) for tag in ("v0.13.8", "injected"))
    again = subprocess.run([sys.executable, str(ROOT / "scripts" / "regressions"), "--output", str(output),
                            "--compare", "v0.13.8", "injected", "--explain"], capture_output=True, text=True)
    assert again.stdout == gate.stdout and "asv profile" not in again.stderr
