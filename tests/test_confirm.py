"""The confirm step's machinery: verdicts on synthetic samples, the balanced order, the cap, the gate's exit codes.

Nothing here times anything: the values are made up, so that the verdict
they must give is known.  The one real measurement is the slow end-to-end
test at the end.
"""

import json
import math
import random
import subprocess
import sys

import pytest

from benchmarks import metrics
from benchtools import cli
from benchtools.errors import ExitCode
from benchtools.commands import regressions
from benchtools.judging import changes, confirm, render, pairs
from tests.asv_sites import COST, COUNT, MACHINE, PASSES, ROOT, TIMING, make_site


def noisy(n: int, change: float, sd: float, seed: int) -> tuple[list[float], list[float]]:
    """n pairs whose log ratio is ln(1 + change) plus normal noise of sd (and a common drift)."""
    rng = random.Random(seed)
    before, after = [], []
    for i in range(n):
        level = 20.0 * (1 + 0.3 * math.sin(i))  # the machine's drift: both sides of a pair alike
        before.append(level * math.exp(rng.gauss(0, sd / math.sqrt(2))))
        after.append(level * (1 + change) * math.exp(rng.gauss(0, sd / math.sqrt(2))))
    return before, after


def from_values(values: tuple[list[float], list[float]]):
    """A ``measure`` for pairs.sequential that hands out pre-made pairs, and records each batch."""
    before, after = values
    batches = []

    def measure(first, count):
        batches.append((first, count))
        return list(zip(before[first:first + count], after[first:first + count]))

    return measure, batches


def test_a_clear_slowdown_is_slower_at_the_first_look():
    measure, batches = from_values(noisy(32, 0.10, 0.015, seed=1))
    verdict, found, before, after = pairs.sequential(measure)
    assert verdict == pairs.SLOWER and batches == [(0, 8)] and len(before) == 8
    assert found.low > pairs.FLOOR and 0.07 < found.estimate < 0.13


def test_identical_values_are_same():
    before = [20.0 + i for i in range(8)]
    verdict, found, _, _ = pairs.sequential(lambda first, count: list(zip(before, before))[first:first + count])
    assert verdict == pairs.SAME and found.estimate == 0 and found.low == found.high == 0


def test_identical_code_with_noise_is_same_not_slower():
    for seed in range(20):
        verdict, _found, _, _ = pairs.sequential(from_values(noisy(32, 0.0, 0.025, seed))[0])
        assert verdict != pairs.SLOWER


def test_a_small_noisy_change_stays_undecided_up_to_the_cap():
    measure, batches = from_values(noisy(64, 0.015, 0.06, seed=3))
    verdict, found, before, _ = pairs.sequential(measure)
    assert verdict == pairs.UNDECIDED
    assert batches == [(0, 8), (8, 8), (16, 8), (24, 8)] and len(before) == found.pairs == pairs.MAX_PAIRS
    assert found.low <= pairs.FLOOR <= found.high or found.high >= pairs.SAME_BELOW


def test_the_cap_is_an_option_and_the_last_batch_is_cut_to_it():
    measure, batches = from_values(noisy(64, 0.015, 0.06, seed=3))
    verdict, found, _, _ = pairs.sequential(measure, max_pairs=12)
    assert batches == [(0, 8), (8, 4)] and found.pairs == 12 and verdict == pairs.UNDECIDED


def test_a_slowdown_below_the_floor_is_never_slower():
    # A steady +0.5%, measured without noise: precisely known, and still not called slower.
    before = [10.0] * 8
    after = [10.05, 10.0502] * 4
    verdict, found, _, _ = pairs.sequential(lambda first, count: list(zip(before, after))[first:first + count])
    assert found.low > 0 and verdict == pairs.SAME


def test_the_interval_is_the_hodges_lehmann_signed_rank_interval_on_log_ratios():
    assert pairs.signed_rank_cdf(3) == [1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8, 1]
    # Exact two-sided 1% critical values of the signed-rank statistic, as tabulated: n=8: 0, n=16: 19.
    for n, critical in ((8, 0), (16, 19)):
        cdf = pairs.signed_rank_cdf(n)
        assert cdf[critical] <= 0.005 < cdf[critical + 1]
    # The same distribution as scipy's exact signed-rank test: P(W <= w) is its one-sided p-value.
    from scipy import stats

    d = [0.3, -0.1, 0.5, 0.7, -0.2, 0.9, 1.1, 0.4, -0.6, 1.3]  # distinct magnitudes: ranks 1..10, no ties
    w = sum(rank for rank, x in enumerate(sorted(d, key=abs), 1) if x < 0)
    exact = stats.wilcoxon(d, alternative="greater", method="exact").pvalue
    assert pairs.signed_rank_cdf(10)[w] == pytest.approx(exact)
    before = [10.0] * 8
    after = [10.0 * math.exp(x) for x in (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08)]
    found = pairs.interval(before, after)
    # 8 pairs at 99%: the interval spans the smallest to the largest Walsh average, i.e. min d to max d.
    assert (found.low, found.high) == pytest.approx((math.expm1(0.01), math.expm1(0.08)))
    assert found.estimate == pytest.approx(math.expm1(0.045)) and found.pairs == 8
    # Fewer than 8 pairs cannot exclude anything at 99%.
    seven = pairs.interval(before[:7], after[:7])
    assert (seven.low, seven.high) == (-1.0, math.inf) and pairs.decide(seven) == pairs.UNDECIDED


def test_one_wild_process_does_not_hide_a_slowdown():
    # Tight pairs at +5%, and one process that the machine's neighbours halved: still slower, at 16 pairs.
    before = [20.0 * (1 + 0.01 * math.sin(i)) for i in range(16)]
    after = [b * 1.05 * (1 + 0.01 * math.cos(3 * i)) for i, b in enumerate(before)]
    after[3] = before[3] * 0.5
    verdict, found, _, _ = pairs.sequential(lambda first, count: list(zip(before, after))[first:first + count])
    assert verdict == pairs.SLOWER and 0.04 < found.estimate < 0.06


def test_the_order_is_balanced_abba():
    assert pairs.balanced_order(0, 4) == [("before", "after"), ("after", "before")] * 2
    # Every batch starts where the last one stopped, so the order stays A B B A across batches.
    assert pairs.balanced_order(0, 8) + pairs.balanced_order(8, 8) == pairs.balanced_order(0, 16)
    for first in range(0, 32, 8):
        order = pairs.balanced_order(first, 8)
        assert sum(pair[0] == "before" for pair in order) == 4  # each side goes first equally often


def test_the_verdict_constants_are_as_documented():
    assert (pairs.CONFIDENCE, pairs.FLOOR, pairs.SAME_BELOW) == (0.99, 0.01, 0.02)
    assert (pairs.START_PAIRS, pairs.STEP_PAIRS, pairs.MAX_PAIRS) == (8, 8, 32)
    assert pairs.STEP_PAIRS % 2 == 0 and pairs.START_PAIRS % 2 == 0


def test_the_tree_map_pass_metric_is_suspect_at_any_increase():
    assert metrics.suspect_threshold(PASSES) == 0.0
    assert metrics.threshold(PASSES) == 0.10  # the quick look keeps its threshold
    assert metrics.suspect_threshold(TIMING) is None


def test_discovery_selects_exactly_the_suspects_benchmarks_parameterized_or_not():
    from types import SimpleNamespace

    from asv.benchmarks import Benchmarks

    listed = [{"name": name, "params": params} for name, params in (
        (TIMING, [["'jit'", "'scan'"]]), (TIMING + "_other", [["'jit'"]]), (PASSES, []), (PASSES + "2", []))]
    found = Benchmarks(SimpleNamespace(benchmark_dir="benchmarks"), listed,
                       regex=confirm.discovery_regex([TIMING, PASSES]))
    assert sorted(found) == sorted([TIMING, PASSES])
    assert confirm.param_index(found[TIMING], "'scan'") == 1 and confirm.param_index(found[PASSES], "") is None


# The gate, confirming through a fake measurement (nothing is installed or run).

class FakeSide:
    """A confirm.Side whose processes return made-up values: ``factor`` times a drifting level."""

    def __init__(self, factor: float, benchmarks: dict, log: list):
        self.factor, self.benchmarks, self.log = factor, benchmarks, log
        self.opened = 0

    def open(self):
        self.opened += 1

    def close(self):
        pass

    def value(self, name, index):
        self.log.append((self.factor, name, index))
        return 1e-3 * self.factor * (1 + 0.2 * math.sin(len(self.log) / 40))  # a slow drift


def fake_sides(monkeypatch, after_factor: dict, log: list):
    """Replace the installation of both commits by FakeSides; after_factor[name]: after's slowdown."""

    def prepare(config, env_label, commits, names, root):
        assert env_label == "Python 3.11, jax 0.4.33" and set(commits) == {"before", "after"}
        benchmarks = {TIMING: {"params": [["'jit'", "'scan'"]]}, PASSES: {"params": []}}
        return {"before": FakeSide(1.0, benchmarks, log),
                "after": FakeSide(after_factor.get(names[0], 1.0), benchmarks, log)}

    monkeypatch.setattr(confirm, "_prepare", prepare)


def run_gate(capsys, config, *args) -> tuple[int, str, str]:
    code = cli.run(regressions.main, ["--config", str(config), "--machine", MACHINE, *map(str, args)], "scripts/regressions")
    out = capsys.readouterr()
    return int(code), out.out, out.err


FLAT_TIMING = [[1.00e-3, 2.00e-3]] * 2
FLAT_COUNT = [[100, 400]] * 2


@pytest.mark.parametrize("factor, verdict, code", [(1.5, "**slower**", ExitCode.FOUND), (1.0, "same", ExitCode.OK)])
def test_only_a_confirmed_slowdown_counts(tmp_path, monkeypatch, capsys, factor, verdict, code):
    config = make_site(tmp_path, {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT})
    log = []
    fake_sides(monkeypatch, {TIMING: factor}, log)
    exit_code, out, _err = run_gate(capsys, config, "--compare", "v0", "v1")
    assert exit_code == code, out
    suspect = [line for line in out.splitlines() if line.startswith(f"| {verdict} | time | `{TIMING}` | 'jit' |")]
    assert len(suspect) == 1, out
    assert "v0 → v1" in suspect[0]
    # Balanced order, one value per process, index of 'jit' in the params.
    assert log[:4] == [(1.0, TIMING, 0), (factor, TIMING, 0), (factor, TIMING, 0), (1.0, TIMING, 0)]
    counted = [line for line in out.splitlines() if line.startswith("| time |")]
    assert len(counted) == (1 if code == ExitCode.FOUND else 0)


def test_an_undecided_suspect_does_not_count_and_the_cap_is_honoured(tmp_path, monkeypatch, capsys):
    config = make_site(tmp_path, {PASSES: [[20.0], [20.2]], COUNT: FLAT_COUNT})
    log = []
    fake_sides(monkeypatch, {}, log)
    rng = random.Random(0)
    monkeypatch.setattr(FakeSide, "value", lambda self, name, index: (log.append(name), 20 * math.exp(
        rng.gauss(0.015, 0.08)))[1])
    exit_code, out, _err = run_gate(capsys, config, "--compare", "v0", "v1", "--confirm-max-pairs", 12)
    assert exit_code == ExitCode.OK, out
    [row] = [line for line in out.splitlines() if line.startswith("| undecided | ratio |")]
    assert row.split("|")[-3].strip() == "12" and len(log) == 24
    # A +1% change of the tree_map-pass metric is a suspect (any increase); the quick look ignores it.
    assert "+10%" not in row


def test_exact_changes_count_without_confirming(tmp_path, monkeypatch, capsys):
    config = make_site(tmp_path, {COST: [[100, 400], [100, 440]], COUNT: FLAT_COUNT})
    monkeypatch.setattr(confirm, "_prepare", lambda *args: pytest.fail("nothing to confirm"))
    exit_code, out, _err = run_gate(capsys, config, "--compare", "v0", "v1")
    assert exit_code == ExitCode.FOUND and "| cost |" in out and "No timing suspect." in out


def test_without_the_configuration_confirming_exits_2_unless_no_confirm(tmp_path):
    make_site(tmp_path, {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT})
    folders = ["--results", tmp_path / "results", "--html", tmp_path / "html", "--machine", MACHINE]
    command = [sys.executable, str(ROOT / "scripts" / "regressions"), *map(str, folders)]
    refused = subprocess.run(command, capture_output=True, text=True)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "asv configuration" in refused.stderr and "--no-confirm" in refused.stderr
    assert "Traceback" not in refused.stderr
    quick = subprocess.run(command + ["--no-confirm"], capture_output=True, text=True)
    assert quick.returncode == 1 and "unconfirmed" in quick.stdout, quick.stdout + quick.stderr


def test_a_missing_repository_exits_2(tmp_path, capsys):
    config = make_site(tmp_path, {TIMING: [[1.00e-3, 2.00e-3], [1.60e-3, 2.00e-3]], COUNT: FLAT_COUNT})
    (tmp_path / "repo").rename(tmp_path / "gone")
    exit_code, _out, err = run_gate(capsys, config, "--compare", "v0", "v1")
    assert exit_code == ExitCode.BAD_INPUT and "repository" in err and "--no-confirm" in err


def test_the_nightly_compares_its_baseline_with_the_newest_new_commit(tmp_path):
    from benchtools.running import nightly

    config = make_site(tmp_path, {PASSES: [[20.0], [20.1], [20.2]]})
    hashes = [line.split()[0] for line in subprocess.run(
        ["git", "-C", str(tmp_path / "repo"), "log", "--reverse", "--format=%H"], capture_output=True,
        text=True).stdout.splitlines()]
    assert nightly.newest_with_results(tmp_path / "results", MACHINE) == hashes[-1]
    assert nightly.newest_with_results(tmp_path / "results", "elsewhere") is None
    (tmp_path / ".asv").mkdir()
    last_run = tmp_path / ".asv" / "last-run.json"
    last_run.write_text(json.dumps({"config": str(config), "commits": hashes[1:]}))
    # A baseline and new commits: the baseline against the newest, confirmed.
    assert nightly.gate_scope(tmp_path, hashes[0]) == ((hashes[0], hashes[-1]), True)
    # The first night: asv's step detection, confirmed.
    assert nightly.gate_scope(tmp_path, None) == (None, True)
    # Nothing new: step detection over what is stored, unconfirmed.
    last_run.write_text(json.dumps({"config": str(config), "commits": []}))
    assert nightly.gate_scope(tmp_path, hashes[-1]) == (None, False)


# The real confirm step, end to end: asv environments, real Equinox, fresh processes.

@pytest.mark.slow
def test_the_real_confirm_step_confirms_a_slowdown_and_not_identical_code(history, tmp_path):
    from benchtools import git
    from benchtools.running import bench
    from benchtools.trial import detector

    repo = tmp_path / "equinox"
    git.run("clone", "-q", git.END, history, repo)
    release = git.out("rev-parse", "v0.13.8", repo=repo).strip()
    commits = {}
    pads = detector.calibrate_pads(100)  # +100% of a tree_at call: many times the noise
    for name in ("aa", "slowed"):
        git.run("checkout", "-q", release, "--", ".", repo=repo)
        tree_file = repo / "equinox" / "_tree.py"
        if name == "slowed":
            tree_file.write_text(detector.inject_c_work(tree_file.read_text(), pads))
        (repo / "VARIANT").write_text(name)
        git.run("add", "-A", repo=repo)
        git.run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name, repo=repo)
        commits[name] = git.out("rev-parse", "HEAD", repo=repo).strip()
    target = bench.Target(bench.Options(repo=str(repo), output=tmp_path, env_dir=tmp_path / "env"))
    config = target.config({("python", None): "3.11", ("req", "jax"): "0.4.33", ("req", "jaxlib"): "0.4.33",
                            ("req", "jaxtyping"): "",
                            ("req", "typing_extensions"): "", ("req", "wadler_lindig"): "", ("req", "hatchling"): ""})
    env = "Python 3.11, jax 0.4.33, jaxlib 0.4.33"

    def change(benchmark, params, after):
        return changes.Change(benchmark, params, env, 1.0, 1.1, release, commits[after], True, "")

    suspects = [change(PASSES, "", "slowed"), change("bench_eager.EagerSurgery.time_tree_at", "4, 8", "slowed"),
                change(PASSES, "", "aa")]
    found = confirm.confirmations(config, suspects, max_pairs=8)
    passes, eager, aa = found
    assert passes.verdict == pairs.SLOWER and passes.interval.estimate > 0.3, passes
    assert eager.verdict == pairs.SLOWER and eager.interval.estimate > 0.3, eager  # a time_: medians of samples
    assert aa.verdict != pairs.SLOWER, aa
    assert len(passes.before) == len(passes.after) == passes.interval.pairs == 8
    assert (tmp_path / "confirm-env" / "before").is_dir() and (tmp_path / "confirm-env" / "after").is_dir()
    text = render.confirmations_section(found)
    assert text.count("| **slower** |") == 2
