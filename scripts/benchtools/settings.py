"""The project's configuration, read once; each fact's home is the file whose consumer must agree with it."""

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from . import util
from .errors import BadInput
from .project import JAX_CONFIG, ROOT, UPSTREAM_CONFIG

PACKAGE_LOCK = ROOT / "package-lock.json"


@dataclass(frozen=True)
class Configuration:
    upstream: dict  # asv.conf.json, never changed (a caller changes its own copy)
    jax: dict  # asv.jax.conf.json, likewise
    upstream_url: str
    project_url: str
    jax_releases: tuple[str, ...]  # oldest first
    reference_jax: str  # the oldest JAX release: it runs every benchmarked Equinox release
    reference_equinox: str  # the Equinox that asv.jax.conf.json holds fixed
    pythons: tuple[str, ...]  # oldest first
    newest_python: str

    def facts(self) -> dict[str, str]:
        """The facts the commands' help texts name ({reference_equinox}), as text."""
        return {name: ", ".join(value) if isinstance(value, tuple) else value for name, value in vars(self).items()}


def read(upstream: Path = UPSTREAM_CONFIG, jax: Path = JAX_CONFIG) -> Configuration:
    """BadInput naming the file where a fact is missing or ambiguous."""
    upstream_config, jax_config = util.load_asv_config(upstream), util.load_asv_config(jax)
    jax_releases = tuple(sorted(_requirement(upstream_config, upstream, "jax"), key=Version))
    if len(equinox := _requirement(jax_config, jax, "equinox")) != 1:
        raise BadInput(f"{jax}: matrix.req.equinox must hold Equinox at one release, not {equinox}")
    if not (pythons := upstream_config.get("pythons")) or not all(isinstance(p, str) and p for p in pythons):
        raise BadInput(f"{upstream}: pythons must name one or more Pythons, not {pythons!r}")
    pythons = tuple(sorted(pythons, key=Version))
    return Configuration(
        upstream=upstream_config,
        jax=jax_config,
        upstream_url=upstream_config["repo"],
        project_url=upstream_config["project_url"],
        jax_releases=jax_releases,
        reference_jax=jax_releases[0],
        reference_equinox=equinox[0],
        pythons=pythons,
        newest_python=pythons[-1],
    )


load = functools.cache(read)


def _requirement(config: dict, path, name: str) -> list[str]:
    value = config.get("matrix", {}).get("req", {}).get(name)
    versions = [value] if isinstance(value, str) else value
    if not versions or not all(isinstance(v, str) and v for v in versions):
        raise BadInput(f"{path}: matrix.req.{name} must name one or more versions, not {value!r}")
    return versions


def site_packages() -> dict[str, str]:
    """{npm package: the version package-lock.json installs} of package.json's dependencies."""
    try:
        packages = json.loads(PACKAGE_LOCK.read_text(encoding="utf-8"))["packages"]
        return {name: packages[f"node_modules/{name}"]["version"] for name in packages[""]["dependencies"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{PACKAGE_LOCK} does not give package.json's dependencies' versions ({error!r})") from None
