"""The device a result was measured on, kept among its params so that asv and the gate keep devices apart."""

import dataclasses
import json
import re
import subprocess
from pathlib import Path

from ..errors import BadInput, Failed
from .results import load_file

DEVICE = "device"  # the backend and the device kind, and the count where more than one: "gpu-NVIDIA-H200-x8"
DRIVER = "driver"  # a CUDA or ROCm version
RUNNER = "runner"  # "asv-0.6.6-asv_runner-0.3.2"
PARAMS = (DEVICE, DRIVER, RUNNER)
# What one results file holds figures of: a run with other values is refused, never stamped over them.
INSTALL = (DEVICE, "python", "jax", "jaxlib", RUNNER)
PACKAGES = ("jax", "jaxlib", "equinox")
# Results older than the device's record ran on PyPI's jaxlib, which is built for the CPU only.
UNRECORDED = "cpu"

OLDEST = (3, 10)  # the oldest Python that any JAX the suite measures runs on
RECENT = f"import sys; print(sys.version_info >= {OLDEST})"  # a Python 2 prints False too
PROBE = """
import json, sys
from importlib import metadata
found = {"python": "%d.%d" % sys.version_info[:2], "versions": {}, "missing": []}
for name in PACKAGES:
    try:
        found["versions"][name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        found["missing"].append(name)
if "jax" in found["versions"] and "jaxlib" in found["versions"]:
    import jax
    first, count = jax.devices()[0], len(jax.devices())
    version = str(getattr(first.client, "platform_version", ""))
    found.update(backend=jax.default_backend(), kind=first.device_kind, count=count, platform_version=version)
print(json.dumps(found))
"""


@dataclasses.dataclass(frozen=True)
class Installed:
    python: str
    versions: dict
    backend: str
    kind: str  # the first device's: "cpu", "NVIDIA H200"
    count: int
    platform_version: str  # "cpu" on a CPU, the CUDA or ROCm version on a GPU

    @property
    def device(self) -> str:
        name = self.kind if self.kind.lower() == self.backend else f"{self.backend} {self.kind}"
        return as_value(name if self.count == 1 else f"{name} x{self.count}")

    @property
    def driver(self) -> str | None:
        version = as_value(self.platform_version)
        return None if version.lower() in ("", self.backend) else version

    def params(self) -> dict[str, str]:
        return {DEVICE: self.device} | ({DRIVER: self.driver} if self.driver is not None else {})


def as_value(text: str) -> str:
    """``text`` in a version's letters, as the stored schema takes a param: "gpu-NVIDIA-H200"."""
    return re.sub(r"[^A-Za-z0-9._+!-]+", "-", text).strip("-")[:100]


def probe(python: Path | str, env: dict | None = None, needs: tuple[str, ...] = PACKAGES) -> Installed:
    """What ``python`` measures with; BadInput where it cannot run or lacks one of ``needs``."""
    script = f"PACKAGES = {PACKAGES!r}\n{PROBE}"
    try:
        ran = subprocess.run([str(python), "-c", script], capture_output=True, text=True, env=env, timeout=300)
    except OSError as error:
        raise BadInput(f"cannot run {python}: {error.strerror}") from None
    try:
        found = json.loads(ran.stdout.strip().splitlines()[-1]) if ran.returncode == 0 else None
    except (IndexError, ValueError):
        found = None
    if found is None:
        recent = subprocess.run([str(python), "-c", RECENT], capture_output=True, text=True, env=env, timeout=60)
        if recent.stdout.strip() != "True":
            said = "an older Python" if recent.stdout.strip() == "False" else "not a Python"
            raise BadInput(f"{python} is {said}: the suite measures in Python {'.'.join(map(str, OLDEST))} or later")
        last = (ran.stderr.strip().splitlines() or ["no output"])[-1]
        raise Failed(f"{python} could not report its JAX devices: {last}")
    if missing := [name for name in found.pop("missing") if name in needs]:
        raise BadInput(
            f"{python} has no {', '.join(missing)} installed; install them there "
            f"(pip install {' '.join(missing)}) or name another Python"
        )
    return Installed(**found)


def of(params: dict) -> str:
    return params.get(DEVICE) or UNRECORDED


def named(params: dict) -> str:
    """What a reader calls the device: "CPU", "GPU NVIDIA H200", "TPU v5 lite"."""
    backend, _, kind = of(params).partition("-")
    kind = kind.replace("-", " ")
    return kind if kind.upper().startswith(backend.upper()) and kind else f"{backend.upper()} {kind}".strip()


def refuse_another(path: Path, machine: str, params: dict[str, str]) -> None:
    """BadInput where asv would merge another device's or install's run into PATH, mixing its figures in."""
    if not path.exists():
        return
    recorded = {DEVICE: UNRECORDED, **load_file(path, machine).params}
    if differ := [
        f"{key} {recorded.get(key)}, not {params.get(key)}" for key in INSTALL if recorded.get(key) != params.get(key)
    ]:
        raise BadInput(
            f"{path} holds figures measured with {'; '.join(differ)}: run under another --machine or --output"
        )


def stamp(path: Path, machine: str, params: dict[str, str]) -> None:
    result = load_file(path, machine)
    result.params.update(params)
    result.save(str(path.parents[1]))
