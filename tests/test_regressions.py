"""scripts/regressions over results that asv itself wrote and published.

Each test makes a real git history, writes results for chosen values through
asv's own Results class, runs the real `asv publish` (which does the step
detection), then runs the gate as a user would.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from asv import results, runner

ROOT = Path(__file__).resolve().parents[1]
GATE = ROOT / "scripts" / "regressions"
MACHINE = "gate-tests"
ENV = "virtualenv-py3.11-jax0.4.33"
TIMING = "bench_steady.SteadyState.time_tree_at"
COUNT = "bench_counts.PythonCalls.track_tree_at"
BENCHMARKS = {
    TIMING: {"name": TIMING, "params": [["'jit'", "'scan'"]], "param_names": ["wrapping"],
             "unit": "seconds", "type": "time", "version": "1"},
    COUNT: {"name": COUNT, "params": [["1", "4"]], "param_names": ["depth"],
            "unit": "calls", "type": "track", "version": "1"},
}


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def make_site(tmp_path: Path, series: dict[str, list[list[float]]], skip_results=()) -> Path:
    """A history of len(series[...]) tagged commits with these values, published; returns the config.

    ``series[name][i]`` holds the values of benchmark ``name`` at commit i,
    one per parameter; commits in ``skip_results`` get no results.
    """
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    n_commits = len(next(iter(series.values())))
    hashes = []
    for i in range(n_commits):
        (repo / "file.txt").write_text(str(i))
        git(repo, "add", "file.txt")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"commit {i}",
            "--date", f"2026-01-{i + 1:02d}T00:00:00")
        git(repo, "tag", f"v{i}")
        hashes.append(git(repo, "rev-parse", "HEAD"))

    results_dir, html_dir = tmp_path / "results", tmp_path / "html"
    (results_dir / MACHINE).mkdir(parents=True)
    (results_dir / MACHINE / "machine.json").write_text(json.dumps(
        {"machine": MACHINE, "arch": "x86_64", "cpu": "test", "num_cpu": "2", "os": "Linux", "ram": "1",
         "version": 1}))
    (results_dir / "benchmarks.json").write_text(json.dumps({**BENCHMARKS, "version": 2}))
    for i, commit in enumerate(hashes):
        if i in skip_results:
            continue
        result = results.Results({"machine": MACHINE, "python": "3.11", "jax": "0.4.33"}, {"jax": "0.4.33"},
                                 commit, 1_767_225_600_000 + i * 86_400_000, "3.11", ENV, {})
        for name, values in series.items():
            result.add_result(BENCHMARKS[name], runner.BenchmarkResult(
                result=values[i], samples=[[value] for value in values[i]], number=[1] * len(values[i]),
                errcode=0, stderr="", profile=None))
        result.save(str(results_dir))

    config = tmp_path / "asv.conf.json"
    config.write_text(json.dumps({
        "version": 1, "project": "demo", "repo": str(repo), "branches": ["main"],
        "environment_type": "virtualenv", "results_dir": str(results_dir), "html_dir": str(html_dir),
        "benchmark_dir": str(ROOT / "benchmarks"),
        "regressions_thresholds": json.loads(json.dumps(load_thresholds())),
    }))
    published = subprocess.run([sys.executable, "-m", "asv", "publish", "--config", str(config)],
                               capture_output=True, text=True)
    assert published.returncode == 0, published.stdout + published.stderr
    return config


def load_thresholds():
    from asv import util

    return util.load_json(str(ROOT / "asv.conf.json"), js_comments=True)["regressions_thresholds"]


def gate(config, *args):
    return subprocess.run([sys.executable, str(GATE), "--config", str(config), "--machine", MACHINE, *args],
                          capture_output=True, text=True)


FLAT_TIMING = [[1.00e-3, 2.00e-3]] * 6
FLAT_COUNT = [[100, 400]] * 6


def test_a_jump_is_reported_with_the_commit_that_made_it(tmp_path):
    timing = FLAT_TIMING[:3] + [[1.50e-3, 2.00e-3]] * 3  # 'jit' +50% from v3 on
    count = FLAT_COUNT[:4] + [[100, 404]] * 2  # depth 4: +4 calls from v4 on
    result = gate(make_site(tmp_path, {TIMING: timing, COUNT: count}))
    assert result.returncode == 1, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith(("| deterministic", "| timing"))]
    assert len(rows) == 2
    assert rows[0].startswith("| deterministic | `bench_counts.PythonCalls.track_tree_at` | 4 |")
    assert "| 400 calls | 404 calls | 1.01 | v4 |" in rows[0]
    assert rows[1].startswith("| timing | `bench_steady.SteadyState.time_tree_at` | 'jit' |")
    assert "| 1.50 | v3 |" in rows[1]


def test_identical_code_raises_no_alarm(tmp_path):
    noise = [[1.00e-3 * (1 + 0.01 * (i % 2)), 2.00e-3] for i in range(6)]
    result = gate(make_site(tmp_path, {TIMING: noise, COUNT: FLAT_COUNT}))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No regression counts." in result.stdout


def test_threshold_decides_for_timings_but_not_for_deterministic_metrics(tmp_path):
    timing = FLAT_TIMING[:3] + [[1.08e-3, 2.00e-3]] * 3  # +8%
    config = make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT})
    assert gate(config, "--threshold", "0.10").returncode == 0
    assert gate(config, "--threshold", "0.05").returncode == 1


def test_compare_two_tags(tmp_path):
    timing = FLAT_TIMING[:5] + [[1.00e-3, 3.00e-3]]
    config = make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT})
    result = gate(config, "--compare", "v0", "v5")
    assert result.returncode == 1, result.stderr
    assert "| 'scan' |" in result.stdout and "| 2.00ms | 3.00ms | 1.50 | v0..v5 |" in result.stdout
    assert "asv find" in result.stdout
    assert gate(config, "--compare", "v4", "v5").stdout.count("| timing |") == 1
    assert gate(config, "--compare", "v0", "v4").returncode == 0


def test_a_change_over_several_commits_gives_the_asv_find_command(tmp_path):
    timing = FLAT_TIMING[:2] + [[2.00e-3, 2.00e-3]] * 4
    config = make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT}, skip_results={2, 3})
    result = gate(config)
    assert result.returncode == 1, result.stderr
    assert "v1..v4" in result.stdout
    find = [line for line in result.stdout.splitlines() if "asv find" in line]
    assert len(find) == 1 and "--config" in find[0] and "bench_steady\\.SteadyState\\.time_tree_at" in find[0]


@pytest.mark.parametrize("damage", ["corrupt-results", "missing-site", "unknown-commit", "corrupt-site"])
def test_bad_input_exits_2_naming_it(tmp_path, damage):
    config = make_site(tmp_path, {TIMING: FLAT_TIMING, COUNT: FLAT_COUNT})
    args = []
    if damage == "corrupt-results":
        last_commit = git(tmp_path / "repo", "rev-parse", "v5")
        victim = tmp_path / "results" / MACHINE / f"{last_commit[:8]}-{ENV}.json"
        victim.write_text(victim.read_text()[:40])
        args = ["--compare", "v0", "v5"]
        named = victim.name
    elif damage == "missing-site":
        (tmp_path / "html" / "regressions.json").unlink()
        named = "regressions.json"
    elif damage == "corrupt-site":
        (tmp_path / "html" / "index.json").write_text("{")
        named = "index.json"
    else:
        args = ["--compare", "v0", "nope"]
        named = "nope"
    result = gate(config, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr
    assert "Traceback" not in result.stderr
