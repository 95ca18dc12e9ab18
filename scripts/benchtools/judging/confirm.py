"""The confirm step: every timing suspect re-measured side by side in fresh interpreters (docs/gate.md); asv's
``--interleave-rounds`` would reinstall at every switch."""

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics

from .. import util
from ..asvtools.lock import exclusive
from ..asvtools.sides import install_errors, log, param_index, prepare
from ..errors import BadInput, Failed
from .pairs import MAX_PAIRS, UNDECIDED, Interval, balanced_order, decided_faster, sequential


def suspects(changes: Iterable, thresholds, faster: bool = False) -> list:
    """The alerting timing changes beyond their suspect threshold (or with ``faster`` below), largest first."""
    sign = -1 if faster else 1
    found = [
        c
        for c in changes
        if metrics.alerting_timing(c.entry) and sign * c.after > sign * c.before * (1 + sign * thresholds.suspect(c))
    ]
    return sorted(found, key=lambda c: -sign * c.ratio)


@dataclass
class Confirmation:
    change: object  # a changes.Change
    verdict: str
    interval: Interval | None
    seconds: float
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)
    note: str = ""

    @property
    def faster(self) -> bool:
        return self.interval is not None and decided_faster(self.interval)


def measure_pairs(
    sides: dict, name: str, index: int | None, paired_seeds: random.Random | None = None
) -> Callable[[int, int], list[tuple[float, float]]]:
    """The ``measure`` of ``sequential``; with ``paired_seeds``, both processes of a pair share one PYTHONHASHSEED."""

    def measure(first: int, count: int) -> list[tuple[float, float]]:
        for side in sides.values():
            side.open()
        try:
            pairs = []
            for order in balanced_order(first, count):
                seed = str(paired_seeds.randrange(2**32)) if paired_seeds else None
                values = {side: sides[side].value(name, index, seed) for side in order}
                pairs.append((values["before"], values["after"]))
            return pairs
        finally:
            for side in sides.values():
                side.close()

    return measure


def env_root(config: Path, conf: dict) -> Path:
    """confirm-env/ beside the env_dir of ``conf``."""
    return (Path(config).parent / conf.get("env_dir", "env")).resolve().parent / "confirm-env"


def confirmation(change, sides: dict, max_pairs: int, suspects: int) -> Confirmation:
    """One suspect's verdict, its benchmark measured in pairs on the two installed ``sides``."""
    started = time.monotonic()
    name = change.benchmark
    if name not in sides["before"].benchmarks:
        return Confirmation(change, UNDECIDED, None, 0.0, note="not in the suite any more")
    if (index := param_index(sides["before"].benchmarks[name], change.params)) == -1:
        return Confirmation(change, UNDECIDED, None, 0.0, note="params not in the suite")
    verdict, found, b, a = sequential(measure_pairs(sides, name, index), max_pairs, suspects)
    seconds = time.monotonic() - started
    log(
        f"confirm: {change.entry}: {verdict}, {found.estimate:+.1%} "
        f"[{found.low:+.1%}, {found.high:+.1%}], {found.pairs} pairs, {seconds:.0f} s"
    )
    return Confirmation(change, verdict, found, seconds, b, a)


def confirmations(
    config: Path | None,
    conf: dict,
    suspects_: list,
    max_pairs: int = MAX_PAIRS,
    measured: Callable[[Confirmation], None] | None = None,
) -> list[Confirmation]:
    """Each suspect's verdict; ``measured`` gets each confirmation as soon as it is measured."""
    if not suspects_:
        return []
    if config is None:
        raise BadInput(
            "confirming timing suspects needs the asv configuration of the run (the latest "
            "scripts/bench run's .asv/last-run.json, --output or --config), not only --results and "
            "--html; or pass --no-confirm for the unconfirmed quick look"
        )
    if not Path(config).is_file():
        raise BadInput(f"confirming needs the asv configuration {config}, which is missing; or pass --no-confirm")
    config = Path(config).resolve()  # prepare reads it from the config's own folder
    repo = conf.get("repo", "")
    if not (util.is_remote(repo) or repo and Path(repo).exists()):  # no repo: not the current folder
        raise BadInput(f"confirming needs the benchmarked repository {repo!r}, which is missing; or pass --no-confirm")
    root = env_root(config, conf)
    results, groups = {}, {}
    for change in suspects_:
        if not change.good:
            results[id(change)] = Confirmation(change, UNDECIDED, None, 0.0, note="no earlier commit to compare with")
            continue
        groups.setdefault((change.good, change.bad, change.env), []).append(change)
    for (before, after, env_label), changes in groups.items():
        names = sorted({c.benchmark for c in changes})
        started = time.monotonic()
        with exclusive(root):
            try:
                sides = prepare(config, env_label, {"before": before, "after": after}, names, root)
            except install_errors() as error:
                raise Failed(f"cannot install {before[:8]} and {after[:8]} to confirm: {error}") from None
            log(
                f"confirm: {len(changes)} suspect(s) of {before[:8]} → {after[:8]} ({env_label}); "
                f"environments ready in {time.monotonic() - started:.0f} s"
            )
            for change in changes:
                results[id(change)] = confirmation(change, sides, max_pairs, len(suspects_))
                if measured is not None:
                    measured(results[id(change)])
    return [results[id(change)] for change in suspects_]
