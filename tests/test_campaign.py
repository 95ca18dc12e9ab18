"""scripts/timing-noise's campaign (benchtools/trial/noise.py), with asv's environments replaced by stand-ins (the
campaign itself measures real processes)."""

import fcntl
import json
import random
from types import SimpleNamespace

from benchmarks import metrics
from benchtools.asvtools import sides
from benchtools.judging import confirm
from benchtools.running import bench
from benchtools.trial import noise


def locked(env_dir) -> bool:
    """Whether another holder has env_dir's run lock (asvtools/lock.py)."""
    with open(env_dir / ".scripts-bench.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(lock, fcntl.LOCK_UN)
        return False


def stand_ins(monkeypatch, tmp_path, commit="c" * 40):
    """One release and one environment, and asvtools.sides.prepare recording what it was asked for."""
    entry = {("python", None): "3.11", ("req", "jax"): "1.0"}
    monkeypatch.setattr(bench, "releases", lambda target: [("1.2.3", commit)])
    monkeypatch.setattr(bench, "environments", lambda target: [("env", entry)])

    def config(self, entry, suffix):
        path = tmp_path / f"conf{suffix}.json"
        path.write_text("{}")  # a configuration that the campaign loads once
        return path

    monkeypatch.setattr(bench.Target, "config", config)
    monkeypatch.setattr(confirm, "env_root", lambda config, conf: tmp_path / "confirm-env")
    prepared = []
    side = SimpleNamespace(benchmarks={metrics.PASSES_TREE_AT: {"params": []}})

    def prepare(config, label, commits, names, root):
        prepared.append((config, label, commits, names, root, locked(root)))
        return dict.fromkeys(commits, side)

    monkeypatch.setattr(sides, "prepare", prepare)
    return prepared


def test_the_timing_noise_campaign_measures_both_sides_of_one_commit_under_the_lock(tmp_path, monkeypatch):
    prepared = stand_ins(monkeypatch, tmp_path)
    pairs_asked = []

    rng = random.Random(0)

    def measure_pairs(sides, name, index, seeds):
        pairs_asked.append((name, index))
        return lambda first, count: [(10.0 * rng.lognormvariate(0, 0.01), 10.0) for _ in range(count)]

    monkeypatch.setattr(confirm, "measure_pairs", measure_pairs)
    # The statistics are test_noise.py's; here they are stood in for, to keep this test fast.
    analysed = []
    monkeypatch.setattr(
        noise, "analysis", lambda m, suspects, seed: analysed.append(m) or {"benchmark": m.benchmark, "sd_log_ratio": 0}
    )
    monkeypatch.setattr(noise, "night_false_alarm", lambda measured, suspects, nights, seed: len(measured) / suspects)
    record = noise.campaign(noise.Options(release="1.2.3", jax="1.0", pairs=16, record=tmp_path / "noise.json"))
    [(config, label, commits, names, root, held)] = prepared
    assert held and config == tmp_path / "conf-timing-noise.json"
    assert commits == {"before": "c" * 40, "after": "c" * 40} and names == [] and root == tmp_path / "confirm-env"
    assert label == "Python 3.11, jax 1.0" == record["environment"]
    assert pairs_asked == [(metrics.PASSES_TREE_AT, None)]
    [row] = record["benchmarks"]
    assert row["benchmark"] == metrics.PASSES_TREE_AT and len(row["before_values"]) == 16
    assert [m.benchmark for m in analysed] == [metrics.PASSES_TREE_AT] and analysed[0].before == row["before_values"]
    assert record["night_false_alarm"] == {"1": 1.0, str(noise.Options().suspects): 1 / noise.Options().suspects}
    assert list(record)[:4] == ["schema", "release", "commit", "environment"] and record["commit"] == "c" * 40
    assert json.loads((tmp_path / "noise.json").read_text()) == record and "finished" in record
    assert "load_before" in record and "load_after" in record
