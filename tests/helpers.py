"""What the tests share: the project's paths, running a command, and git."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def git(repo, *args, env=None) -> str:
    """``git -C repo ARGS``'s output, stripped; a failure raises."""
    return subprocess.run(["git", "-C", str(repo), *map(str, args)], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def script(name: str, *args, **kwargs) -> subprocess.CompletedProcess:
    """scripts/NAME ARGS run with this Python (.venv's), output captured as text."""
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True,
                          **kwargs)
