"""What a busy machine does to the answer's pairs, and which signal sees it (docs/timing-load.md): the answer's steps
timed as its pairs are, in fresh processes, quiet and beside busy loops; each batch's wall time beside its thread's CPU
time and its involuntary context switches, and the × that each way of reading them gives."""

import contextlib
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ..asvtools import shapes
from ..project import ROOT
from ..util import markdown_table

WRAPPINGS = ("eager", "jit", "filter_jit")  # the steps whose × the answer's first table leads with
SPIN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
# A batch the machine took nothing from: its thread ran for all but this share of its wall time, and was never
# switched out against its will.
UNTOUCHED = 0.05
FIELDS = ("wall", "cpu", "switched")  # of a batch, per call but the switches
RECORD, BLOCK = ROOT / "docs" / "timing-load.json", "timing-load"


@contextlib.contextmanager
def busy(loops: int, seconds: float):
    """``loops`` processes that spin, each for ``seconds`` at most, stopped when the block ends."""
    spinning = [subprocess.Popen([sys.executable, "-c", SPIN.format(seconds=seconds)]) for _ in range(loops)]
    try:
        yield spinning
    finally:
        for process in spinning:
            process.kill()
            process.wait()


def timed_batch(fn, number: int) -> tuple[float, float, int]:
    """Wall and thread CPU seconds per call of ``number`` calls of ``fn``, the garbage collector off, and how many
    times the thread was switched out against its will meanwhile."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        switched = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
        wall, cpu = time.perf_counter(), time.thread_time()
        for _ in range(number):
            fn()
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        switched = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw - switched
    finally:
        if collecting:
            gc.enable()
    return wall / number, cpu / number, switched


def batches(wrapping: str, seconds: float) -> list[list[float]]:
    """The answer's pairs of one step, in this process under its synchronous CPU dispatch: for ``seconds``, a tree_at
    batch and a tuple batch in turn, each ``FIELDS``."""
    from benchmarks import bench_answer, instruments, workloads

    bench_answer.synchronous()
    twins = workloads.calls(wrapping, workloads.DEFAULT_STATE_SIZE)
    numbers = [instruments.calibrated_number(twins[side], 0.002) for side in ("tree_at", "tuple")]
    rows, deadline = [], time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(rows) < 3:
        rows.append([*timed_batch(twins["tree_at"], numbers[0]), *timed_batch(twins["tuple"], numbers[1])])
    return rows


def untouched(row: list[float]) -> bool:
    return all(row[i + 1] >= (1 - UNTOUCHED) * row[i] and not row[i + 2] for i in (0, 3))


def readings(rows: list[list[float]]) -> dict:
    """Each way of reading a process's pairs: the median × by wall clock, by thread CPU time, and by wall clock of
    the pairs the machine took nothing from (``untouched``); their share, and the share of wall time taken."""
    kept = [row for row in rows if untouched(row)]
    return {
        "wall": statistics.median(row[0] / row[3] for row in rows),
        "cpu": statistics.median(row[1] / row[4] for row in rows),
        "untouched": statistics.median(row[0] / row[3] for row in kept) if kept else None,
        "kept": len(kept) / len(rows),
        "taken": 1 - sum(row[1] + row[4] for row in rows) / sum(row[0] + row[3] for row in rows),
    }


def in_fresh_process(wrapping: str, seconds: float) -> list[list[float]]:
    script = f"import json; from benchtools.trial import load; print(json.dumps(load.batches({wrapping!r}, {seconds})))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "scripts"), str(ROOT)])}
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    return json.loads(ran.stdout.strip().splitlines()[-1])


def campaign(loops: int, processes: int, seconds: float) -> dict:
    """``processes`` fresh processes a step, quiet and then beside ``loops`` busy loops, with the load around each."""
    record = {"loops": loops, "processes": processes, "seconds": seconds, "cores": os.cpu_count(), "runs": {}}
    for condition, spinning in (("quiet", 0), ("busy", loops)):
        with busy(spinning, seconds=processes * len(WRAPPINGS) * (seconds + 30)):
            time.sleep(2 if spinning else 0)  # the loops running before the first batch
            load = os.getloadavg()[0]
            found = {w: [in_fresh_process(w, seconds) for _ in range(processes)] for w in WRAPPINGS}
            record["runs"][condition] = {"load": [load, os.getloadavg()[0]], "steps": found}
    return record


def table(record: dict) -> str:
    """Per step and condition, the median over processes of each reading, the busy × beside the quiet wall's."""
    rows = []
    quiet = {w: statistics.median(readings(p)["wall"] for p in record["runs"]["quiet"]["steps"][w]) for w in WRAPPINGS}
    for condition, run in record["runs"].items():
        for wrapping, processes in run["steps"].items():
            each = [readings(rows) for rows in processes]
            read = {key: median_of([e[key] for e in each]) for key in each[0]}
            shown = [
                "none" if read[key] is None else f"{read[key]:.2f} ({read[key] / quiet[wrapping] - 1:+.0%})"
                for key in ("wall", "cpu", "untouched")
            ]
            load = f"{run['load'][0]:.1f} to {run['load'][1]:.1f}"
            rows.append([wrapping, condition, load, *shown, f"{read['kept']:.0%}", f"{read['taken']:.0%}"])
    head = ["step", "machine", "load", "× by wall clock", "× by thread CPU time", "× by untouched pairs' wall"]
    return (
        f"{record['processes']} fresh processes a step and condition, each timing tree_at's and the tuple's step in "
        f"alternating batches of about 2 ms for {record['seconds']:g} s (synchronous CPU dispatch, as the answer), on "
        f"{record['cores']} cores; busy: beside {record['loops']} loops that spin. Each figure is the median over the "
        "processes of each process's median ×; in brackets, how far it lies from the quiet wall clock's. A pair is "
        f"untouched when both batches' thread ran for at least {1 - UNTOUCHED:.0%} of their wall time and was never "
        "switched out against its will.\n\n"
        + markdown_table([*head, "pairs untouched", "wall time taken from the thread"], rows)
    )


def median_of(values: list) -> float | None:
    """The median of the processes' readings that there are (a process may keep no pair untouched)."""
    found = [value for value in values if value is not None]
    return statistics.median(found) if found else None


def read(path: Path) -> dict:
    return shapes.read_json(path, "record of the answer's pairs timed quiet and busy")
