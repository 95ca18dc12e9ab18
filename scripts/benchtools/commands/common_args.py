"""The options several commands share, each declared once (as asv's ``commands/common_args.py``)."""

import argparse
import dataclasses
import platform
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import BadInput
from ..judging import pairs
from ..judging.changes import finite_non_negative
from ..project import HISTORY_DIR, ROOT
from ..publishing import generated
from ..publishing.results_branch import RESULTS_BRANCH


def add_machine(parser, default: str | None = None, help: str = "asv machine name that results are filed under"):
    shown = "%(default)s" if default else "this host's name"
    parser.add_argument(
        "--machine", default=default or platform.node() or "localhost", help=f"{help} (default: {shown})"
    )


def add_output(parser, default: Path, help: str) -> None:
    parser.add_argument("--output", type=writable_folder, default=default, metavar="DIR", help=help)


def writable_folder(text: str) -> Path:
    """A folder that can be written, or made where it is missing: a file, or a place like /proc, is bad input."""
    path = Path(text)
    existing = next(found for found in (path, *path.absolute().parents) if found.exists())
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{existing} is a file, not a folder")
    try:
        tempfile.TemporaryDirectory(dir=existing).cleanup()  # made and removed: nothing is left
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{text}: no folder can be made in {existing} ({error.strerror})") from None
    return path


def add_readme(parser, help: str) -> None:
    parser.add_argument("--readme", type=Path, action="append", default=[], metavar="FILE", help=help)


def add_bench(parser, help: str = "only benchmarks matching REGEX (asv run -b); repeatable") -> None:
    parser.add_argument("--bench", "-b", action="append", default=[], type=regex, metavar="REGEX", help=help)


def regex(text: str) -> str:
    try:
        re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {error}") from None
    return text


def add_jax(parser) -> None:
    parser.add_argument(
        "--jax", action="append", default=[], metavar="VERSION", help="only the environment with this JAX (repeatable)"
    )


def options(cls, args):
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if hasattr(args, f.name)})


def add_quick(parser, help: str = "run each benchmark once (asv run --quick): a smoke test, not a measurement"):
    parser.add_argument("--quick", action="store_true", help=help)


def add_results_inputs(parser) -> None:
    parser.add_argument(
        "--results", type=Path, default=ROOT / "results" / "releases", help="asv results folder (default: %(default)s)"
    )
    parser.add_argument(
        "--repo", type=Path, default=HISTORY_DIR / "equinox", help="the benchmarked repository (default: %(default)s)"
    )
    parser.add_argument("--machine", help="only results of this asv machine (default: all)")


def threshold(text: str) -> float:
    try:
        return finite_non_negative(text, "")
    except BadInput as error:
        raise argparse.ArgumentTypeError(str(error).strip()) from None


def add_thresholds(parser) -> None:
    configured = "(default: each benchmark's regressions_thresholds in the asv configuration)"
    parser.add_argument(
        "--threshold", type=threshold, help=f"relative worsening of a ratio that counts, 0.10 meaning 10%% {configured}"
    )
    parser.add_argument("--time-threshold", type=threshold, help=f"the same, of a time or memory (listed) {configured}")


def folder(text: str) -> Path:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a folder")
    return Path(text)


def at_least(minimum: int, unit: str = "") -> Callable[[str], int]:
    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value}: at least {minimum}{f' {unit} are needed' if unit else ''}")
        return value

    return whole_number


def listed(kind: Callable, what: str) -> Callable[[str], list]:
    def values(text: str) -> list:
        try:
            found = [kind(value) for value in text.split(",") if value.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not {what} separated by commas") from None
        if any(not value > 0 for value in found):
            raise argparse.ArgumentTypeError(f"{text!r}: each must be above 0")
        return found

    return values


def add_confirm(
    parser, optional: bool = True, default: int | None = pairs.MAX_PAIRS, help: str = "per suspect (%(default)s)"
) -> None:
    if optional:
        parser.add_argument(
            "--no-confirm", action="store_true", help="judge the stored timings alone, never re-measured side by side"
        )
    pairs_of = at_least(pairs.MIN_PAIRS, "pairs")
    parser.add_argument("--confirm-max-pairs", type=pairs_of, default=default, metavar="N", help=help)


def add_env_dir(parser, default: Path | None, where: str = "default: %(default)s") -> None:
    parser.add_argument("--env-dir", type=Path, default=default, metavar="DIR", help=f"asv's virtualenvs ({where})")


def add_docs(parser, block: str, repeatable: bool = False) -> None:
    many = {"action": "append", "default": []} if repeatable else {}
    parser.add_argument(
        "--docs",
        type=Path,
        metavar="FILE",
        help=f"also write the output into FILE's generated block {block}" + "; repeatable" * repeatable,
        **many,
    )


def show(text: str, docs: Path | None, block: str) -> None:
    print(text)
    if docs:
        generated.write_blocks(docs, {block: text})


def write_readmes(paths: list[Path], blocks: dict[str, str]) -> None:
    for path in paths:
        generated.write_blocks(path, blocks)
        print(f"updated {path}")
    if not paths:
        print("\n\n".join(blocks.values()))


def add_results_branch(parser) -> None:
    parser.add_argument(
        "--results-remote", metavar="URL|PATH", help="the repository of the results branch (default: origin)"
    )
    parser.add_argument("--results-branch", default=RESULTS_BRANCH, metavar="BRANCH", help="(default: %(default)s)")


def fraction(text: str) -> float:
    try:
        if 0 < (value := float(text)) < 1:
            return value
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r}: a fraction between 0 and 1, such as 0.008")
