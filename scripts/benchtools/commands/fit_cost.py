"""Fit the cost metric's call weight to tree_at's measured time, and check it on the Module's operations."""

from benchmarks import metrics

from ..errors import BadInput
from ..judging import cost_fit
from ..publishing import generated
from . import common_args


def add_arguments(parser, config) -> None:
    common_args.add_results_inputs(parser)
    parser.add_argument(
        "--weight", type=float, default=metrics.CALL_WEIGHT, help="the call weight to judge (%(default)s)"
    )
    common_args.add_docs(parser, "fit-cost, and fit-cost-operations for the Module's operations")


def run(args, config) -> int:
    by_env, checks = cost_fit.read(args.results, args.repo, args.machine)
    if not by_env:
        raise BadInput(f"no commit in {args.results} has {cost_fit.CALLS}, {cost_fit.BYTECODES} and {cost_fit.PASSES}")
    fits, fitted = [], False
    for env, points in by_env.items():
        try:
            fits.append(cost_fit.markdown(cost_fit.fit(points, args.weight), env))
            fitted = True
        except BadInput as error:
            if not checks:
                raise
            fits.append(f"## Cost fit: {env}\n\nNot fitted: {error}.\n")
    operations = {"fit-cost-operations": cost_fit.operations_markdown(checks)} if checks else {}
    print("\n".join([*fits, *operations.values()]))
    if args.docs:
        # A folder that cannot fit the weight leaves the fit a richer folder published.
        generated.write_blocks(args.docs, ({"fit-cost": "\n".join(fits)} if fitted else {}) | operations)
    return 0
