"""How each operation's instruction count tracks its time, on the commit-level history's measured steps.

For every step of docs/commit-history-times.json (an environment, the benchmark that times an
operation, two commits, and the time change measured side by side with its interval), counts the
operation's instructions at both commits under valgrind (each commit installed once in the
profiles' environment of --config, and its counts kept under that output's
.asv/profiles/instructions/, so that a rerun counts nothing twice), and prints, or writes into
--readme FILE's generated blocks, each step beside its time with its agreement (as the metric says,
by less, by more, undecided, no change resolved, contradicts) and the functions whose own
instructions moved most, and the table of agreements per operation.
"""

from pathlib import Path

from .. import cli, util
from ..errors import BadInput
from ..project import ROOT
from ..publishing import generated, instruction_history, operation_history
from ..publishing.report import project_url


def parse_args(argv):
    parser = cli.parser("scripts/instruction-history", __doc__)
    parser.add_argument(
        "--config",
        type=Path,
        required=True,
        metavar="PATH",
        help="the asv configuration of a run over the history's repository (scripts/bench --repo writes it to "
        ".asv/configs/): its environments are where the commits are installed and counted",
    )
    parser.add_argument(
        "--step-times",
        type=Path,
        default=ROOT / "docs" / "commit-history-times.json",
        metavar="FILE",
        help="the kept side-by-side times of the steps (default: docs/commit-history-times.json)",
    )
    parser.add_argument(
        "--readme",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help=f"rewrite FILE's generated blocks {instruction_history.BLOCK} (every step) and "
        f"{instruction_history.TRACKING_BLOCK} (the agreement table); repeatable",
    )
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if not args.config.is_file():
        raise BadInput(f"--config {args.config}: no such asv configuration")
    kept = operation_history.read_kept(args.step_times)
    if not kept:
        raise BadInput(f"{args.step_times}: no kept step time to set instructions beside")
    config = args.config.resolve()
    found = instruction_history.steps(kept, config, operation_history.profile_cache(config))
    repo = Path(util.load_asv_config(config)["repo"])
    blocks = {
        instruction_history.BLOCK: lambda: instruction_history.markdown(found, repo, project_url()),
        instruction_history.TRACKING_BLOCK: lambda: instruction_history.tracking_markdown(found),
    }
    for path in args.readme:
        generated.write_blocks(path, blocks)
        print(f"updated {path}")
    if not args.readme:
        print(instruction_history.markdown(found, repo, project_url()))
    return 0
