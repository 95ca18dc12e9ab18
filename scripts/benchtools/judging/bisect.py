"""Where an instruction count stepped between two versions of JAX or Equinox: releases first, then the
first-parent commits (where upstream's pull requests land) between neighbouring releases whose counts lie apart,
halved while an interval's ends differ by more than the spread.  So every step larger than the spread is found,
unless another inside the same interval cancels it; an interval whose halves each stay within the spread while
the whole does not is a drift.  A failed commit is never a value: the nearest commit that counted stands in.
Each step is confirmed by counting both sides again in fresh processes; across two jaxlibs, the earlier commit
counted on the later jaxlib splits it in two.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from ..history.probes import Probes, Source, pull_request

CONFIRMING_RUNS = (1, 2)  # fresh processes per side, beyond the first
FAILED_TRIES = 5  # commits tried around an interval's middle before its failures end the search there


@dataclass(frozen=True)
class Commit:
    source: Source
    subject: str
    date: str

    @property
    def pull_request(self) -> str | None:
        return pull_request(self.subject)


@dataclass
class Point:
    commit: Commit
    record: dict

    @property
    def jaxlib(self) -> str | None:
        return self.record.get("jaxlib")

    def value(self, operation: str, twin: str) -> float | None:
        counted = self.record.get("counts", {}).get(operation, {})
        return counted[twin]["instructions"] if twin in counted else None

    def twin(self, operation: str, twin: str) -> dict:
        return self.record["counts"][operation][twin]


@dataclass
class Step:
    before: Point
    after: Point
    kind: str  # "step": neighbouring commits; "drift": spread over the commits between
    between: int  # commits between the two that counted nothing (failed) or, for a drift, that were not probed
    confirmation: dict = field(default_factory=dict)
    jaxlib_split: dict = field(default_factory=dict)


@dataclass
class Search:
    probes: Probes
    equinox: Source  # held fixed, or the commits' project when bisecting Equinox
    jax: Source  # held fixed when bisecting Equinox
    operation: str
    twin: str
    spread: float
    points: dict[str, Point] = field(default_factory=dict)
    flat: list[float] = field(default_factory=list)  # |change| across each interval found within the spread
    used: dict[str, dict] = field(default_factory=dict)  # every probe record it read or made, by its file

    def probe(self, source: Source, **options) -> dict:
        """The record of ``source`` counted with the other project held fixed."""
        jax, equinox = (source, self.equinox) if source.project == "jax" else (self.jax, source)
        record = self.probes.probe(jax, equinox, **options)
        self.used[str(self.probes.path(jax, equinox, **options))] = record
        return record

    def point(self, commit: Commit) -> Point:
        key = commit.source.key
        if key not in self.points:
            self.points[key] = Point(commit, self.probe(commit.source))
        return self.points[key]

    def value(self, commit: Commit) -> float | None:
        return self.point(commit).value(self.operation, self.twin)

    def apart(self, before: float, after: float) -> bool:
        return abs(after / before - 1) > self.spread

    def steps(self, commits: list[Commit]) -> list[Step]:
        first = next((i for i, commit in enumerate(commits) if self.value(commit) is not None), None)
        last = next((i for i in range(len(commits) - 1, -1, -1) if self.value(commits[i]) is not None), None)
        return [] if first is None or last is None or first >= last else self.search(commits, first, last)

    def search(self, commits: list[Commit], lo: int, hi: int) -> list[Step]:
        before, after = self.value(commits[lo]), self.value(commits[hi])
        if not self.apart(before, after):
            self.flat.append(abs(after / before - 1))
            return []
        mid = self.counted_between(commits, lo, hi)
        found = [] if mid is None else self.search(commits, lo, mid) + self.search(commits, mid, hi)
        kind = "step" if mid is None else "drift"  # neighbours among those that counted, or halves within the spread
        return found or [Step(self.point(commits[lo]), self.point(commits[hi]), kind, hi - lo - 1)]

    def counted_between(self, commits: list[Commit], lo: int, hi: int) -> int | None:
        """The commit nearest the middle of (lo, hi) that counted, of the ``FAILED_TRIES`` nearest; None when none
        did (a run of commits that fail is reported as such, not probed to its end)."""
        middle = (lo + hi) // 2
        nearest = sorted(range(lo + 1, hi), key=lambda index: (abs(index - middle), index > middle))
        return next((index for index in nearest[:FAILED_TRIES] if self.value(commits[index]) is not None), None)

    def confirm(self, step: Step) -> None:
        """Count both sides again in fresh processes, alternately; they must lie apart."""
        runs = {"before": [step.before.value(*self.key)], "after": [step.after.value(*self.key)]}
        for run in CONFIRMING_RUNS:
            for side, point in (("before", step.before), ("after", step.after)):
                again = Point(point.commit, self.probe(point.commit.source, run=run))
                runs[side].append(again.value(*self.key))
        if None in runs["before"] + runs["after"]:
            step.confirmation = {"runs": runs, "confirmed": False, "why": "a count again failed"}
            return
        low, high = sorted((runs["before"], runs["after"]), key=statistics.median)
        separated = max(low) < min(high)
        medians = statistics.median(runs["before"]), statistics.median(runs["after"])
        step.confirmation = {"runs": runs, "confirmed": separated and self.apart(*medians)}

    @property
    def key(self) -> tuple[str, str]:
        return self.operation, self.twin

    def split_jaxlib(self, step: Step) -> None:
        """Where the sides ran on different jaxlibs: the earlier jax on the later jaxlib, the step's two parts."""
        if step.before.jaxlib == step.after.jaxlib or step.before.commit.source.project != "jax":
            return
        record = self.probe(step.before.commit.source, jaxlib=step.after.jaxlib)
        middle = Point(step.before.commit, record).value(*self.key)
        step.jaxlib_split = {"jaxlib": step.after.jaxlib, "count": middle, "failed": record.get("failed")}


def shares(steps: list[Step], total: float, key: tuple[str, str]) -> list[float]:
    return [(step.after.value(*key) - step.before.value(*key)) / total if total else 0.0 for step in steps]


def release_pairs(points: list[Point], key: tuple[str, str], apart: Callable[[float, float], bool]) -> list[tuple]:
    """(i, j) of neighbouring releases that counted (one that failed is passed over) whose counts lie apart."""
    counted = [index for index, point in enumerate(points) if point.value(*key) is not None]
    return [(i, j) for i, j in itertools.pairwise(counted) if apart(points[i].value(*key), points[j].value(*key))]
