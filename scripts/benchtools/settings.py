"""The project's settings, each read once from the file that holds it.

- ``asv.conf.json``: the suite against Equinox upstream.  Its repository is
  upstream's; its matrix names the JAX releases the suite runs on, and the
  oldest of them is the reference JAX (the one that runs every benchmarked
  Equinox release, and where JAX's own history starts).
- ``asv.jax.conf.json``: the suite against JAX releases.  Its matrix holds
  Equinox fixed, at the reference Equinox (the release the trials and the
  headline measure).
- ``package-lock.json``: the versions npm installs of ``package.json``'s
  packages, which the self-contained site serves.

Each fact has one home, the file whose consumer must agree with it: asv reads
the matrices, npm the lock; the tools read them here.
"""

import copy
import functools
import json
from pathlib import Path

from packaging.version import Version

from . import util
from .errors import BadInput
from .project import JAX_CONFIG, ROOT, UPSTREAM_CONFIG

PACKAGE_LOCK = ROOT / "package-lock.json"


@functools.cache
def read_once(path: Path) -> dict:
    """The asv configuration at ``path``, read the first time it is asked for."""
    return util.load_asv_config(path)


def upstream_config() -> dict:
    """asv.conf.json, as asv reads it: a copy, which the caller may change."""
    return copy.deepcopy(read_once(UPSTREAM_CONFIG))


def jax_config() -> dict:
    """asv.jax.conf.json, as asv reads it: a copy, which the caller may change."""
    return copy.deepcopy(read_once(JAX_CONFIG))


def _requirement(config: dict, path, name: str) -> list[str]:
    value = config.get("matrix", {}).get("req", {}).get(name)
    versions = [value] if isinstance(value, str) else value
    if not versions or not all(isinstance(v, str) and v for v in versions):
        raise BadInput(f"{path}: matrix.req.{name} must name one or more versions, not {value!r}")
    return versions


def upstream_url() -> str:
    """Equinox upstream: asv.conf.json's repo."""
    return upstream_config()["repo"]


def project_url() -> str:
    """Equinox's home page: asv.conf.json's project_url."""
    return upstream_config()["project_url"]


def jax_releases() -> list[str]:
    """The JAX releases of asv.conf.json's environments, oldest first."""
    return sorted(_requirement(upstream_config(), UPSTREAM_CONFIG, "jax"), key=Version)


def reference_jax() -> str:
    """The oldest JAX of asv.conf.json's environments: the one every benchmarked Equinox release runs on."""
    return jax_releases()[0]


def reference_equinox() -> str:
    """The Equinox that asv.jax.conf.json holds fixed: the release the trials and the headline measure."""
    releases = _requirement(jax_config(), JAX_CONFIG, "equinox")
    if len(releases) != 1:
        raise BadInput(f"{JAX_CONFIG}: matrix.req.equinox must hold Equinox at one release, not {releases}")
    return releases[0]


def site_packages() -> dict[str, str]:
    """{npm package: the version package-lock.json installs} of package.json's dependencies."""
    return dict(locked_versions(PACKAGE_LOCK))


@functools.cache
def locked_versions(lock_file: Path) -> dict[str, str]:
    try:
        lock = json.loads(lock_file.read_text(encoding="utf-8"))
        root = lock["packages"][""]
        return {name: lock["packages"][f"node_modules/{name}"]["version"] for name in root["dependencies"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{lock_file} does not give package.json's dependencies' versions ({error!r})") from None
