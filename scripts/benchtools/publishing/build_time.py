"""What building a history took, from asv's own timestamps in its results."""

import itertools
import math
import statistics
from dataclasses import dataclass

STOPPED = 600.0  # seconds between two commits' runs beyond which the campaign was stopped and rerun
SHARDS = (4, 8, 16)  # backfill.yml's choices beside 1 and 2


@dataclass(frozen=True)
class BuildTime:
    commits: int
    seconds: float  # one process's time for every commit, the stops left out
    per_commit: float  # the median
    stops: int
    processes: int  # how many ran side by side at the most

    def sharded(self, shards: int) -> float:
        return math.ceil(self.commits / shards) * self.per_commit


def chains(found_spans: list[tuple[str, str, float, float]]) -> list[list[tuple]]:
    """The spans split into what each process ran: shards on one machine interleave in time."""
    found = []
    for span in sorted(found_spans, key=lambda span: span[2]):
        if free := [chain for chain in found if chain[-1][3] <= span[2]]:
            max(free, key=lambda chain: chain[-1][3]).append(span)
        else:
            found.append([span])
    return found


def build_time(found_spans: list[tuple[str, str, float, float]]) -> BuildTime | None:
    """Each commit's time runs from its first benchmark's start to the next commit's of the same process."""
    if not found_spans:
        return None
    per_commit, stops = [], 0
    found_chains = chains(found_spans)
    for chain in found_chains:
        for (_c, _e, start, end), following in itertools.zip_longest(chain, chain[1:]):
            seconds = (following[2] if following else end) - start
            if seconds > STOPPED:
                stops += 1
                seconds = end - start
            per_commit.append(seconds)
    return BuildTime(len(found_spans), sum(per_commit), statistics.median(per_commit), stops, len(found_chains))


def markdown(found: BuildTime | None, description: str) -> str:
    if found is None:
        return f"No stored result of {description} carries asv's timestamps."
    sharded = "; ".join(f"{shards} shards, {found.sharded(shards) / 60:.0f} min" for shards in SHARDS)
    return (
        f"Building {description} took {found.seconds / 60:.0f} min of one process's time here for "
        f"{found.commits} results ({found.per_commit:.0f} s per commit, the median: its install and its "
        f"benchmarks), from asv's own timestamps in the results; {found.processes} process(es) ran side by side, "
        f"each commit timed within its own, and {found.stops} stop(s) of the campaign are left out. On "
        f"backfill.yml's matrix the longest shard would take, at this machine's pace: {sharded}, plus each job's "
        "own setup (a runner's pace is not measured here)."
    )
