"""Exit codes and the errors that map to them, shared by every layer (standard library only).

  0 OK         success
  1 FOUND      the command's own documented finding, and only that (the gate:
               a regression counts; scripts/bench: a benchmark failed)
  2 BAD_INPUT  bad input or a missing or corrupt input file; one line on
               stderr says what, and nothing was changed
  3 FAILED     an operation that is not the user's input failed (a command
               it ran, such as asv, git, pip or gh, or the network); one line
  4 CRASHED    an unexpected exception: the traceback is on stderr

argparse's own usage errors exit 2 as well.  docs/exit-codes.md has the same
table, with what 1 means for each command.
"""

import enum


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
