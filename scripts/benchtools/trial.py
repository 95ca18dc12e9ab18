#!/usr/bin/env python3
"""Measure the regression gate: its false-alarm rate, and the smallest tree_at slowdown it catches.

It builds a repository whose history is one Equinox release followed by
variants of it: an A/A copy (identical code, a different commit) and copies
whose tree_at makes K extra Python calls first, for each K of --calls.  Each
trial benchmarks the release and every variant in one scripts/bench run, then
has the gate (scripts/regressions, at the asv configuration's thresholds
unless --threshold or --time-threshold is given) compare the release with each
variant.  The Markdown tables at the end give, per variant, the measured
slowdown of one tree_at call (median over trials, from
bench_overhead.EagerSurgeryInTreeMapPasses) and how many trials each kind of
metric flagged it in (the A/A row is the false-alarm count); then, for the
timing metrics that came closest to a false alarm, the largest A/A ratio
seen, next to the threshold that keeps it quiet.  Every change the gate saw,
trial by trial, goes to OUTPUT/changes.json, to re-score at other thresholds.

Only the benchmarks that carry tree_at's Python cost run (--bench), which
keeps a trial to minutes; they are the ones the gate can flag for such a
change.

Exit status: 0 when the trials ran; 2 on bad input; 3 when a trial's
benchmark run failed (scripts/bench exited anything but 0).
"""

import ast
import itertools
import json
import shutil
import statistics
import sys
from pathlib import Path

from benchmarks import metrics

from . import bench, cli, gate, git, release_history, validate
from .cli import BadInput, Error, ExitCode, Failed
from .project import HISTORY_DIR, ROOT

HISTORY = HISTORY_DIR / "equinox"
DEFAULT_BENCH = [r"bench_counts\.", r"bench_overhead\.", r"bench_eager\."]
CALIBRATION = ("bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at", ())  # one update, in tree_map passes
MARKER = "DETECTOR_TRIAL"
NOISIEST_SHOWN = 10


def parse_args(argv):
    parser = cli.parser("scripts/detector-trial", __doc__)
    parser.add_argument("--release", default="0.13.8", help="the Equinox release to copy (default: %(default)s)")
    parser.add_argument("--trials", type=int, default=5, help="benchmark runs (default: %(default)s)")
    parser.add_argument("--calls", default="100,200,400,800", metavar="K,K,...",
                        help="extra Python calls injected at the start of tree_at, one variant each "
                             "(default: %(default)s)")
    parser.add_argument("--threshold", type=validate.threshold,
                        help="scripts/regressions --threshold (default: the asv configuration's)")
    parser.add_argument("--time-threshold", type=validate.threshold,
                        help="scripts/regressions --time-threshold (default: the asv configuration's)")
    cli.add_quick(parser, "benchmark each variant once (scripts/bench --quick)")
    cli.add_bench(parser, f"benchmarks to run (default: {' '.join(DEFAULT_BENCH)})")
    cli.add_machine(parser, "detector-trial", "asv machine name (default: %(default)s)")
    cli.add_output(parser, ROOT / ".cache" / "detector-trial",
                   "where the repository and each trial's results go (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        args.calls = [int(k) for k in args.calls.split(",")]
    except ValueError:
        parser.error(f"--calls must be whole numbers separated by commas, not {args.calls!r}")
    if any(value is not None and value < 0 for value in (args.threshold, args.time_threshold)):
        parser.error("thresholds must not be negative")
    if args.trials < 1 or any(k < 1 for k in args.calls):
        parser.error("--trials and each of --calls must be at least 1")
    return args


def git_(repo: Path, *args) -> str:
    return git.out(*args, repo=repo).strip()


def inject(source: str, calls: int) -> str:
    """tree_at's source with `calls` no-op Python calls made before its body."""
    tree = ast.parse(source)
    function = next((node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "tree_at"),
                    None)
    if function is None:
        raise BadInput("equinox/_tree.py has no top-level tree_at")
    first = function.body[0]
    has_docstring = isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant)
    after = (first.end_lineno if has_docstring else first.lineno - 1)
    indent = " " * function.body[-1].col_offset
    lines = source.splitlines(keepends=True)
    lines.insert(after, f"{indent}for _ in range({calls}):\n{indent}    _detector_trial_noop()\n")
    lines.insert(function.lineno - 1 - len(function.decorator_list),
                 "def _detector_trial_noop():\n    pass\n\n\n")
    return "".join(lines)


def build_repository(args) -> tuple[Path, str, dict[str, str]]:
    """The trial repository, the release's tag, and {variant tag: its label}."""
    release_history.build(release_history.Options(repo=HISTORY))
    release = f"v{args.release}"
    if release not in git_(HISTORY, "tag").split():
        raise BadInput(f"no release {args.release} in the history at {HISTORY}")
    repo = args.output / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    git.run("clone", "-q", git.END, HISTORY, repo)
    git_(repo, "checkout", "-q", "-B", "trial", release)
    variants = {"trial-aa": "A/A copy"}
    variants.update({f"trial-{k}": f"+{k} calls" for k in args.calls})
    for tag, label in variants.items():
        git_(repo, "checkout", "-q", release, "--", ".")
        if tag != "trial-aa":
            tree_file = repo / "equinox" / "_tree.py"
            tree_file.write_text(inject(tree_file.read_text(), int(tag.removeprefix("trial-"))))
        (repo / MARKER).write_text(f"{label}\n")
        git_(repo, "add", "-A")
        git_(repo, "-c", "user.name=detector-trial", "-c", "user.email=detector-trial@localhost",
            "commit", "-qm", f"{args.release}, {label}")
        git_(repo, "tag", "-f", tag)
    return repo, release, variants


def run_trial(args, repo: Path, release: str, number: int) -> Path:
    output = args.output / f"trial-{number}"
    shutil.rmtree(output, ignore_errors=True)
    options = bench.Options(repo=str(repo), jax=["0.4.33"], machine=args.machine, output=output,
                            range=f"{release}^..trial", quick=args.quick, bench=args.bench or DEFAULT_BENCH)
    print(f"=== trial {number}/{args.trials}", file=sys.stderr, flush=True)
    try:
        status = bench.bench(options)
    except Error as error:
        raise Error(f"trial {number}: scripts/bench failed: {error}", error.code) from None
    if status != ExitCode.OK:
        # Any status but 0, scripts/bench's 1 included, means the trial has no complete measurement.
        raise Failed(f"trial {number}: scripts/bench exited {int(status)}; see above")
    return output


def compare(args, output: Path, release: str, tag: str) -> list:
    """The gate's changes from the release to a variant, each with its threshold and verdict."""
    try:
        source = gate.Source(gate.Location(output=output, threshold=args.threshold,
                                           time_threshold=args.time_threshold))
        changes = gate.compare_changes(source, release, tag)
    except Error as error:
        raise Error(f"scripts/regressions failed on {tag}: {error}", error.code) from None
    return [(change, source.thresholds(change), source.thresholds.counts(change)) for change in changes]


def tree_at_cost(output: Path, commit: str, machine: str) -> float | None:
    """The cost of one tree_at update (CALIBRATION) at one commit."""
    from asv import results

    name, params = CALIBRATION
    for results_dir in (output / "results").iterdir():
        for result in results.iter_results_for_machine_and_hash(str(results_dir), machine, commit):
            if name in result.get_all_result_keys():
                grid = result.get_result_params(name)
                combos = [tuple(combo) for combo in itertools.product(*grid)]
                return result.get_result_value(name, grid)[combos.index(params)]
    return None


# The trial's columns: a cost change is a deterministic finding; diagnostics never count.
TRIAL_KINDS = (metrics.DETERMINISTIC, metrics.RATIO, metrics.TIME)


def trial_kind(kind: str) -> str:
    return metrics.DETERMINISTIC if kind == metrics.COST else kind


def print_tables(args, variants: dict, flags: dict, slowdowns: dict, aa_noise: dict) -> None:
    trials = args.trials
    thresholds = ("the asv configuration's thresholds" if args.threshold is None and args.time_threshold is None
                  else f"--threshold {args.threshold or 'from the asv configuration'}, "
                       f"--time-threshold {args.time_threshold or 'from the asv configuration'}")
    print(f"\n## Detector trial: Equinox {args.release}, {trials} trial(s){' (quick)' if args.quick else ''}, "
          f"{thresholds}\n")
    print("| variant | slowdown of one tree_at call (median) | flagged: deterministic | ratio | time | any timing "
          "| any |")
    print("|---|---|---|---|---|---|---|")
    for tag, label in variants.items():
        median = f"{statistics.median(slowdowns[tag]):+.1%}" if slowdowns[tag] else "n/a"
        counts = flags[tag]
        cells = " | ".join(f"{counts[kind]}/{trials}" for kind in (*TRIAL_KINDS, "timing", "any"))
        print(f"| {label} | {median} | {cells} |")
    print("\nTiming metrics closest to a false alarm: the largest A/A ratio (after / before) over the trials.\n")
    print("| kind | benchmark | params | largest A/A ratio | threshold |")
    print("|---|---|---|---|---|")
    # Closest first: the share of its threshold that a metric's largest A/A increase used up.
    noisiest = sorted(aa_noise.items(), key=lambda item: (item[1][0] - 1) / max(item[1][1], 1e-9), reverse=True)
    for (kind, benchmark, params), (largest, threshold) in noisiest[:NOISIEST_SHOWN]:
        print(f"| {kind} | `{benchmark}` | {params or '—'} | {largest:.3f} | +{threshold:.0%} |")


def main(argv):
    args = parse_args(argv)
    repo, release, variants = build_repository(args)
    base_commit = git_(repo, "rev-parse", release)
    flags = {tag: dict.fromkeys((*TRIAL_KINDS, "timing", "any"), 0) for tag in variants}
    slowdowns = {tag: [] for tag in variants}
    aa_noise = {}  # (kind, benchmark, params): (largest A/A ratio, its threshold)
    record = []
    for number in range(1, args.trials + 1):
        output = run_trial(args, repo, release, number)
        base_cost = tree_at_cost(output, base_commit, args.machine)
        for tag in variants:
            judged = compare(args, output, release, tag)
            record += [{"trial": number, "variant": variants[tag], "kind": change.kind, "benchmark": change.benchmark,
                        "params": change.params, "before": change.before, "after": change.after,
                        "threshold": threshold, "counted": counted} for change, threshold, counted in judged]
            kinds = {trial_kind(change.kind) for change, _threshold, counted in judged if counted}
            for kind in kinds:
                flags[tag][kind] += 1
            flags[tag]["timing"] += bool(kinds & {metrics.RATIO, metrics.TIME})
            flags[tag]["any"] += bool(kinds)
            if tag == "trial-aa":
                for change, threshold, _counted in judged:
                    if change.kind in (metrics.RATIO, metrics.TIME):
                        key = (change.kind, change.benchmark, change.params)
                        aa_noise[key] = (max(change.ratio, aa_noise.get(key, (0.0,))[0]), threshold)
            variant_cost = tree_at_cost(output, git_(repo, "rev-parse", tag), args.machine)
            if base_cost and variant_cost:
                slowdowns[tag].append(variant_cost / base_cost - 1)
        (args.output / "changes.json").write_text(json.dumps(record, indent=1))
    print_tables(args, variants, flags, slowdowns, aa_noise)
    return 0
