"""The regression gate: the changes of a run or a comparison, judged against their thresholds (docs/gate.md)."""

import shlex
from dataclasses import dataclass, field

from benchmarks import metrics

from ..errors import BadInput
from ..project import VENV
from . import confirm as confirming
from . import finding, pairs, recheck
from .changes import Change
from .sources import Source


@dataclass
class Verdict:
    """What the gate found; ``confirmations`` is None under --no-confirm."""

    source: Source
    mode: str  # how the changes were found: finding.STEP_MODE, or "BEFORE → AFTER"
    changes: list[Change]
    counted: list[Change]
    improved: list[Change]
    confirmations: list[confirming.Confirmation] | None
    not_alerting: list[Change] = field(default_factory=list)  # timings beyond their threshold, worst first
    # Instruction rises that do not count: recounted within the floor, or their time decided faster.
    overruled: list[tuple[Change, "confirming.Confirmation | recheck.Recount"]] = field(default_factory=list)
    unjudged: list[finding.Unjudged] = field(default_factory=list)
    failed: list[finding.FailedCommit] = field(default_factory=list)
    explain_errors: list[str] = field(default_factory=list)
    # Instruction falls that, recounted, are no large improvement: another runner's.
    not_improved: list[tuple[Change, "recheck.Recount"]] = field(default_factory=list)

    @property
    def regression(self) -> bool:
        return bool(self.counted)

    @property
    def explained(self) -> list[Change]:
        return recheck.to_explain(self.counted, self.improved)


def judge(
    source: Source,
    compare: tuple[str, str] | None = None,
    *,
    explain: bool = False,
    confirm: bool = True,
    max_pairs: int = pairs.MAX_PAIRS,
) -> Verdict:
    """The verdict on the latest run's steps, or on BEFORE → AFTER."""
    if not source.hash_of_revision:
        raise BadInput(f"asv site index {source.html / 'index.json'} lists no commit: nothing to judge")
    if compare:
        judged_commits = [source.resolve(name) for name in compare]
        changes, unjudged = finding.compare_changes(source, *compare)  # its refusal names them as asked
        mode = f"{compare[0]} → {compare[1]}"
    else:
        changes, unjudged = finding.step_changes(source), []
        mode, judged_commits = finding.STEP_MODE, source.run_commits
    improved = finding.improvements(source, changes, compared=compare is not None)
    counted = source.thresholds.counted(changes)
    overruled, errors, not_improved = [], [], []
    if confirm and compare:
        counted, overruled, errors = recheck.recount(source, counted)
        # So that a new runner's falls are not listed as improvements.
        improved, not_improved, also = recheck.recount(source, improved, holds=recheck.Recount.improves)
        errors += also
    confirmations = None
    if confirm:
        checks = recheck.time_checks(counted, changes)
        timing_suspects = confirming.suspects(changes, source.thresholds)
        suspects = timing_suspects + [check for _, check in checks]
        confirmations = confirming.confirmations(source.config, source.conf, suspects, max_pairs=max_pairs)
        # In the order of the suspects: the timing suspects', then each instruction rise's time.
        slower = [c.change for c in confirmations[: len(timing_suspects)] if c.verdict == pairs.SLOWER]
        for (rise, _), timed in zip(checks, confirmations[len(timing_suspects) :], strict=True):
            timed.note = timed.note or "the time of an instruction rise"
            if timed.faster:
                overruled.append((rise, timed))
        overruled_ids = {id(rise) for rise, _ in overruled}
        counted = [c for c in counted if c.kind not in metrics.TIMING_KINDS and id(c) not in overruled_ids] + slower
    if compare:
        # The overruled rises too: the alert matches them by commit.
        finding.place_exact_steps(source, counted + improved + [rise for rise, _ in overruled])
    finding.attach_diagnostics(source, counted + improved, changes)
    if explain:
        errors += recheck.attach_explanations(source, counted, improved)
    beyond = [c for c in changes if c.kind in metrics.TIMING_KINDS and c.after > c.before * (1 + source.thresholds(c))]
    return Verdict(
        source=source,
        mode=mode,
        changes=changes,
        counted=counted,
        improved=improved,
        confirmations=confirmations,
        not_alerting=sorted((c for c in beyond if not metrics.alerts(c.entry)), key=lambda c: -c.ratio),
        overruled=overruled,
        unjudged=unjudged,
        failed=finding.failed_commits(source, judged_commits),
        explain_errors=errors,
        not_improved=not_improved,
    )


def find_command(source: Source, change: Change) -> str | None:
    if change.single_commit or not change.good or source.config is None:
        return None
    regex = "^" + change.benchmark.replace(".", r"\.") + "$"
    command = [str(VENV / "bin" / "asv"), "find", "--config", str(source.config), "--machine", source.machine]
    return shlex.join([*command, f"{change.good}..{change.bad}", regex])


def could_decide(change: Change) -> bool:
    """Whether a timing that does not alert could decide: an absolute time cannot (docs/timing-noise.md)."""
    return change.kind != metrics.TIME
