"""The options several commands share, each declared once (as asv's ``commands/common_args.py``)."""

import argparse
import platform
from collections.abc import Callable
from pathlib import Path

from ..errors import BadInput
from ..judging import pairs
from ..judging.changes import finite_non_negative
from ..project import HISTORY_DIR, ROOT
from ..publishing.results_branch import RESULTS_BRANCH


def add_machine(parser: argparse.ArgumentParser, default: str | None = None, help: str | None = None) -> None:
    default = default or platform.node() or "localhost"
    parser.add_argument(
        "--machine",
        default=default,
        help=help or "asv machine name that results are filed under (default: %(default)s)",
    )


def add_output(parser: argparse.ArgumentParser, default: Path, help: str) -> None:
    parser.add_argument("--output", type=Path, default=default, metavar="DIR", help=help)


def add_readme(parser: argparse.ArgumentParser, help: str) -> None:
    """--readme FILE, repeatable: a Markdown file whose generated blocks (publishing/generated.py) are written."""
    parser.add_argument("--readme", type=Path, action="append", default=[], metavar="FILE", help=help)


def add_bench(
    parser: argparse.ArgumentParser, help: str = "only benchmarks matching REGEX (asv run -b); repeatable"
) -> None:
    parser.add_argument("--bench", "-b", action="append", default=[], metavar="REGEX", help=help)


def add_jax(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jax",
        action="append",
        default=[],
        metavar="VERSION",
        help="only the environment with this JAX (repeatable; default: all environments)",
    )


def add_quick(
    parser: argparse.ArgumentParser,
    help: str = "run each benchmark once (asv run --quick): a smoke test, not a measurement",
) -> None:
    parser.add_argument("--quick", action="store_true", help=help)


def add_results_inputs(parser: argparse.ArgumentParser) -> None:
    """--results, --repo and --machine of the commands that read a results folder (overhead report, cost fit)."""
    parser.add_argument(
        "--results",
        type=Path,
        default=ROOT / "results" / "releases",
        help="asv results directory (default: %(default)s)",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        default=HISTORY_DIR / "equinox",
        help="the benchmarked git repository, to name commits by tag (default: %(default)s)",
    )
    parser.add_argument("--machine", help="only results of this asv machine (default: all)")


def threshold(text: str) -> float:
    """argparse type of a threshold option: finite and non-negative (argparse names the option, exit 2)."""
    try:
        return finite_non_negative(text, "")
    except BadInput as error:
        raise argparse.ArgumentTypeError(str(error).strip()) from None


def add_thresholds(parser: argparse.ArgumentParser) -> None:
    """--threshold and --time-threshold: the gate's thresholds for a whole kind."""
    parser.add_argument(
        "--threshold",
        type=threshold,
        help="relative worsening of any ratio metric that counts, 0.10 meaning 10%% "
        "(default: each benchmark's regressions_thresholds in the asv configuration)",
    )
    parser.add_argument(
        "--time-threshold",
        type=threshold,
        help="relative worsening of any absolute time or memory beyond which it is listed; absolute "
        "times never count (benchmarks/metrics.py: they do not alert) "
        "(default: each benchmark's regressions_thresholds in the asv configuration)",
    )


def at_least(minimum: int, unit: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number, at least ``minimum`` (of ``unit``, named in the message)."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not a whole number") from None
        if value < minimum:
            needed = f"at least {minimum} {unit} are needed" if unit else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"{value}: {needed}")
        return value

    return whole_number


confirm_max_pairs = at_least(pairs.MIN_PAIRS, "pairs")  # --confirm-max-pairs


def add_confirm(parser: argparse.ArgumentParser) -> None:
    """--no-confirm and --confirm-max-pairs: whether and how far the gate re-measures timing suspects."""
    parser.add_argument(
        "--no-confirm",
        action="store_true",
        help="judge timing changes on the stored results alone, without re-measuring "
        "them side by side (quick, but noise between commits counts)",
    )
    add_confirm_max_pairs(parser)


def add_confirm_max_pairs(parser: argparse.ArgumentParser) -> None:
    """--confirm-max-pairs N: how far a side-by-side measurement goes while undecided."""
    parser.add_argument(
        "--confirm-max-pairs",
        type=confirm_max_pairs,
        default=pairs.MAX_PAIRS,
        metavar="N",
        help=f"at most N pairs of processes per suspect or step (default: %(default)s; "
        f"{pairs.START_PAIRS} first, {pairs.STEP_PAIRS} more while undecided)",
    )


def add_env_dir(parser: argparse.ArgumentParser, default: Path | None, where: str) -> None:
    """--env-dir DIR: where asv keeps its virtualenvs."""
    parser.add_argument(
        "--env-dir", type=Path, default=default, metavar="DIR", help=f"where asv keeps its virtualenvs ({where})"
    )


def add_docs(parser: argparse.ArgumentParser, block: str) -> None:
    """--docs FILE: also write the output into FILE's generated block BLOCK (publishing/generated.py)."""
    parser.add_argument(
        "--docs",
        type=Path,
        metavar="FILE",
        help=f"also rewrite the block between <!-- {block}:start --> and <!-- {block}:end --> in FILE with the output",
    )


def add_results_branch(parser: argparse.ArgumentParser) -> None:
    """--results-remote and --results-branch: where results are stored."""
    parser.add_argument(
        "--results-remote",
        metavar="URL|PATH",
        help="the repository that holds the results branch (default: this project's origin)",
    )
    parser.add_argument(
        "--results-branch", default=RESULTS_BRANCH, metavar="BRANCH", help="the branch (default: %(default)s)"
    )
