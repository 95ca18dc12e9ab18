"""Exit codes (docs/exit-codes.md) and the errors that map to them (standard library only)."""

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    FOUND = 1  # the command's own documented finding, and only that
    BAD_INPUT = 2  # bad input or a missing or corrupt input file; nothing was changed
    FAILED = 3  # an operation that is not the user's input failed (asv, git, pip, gh, the network)
    CRASHED = 4  # an unexpected exception: the traceback is on stderr


class Error(Exception):
    """A failure the command expects: reported in one line, exiting with ``code``."""

    code = ExitCode.FAILED

    def __init__(self, message: str, code: ExitCode | None = None):
        super().__init__(message)
        if code is not None:
            self.code = ExitCode(code)


class BadInput(Error):
    code = ExitCode.BAD_INPUT


class Failed(Error):
    code = ExitCode.FAILED
