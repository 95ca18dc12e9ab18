"""scripts/regressions over results that asv itself wrote and published.

Each test makes a real git history, writes results for chosen values through
asv's own Results class, runs the real `asv publish` (which does the step
detection), then runs the gate as a user would.
"""

import json
import subprocess
import sys

import pytest

from tests.asv_sites import COUNT, ENV, MACHINE, PASSES, RATIO, ROOT, TIMING, git, make_site

GATE = ROOT / "scripts" / "regressions"


def gate(config, *args):
    """The gate's quick look (--no-confirm): these sites are written, not measured, so nothing can be re-run.

    tests/test_confirm.py tests the confirmed gate.
    """
    return subprocess.run([sys.executable, str(GATE), "--config", str(config), "--machine", MACHINE,
                           "--no-confirm", *args],
                          capture_output=True, text=True)


def kinds(report: str) -> list[str]:
    """The kind of each counted row of a gate report, in order."""
    return [line.split("|")[1].strip() for line in report.splitlines()
            if line.startswith(("| deterministic |", "| ratio |", "| time |"))]


FLAT_TIMING = [[1.00e-3, 2.00e-3]] * 6
FLAT_COUNT = [[100, 400]] * 6


def test_a_jump_is_reported_with_the_commit_that_made_it(tmp_path):
    timing = FLAT_TIMING[:3] + [[1.60e-3, 2.00e-3]] * 3  # 'jit' +60% from v3 on
    count = FLAT_COUNT[:4] + [[100, 404]] * 2  # depth 4: +4 calls from v4 on
    result = gate(make_site(tmp_path, {TIMING: timing, COUNT: count}))
    assert result.returncode == 1, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith(("| deterministic", "| ratio", "| time"))]
    assert len(rows) == 2
    assert rows[0].startswith("| deterministic | `bench_counts.PythonCalls.track_tree_at` | 4 |")
    assert "| 400 calls | 404 calls | 1.01 | any increase | v4 |" in rows[0]
    assert rows[1].startswith("| time | `bench_steady.SteadyState.time_tree_at` | 'jit' |")
    assert "| 1.60 | +50% | v3 |" in rows[1]


def test_identical_code_raises_no_alarm(tmp_path):
    noise = [[1.00e-3 * (1 + 0.01 * (i % 2)), 2.00e-3] for i in range(6)]
    result = gate(make_site(tmp_path, {TIMING: noise, COUNT: FLAT_COUNT}))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No regression counts." in result.stdout


def test_each_kind_of_metric_has_its_own_threshold(tmp_path):
    timing = FLAT_TIMING[:3] + [[1.08e-3, 2.00e-3]] * 3  # +8%
    ratio = [[10.0, 1.2]] * 3 + [[10.8, 1.2]] * 3  # 'eager' +8%
    config = make_site(tmp_path, {TIMING: timing, RATIO: ratio, COUNT: FLAT_COUNT})
    compare = ("--compare", "v0", "v5")
    loose = gate(config, *compare, "--threshold", "0.10", "--time-threshold", "0.10")
    assert loose.returncode == 0, loose.stdout
    ratio_only = gate(config, *compare, "--threshold", "0.05", "--time-threshold", "0.10")
    assert ratio_only.returncode == 1
    assert kinds(ratio_only.stdout) == ["ratio"], ratio_only.stdout
    both = gate(config, *compare, "--threshold", "0.05", "--time-threshold", "0.05")
    assert kinds(both.stdout) == ["ratio", "time"], both.stdout


def test_thresholds_come_from_the_asv_configuration_per_benchmark(tmp_path):
    # +12% on both: beyond the tree_map-pass metric's 10%, within the other ratios' 35%.
    passes = [[22.0]] * 3 + [[24.64]] * 3
    ratio = [[10.0, 1.2]] * 3 + [[11.2, 1.2]] * 3
    config = make_site(tmp_path, {PASSES: passes, RATIO: ratio, COUNT: FLAT_COUNT})
    result = gate(config)
    assert result.returncode == 1, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ratio")]
    assert len(rows) == 1 and PASSES in rows[0] and "| +10% |" in rows[0], result.stdout

    loosened = json.loads(config.read_text())
    loosened["regressions_thresholds"] = {".*": 0.15}
    config.write_text(json.dumps(loosened))
    assert gate(config, "--compare", "v0", "v5").returncode == 0
    overridden = gate(config, "--compare", "v0", "v5", "--threshold", "0.11").stdout
    assert kinds(overridden) == ["ratio", "ratio"], overridden


def test_a_bad_threshold_in_the_configuration_exits_2(tmp_path):
    config = make_site(tmp_path, {COUNT: FLAT_COUNT})
    broken = json.loads(config.read_text())
    broken["regressions_thresholds"] = {"bench_counts\\.(": 0}
    config.write_text(json.dumps(broken))
    result = gate(config, "--compare", "v0", "v5")
    assert result.returncode == 2
    assert "regressions_thresholds" in result.stderr and "Traceback" not in result.stderr


def test_compare_two_tags(tmp_path):
    timing = FLAT_TIMING[:5] + [[1.00e-3, 4.00e-3]]
    config = make_site(tmp_path, {TIMING: timing, COUNT: FLAT_COUNT})
    result = gate(config, "--compare", "v0", "v5")
    assert result.returncode == 1, result.stderr
    assert "| 'scan' |" in result.stdout and "| 2.00ms | 4.00ms | 2.00 | +50% | v0..v5 |" in result.stdout
    assert "asv find" in result.stdout
    assert kinds(gate(config, "--compare", "v4", "v5").stdout) == ["time"]
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
