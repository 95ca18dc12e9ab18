"""An asv plugin: uv installs an environment's requirements in one process, where asv runs pip once for each."""

import os
import subprocess

from ..project import ROOT
from . import private

# pip's settings that uv takes from its own names only.
PIP_OPTIONS = {
    "PIP_INDEX_URL": "--index-url",
    "PIP_EXTRA_INDEX_URL": "--extra-index-url",
    "PIP_FIND_LINKS": "--find-links",
    "PIP_CONSTRAINT": "--constraint",
}
CACHE = ROOT / ".cache" / "uv"  # where scripts/setup has uv cache when the user's cache is not writable


def uv_install(python, declared: list[str]) -> None:
    from uv import find_uv_bin  # here: a Python that only runs existing environments (--here) has no uv

    options = [
        word for pip, uv in PIP_OPTIONS.items() for value in os.environ.get(pip, "").split() for word in (uv, value)
    ]
    options += ["--cache-dir", str(CACHE)] if CACHE.is_dir() else []
    subprocess.run([find_uv_bin(), "pip", "install", "--python", python, *options, *declared], check=True)


private.install_requirements_with(uv_install)
