"""A measuring campaign's skeleton (scripts/headline, scripts/timing-noise): one release of the release history that
scripts/bench builds, measured in each chosen asv environment, its record opened with the release's commit and the load,
rewritten after each step and stamped at the end (records.py)."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..asvtools import sides
from ..asvtools.lock import exclusive
from ..running import bench
from . import records


@dataclass(frozen=True)
class Campaign:
    target: bench.Target
    release: str
    commit: str
    path: Path  # the record

    @classmethod
    def of(cls, release: str, jax: list[str], env_dir: Path, path: Path) -> "Campaign":
        """The campaign of ``release`` in the environments of ``jax`` (empty: every one it runs in)."""
        target = bench.Target(bench.Options(releases=release, jax=jax, env_dir=env_dir))
        [(_release, commit)] = bench.releases(target)
        return cls(target, release, commit, path)

    def environments(self, suffix: str) -> Iterator[tuple[dict, Path]]:
        """(matrix entry, the campaign's configuration of it, named with ``suffix``) of each chosen environment."""
        for _env_name, entry in bench.environments(self.target):
            yield entry, self.target.config(entry, suffix)

    def opened(self, schema: int, fields: dict, listed: str) -> dict:
        """The record: its schema, the release and its commit, ``fields``, the start and its load, and an empty list
        ``listed`` for what is measured."""
        return {
            "schema": schema,
            "release": self.release,
            "commit": self.commit,
            **fields,
            **records.started(),
            listed: [],
        }

    def write(self, record: dict) -> None:
        records.write(self.path, record)

    def finish(self, record: dict) -> dict:
        return records.finish(self.path, record)


@contextlib.contextmanager
def prepared(config: Path, label: str, commits: dict[str, str], names: list[str], root: Path, lock: Path):
    """sides.prepare's sides of ``commits`` in ``root``, held under ``lock``'s run lock while inside."""
    with exclusive(lock):
        yield sides.prepare(config, label, commits, names, root)
