"""Small helpers every layer shares, each written once: asv's configurations, asv as a command, atomic writes."""

import contextlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from .errors import BadInput, Failed

# A repository given as a URL (https://, ssh://, git://, file://) or as git's scp-like user@host:path.
REMOTE = re.compile(r"^[a-z][a-z0-9+.-]*://|^git@")


def is_remote(location: str) -> bool:
    """Whether a repository location is a URL rather than a path on this machine."""
    return bool(REMOTE.match(str(location)))


def load_asv_config(path: Path | str) -> dict:
    """An asv configuration as asv reads it (JSON with comments); BadInput naming the file, never a traceback."""
    from asv import util

    try:
        return util.load_json(str(path), js_comments=True)
    except util.UserError as error:
        raise BadInput(f"asv configuration {path}: {error}") from None
    except FileNotFoundError:
        raise BadInput(f"asv configuration not found: {path}") from None
    except RecursionError:
        raise BadInput(f"asv configuration is corrupt: {path} (nested too deeply)") from None
    except (OSError, ValueError) as error:  # json5's errors are ValueErrors
        raise BadInput(f"asv configuration is corrupt: {path} ({error})") from None


def asv_config(path: Path | str):
    """asv's own ``Config`` object of a configuration file."""
    from asv import config

    return config.Config.load(str(path))


def asv(*args) -> list[str]:
    """The command line of ``asv ARGS`` with the asv of this Python."""
    return [sys.executable, "-m", "asv", *map(str, args)]


def run(cmd, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd)``, the command echoed on stderr first."""
    print("$", " ".join(str(part) for part in cmd), file=sys.stderr, flush=True)
    return subprocess.run([str(part) for part in cmd], **kwargs)


def checked(cmd, **kwargs) -> subprocess.CompletedProcess:
    """``run(cmd)``, raising Failed naming the command when it exits non-zero."""
    done = run(cmd, **kwargs)
    if done.returncode != 0:
        what = " ".join(map(str, cmd[2:4])) if list(map(str, cmd[:3])) == asv() else str(cmd[0])
        raise Failed(f"{what} exited {done.returncode}; see above")
    return done


@contextlib.contextmanager
def atomic_output(path: Path, replace: bool = True):
    """A binary file that appears at PATH only complete, or not at all.

    Yields a namespace whose ``file`` is written to; on leaving, the file is
    synced and renamed into place (``replace``), or hard-linked so that it
    never replaces an existing file (``written`` then tells whether it was
    placed).  An exception inside leaves PATH as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    placed = SimpleNamespace(file=None, written=False)
    try:
        with os.fdopen(fd, "wb") as out:
            placed.file = out
            yield placed
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, path)
            placed.written = True
        else:
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)  # fails if PATH exists: never replaces a file
                placed.written = True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def write_atomic(path: Path, data: bytes, replace: bool = True) -> bool:
    """Write DATA to PATH atomically (``atomic_output``); False when PATH existed and ``replace`` is off."""
    with atomic_output(path, replace) as placed:
        placed.file.write(data)
    return placed.written
