"""benchtools/judging/pairs.py: the confirm step's statistics, on synthetic samples whose verdict is known.

Verdicts, the paired interval, the balanced order and the cap; no process is run.
"""

import math
import random
import statistics

import pytest

from benchtools.judging import pairs


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
        return list(zip(before[first : first + count], after[first : first + count], strict=True))

    return measure, batches


def test_a_clear_slowdown_is_slower_at_the_first_look():
    measure, batches = from_values(noisy(32, 0.10, 0.015, seed=1))
    verdict, found, before, after = pairs.sequential(measure)
    start = pairs.START_PAIRS
    assert verdict == pairs.SLOWER and batches == [(0, start)] and len(before) == start
    assert found.low > pairs.FLOOR and 0.07 < found.estimate < 0.13


def test_identical_values_are_same():
    before = [20.0 + i for i in range(pairs.START_PAIRS)]
    verdict, found, _, _ = pairs.sequential(
        lambda first, count: list(zip(before, before, strict=True))[first : first + count]
    )
    assert verdict == pairs.SAME and found.estimate == 0 and found.low == found.high == 0


def test_identical_code_with_noise_is_same_not_slower():
    for seed in range(20):
        verdict, _found, _, _ = pairs.sequential(from_values(noisy(32, 0.0, 0.025, seed))[0])
        assert verdict != pairs.SLOWER


def test_a_small_noisy_change_stays_undecided_up_to_the_cap():
    measure, batches = from_values(noisy(64, 0.015, 0.06, seed=3))
    verdict, found, before, _ = pairs.sequential(measure)
    assert verdict == pairs.UNDECIDED
    assert batches == [(0, 12), (12, 10), (22, 10)] and len(before) == found.pairs == pairs.MAX_PAIRS
    assert found.low <= pairs.FLOOR <= found.high or found.high >= pairs.SAME_BELOW


def test_the_cap_is_an_option_and_the_last_batch_is_cut_to_it():
    measure, batches = from_values(noisy(64, 0.015, 0.06, seed=3))
    verdict, found, _, _ = pairs.sequential(measure, max_pairs=16)
    assert batches == [(0, 12), (12, 4)] and found.pairs == 16 and verdict == pairs.UNDECIDED


def test_a_slowdown_below_the_floor_is_never_slower():
    # A steady +0.5%, measured without noise: precisely known, and still not called slower.
    before = [10.0] * 12
    after = [10.05, 10.0502] * 6
    verdict, found, _, _ = pairs.sequential(
        lambda first, count: list(zip(before, after, strict=True))[first : first + count]
    )
    assert found.low > 0 and verdict == pairs.SAME


def test_the_interval_is_the_hodges_lehmann_signed_rank_interval_on_log_ratios():
    assert pairs.signed_rank_cdf(3) == (1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8, 1)
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
    found = pairs.interval(before, after, 0.99)
    # 8 pairs at 99%: the interval spans the smallest to the largest Walsh average, i.e. min d to max d.
    assert (found.low, found.high) == pytest.approx((math.expm1(0.01), math.expm1(0.08)))
    assert found.estimate == pytest.approx(math.expm1(0.045)) and found.pairs == 8 and found.confidence == 0.99
    # Fewer than 8 pairs cannot exclude anything at 99%.
    seven = pairs.interval(before[:7], after[:7], 0.99)
    assert (seven.low, seven.high) == (-1.0, math.inf) and pairs.decide(seven) == pairs.UNDECIDED


def test_one_wild_process_does_not_hide_a_slowdown():
    # Tight pairs at +5%, and one process that the machine's neighbours halved: still slower.
    before = [20.0 * (1 + 0.01 * math.sin(i)) for i in range(pairs.MAX_PAIRS)]
    after = [b * 1.05 * (1 + 0.01 * math.cos(3 * i)) for i, b in enumerate(before)]
    after[3] = before[3] * 0.5
    verdict, found, _, _ = pairs.sequential(
        lambda first, count: list(zip(before, after, strict=True))[first : first + count]
    )
    assert verdict == pairs.SLOWER and 0.04 < found.estimate < 0.06


def test_the_order_is_balanced_abba():
    assert pairs.balanced_order(0, 4) == [("before", "after"), ("after", "before")] * 2
    # Every batch starts where the last one stopped, so the order stays A B B A across batches.
    assert pairs.balanced_order(0, 8) + pairs.balanced_order(8, 8) == pairs.balanced_order(0, 16)
    for first in range(0, 32, 8):
        order = pairs.balanced_order(first, 8)
        assert sum(pair[0] == "before" for pair in order) == 4  # each side goes first equally often


def test_every_batch_is_balanced_and_the_cap_is_whole_batches():
    assert pairs.STEP_PAIRS % 2 == 0 and pairs.START_PAIRS % 2 == 0
    for first, count in ((0, pairs.START_PAIRS), (pairs.START_PAIRS, pairs.STEP_PAIRS)):
        assert sum(pair[0] == "before" for pair in pairs.balanced_order(first, count)) == count // 2
    assert (pairs.MAX_PAIRS - pairs.START_PAIRS) % pairs.STEP_PAIRS == 0
    # A change precisely known to be below the floor is never slower, and the same band is wider.
    assert 0 < pairs.FLOOR < pairs.SAME_BELOW and 0 < pairs.NIGHT_FALSE_ALARM < 0.05


@pytest.mark.parametrize("suspects", [1, 3, 10, 40])
def test_the_looks_of_a_night_share_its_false_alarm_rate(suspects):
    # Calling slower is a one-sided error of (1 - confidence) / 2 per look; all looks of all suspects add up to it.
    confidence = pairs.look_confidence(suspects)
    total = suspects * pairs.looks() * (1 - confidence) / 2
    assert total == pytest.approx(pairs.NIGHT_FALSE_ALARM)
    assert pairs.looks() == len({found for found in range(pairs.START_PAIRS, pairs.MAX_PAIRS + 1, pairs.STEP_PAIRS)})
    assert pairs.look_confidence(suspects + 1) > confidence


@pytest.mark.parametrize("max_pairs", range(pairs.START_PAIRS, 3 * pairs.MAX_PAIRS))
def test_looks_counts_every_look_that_sequential_takes_to_a_cap_between_steps(max_pairs):
    # A cap that is no whole number of steps past the first look still ends on a look of its own: floor division
    # would count one look too few at 20 pairs, and the night's false-alarm budget would double.
    taken = []

    def undecidable(first, count):
        taken.append(count)
        return [(1.0, math.exp(random.Random(first + i).gauss(0.015, 0.5))) for i in range(count)]

    assert pairs.sequential(undecidable, max_pairs)[0] == pairs.UNDECIDED
    assert pairs.looks(max_pairs) == len(taken) and sum(taken) == max_pairs


def test_the_first_look_can_decide_for_up_to_13_suspects():
    # The signed-rank interval excludes anything only when P(W = 0) = 2**-n lies within its tail.
    for suspects in range(1, 14):
        assert 2.0**-pairs.START_PAIRS <= (1 - pairs.look_confidence(suspects)) / 2
        found = pairs.interval([1.0] * pairs.START_PAIRS, [1.1] * pairs.START_PAIRS, pairs.look_confidence(suspects))
        assert pairs.decide(found) == pairs.SLOWER
    assert 2.0**-pairs.START_PAIRS > (1 - pairs.look_confidence(14)) / 2


def test_nights_without_a_change_confirm_nothing_slower_at_the_stated_rate():
    # Simulated nights of 3 suspects with no change and independent pairs, noise far above the floor: the share of
    # nights with any suspect called slower stays within the night's rate.  Without the correction (99% at each
    # look) 16 of these 600 nights alarm: this test would fail.
    rng = random.Random(7)
    nights, alarms = 600, 0
    for _night in range(nights):
        for _suspect in range(3):
            d = [rng.gauss(0, 0.2) for _ in range(pairs.MAX_PAIRS)]
            measure = from_values(([1.0] * pairs.MAX_PAIRS, [math.exp(x) for x in d]))[0]
            if pairs.sequential(measure, suspects=3)[0] == pairs.SLOWER:
                alarms += 1
                break
    assert alarms <= nights * pairs.NIGHT_FALSE_ALARM + 3 * math.sqrt(nights * pairs.NIGHT_FALSE_ALARM)


def test_a_verdict_is_decided_only_when_the_whole_interval_lies_beyond_its_bound():
    def ending_at(high):
        return pairs.Interval(high - 0.01, high - 0.02, high, pairs.START_PAIRS, 0.01, 0.99)

    assert [pairs.decided_faster(ending_at(high)) for high in (-0.02, -pairs.FLOOR, -0.005)] == [True, False, False]
    # Slower and same also need the whole interval strictly beyond their bounds.
    at_the_floor = pairs.Interval(0.02, pairs.FLOOR, 0.03, pairs.START_PAIRS, 0.01, 0.99)
    at_the_same_bound = pairs.Interval(0.0, -0.01, pairs.SAME_BELOW, pairs.START_PAIRS, 0.01, 0.99)
    assert pairs.decide(at_the_floor) == pairs.decide(at_the_same_bound) == pairs.UNDECIDED


def test_a_lone_suspect_looks_at_the_confidence_of_its_own_cap_and_stops_there():
    values, batches = from_values(noisy(64, 0.015, 0.06, seed=3))

    def measure(first, count):
        assert count > 0, "asked for no pairs: the cap was passed"
        return values(first, count)

    verdict, found, _, _ = pairs.sequential(measure, max_pairs=pairs.START_PAIRS)
    assert (verdict, batches) == (pairs.UNDECIDED, [(0, pairs.START_PAIRS)])
    assert (
        found.confidence == pairs.look_confidence(1, pairs.START_PAIRS) == 1 - 2 * pairs.NIGHT_FALSE_ALARM
    )  # one look
    with pytest.raises(ValueError) as short:
        pairs.sequential(lambda first, count: values(first, 3))
    assert str(short.value) == f"measure gave 3 pairs, not the {pairs.START_PAIRS} asked for"


def test_the_interval_s_ends_are_its_kth_walsh_averages_and_pairs_it_cannot_use_are_refused():
    # 6 pairs at 90%: k = 2 (P(W <= 2) = 3/64 <= 5% < P(W <= 3)), so the ends are the third smallest and the third
    # largest of the 21 Walsh averages of d = 0.01 .. 0.06, which are 0.02 and 0.05.
    d = [0.01 * i for i in range(1, 7)]
    for confidence in (0.9, 1 - 2 * 3 / 64):  # a tail of exactly P(W <= 2) still holds k = 2
        found = pairs.interval([0.5] * 6, [0.5 * math.exp(x) for x in d], confidence)
        assert (found.low, found.high) == pytest.approx((math.expm1(0.02), math.expm1(0.05)))
        assert found.sd == pytest.approx(statistics.stdev(d))  # kept in the record beside the interval
    assert pairs.interval([0.5, 0.6], [0.6, 0.7], 0.5).pairs == 2  # two pairs are enough
    for before, after, refusal in [
        ([1.0], [1.0], "a paired interval needs at least two pairs of equal length"),
        ([1.0, 2.0], [1.0], "a paired interval needs at least two pairs of equal length"),
        ([0.0, 1.0], [1.0, 1.0], "values must be positive to take log ratios"),
    ]:
        with pytest.raises(ValueError) as refused:
            pairs.interval(before, after, 0.9)
        assert str(refused.value) == refusal
    with pytest.raises(ValueError) as refused:
        pairs.look_confidence(0)
    assert str(refused.value) == "a night with suspects has at least one"
