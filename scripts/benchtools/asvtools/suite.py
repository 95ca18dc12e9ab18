"""asv's benchmarks.json made from this repository's benchmarks/ alone: a job's copy ran upstream code."""

import hashlib
import json
import subprocess
import tempfile
from pathlib import Path, PurePath

from .. import settings, util
from ..errors import Failed
from ..project import ROOT, UPSTREAM_CONFIG, asv_home
from . import publishable

CACHE = ROOT / ".asv" / "suite-description"
MACHINE = "suite-description"


def key() -> str:
    import asv

    digest = hashlib.sha256(f"asv {asv.__version__}\n".encode())
    for path in [UPSTREAM_CONFIG, *sorted((ROOT / "benchmarks").rglob("*.py"))]:
        digest.update(f"{path.relative_to(ROOT)}\n".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def description() -> bytes:
    if (cached := CACHE / f"{key()}.json").is_file():
        return cached.read_bytes()
    with tempfile.TemporaryDirectory(prefix="suite-description-") as tmp, asv_home() as env:
        upstream = settings.load().upstream
        config = {**upstream, "results_dir": f"{tmp}/results", "html_dir": f"{tmp}/html", "env_dir": f"{tmp}/env"}
        config["benchmark_dir"] = str(ROOT / upstream["benchmark_dir"])
        path = Path(tmp) / "asv.conf.json"
        path.write_text(json.dumps(config))
        env["ASV_PYTHONPATH"] = env.get("PYTHONPATH", "")  # asv drops PYTHONPATH
        for command in (
            ["machine", "--yes", "--machine", MACHINE, "--config", str(path)],
            ["run", "--python=same", "--bench", "just-discover", "--machine", MACHINE, "--config", str(path)],
        ):
            done = subprocess.run(util.asv(*command), cwd=ROOT, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise Failed(
                    f"asv {command[0]} failed while describing the suite: {(done.stdout + done.stderr).strip()[-500:]}"
                )
        if not (written := Path(tmp) / "results" / "benchmarks.json").is_file():
            raise Failed("asv discovered the suite but wrote no benchmarks.json")
        data = publishable.stored_file(written, PurePath("benchmarks.json"))
    util.write_atomic(cached, data)
    return data
