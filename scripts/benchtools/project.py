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
# scripts/bench --here: one commit per Equinox version measured in a user's Python, made here, offline; and the
# folder that lends that Python asv's benchmark runner (asv_runner) and nothing else.
HERE_REPO = ROOT / ".cache" / "here" / "equinox"
HERE_RUNNER = ROOT / ".asv" / "here-runner"
# scripts/setup links the Pythons it provides into SETUP_PYTHONS/bin (python3.13), or writes why it
# could not into SETUP_PYTHONS/skipped-X.Y.
SETUP_PYTHONS = ROOT / ".asv" / "python"
# The HOMEs that asv's commands run with (asv_home): each a folder of its own, removed after.
ASV_HOMES = ROOT / ".asv" / "home"

# What the asv commands' subprocesses (git, pip, virtualenv, the benchmarks) read from HOME, kept as it
# was: the XDG folders (pip's and virtualenv's caches, git's and pip's configuration, the cache
# scripts/setup builds Python 3.13 into), by value, and the files read from HOME itself, by a link.
XDG_DEFAULTS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}
HOME_FILES = (".gitconfig", ".netrc", ".pip")


@contextlib.contextmanager
def asv_home():
    """The environment that asv's commands run with: os.environ, but a HOME of their own.

    asv keeps its machine file at ~/.asv-machine.json (asv.machine, read from
    HOME; there is no option or variable for another place), and every
    ``asv machine`` and ``asv run`` rewrites it in place, so two runs that
    start together can read each other's half-written file ("Error parsing
    JSON in file '~/.asv-machine.json'"), and each rewrote the user's own.
    Each run here gets a new HOME under .asv/home, whose machine file no other
    process reads or writes; the machine is described anew by ``asv machine
    --yes`` (which ignores what the file held anyway).  Enter it after PATH is
    set up: the environment is copied when it is entered.
    """
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


MACHINE_FIELDS = ("machine", "arch", "cpu", "os", "ram", "num_cpu")  # asv's Machine.fields
MACHINE_PARAMS = (*MACHINE_FIELDS[:1], "python", *MACHINE_FIELDS[1:])


def env_label(params: dict) -> str:
    """An environment as its Python and pinned requirements ("Python 3.11, jax 0.4.33, jaxlib 0.4.33").

    ``params`` are an asv result's params (or a graph's): the machine's are
    left out, the Python is kept, since the environments of one configuration
    can differ by their Python alone (the JAX history's two run Equinox 0.13.8
    on Python 3.11 and 3.13).  The gate, the overhead report and the cost fit
    all name environments so.
    """
    python = params.get("python")
    pinned = [f"{k} {v}" for k, v in sorted(params.items()) if v and k not in MACHINE_PARAMS]
    return ", ".join(([f"Python {python}"] if python else []) + pinned)
