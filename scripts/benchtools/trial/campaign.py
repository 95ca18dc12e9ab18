"""One release measured in chosen asv environments (scripts/timing-noise); the record is written
whole after each step, so that a stopped campaign keeps what it measured."""

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import util
from ..asvtools import environments as asv_envs
from ..running import bench

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def now() -> str:
    return time.strftime(STAMP, time.gmtime())


def label_of(entry: dict) -> str:
    return f"Python {asv_envs.python_of(entry)}, jax {asv_envs.requirements_of(entry).get('jax')}"


@dataclass(frozen=True)
class Campaign:
    target: bench.Target
    release: str
    commit: str
    path: Path  # the record

    @classmethod
    def of(cls, release: str, jax: list[str], env_dir: Path, path: Path) -> "Campaign":
        target = bench.Target(bench.Options(releases=release, jax=jax, env_dir=env_dir))
        [(_release, commit)] = bench.releases(target)
        return cls(target, release, commit, path)

    def environments(self, suffix: str) -> Iterator[tuple[str, Path]]:
        for _env_name, entry in bench.environments(self.target):
            yield label_of(entry), self.target.config(entry, suffix)

    def opened(self, schema: int, fields: dict, listed: str) -> dict:
        head = {"schema": schema, "release": self.release, "commit": self.commit}
        return {**head, **fields, "started": now(), "load_before": list(os.getloadavg()), listed: []}

    def write(self, record: dict) -> None:
        util.write_atomic(self.path, (json.dumps(record, indent=1, allow_nan=False) + "\n").encode())

    def finish(self, record: dict) -> dict:
        record.update(load_after=list(os.getloadavg()), finished=now())
        self.write(record)
        return record
