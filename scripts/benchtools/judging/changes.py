"""A change of one benchmark between two commits, and the thresholds it is judged against."""

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics

from ..errors import BadInput

ASV_DEFAULT_THRESHOLD = 0.05


def finite_non_negative(value, what: str) -> float:
    """VALUE as a threshold, or BadInput naming WHAT."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadInput(f"{what} {value!r}: not a number") from None
    if isinstance(value, bool) or not math.isfinite(number) or number < 0:
        raise BadInput(f"{what} {value!r}: a threshold must be a finite number, 0 or more")
    return number


@dataclass
class Change:
    benchmark: str
    params: str
    env: str
    before: float
    after: float
    good: str  # the last commit at the old level, or "" when ``bad`` is the first commit benchmarked
    bad: str  # the first commit at the new level
    single_commit: bool
    unit: str
    latest: float | None = None  # the value at the newest commit (step detection only)
    env_params: dict = field(default_factory=dict)  # the environment's requirements, to profile in it
    graph: tuple | None = None  # (graph path in the site, parameter index, revision before, revision after)
    diagnostics: list = field(default_factory=list)  # [(name, before, after)] beside a cost change
    unmeasured: list = field(default_factory=list)  # the commits between good and bad with no value (failed)
    explanation: object = None  # an explain.Explanation or an instructions.Explanation, once explained

    # Computed once: the gate reads them at every stop.
    kind: str = field(init=False)
    entry: str = field(init=False)  # the name asv's step detection matches `regressions_thresholds` against
    ratio: float = field(init=False)

    def __post_init__(self):
        self.entry = metrics.entry(self.benchmark, self.params)
        self.kind = metrics.kind(self.entry)
        self.ratio = self.after / self.before if self.before != 0 else (math.inf if self.after > 0 else 1.0)


class Thresholds:
    """The threshold of each change: any increase for a deterministic metric, else asv's rule."""

    def __init__(self, regexes: dict, overrides: dict, where: Path | str = ""):
        try:
            self.regexes = [
                (re.compile(regex), finite_non_negative(value, f"threshold of {regex!r}"))
                for regex, value in regexes.items()
            ]
        except (re.error, TypeError, ValueError, AttributeError, BadInput) as error:
            raise BadInput(f"regressions_thresholds in the asv configuration {where} is invalid: {error}") from None
        self.overrides = overrides

    def __call__(self, change: Change) -> float:
        fixed = {metrics.DETERMINISTIC: 0.0, metrics.COST: metrics.COST_FLOOR, metrics.DIAGNOSTIC: math.inf}
        if change.kind in fixed:
            return fixed[change.kind]
        if change.kind == metrics.INSTRUCTIONS:
            return metrics.threshold(change.entry)  # its operation's floor, from its measured spread
        if self.overrides.get(change.kind) is not None:
            return self.overrides[change.kind]
        # As asv.plugins.regressions._GraphDataFilter._get_threshold.
        return max((value for regex, value in self.regexes if regex.match(change.entry)), default=ASV_DEFAULT_THRESHOLD)

    def suspect(self, change: Change) -> float:
        """The increase beyond which a timing change is a suspect: metrics.py's where lower than the threshold."""
        if self.overrides.get(change.kind) is not None:
            return self.overrides[change.kind]
        declared = metrics.suspect_threshold(change.entry)
        return self(change) if declared is None else min(declared, self(change))

    def counted(self, changes: list[Change]) -> list[Change]:
        """The changes that count, by kind (metrics.KINDS' order), then worst first."""
        return sorted((c for c in changes if self.counts(c)), key=lambda c: (metrics.KINDS.index(c.kind), -c.ratio))

    def counts(self, change: Change) -> bool:
        """Only an alerting benchmark's change counts (metrics.py); a cost that went down never does."""
        return metrics.alerts(change.entry) and change.after > change.before * (1 + self(change))
