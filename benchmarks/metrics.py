"""Each benchmark's kind of metric and regression threshold, declared once.

A pure module (no JAX, no Equinox): the tools in scripts/ import it, and so
may the suite.  Everything that judges a change reads it: the regression gate
(scripts/regressions), the overhead report, the detector trial, the tests,
and asv's own step detection, whose ``regressions_thresholds`` scripts/bench
writes into the configurations it derives (``asv_thresholds``).

Kinds:
  deterministic  counts, not measurements (Python calls, jaxpr equations,
                 copied bytes): identical code gives identical values, so any
                 increase counts;
  ratio          two timings taken side by side in one process, so that the
                 machine's drift mostly cancels;
  time           absolute times and memory, which carry the machine's noise
                 between processes and runs.

A ratio or a time counts when after > before * (1 + threshold).  The
thresholds were set from scripts/detector-trial (README, "Proving the
detector"), above the largest change seen in 10 trials on code that did not
change: tree_at's cost in tree_map passes moved by up to 8%, the tree_at /
tuple ratios by up to 35%, eager µs-scale times by up to 137%.  Other absolute
times were not in the trials and keep 50%.
"""

import re
from dataclasses import dataclass

DETERMINISTIC, RATIO, TIME = "deterministic", "ratio", "time"
KINDS = (DETERMINISTIC, RATIO, TIME)


@dataclass(frozen=True)
class Rule:
    """Benchmarks whose name (``module.Class.method``, then ``(params)`` for asv) starts with ``pattern``."""

    pattern: str  # a regular expression, matched at the start of the name
    kind: str
    threshold: float
    # With confirmation (scripts/benchtools/confirm.py), a timing change beyond ``suspect`` is re-measured
    # side by side before it counts; None: the threshold.  Lower than the threshold, because the
    # confirm step removes the false alarms that the threshold was set to avoid.
    suspect: float | None = None


# The first rule that matches a benchmark decides; the last matches every benchmark.
RULES = (
    Rule(r"bench_counts\.", DETERMINISTIC, 0.0),
    Rule(r"bench_memory\.LargeStateUpdate\.track_copied_bytes_", DETERMINISTIC, 0.0),
    # Any increase is a suspect: a 3% slowdown must be suspected before it can be confirmed, and
    # one asv run moves this metric by a few % on identical code (README, "Confirmed verdicts").
    Rule(r"bench_overhead\.EagerSurgeryInTreeMapPasses\.track_tree_at", RATIO, 0.10, suspect=0.0),
    Rule(r"bench_overhead\.", RATIO, 0.50),
    Rule(r"[^(]*\.track_overhead_ratio(?:[(@]|$)", RATIO, 0.50),
    Rule(r"bench_eager\.", TIME, 2.0),
    Rule(r"", TIME, 0.50),
)


def rule(name: str) -> Rule:
    """The rule for a benchmark: its name, with or without ``(params)``."""
    return next(r for r in RULES if re.match(r.pattern, name))


def kind(name: str) -> str:
    return rule(name).kind


def threshold(name: str) -> float:
    return rule(name).threshold


def suspect_threshold(name: str) -> float | None:
    """The increase beyond which a timing change is re-measured (confirm step); None: its threshold."""
    return rule(name).suspect


def asv_thresholds() -> dict[str, float]:
    """``regressions_thresholds`` for asv: one regex per rule, matching exactly the names that rule decides.

    asv takes the largest threshold among the regexes that match; each regex
    here excludes what an earlier rule matches (a negative lookahead), so one
    regex matches any name and asv's largest is the first rule's threshold.
    """
    thresholds = {}
    for number, current in enumerate(RULES):
        earlier = "|".join(r.pattern for r in RULES[:number])
        thresholds[f"(?!{earlier}){current.pattern}" if earlier else current.pattern] = current.threshold
    return thresholds
