"""asv's environments as scripts/bench and the profiler use them."""

import copy
import os
import sys

from ..project import SETUP_PYTHONS
from . import private

# Any other Python comes from the machine.
SETUP_PROVIDES = ("3.13",)


def setup_pythons_first_on_path() -> None:
    """asv finds ``pythonX.Y`` on PATH: scripts/setup's go first."""
    folder = str(SETUP_PYTHONS / "bin")
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != folder:
        os.environ["PATH"] = f"{folder}{os.pathsep}{path}" if path else folder


def setup_python_missing(python: str) -> str | None:
    """Why scripts/setup could not provide this Python, or None (provided, or not setup's to provide)."""
    if python not in SETUP_PROVIDES or (SETUP_PYTHONS / "bin" / f"python{python}").exists():
        return None
    reason = SETUP_PYTHONS / f"skipped-{python}"
    return reason.read_text().strip() if reason.is_file() else "scripts/setup has not provided it"


def python_of(entry: dict) -> str:
    return entry[("python", None)]


def requirements_of(entry: dict) -> dict[str, str]:
    """{"jax": "0.4.33", ...}; "" for an unpinned one."""
    return {name: version for (kind, name), version in entry.items() if kind == "req"}


def asv_config(config):
    """asv's Config of a path, or of a configuration already loaded (util.load_asv_config) by a layer above."""
    from asv import config as asv

    return asv.Config.from_json(copy.deepcopy(config)) if isinstance(config, dict) else asv.Config.load(str(config))


def named_entries(conf) -> list[tuple[str, dict]]:
    """(asv's environment name, matrix entry) for every environment, even one whose Python is missing here."""
    from asv import environment

    return [
        (environment.get_env_name(conf.environment_type, *private.matrix_entry_parts(entry)), entry)
        for entry in environment.iter_matrix(conf.environment_type, conf.pythons, conf)
    ]


def present(named: list[tuple[str, dict]], prog: str) -> list[tuple[str, dict]]:
    """The environments whose Python is here; one line on stderr for each Python left out, saying why."""
    kept, told = [], set()
    for name, entry in named:
        python = python_of(entry)
        if (missing := setup_python_missing(python)) is None:
            kept.append((name, entry))
        elif python not in told:
            told.add(python)
            print(f"{prog}: Python {python} environments skipped: {missing}", file=sys.stderr, flush=True)
    return kept


def restrict(config: dict, entry: dict) -> None:
    config.update(matrix={"req": requirements_of(entry)}, pythons=[python_of(entry)])
    config.pop("exclude", None)


def stored_matrix(configs) -> dict[str, tuple[str, dict[str, str]]]:
    """{asv's environment name: (its Python, its requirements)} of every environment of these configurations."""
    return {
        name: (python_of(entry), requirements_of(entry))
        for path in configs
        for name, entry in named_entries(asv_config(path))
    }
