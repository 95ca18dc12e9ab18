"""The runner every command goes through, and its argument parser.

Modelled on asv's own ``asv/main.py``: one runner turns a known error
(``errors.Error``) into a one-line message and its exit code, and anything
else into a traceback and exit 4.  The shared options are in
``commands/common_args.py``.
"""

import argparse
import sys
import textwrap
import traceback
from collections.abc import Callable, Sequence

from .errors import Error, ExitCode


def run(command: Callable[[Sequence[str]], int], argv: Sequence[str], prog: str) -> int:
    """``command(argv)``'s exit code, with the convention applied to what it raises."""
    try:
        return int(command(list(argv)) or 0)
    except Error as error:
        # One line whatever the message quotes (a file's bytes can hold any line break).
        print(f"{prog}: {' '.join(str(error).split())}", file=sys.stderr, flush=True)
        return int(error.code)
    except Exception:  # noqa: BLE001 - anything else is a crash, never a finding
        traceback.print_exc()
        print(f"{prog}: crashed (exit {int(ExitCode.CRASHED)}); the traceback is above", file=sys.stderr)
        return int(ExitCode.CRASHED)


def main(command: Callable[[Sequence[str]], int], prog: str) -> None:
    """Run ``command`` on the command line's arguments and exit with its code."""
    sys.stdout.flush()
    sys.exit(run(command, sys.argv[1:], prog))


EXIT_CODES = textwrap.fill(
    "exit codes, the same for every command (docs/exit-codes.md): 0 success; 1 the finding "
    "documented above; 2 bad input, named in one line; 3 an operation failed (a command run, the "
    "network); 4 a crash, with its traceback",
    79,
)


def parser(prog: str, doc: str | None, epilog: str | None = None, **kwargs) -> argparse.ArgumentParser:
    """An argument parser that shows ``doc`` (a module docstring) as written, and the exit codes."""
    return argparse.ArgumentParser(
        prog=prog,
        description=doc,
        epilog=f"{epilog}\n\n{EXIT_CODES}" if epilog else EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )
