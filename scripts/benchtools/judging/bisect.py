"""Where an instruction count stepped between two versions of JAX or Equinox (docs/bisections.md)."""

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
    between: int  # commits between the two: for a step, each failed; for a drift, each within the spread
    confirmation: dict = field(default_factory=dict)
    jaxlib_split: dict = field(default_factory=dict)

    def sides(self) -> tuple[tuple[str, Point], tuple[str, Point]]:
        return ("before", self.before), ("after", self.after)


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
    recounts: dict[str, list] = field(default_factory=dict)  # {commit's key: its counts in fresh processes}

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

    def steps(self, commits: list[Commit]) -> list[Step]:
        first = next((i for i, commit in enumerate(commits) if self.value(commit) is not None), None)
        last = next((i for i in range(len(commits) - 1, -1, -1) if self.value(commits[i]) is not None), None)
        return [] if first is None or last is None or first >= last else self.search(commits, first, last)

    def search(self, commits: list[Commit], lo: int, hi: int) -> list[Step]:
        before, after = self.value(commits[lo]), self.value(commits[hi])
        if not apart(before, after, self.spread):
            self.flat.append(abs(after / before - 1))
            return []
        mid = self.counted_between(commits, lo, hi)
        found = [] if mid is None else self.search(commits, lo, mid) + self.search(commits, mid, hi)
        kind = "step" if mid is None else "drift"  # neighbours among those that counted, or halves within the spread
        return found or [Step(self.point(commits[lo]), self.point(commits[hi]), kind, hi - lo - 1)]

    def counted_between(self, commits: list[Commit], lo: int, hi: int) -> int | None:
        """The commit nearest the middle of (lo, hi) that counted, of the ``FAILED_TRIES`` nearest, or None."""
        middle = (lo + hi) // 2
        nearest = sorted(range(lo + 1, hi), key=lambda index: (abs(index - middle), index > middle))
        return next((index for index in nearest[:FAILED_TRIES] if self.value(commits[index]) is not None), None)

    def confirm(self, step: Step) -> None:
        """Count both sides again in fresh processes, alternately; they must lie apart."""
        runs = {"before": [step.before.value(*self.key)], "after": [step.after.value(*self.key)]}
        for run in CONFIRMING_RUNS:
            for side, point in step.sides():
                again = Point(point.commit, self.probe(point.commit.source, run=run))
                runs[side].append(again.value(*self.key))
        self.recounts.update({point.commit.source.key: runs[side] for side, point in step.sides()})
        why = unconfirmed(runs, self.spread)
        step.confirmation = {"runs": runs, "confirmed": why is None, "why": why}

    def counted(self, point: Point) -> float | None:
        """The median of a commit's counts where it was counted more than once: a first process can be the odd one."""
        again = self.recounts.get(point.commit.source.key, [])
        return statistics.median(again) if again and None not in again else point.value(*self.key)

    @property
    def key(self) -> tuple[str, str]:
        return self.operation, self.twin

    def split_jaxlib(self, step: Step) -> None:
        """Where the sides ran on different jaxlibs: each side's jax counted on the other's jaxlib (``both``);
        ``side`` names the one the step is split by, ``failed`` why one did not run."""
        if step.before.jaxlib == step.after.jaxlib or step.before.commit.source.project != "jax":
            return
        both, failed, jaxlibs = {}, {}, {"before": step.after.jaxlib, "after": step.before.jaxlib}
        for side, point in step.sides():
            records = [self.probe(point.commit.source, jaxlib=jaxlibs[side])]
            again = CONFIRMING_RUNS if "counts" in records[0] else ()  # one that does not import is not tried again
            records += [self.probe(point.commit.source, jaxlib=jaxlibs[side], run=run) for run in again]
            counts = [Point(point.commit, record).value(*self.key) for record in records]
            both[side] = statistics.median(counts) if None not in counts else None
            failed.update({side: next(r.get("failed") for r in records if "counts" not in r)} if None in counts else {})
        side = next((side for side, count in both.items() if count is not None), None)
        split = {"side": side, "jaxlib": jaxlibs.get(side), "count": both.get(side)}
        step.jaxlib_split = {**split, "failed": failed, "both": both}


def apart(before: float, after: float, spread: float) -> bool:
    return abs(after / before - 1) > spread


def unconfirmed(runs: dict[str, list], spread: float) -> str | None:
    """Why a step's sides, counted again in fresh processes, do not confirm it; None where they do."""
    if None in runs["before"] + runs["after"]:
        return "a count again failed"
    low, high = sorted((runs["before"], runs["after"]), key=statistics.median)
    separated = max(low) < min(high)
    if not separated:
        return "their counts overlap"
    medians_apart = apart(statistics.median(low), statistics.median(high), spread)
    return None if medians_apart else "their medians lie within the spread"


def shares(steps: list[Step], total: float, counted: Callable[[Point], float]) -> list[float]:
    return [(counted(step.after) - counted(step.before)) / total if total else 0.0 for step in steps]


def release_pairs(points: list[Point], key: tuple[str, str], apart: Callable[[float, float], bool]) -> list[tuple]:
    """(i, j) of neighbouring releases that counted (one that failed is passed over) whose counts lie apart."""
    counted = [index for index, point in enumerate(points) if point.value(*key) is not None]
    return [(i, j) for i, j in itertools.pairwise(counted) if apart(points[i].value(*key), points[j].value(*key))]
