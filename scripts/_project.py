"""What several scripts in this folder share: the project's paths, its virtualenv, each other.

Not a command: the scripts import it (a script's own folder is first on sys.path).
"""

import importlib.util
import os
import subprocess
import sys
from importlib.machinery import SourceFileLoader
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"


def ensure_venv(script: str, argv: list[str]) -> None:
    """Re-run ``script`` inside .venv, creating it first if needed; return at once when already there."""
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    subprocess.run([str(ROOT / "scripts" / "setup")], check=True)
    python = VENV / "bin" / "python"
    os.execv(python, [str(python), script, *argv])


def load_script(name: str):
    """One of the project's scripts as a module, to reuse its functions."""
    loader = SourceFileLoader(name.replace("-", "_"), str(ROOT / "scripts" / name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


MACHINE_PARAMS = ("machine", "python", "arch", "cpu", "os", "ram", "num_cpu")


def env_label(result) -> str:
    """An asv result's environment as its pinned requirements ("jax 0.4.33, jaxlib 0.4.33"), as step detection names it."""
    return ", ".join(f"{k} {v}" for k, v in sorted(result.params.items()) if v and k not in MACHINE_PARAMS)
