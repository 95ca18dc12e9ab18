"""One command-line convention for every command: exit codes, errors, the runner, shared options.

Modelled on asv's own ``asv/main.py`` (one runner that turns a known error
into a one-line message) and ``asv/commands/common_args.py`` (each shared
option declared once).

Exit codes (the README has the same table):

  0 OK         success
  1 FOUND      the command's own documented finding, and only that (the gate:
               a regression counts; scripts/bench: a benchmark failed)
  2 BAD_INPUT  bad input or a missing or corrupt input file; one line on
               stderr says what, and nothing was changed
  3 FAILED     an operation that is not the user's input failed (a command
               it ran, such as asv, git, pip or gh, or the network); one line
  4 CRASHED    an unexpected exception: the traceback is on stderr

argparse's own usage errors exit 2 as well.
"""

import argparse
import enum
import platform
import sys
import textwrap
import traceback
from pathlib import Path
from typing import Callable, Sequence


class ExitCode(enum.IntEnum):
    OK = 0
    FOUND = 1
    BAD_INPUT = 2
    FAILED = 3
    CRASHED = 4


class Error(Exception):
    """A failure the command expects: reported in one line, exiting with ``code``."""

    code = ExitCode.FAILED

    def __init__(self, message: str, code: ExitCode | None = None):
        super().__init__(message)
        if code is not None:
            self.code = ExitCode(code)


class BadInput(Error):
    """Bad input, or a missing or corrupt input file: exit 2, nothing changed."""

    code = ExitCode.BAD_INPUT


class Failed(Error):
    """An operation failed that is not the user's input (a command run, the network): exit 3."""

    code = ExitCode.FAILED


def run(command: Callable[[Sequence[str]], int], argv: Sequence[str], prog: str) -> int:
    """``command(argv)``'s exit code, with the convention applied to what it raises."""
    try:
        return int(command(list(argv)) or 0)
    except Error as error:
        print(f"{prog}: {error}", file=sys.stderr, flush=True)
        return int(error.code)
    except Exception:  # noqa: BLE001 - anything else is a crash, never a finding
        traceback.print_exc()
        print(f"{prog}: crashed (exit {int(ExitCode.CRASHED)}); the traceback is above", file=sys.stderr)
        return int(ExitCode.CRASHED)


def main(command: Callable[[Sequence[str]], int], prog: str) -> None:
    """Run ``command`` on the command line's arguments and exit with its code."""
    sys.stdout.flush()
    sys.exit(run(command, sys.argv[1:], prog))


EXIT_CODES = textwrap.fill("exit codes, the same for every command (README, \"Exit codes\"): 0 success; 1 the finding "
              "documented above; 2 bad input, named in one line; 3 an operation failed (a command run, the "
              "network); 4 a crash, with its traceback", 79)


def parser(prog: str, doc: str | None, epilog: str | None = None, **kwargs) -> argparse.ArgumentParser:
    """An argument parser that shows ``doc`` (a module docstring) as written, and the exit codes."""
    return argparse.ArgumentParser(prog=prog, description=doc, epilog=f"{epilog}\n\n{EXIT_CODES}" if epilog else
                                   EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


# The options several commands share, each declared once.

def add_machine(parser: argparse.ArgumentParser, default: str | None = None, help: str | None = None) -> None:
    default = default or platform.node() or "localhost"
    parser.add_argument("--machine", default=default,
                        help=help or "asv machine name that results are filed under (default: %(default)s)")


def add_output(parser: argparse.ArgumentParser, default: Path, help: str) -> None:
    parser.add_argument("--output", type=Path, default=default, metavar="DIR", help=help)


def add_bench(parser: argparse.ArgumentParser, help: str = "only benchmarks matching REGEX (asv run -b); "
                                                            "repeatable") -> None:
    parser.add_argument("--bench", "-b", action="append", default=[], metavar="REGEX", help=help)


def add_jax(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jax", action="append", default=[], metavar="VERSION",
                        help="only the environment with this JAX (repeatable; default: all environments)")


def add_quick(parser: argparse.ArgumentParser, help: str = "run each benchmark once (asv run --quick): "
                                                            "a smoke test, not a measurement") -> None:
    parser.add_argument("--quick", action="store_true", help=help)


def add_results_inputs(parser: argparse.ArgumentParser) -> None:
    """--results, --repo and --machine of the commands that read a results folder (overhead report, cost fit)."""
    from .project import HISTORY_DIR, ROOT

    parser.add_argument("--results", type=Path, default=ROOT / "results" / "releases",
                        help="asv results directory (default: %(default)s)")
    parser.add_argument("--repo", type=Path, default=HISTORY_DIR / "equinox",
                        help="the benchmarked git repository, to name commits by tag (default: %(default)s)")
    parser.add_argument("--machine", help="only results of this asv machine (default: all)")
