"""Exclusive locks (fcntl), written once: on asv's environments, and on anything else two runs must not share.

Two asv runs in one environment rebuild the project under each other; two
builds of one release history run git in each other's repository.  Each
waits for whoever holds the lock, saying so in one line; the kernel drops a
lock when its holder exits, however it exits, so a killed run never leaves
one behind.
"""

import contextlib
import fcntl
import sys
from pathlib import Path


@contextlib.contextmanager
def held(lock_file: Path, what: str):
    """Hold the lock on ``lock_file`` (made if missing, never truncated); ``what`` names the holder waited for."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for {what}", file=sys.stderr, flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def exclusive(env_dir: Path):
    """Hold the lock on ``env_dir`` (asv's virtualenvs), waiting for whoever holds it."""
    return held(env_dir / ".scripts-bench.lock", f"another scripts/bench that uses {env_dir}")


def beside(path: Path) -> Path:
    """The lock file of ``path``, a folder that another run may be creating: next to it, not in it."""
    return path.parent / f".{path.name}.lock"
