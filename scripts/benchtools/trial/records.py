"""A campaign's JSON record (scripts/timing-noise, scripts/headline): written whole after each step, so that a stopped
campaign keeps what it measured, and stamped with the load it ran under."""

import calendar
import json
import os
import time
from pathlib import Path

from .. import util


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def started() -> dict:
    """The record's opening fields: when it started and the load average then."""
    return {"started": now(), "load_before": list(os.getloadavg())}


def finish(path: Path, record: dict) -> dict:
    """The record stamped with the load average and the time at its end, written; the record."""
    record["load_after"] = list(os.getloadavg())
    record["finished"] = now()
    write(path, record)
    return record


def minutes(record: dict) -> float | None:
    """How long the campaign took, from its stamps; None while it has not finished."""
    if "finished" not in record:
        return None
    stamps = [calendar.timegm(time.strptime(record[key], "%Y-%m-%dT%H:%M:%SZ")) for key in ("started", "finished")]
    return (stamps[1] - stamps[0]) / 60


def write(path: Path, record: dict) -> None:
    util.write_atomic(path, (json.dumps(record, indent=1, allow_nan=False) + "\n").encode())
