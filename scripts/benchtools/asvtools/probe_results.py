"""Probe records (history/probes.py) as asv results, so that a JAX commit history publishes as asv's site.

The environment is named by the record's Python, jaxlib and Equinox, so that commits counted on two jaxlibs
never share a graph's line.  A failed record is a failed result, its reason in the stderr asv keeps.
"""

import datetime
import json
import platform
from pathlib import Path

from asv import results as asv_results
from asv import runner

from .. import util
from . import device

BENCHMARK = "bench_instructions.Instructions"
TWINS = ("module", "tuple")


def env_name(record: dict) -> str:
    return f"probe-py{record['python']}-jaxlib{record.get('jaxlib', 'none')}-equinox{record['equinox']}"


def write(results_dir: Path, machine: str, records: list[dict], suite: dict, dates: dict[str, int]) -> int:
    """Write each record with a date (``dates``: {commit: JavaScript timestamp}) as asv results, with the suite's
    benchmarks.json; the number written."""
    util.write_atomic(Path(results_dir) / "benchmarks.json", json.dumps(suite).encode())
    description = {"machine": machine, "version": 1, "arch": platform.machine(), "os": platform.platform()}
    util.write_atomic(Path(results_dir) / machine / "machine.json", json.dumps(description).encode())
    written = 0
    for record in records:
        commit = record["jax"]
        if len(commit) != 40 or commit not in dates:
            continue
        params = {
            "machine": machine,
            "python": record["python"],
            "jaxlib": record.get("jaxlib", "none"),
            "equinox": record["equinox"],
            device.DEVICE: "cpu",  # every count runs with JAX_PLATFORMS=cpu (benchmarks/callgrind.py)
        }
        requirements = {"jaxlib": params["jaxlib"], "equinox": record["equinox"]}
        result = asv_results.Results(
            params, requirements, commit, dates[commit], record["python"], env_name(record), {}
        )
        for twin in TWINS:
            benchmark = suite[f"{BENCHMARK}.track_{twin}"]
            [operations] = benchmark["params"]
            counts = record.get("counts", {})
            values = [
                counts.get(operation.strip("'"), {}).get(twin, {}).get("instructions") for operation in operations
            ]
            ran = runner.BenchmarkResult(
                result=values,
                samples=[None] * len(values),
                number=[None] * len(values),
                errcode=0 if "counts" in record else 1,
                stderr=record.get("failed", ""),
                profile=None,
            )
            started = datetime.datetime.now(datetime.UTC)
            result.add_result(benchmark, ran, started_at=started, duration=record.get("seconds"))
        result.save(str(results_dir))
        written += 1
    return written
