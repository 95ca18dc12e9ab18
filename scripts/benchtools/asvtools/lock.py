"""fcntl locks (dropped however their holder exits): two asv runs in one environment rebuild it under each other."""

import contextlib
import fcntl
import sys
from pathlib import Path


@contextlib.contextmanager
def held(lock_file: Path, what: str, shared: bool = False):
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
    return held(env_dir / ".scripts-bench.lock", f"another scripts/bench that uses {env_dir}")


@contextlib.contextmanager
def one_environment(env_dir: Path, name: str):
    with (
        held(env_dir / ".scripts-bench.lock", f"a run that holds all of {env_dir}", shared=True),
        held(env_dir / f".scripts-bench-{name}.lock", f"another run in {env_dir}'s {name}"),
    ):
        yield


def beside(path: Path) -> Path:
    """The lock file of a folder that another run may be creating: next to it, not in it."""
    return path.parent / f".{path.name}.lock"
