"""The project's paths and its virtualenv.  Standard library only: it runs before .venv is entered."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
UPSTREAM_CONFIG = ROOT / "asv.conf.json"
JAX_CONFIG = ROOT / "asv.jax.conf.json"
HISTORY_DIR = ROOT / ".cache" / "history"
# scripts/setup links the Pythons it provides into SETUP_PYTHONS/bin (python3.13), or writes why it
# could not into SETUP_PYTHONS/skipped-X.Y.
SETUP_PYTHONS = ROOT / ".asv" / "python"

if str(ROOT) not in sys.path:
    # The tools read the suite's pure declarations (benchmarks/metrics.py, benchmarks/params.py).
    sys.path.append(str(ROOT))


def enter_venv(script: str) -> None:
    """Re-run ``script`` inside .venv, creating it first if needed; return at once when already there.

    Called by every command before it imports anything outside the standard
    library (asv, jax, matplotlib, packaging), so that a command typed in a
    plain shell works as it does inside .venv.
    """
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if subprocess.run([str(ROOT / "scripts" / "setup")], stdout=sys.stderr).returncode != 0:
        print(f"scripts/{Path(script).name}: scripts/setup failed; see above", file=sys.stderr)
        sys.exit(3)  # cli.ExitCode.FAILED, which cannot be imported from here before the venv is entered
    python = VENV / "bin" / "python"
    os.execv(python, [str(python), script, *sys.argv[1:]])


def upstream_url() -> str:
    """asv.conf.json's repo: Equinox upstream."""
    from asv import util

    return util.load_json(str(UPSTREAM_CONFIG), js_comments=True)["repo"]


MACHINE_PARAMS = ("machine", "python", "arch", "cpu", "os", "ram", "num_cpu")


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
