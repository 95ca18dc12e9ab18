"""The confirm step's statistics: per pair d = ln(after / before), the Hodges-Lehmann estimate of d with the exact
Wilcoxon signed-rank interval (it holds for any symmetric d, whatever its tails), looked at sequentially as Chromium's
Pinpoint does.  docs/gate.md says why these and not a t interval.  The error rate holds for a whole night, split equally
over every look at every suspect (Bonferroni); that assumes independent pairs, hence fresh interpreters."""

import functools
import itertools
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The constants of the verdict, declared once (docs/gate.md, "Confirmed verdicts").
NIGHT_FALSE_ALARM = 0.01  # at most this chance that a night on which nothing changed confirms any suspect slower
FLOOR = 0.01  # slower only when the whole interval lies above +1%
SAME_BELOW = 0.02  # same when the whole interval lies below +2%
START_PAIRS = 12  # 2**-12: the first look can decide for up to 13 suspects a night
STEP_PAIRS = 10  # even, so that every look ends on a whole A B / B A block
MAX_PAIRS = 32
MIN_PAIRS = START_PAIRS  # the fewest that make one look
SLOWER, SAME, UNDECIDED = "slower", "same", "undecided"
VERDICTS = (SLOWER, SAME, UNDECIDED)


def looks(max_pairs: int = MAX_PAIRS) -> int:
    """How many times ``sequential`` looks at most: at START_PAIRS, then every STEP_PAIRS more, up to max_pairs."""
    return 1 + max(0, math.ceil((max_pairs - START_PAIRS) / STEP_PAIRS))


def look_confidence(suspects: int, max_pairs: int = MAX_PAIRS) -> float:
    """The two-sided confidence of each look's interval: calling a suspect slower is a one-sided error of
    (1 - confidence) / 2, so that over every look of every suspect the night's errors add up to NIGHT_FALSE_ALARM."""
    if suspects < 1:
        raise ValueError("a night with suspects has at least one")
    return 1 - 2 * NIGHT_FALSE_ALARM / (suspects * looks(max_pairs))


@dataclass(frozen=True)
class Interval:
    """The relative change after / before - 1, its interval at ``confidence``, and the pairs it rests on."""

    estimate: float
    low: float
    high: float
    pairs: int
    sd: float  # of the per-pair log ratios
    confidence: float


@functools.cache
def signed_rank_cdf(n: int) -> tuple[float, ...]:
    """P(W <= w) for w = 0 .. n(n+1)/2, W the Wilcoxon signed-rank statistic of n pairs (exact, no ties)."""
    counts = [1]  # counts[w]: subsets of {1..k} summing to w
    for k in range(1, n + 1):
        grown = counts + [0] * k
        for w, count in enumerate(counts):
            grown[w + k] += count
        counts = grown
    return tuple(running / 2**n for running in itertools.accumulate(counts))


def interval(before: Sequence[float], after: Sequence[float], confidence: float) -> Interval:
    """The Hodges-Lehmann estimate of d = ln(after / before) and its exact signed-rank interval, as relative changes:
    [A(k+1), A(M-k)] of the M sorted Walsh averages, k the largest with P(W <= k) <= (1 - confidence) / 2.  Too few
    pairs for the confidence (P(W = 0) = 2**-n above its tail) give an unbounded interval."""
    if len(before) != len(after) or len(before) < 2:
        raise ValueError("a paired interval needs at least two pairs of equal length")
    if any(not (value > 0) for value in (*before, *after)):
        raise ValueError("values must be positive to take log ratios")
    d = [math.log(a / b) for b, a in zip(before, after, strict=True)]
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    cdf = signed_rank_cdf(n)
    k = -1  # stays -1 when even W = 0 is likelier than the tail allows
    while k + 1 < len(cdf) and cdf[k + 1] <= (1 - confidence) / 2:
        k += 1
    low, high = (walsh[k], walsh[len(walsh) - 1 - k]) if k >= 0 else (-math.inf, math.inf)
    estimate = math.expm1(statistics.median(walsh))
    return Interval(estimate, math.expm1(low), math.expm1(high), n, statistics.stdev(d), confidence)


def decide(found: Interval) -> str:
    return SLOWER if found.low > FLOOR else SAME if found.high < SAME_BELOW else UNDECIDED


def decided_faster(found: Interval) -> bool:
    """The whole interval below -FLOOR: faster by more than the floor, whatever the verdict's rule stopped on."""
    return found.high < -FLOOR


def balanced_order(first: int, count: int) -> list[tuple[str, str]]:
    """The order of pairs first .. first+count-1: A B for even pairs, B A for odd (A B B A A B ...)."""
    return [("before", "after") if number % 2 == 0 else ("after", "before") for number in range(first, first + count)]


def sequential(
    measure: Callable[[int, int], list[tuple[float, float]]], max_pairs: int = MAX_PAIRS, suspects: int = 1
) -> tuple[str, Interval, list, list]:
    """Measure pairs until decided or at the cap: (verdict, interval, befores, afters).  ``measure(first, count)``
    returns ``count`` (before, after) values for pairs ``first`` onwards, in balanced_order(first, count)."""
    confidence = look_confidence(suspects, max_pairs)
    before, after = [], []
    count = min(START_PAIRS, max_pairs)
    while True:
        if len(measured := measure(len(before), count)) != count:
            raise ValueError(f"measure gave {len(measured)} pairs, not the {count} asked for")
        before.extend(b for b, _ in measured)
        after.extend(a for _, a in measured)
        found = interval(before, after, confidence)
        if (verdict := decide(found)) != UNDECIDED or len(before) >= max_pairs:
            return verdict, found, before, after
        count = min(STEP_PAIRS, max_pairs - len(before))
