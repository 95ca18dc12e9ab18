"""asv's private functions and attributes that the tools use, each behind one function here.

asv has no public call for one benchmark process at one parameter
combination (the confirm step's measurement), nor for a matrix entry's
environment name or an environment's folder.  Private names can change in
any release, so every use first checks that the asv installed is the one
pyproject.toml pins, which these were written against, and fails naming
both versions otherwise.
"""

import functools
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from ..errors import Failed
from ..project import ROOT


def pinned() -> Requirement:
    """pyproject.toml's requirement of asv (its tools group)."""
    tools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]["tools"]
    return next(r for r in map(Requirement, tools) if r.name == "asv")


@functools.cache
def checked() -> None:
    """Nothing when the installed asv is the pinned one; Failed naming both versions otherwise."""
    wanted, installed = pinned(), metadata.version("asv")
    if not wanted.specifier.contains(installed, prereleases=True):
        raise Failed(
            f"asv {installed} is installed, but the tools use asv's private names as asv {wanted.specifier} has "
            "them (benchtools/asvtools/private.py): install the pinned asv (scripts/setup), or check each name "
            "against the new asv and move the pin"
        )


def run_one_process(benchmark: dict, spawner, param_index: int | None, profile: bool, extra_params: dict, cwd):
    """One process of ``benchmark`` at ``param_index``: asv.runner._run_benchmark_single_param's result."""
    checked()
    from asv import runner

    return runner._run_benchmark_single_param(
        benchmark, spawner, param_index, profile=profile, extra_params=extra_params, cwd=cwd
    )


def default_benchmark_timeout(env) -> float:
    """The timeout asv gives a benchmark that sets none (asv.runner.run_benchmarks reads it so)."""
    checked()
    return env._default_benchmark_timeout


def matrix_entry_parts(entry: dict) -> tuple:
    """A matrix entry as (python, requirements, tagged_env_vars), what asv's get_env_name takes."""
    checked()
    from asv import environment

    return environment._parse_matrix_entries(entry)


def env_python(env) -> Path:
    """The Python of an asv virtualenv environment."""
    checked()
    return Path(env._path) / "bin" / "python"
