"""scripts/regressions over results that asv itself wrote and published.

Each test makes a real git history, writes results for chosen values through
asv's own Results class, runs the real `asv publish` (which does the step
detection), then runs the gate as a user would.
"""

import subprocess
import sys

import pytest

from tests.asv_sites import COUNT, ENV, MACHINE, ROOT, TIMING, git, make_site

GATE = ROOT / "scripts" / "regressions"


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
