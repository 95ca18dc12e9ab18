"""The project's paths, and the HOME and names of asv's environments.  Standard library only."""

import contextlib
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
UPSTREAM_CONFIG = ROOT / "asv.conf.json"
JAX_CONFIG = ROOT / "asv.jax.conf.json"
HISTORY_DIR = ROOT / ".cache" / "history"
HERE_REPO = ROOT / ".cache" / "here" / "equinox"
HERE_RUNNER = ROOT / ".asv" / "here-runner"
HERE_RECORDS = ROOT / "docs" / "here.md"
CONSTRAINTS = ROOT / ".asv" / "asv-runner-constraint.txt"
# scripts/setup links the Pythons it provides into SETUP_PYTHONS/bin, or writes why not into skipped-X.Y.
SETUP_PYTHONS = ROOT / ".asv" / "python"
ASV_HOMES = ROOT / ".asv" / "home"

# What asv's subprocesses (git, pip, virtualenv) read from HOME, kept: the XDG folders by value, the files by a link.
XDG_DEFAULTS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}
HOME_FILES = (".gitconfig", ".netrc", ".pip")


@contextlib.contextmanager
def asv_home():
    """os.environ with a HOME of its own, after PATH is set up: asv rewrites ~/.asv-machine.json in place every run."""
    home = Path(os.path.expanduser("~"))
    ASV_HOMES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="run-", dir=ASV_HOMES) as private:
        env = {**os.environ, "HOME": private}
        for variable, default in XDG_DEFAULTS.items():
            env[variable] = os.environ.get(variable) or str(home / default)
        for name in HOME_FILES:
            if os.path.lexists(home / name):
                os.symlink(home / name, Path(private) / name)
        yield env


HARDWARE = ("arch", "cpu", "os", "ram", "num_cpu")  # what asv stamps of the runner a night was handed
MACHINE_PARAMS = ("machine", "python", *HARDWARE, "runner")


def environment(params: dict) -> dict:
    """A result's environment, the same on whichever runner measured it: its params but the hardware's."""
    return {key: value for key, value in params.items() if key not in HARDWARE}


def env_label(params: dict) -> str:
    """ "Python 3.11, jax 0.4.33": environments of one configuration can differ by the Python alone."""
    python = params.get("python")
    pinned = [f"{k} {v}" for k, v in sorted(params.items()) if v and k not in MACHINE_PARAMS]
    return ", ".join(([f"Python {python}"] if python else []) + pinned)
