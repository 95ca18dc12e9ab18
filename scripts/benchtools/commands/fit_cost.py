"""Fit the cost metric's call weight to the measured time of tree_at, release by release.

bench_counts.PythonCost weighs one update's Python work as bytecode
instructions + CALL_WEIGHT x Python calls (benchmarks/metrics.py).  This reads
an asv results folder and, for every commit, tree_at's counts at depth 4
(bench_counts.PythonCalls, BytecodeInstructions) and its measured time in
tree_map passes (bench_overhead.EagerSurgeryInTreeMapPasses), and prints:

  * the weight k that fits the time best, passes = s x (bytecodes + k x calls),
    least squares on the relative error, over the distinct code versions
    (commits with identical counts are one version; their median time is
    its time, so that ten identical releases do not weigh ten times);
  * the largest error of bytecodes alone, calls alone, and the fitted k;
  * with the weight in use (--weight, default CALL_WEIGHT), the scale s (the
    geometric mean of passes / cost over the versions) and the error of every
    version and every commit.

Where the results hold the Module's own operations (bench_construct,
bench_update, bench_access, bench_flatten), it then checks the weight on them:
each operation's time in tree_map passes against its cost x tree_at's passes
per weighted instruction in the same result, and the error of that prediction.

Run it on another machine or JAX to see whether the weight still holds there.

Exit status: 0, or 2 when the folder holds fewer than two code versions with
all three metrics and no Module operation to check.
"""

from benchmarks import metrics

from ..errors import BadInput
from ..judging.cost_fit import (
    BYTECODES,
    CALLS,
    PASSES,
    fit,
    load_points,
    markdown,
    operation_checks,
    operations_markdown,
)
from ..publishing import generated
from . import common_args


def add_arguments(parser, config) -> None:
    common_args.add_results_inputs(parser)
    parser.add_argument(
        "--weight", type=float, default=metrics.CALL_WEIGHT, help="the call weight to judge (%(default)s)"
    )
    common_args.add_docs(parser, "fit-cost, and fit-cost-operations for the Module's operations")


def run(args, config) -> int:
    by_env = load_points(args.results, args.repo, args.machine)
    if not by_env:
        raise BadInput(f"no commit in {args.results} has {CALLS}, {BYTECODES} and {PASSES}")
    checks = operation_checks(args.results, args.repo, args.machine)
    fits, fitted = [], False
    for env, points in by_env.items():
        try:
            fits.append(markdown(fit(points, args.weight), env))
            fitted = True
        except BadInput as error:
            if not checks:  # nothing else to show: the folder cannot answer
                raise
            fits.append(f"## Cost fit: {env}\n\nNot fitted: {error}.\n")
    blocks = {"fit-cost": "\n".join(fits)} if fitted else {}
    if checks:
        blocks["fit-cost-operations"] = operations_markdown(checks)
    print("\n".join(fits + ([blocks["fit-cost-operations"]] if checks else [])))
    if args.docs:
        # A folder that cannot fit the weight leaves the fit a richer folder published.
        generated.write_blocks(args.docs, blocks)
    return 0
