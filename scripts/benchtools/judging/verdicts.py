"""The gate's verdict as data (JSON, its fields in docs/gate.md): what every consumer reads."""

import json
import math
from pathlib import Path

from benchmarks import metrics

from .. import util
from ..asvtools import shapes
from ..errors import BadInput
from .changes import Change
from .gate import Verdict, could_decide
from .recheck import Recount

SCHEMA = 1
JUDGED, FAILED = "judged", "failed"
NOTHING_JUDGED = "nothing judged"


def number(value):
    """A float for JSON, None standing for NaN and infinity."""
    return float(value) if value is not None and math.isfinite(value) else None


def change_data(change: Change, threshold: float | None = None) -> dict:
    return {
        "kind": change.kind,
        "benchmark": change.benchmark,
        "params": change.params,
        "environment": change.env,
        "before": number(change.before),
        "after": number(change.after),
        "change": number(change.ratio - 1) if change.before else None,
        "threshold": number(threshold),
        "good": change.good,
        "bad": change.bad,
        "single_commit": change.single_commit,
        "unit": change.unit,
        "latest": number(change.latest),
        "unmeasured_between": list(change.unmeasured),
        "diagnostics": [
            {"benchmark": name, "before": number(before), "after": number(after)}
            for name, before, after in change.diagnostics
        ],
        "cause": change.explanation.sentence() if change.explanation is not None else None,
    }


def interval_data(interval) -> dict:
    return {key: number(getattr(interval, key)) if interval else None for key in ("estimate", "low", "high")}


def confirmation_data(found) -> dict:
    interval = found.interval
    pairs, confidence = (interval.pairs, number(interval.confidence)) if interval else (0, None)
    return {"verdict": found.verdict, **interval_data(interval), "pairs": pairs, "confidence": confidence}


def overrule_data(why) -> dict:
    if isinstance(why, Recount):
        return {"recount": {"before": number(why.before), "after": number(why.after), "environment": why.environment}}
    time = {"benchmark": why.change.benchmark, "params": why.change.params, **interval_data(why.interval)}
    return {"time": {**time, "pairs": why.interval.pairs}}


def suspect_data(found, threshold: float | None) -> dict:
    return {
        **change_data(found.change, threshold),
        **confirmation_data(found),
        "seconds": round(found.seconds, 1),
        "note": found.note,
    }


def document(status: str, summary: str, **fields) -> dict:
    """The four keys every verdict opens with, then its status's own."""
    return {"schema": SCHEMA, "status": status, "regression": bool(fields.get("counted")), "summary": summary, **fields}


def data(verdict: Verdict) -> dict:
    source, thresholds, confirmations = verdict.source, verdict.source.thresholds, verdict.confirmations
    counted = [change_data(c, thresholds(c)) for c in verdict.counted]
    return document(
        JUDGED,
        f"{len(counted)} regression(s) count" if counted else "no regression counts",
        mode=verdict.mode,
        confirmed=confirmations is not None,
        results=str(source.results),
        machine=source.machine,
        counted=counted,
        improvements=[change_data(c) for c in verdict.improved],
        overruled=[{**change_data(c, thresholds(c)), **overrule_data(why)} for c, why in verdict.overruled],
        suspects=None if confirmations is None else [suspect_data(c, thresholds(c.change)) for c in confirmations],
        not_alerting=[{**change_data(c, thresholds(c)), "could_decide": could_decide(c)} for c in verdict.not_alerting],
        unjudged=[
            {"benchmark": u.benchmark, "params": u.params, "environment": u.env, "reason": u.reason}
            for u in verdict.unjudged
        ],
        unchanged_commits=list(source.run_unchanged),
        failed_commits=[
            {
                "commit": f.commit,
                "label": source.label(f.commit),
                "environment": f.env,
                "benchmarks": list(f.benchmarks),
            }
            for f in verdict.failed
        ],
        explain_errors=list(verdict.explain_errors),
    )


def nothing_judged(reason: str, results: str, machine: str, unchanged=()) -> dict:
    """The document of a night that had nothing to judge (no new commit after the baseline)."""
    return document(
        JUDGED,
        f"no regression counts: {reason}",
        mode=NOTHING_JUDGED,
        confirmed=False,
        results=results,
        machine=machine,
        **dict.fromkeys(("counted", "improvements", "overruled", "not_alerting", "unjudged"), []),
        suspects=None,
        unchanged_commits=list(unchanged),
        **dict.fromkeys(("failed_commits", "explain_errors"), []),
    )


def failure(stage: str, code: int | None, message: str) -> dict:
    """The document of a night that could not be judged (CODE None: its exit code is unknown)."""
    exit_code = int(code) if code is not None else None
    summary = f"{stage} failed{f' (exit {exit_code})' if code is not None else ''}: {message}"
    return document(FAILED, summary, stage=stage, exit=exit_code, message=message)


def write(path: Path, document: dict) -> None:
    util.write_atomic(path, (json.dumps(document, indent=1, allow_nan=False) + "\n").encode())


def read(path: Path) -> dict:
    """A verdict document exactly as ``write`` writes it, checked whole; BadInput naming the file for anything else."""
    try:
        document = json.loads(shapes.read_bytes(path, "gate verdict").decode(), parse_constant=refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # NaN and infinity are no JSON
        raise BadInput(f"gate verdict is corrupt: {path} ({error})") from None
    # Its schema and status first, so that an unknown status is named as such and not read as a failure's shape.
    shapes.check(document, "verdict#/definitions/common", path, "gate verdict")
    shapes.check(document, "verdict", path, "gate verdict")
    counted = document["counted"] if document["status"] == JUDGED else []
    if document["regression"] != bool(counted):
        raise BadInput(
            f"gate verdict {path}: regression {json.dumps(document['regression'])} with {len(counted)} counted "
            f"row(s) and status {document['status']}; the gate writes regression true exactly when a row counts"
        )
    if unknown := [row["kind"] for row in counted if row["kind"] not in metrics.KINDS]:
        raise BadInput(f"gate verdict {path}: a counted row of kind {unknown[0][:40]!r}, which metrics.py lacks")
    return document


def refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")
