"""benchtools/trial/noise.py: the MDE, the night's false-alarm rate and the table, on pairs whose noise is known.

The campaign itself measures real processes (scripts/timing-noise); here the
statistics that turn its pairs into figures run on synthetic pairs.
"""

import json
import math
import random

import pytest

from benchmarks import metrics
from benchtools import cli
from benchtools.judging import pairs
from benchtools.trial import noise
from tests.helpers import table_cells


def measured(sd: float, n: int = 32, seed: int = 0, name: str = metrics.ANSWER_RATIO):
    rng = random.Random(seed)
    before = [10.0 * math.exp(rng.gauss(0, sd / math.sqrt(2))) for _ in range(n)]
    after = [10.0 * math.exp(rng.gauss(0, sd / math.sqrt(2))) for _ in range(n)]
    return noise.Measured(name, "'eager', 'median'", before, after, 1.0)


def test_the_mde_grows_with_the_noise_and_with_the_suspects_of_a_night():
    quiet, loud = measured(0.01).log_ratios, measured(0.05).log_ratios
    mde_quiet = noise.minimum_detectable_effect(quiet, suspects=1, simulations=100)
    mde_loud = noise.minimum_detectable_effect(loud, suspects=1, simulations=100)
    mde_loud_night = noise.minimum_detectable_effect(loud, suspects=10, simulations=100)
    assert pairs.FLOOR < mde_quiet < mde_loud < mde_loud_night < noise.LARGEST_EFFECT
    # At its MDE the confirm step says slower in at least POWER of the runs; well below it, far less often.
    other_runs = noise.resampled(loud, 300, random.Random(1))
    assert noise.power(other_runs, mde_loud, 1) >= noise.POWER - 0.06
    assert noise.power(other_runs, mde_loud / 3, 1) < 0.5


def test_noise_beyond_any_threshold_has_no_mde():
    wild = measured(3.0).log_ratios  # processes differing by factors of e
    assert noise.minimum_detectable_effect(wild, suspects=1, simulations=50) is None


def test_nights_without_a_change_alarm_within_the_bound():
    benchmarks = [measured(0.2, seed=s) for s in range(3)]
    rate = noise.night_false_alarm(benchmarks, suspects=3, nights=300)
    assert 0 <= rate <= pairs.NIGHT_FALSE_ALARM + 3 * math.sqrt(pairs.NIGHT_FALSE_ALARM / 300)


def test_the_analysis_says_whether_the_mde_reaches_the_threshold():
    quiet = noise.analysis(measured(0.01), suspects=2, seed=0)
    assert quiet["reaches_threshold"] and quiet["aa_covers_zero"] and quiet["threshold"] == 0.10
    assert quiet["aa_verdict"] == pairs.SAME  # 32 quiet pairs of identical code
    slowed = measured(0.01)
    slowed.after = [value * 1.2 for value in slowed.after]
    assert noise.analysis(slowed, suspects=2, seed=0)["aa_verdict"] == pairs.SLOWER
    loud = noise.analysis(measured(1.5), suspects=2, seed=0)
    assert not loud["reaches_threshold"]


def record(tmp_path, rows):
    document = {
        "schema": noise.SCHEMA,
        "release": "0.13.8",
        "commit": "a" * 40,
        "environment": "Python 3.11, jax 0.4.33",
        "launch_method": "spawn",
        "hash_seed": "fresh",
        "pairs": 32,
        "suspects": 2,
        "power": noise.POWER,
        "night_false_alarm_bound": pairs.NIGHT_FALSE_ALARM,
        "load_before": [0.1, 0.1, 0.1],
        "load_after": [0.2, 0.2, 0.2],
        "benchmarks": rows,
        "night_false_alarm": {"1": 0.0, "2": 0.0005},
    }
    path = tmp_path / "record.json"
    path.write_text(json.dumps(document))
    return path


def test_the_table_is_made_from_a_record_alone(tmp_path, capsys):
    rows = [noise.analysis(measured(0.01), suspects=2, seed=0), noise.analysis(measured(1.5), suspects=2, seed=0)]
    docs = tmp_path / "page.md"
    docs.write_text("# page\n\n<!-- timing-noise:start -->\n<!-- timing-noise:end -->\n")
    argv = ["--from-record", "--record", str(record(tmp_path, rows)), "--docs", str(docs)]
    assert cli.run("timing-noise", argv) == 0
    out = capsys.readouterr().out
    names = [cells[:2] for cells in table_cells(out)]
    assert not any(name.startswith("`bench_answer.") for name, *_ in names)  # named without the module
    assert names.count(["`AnswerStep.track_ratio`", "'eager', 'median'"]) == 2
    assert "**MDE above the threshold**" in out and "A/A intervals that cover 0: " in out
    assert out.strip() in docs.read_text()


@pytest.mark.parametrize("damage", ["missing", "not-json", "no-benchmarks"])
def test_a_bad_record_exits_2_naming_it(tmp_path, capsys, damage):
    path = tmp_path / "record.json"
    if damage == "not-json":
        path.write_text("{")
    elif damage == "no-benchmarks":
        path.write_text(json.dumps({"schema": 1}))
    code = cli.run("timing-noise", ["--from-record", "--record", str(path)])
    assert code == 2 and "record.json" in capsys.readouterr().err


def test_too_few_pairs_for_one_look_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.parse("timing-noise", ["--pairs", str(pairs.START_PAIRS - 1)])
    assert exit_.value.code == 2 and "--pairs" in capsys.readouterr().err
