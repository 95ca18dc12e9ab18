"""asv's private names, each behind a function that first checks asv is the one pinned: they change in any release."""

import functools
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from ..errors import Failed
from ..project import ROOT


def pinned() -> Requirement:
    tools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]["tools"]
    return next(r for r in map(Requirement, tools) if r.name == "asv")


@functools.cache
def checked() -> None:
    wanted, installed = pinned(), metadata.version("asv")
    if not wanted.specifier.contains(installed, prereleases=True):
        raise Failed(
            f"asv {installed} is installed, but the tools use asv's private names as asv {wanted.specifier} has "
            "them (benchtools/asvtools/private.py): install the pinned asv (scripts/setup), or check each name "
            "against the new asv and move the pin"
        )


def run_one_process(benchmark: dict, spawner, param_index: int | None, profile: bool, extra_params: dict, cwd):
    checked()
    from asv import runner

    return runner._run_benchmark_single_param(
        benchmark, spawner, param_index, profile=profile, extra_params=extra_params, cwd=cwd
    )


def default_benchmark_timeout(env) -> float:
    checked()
    return env._default_benchmark_timeout


def matrix_entry_parts(entry: dict) -> tuple:
    checked()
    from asv import environment

    return environment._parse_matrix_entries(entry)


def env_python(env) -> Path:
    checked()
    return Path(env._path) / "bin" / "python"


def install_requirements_with(install) -> None:
    """asv's virtualenv environments hand ``install(python, arguments)`` the arguments of their pip calls."""
    checked()
    from asv.plugins.virtualenv import Virtualenv

    one_by_one = Virtualenv._install_requirements

    def install_requirements(env) -> None:
        calls = []
        env._run_pip = lambda args, **_: calls.append(args)
        try:
            one_by_one(env)
        finally:
            del env._run_pip
        install(env_python(env), [arg for args in calls for arg in args if arg not in ("install", "-v", "--upgrade")])

    Virtualenv._install_requirements = install_requirements
