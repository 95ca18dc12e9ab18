"""The lock on asv's environments: two asv runs in one environment rebuild the project under each other."""

import contextlib
import fcntl
import sys
from pathlib import Path


@contextlib.contextmanager
def exclusive(env_dir: Path):
    """Hold the lock on ``env_dir`` (asv's virtualenvs), waiting for whoever holds it."""
    env_dir.mkdir(parents=True, exist_ok=True)
    with open(env_dir / ".scripts-bench.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another scripts/bench that uses {env_dir}", file=sys.stderr, flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
