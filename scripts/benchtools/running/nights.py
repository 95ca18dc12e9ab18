"""A range of upstream history as nights: its first-parent commits, split every K or by date."""

import datetime
import itertools

from ..git import Commit


def split_nights(commits: list[Commit], per_night: int | None = None, every_day: bool = False):
    """(label, commits) of each night: every PER_NIGHT commits, each UTC day (EVERY_DAY), or each commit date."""
    if every_day:
        by_day: dict[str, list[Commit]] = {}
        for commit in commits:
            by_day.setdefault(commit.date[:10], []).append(commit)
        first, last = (datetime.date.fromisoformat(commits[i].date[:10]) for i in (0, -1))
        days = [(first + datetime.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
        return [(day, by_day.get(day, [])) for day in days]
    if per_night:
        nights = [commits[i : i + per_night] for i in range(0, len(commits), per_night)]
    else:
        nights = [list(night) for _day, night in itertools.groupby(commits, key=lambda commit: commit.date[:10])]
    return [(str(number), night) for number, night in enumerate(nights, 1)]
