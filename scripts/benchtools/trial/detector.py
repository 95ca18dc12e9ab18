"""The detector trial: planted slowdowns and A/A copies of a release, judged by the gate, counted."""

import json
import os
import shutil
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from benchmarks import metrics

from .. import git, settings
from ..asvtools import environments as asv_envs
from ..asvtools import runs
from ..asvtools.sides import log
from ..errors import BadInput, Error, ExitCode, Failed
from ..history import release_history
from ..judging import confirm, finding, pairs
from ..judging.sources import Source
from ..project import HISTORY_DIR, ROOT
from ..running import bench
from ..util import markdown_table
from .pads import inject, inject_c_work

HISTORY = HISTORY_DIR / "equinox"
CALIBRATION = (metrics.PASSES_TREE_AT, ())
MARKER = "DETECTOR_TRIAL"
AA = "A/A copy"
NOISIEST_SHOWN = 10
IDENTITY = ("-c", "user.name=detector-trial", "-c", "user.email=detector-trial@localhost")
CHANGE_KEYS = ("kind", "benchmark", "params", "before", "after")  # a verdict's: the first 3
TRIAL_KINDS = (metrics.DETERMINISTIC, metrics.RATIO, metrics.TIME)


@dataclass(frozen=True)
class Variant:
    tag: str
    row: str  # its row in the tables, every A/A copy's the same
    base: str  # the tag it is compared with
    edit: Callable[[str], str] | None = None  # of equinox/_tree.py; None for an A/A copy


def git_(repo: Path, *args) -> str:
    return git.out(*args, repo=repo).strip()


def calibrate_pads(percent: float, python: Path, probe: int = 4000) -> int:
    """pads.pads_for in a child of ``python``: this process, which forks asv later, must never import JAX."""
    code = f"from benchtools.trial import pads; print(pads.pads_for({percent!r}, {probe!r}))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "scripts")])}
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise Error(f"calibration failed: {done.stderr.strip()[-500:]}")
    return int(done.stdout.split()[-1])


def trial_options(args, repo: Path, output: Path) -> bench.Options:
    return bench.Options(
        repo=str(repo),
        jax=[settings.load().reference_jax],
        machine=args.machine,
        output=output,
        env_dir=args.env_dir,
        range=f"v{args.release}^..trial",
        quick=args.quick,
        include_unchanged=True,  # an A/A copy changes nothing in the package
        bench=args.bench,
    )


def build_repository(args) -> tuple[Path, str, list[Variant]]:
    """Each A/A copy compared with the one before, as the nightly compares; every other with the release."""
    release_history.build(release_history.Options(repo=HISTORY))
    release = f"v{args.release}"
    if release not in git_(HISTORY, "tag").split():
        raise BadInput(f"no release {args.release} in the history at {HISTORY}")
    repo = args.output / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    git.run("clone", "-q", git.END, HISTORY, repo)
    git_(repo, "checkout", "-q", "-B", "trial", release)
    copies = [f"trial-aa{number}" for number in range(1, args.aa_copies + 1)]
    variants = [Variant(tag, AA, base) for tag, base in zip(copies, [release, *copies][:-1], strict=True)]
    variants += [Variant(f"trial-{k}", f"+{k} calls", release, partial(inject, calls=k)) for k in args.calls]
    if args.c_slowdowns:
        target = bench.Target(trial_options(args, repo, args.output / "calibration"))
        ((_name, entry),) = bench.environments(target)
        asv_envs.setup_pythons_first_on_path()
        install = git_(repo, "rev-parse", release)
        python = runs.environment_python(target.config(entry, suffix="-calibration"), install=install)
    for percent in args.c_slowdowns:
        pads = calibrate_pads(percent, python)
        log(f"calibration: +{percent:g}% of a tree_at call on JAX {settings.load().reference_jax} = {pads} pads")
        row = f"+{percent:g}% in C ({pads} pads)"
        variants.append(Variant(f"trial-c{percent:g}", row, release, partial(inject_c_work, pads=pads)))
    tree_file = repo / "equinox" / "_tree.py"
    for variant in variants:
        git_(repo, "checkout", "-q", release, "--", ".")
        if variant.edit:
            tree_file.write_text(variant.edit(tree_file.read_text()))
        label = f"{variant.row} ({variant.tag})"
        (repo / MARKER).write_text(f"{label}\n")
        git_(repo, "add", "-A")
        git_(repo, *IDENTITY, "commit", "-qm", f"{args.release}, {label}")
        git_(repo, "tag", "-f", variant.tag)
    return repo, release, variants


@dataclass(frozen=True)
class Comparison:  # a variant against its base, in one trial
    judged: list  # the gate's changes, each with its threshold and whether it counts unconfirmed
    flagged: set  # the kinds of those that count, a cost change as a deterministic finding
    confirmed: list  # the confirm step's verdicts on the timing suspects
    slowdown: float | None  # of one tree_at update (CALIBRATION)


def compare(args, repo: Path, output: Path, variant: Variant) -> Comparison:
    try:
        source = Source(output=output, threshold=args.threshold, time_threshold=args.time_threshold)
        changes, _unjudged = finding.compare_changes(source, variant.base, variant.tag)
        suspects = [] if args.no_confirm else confirm.suspects(changes, source.thresholds)
        found = confirm.confirmations(source.config, source.conf, suspects, args.confirm_max_pairs)
    except Error as error:
        raise Error(f"scripts/regressions failed on {variant.tag}: {error}", error.code) from None
    judged = [(change, source.thresholds(change), source.thresholds.counts(change)) for change in changes]
    flagged = {metrics.DETERMINISTIC if c.kind in metrics.EXACT_KINDS else c.kind for c, _t, counts in judged if counts}
    base, slowed = (
        runs.value_at(output / "results", args.machine, git_(repo, "rev-parse", tag), *CALIBRATION)
        for tag in (variant.base, variant.tag)
    )
    return Comparison(judged, flagged, found, slowed / base - 1 if base and slowed else None)


def median_percent(values: list[float]) -> str:
    return f"{statistics.median(values):+.1%}" if values else "n/a"


def tables(args, compared: dict[str, list[Comparison]]) -> str:
    """The Markdown tables; every count is over a row's comparisons."""
    thresholds = (
        "the asv configuration's thresholds"
        if args.threshold is None and args.time_threshold is None
        else f"--threshold {args.threshold or 'from the asv configuration'}, "
        f"--time-threshold {args.time_threshold or 'from the asv configuration'}"
    )
    flagged, found = [], []
    for row, comparisons in compared.items():
        kinds = [one.flagged for one in comparisons]
        counts = [sum(kind in k for k in kinds) for kind in TRIAL_KINDS]
        counts += [sum(bool(k & {metrics.RATIO, metrics.TIME}) for k in kinds), sum(map(bool, kinds))]
        slowdowns = [one.slowdown for one in comparisons if one.slowdown is not None]
        flagged.append([row, median_percent(slowdowns), *(f"{n}/{len(comparisons)}" for n in counts)])
        verdicts = [v for one in comparisons for v in one.confirmed]
        timed = [v for v in verdicts if v.interval]
        key = [
            next((v for v in one.confirmed if (v.change.benchmark, v.change.params) == (CALIBRATION[0], "")), None)
            for one in comparisons
        ]
        key_verdicts = [v.verdict if v else "not suspect" for v in key]
        slower = sum(any(v.verdict == pairs.SLOWER for v in one.confirmed) for one in comparisons)
        found.append(
            [
                row,
                f"{slower}/{len(comparisons)}",
                " / ".join(str(key_verdicts.count(name)) for name in (*pairs.VERDICTS, "not suspect")),
                median_percent([v.interval.estimate for v in key if v and v.interval]),
                " / ".join(str(sum(v.verdict == name for v in verdicts)) for name in pairs.VERDICTS),
                f"{statistics.fmean([v.interval.pairs for v in timed]) if timed else 0:.1f}",
                f"{statistics.fmean([v.seconds for v in timed]) if timed else 0:.0f}",
            ]
        )
    aa_noise = {}  # (kind, benchmark, params): (largest A/A ratio, its threshold)
    for change, threshold, _counted in (judged for one in compared.get(AA, []) for judged in one.judged):
        if change.kind in (metrics.RATIO, metrics.TIME):
            key = (change.kind, change.benchmark, change.params)
            aa_noise[key] = (max(change.ratio, aa_noise.get(key, (0.0,))[0]), threshold)
    # Closest first: by the share of its threshold that a metric's largest A/A increase used up.
    noisiest = sorted(aa_noise.items(), key=lambda item: (item[1][0] - 1) / max(item[1][1], 1e-9), reverse=True)
    noise = [
        [kind, f"`{benchmark}`", params or "—", f"{largest:.3f}", f"+{threshold:.0%}"]
        for (kind, benchmark, params), (largest, threshold) in noisiest[:NOISIEST_SHOWN]
    ]
    columns = ["variant", "slowdown of one tree_at call (median)", "flagged: deterministic", "ratio", "time"]
    lines = [
        f"\n## Detector trial: Equinox {args.release}, {args.trials} trial(s){' (quick)' if args.quick else ''}, "
        f"{args.aa_copies} A/A comparison(s) per trial, {thresholds}\n",
        markdown_table([*columns, "any timing", "any"], flagged),
        "\nTiming metrics closest to a false alarm: the largest A/A ratio (after / before) over the trials.\n",
        markdown_table(["kind", "benchmark", "params", "largest A/A ratio", "threshold"], noise),
    ]
    if args.no_confirm:
        return "\n".join(lines)
    lines.append(
        f"\nConfirmed timing verdicts (every timing benchmark of the run; at most {args.confirm_max_pairs} pairs). "
        '"Comparisons slower": comparisons in which at least one timing verdict was slower (on an A/A copy, a '
        f'false alarm); "{CALIBRATION[0].split(".", 1)[1]}": that metric\'s verdict, and its median estimate '
        "where it was confirmed.\n"
    )
    head = ["variant", "comparisons slower", "tree_at in tree_map passes: slower / same / undecided / not suspect"]
    head += ["its estimate (median)", "suspects: slower / same / undecided", "pairs per suspect (mean)"]
    lines.append(markdown_table([*head, "s per suspect (mean)"], found))
    return "\n".join(lines)


def campaign(args) -> str:
    repo, _release, variants = build_repository(args)
    compared = {variant.row: [] for variant in variants}
    record = []
    for number in range(1, args.trials + 1):
        output = args.output / f"trial-{number}"
        shutil.rmtree(output, ignore_errors=True)
        log(f"=== trial {number}/{args.trials}")
        try:
            status = bench.bench(trial_options(args, repo, output))
        except Error as error:
            raise Error(f"trial {number}: scripts/bench failed: {error}", error.code) from None
        if status != ExitCode.OK:  # scripts/bench's 1 included
            raise Failed(f"trial {number}: scripts/bench exited {int(status)}; see above")
        for variant in variants:
            one = compare(args, repo, output, variant)
            compared[variant.row].append(one)
            where = {"trial": number, "variant": variant.row, "tag": variant.tag, "base": variant.base}
            interval_keys = ("estimate", "low", "high", "pairs")
            record += [
                {**where, **{key: getattr(v.change, key) for key in CHANGE_KEYS[:3]}, "verdict": v.verdict}
                | {key: v.interval and getattr(v.interval, key) for key in interval_keys}
                | {"seconds": v.seconds, "before_values": v.before, "after_values": v.after}
                for v in one.confirmed
            ]
            record += [
                {**where, **{key: getattr(change, key) for key in CHANGE_KEYS}, "threshold": threshold, "counted": n}
                for change, threshold, n in one.judged
            ]
            (args.output / "changes.json").write_text(json.dumps(record, indent=1))
    return tables(args, compared)
