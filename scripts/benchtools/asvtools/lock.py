"""Exclusive locks (fcntl), written once: on asv's environments, and on anything else two runs must not share.

Two asv runs in one environment rebuild the project under each other; two
builds of one release history run git in each other's repository.  Each
waits for whoever holds the lock, saying so in one line; the kernel drops a
lock when its holder exits, however it exits, so a killed run never leaves
one behind.

asv's environments are locked at two levels: a run that measures time holds
the whole folder (``exclusive``), so that nothing of ours runs beside it; a
run of exact figures holds its own environment only (``one_environment``),
and the folder shared, so that runs in other environments go on beside it
and a timing run waits for them all.
"""

import contextlib
import fcntl
import sys
from pathlib import Path


@contextlib.contextmanager
def held(lock_file: Path, what: str, shared: bool = False):
    """Hold the lock on ``lock_file`` (made if missing, never truncated); ``what`` names the holder waited for.

    A shared hold waits only for an exclusive one, and an exclusive one for any.
    """
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    with open(lock_file, "a") as lock:
        try:
            fcntl.flock(lock, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for {what}", file=sys.stderr, flush=True)
            fcntl.flock(lock, mode)
        yield


def exclusive(env_dir: Path):
    """Hold the lock on ``env_dir`` (asv's virtualenvs), waiting for whoever holds it or any of its environments."""
    return held(env_dir / ".scripts-bench.lock", f"another scripts/bench that uses {env_dir}")


@contextlib.contextmanager
def one_environment(env_dir: Path, name: str):
    """Hold asv's environment ``name`` in ``env_dir``, and ``env_dir`` shared: runs in other environments go on."""
    with (
        held(env_dir / ".scripts-bench.lock", f"a run that holds all of {env_dir}", shared=True),
        held(env_dir / f".scripts-bench-{name}.lock", f"another run in {env_dir}'s {name}"),
    ):
        yield


def beside(path: Path) -> Path:
    """The lock file of ``path``, a folder that another run may be creating: next to it, not in it."""
    return path.parent / f".{path.name}.lock"
