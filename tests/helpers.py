"""What the tests share: the project's paths, running a command (in-process or as its executable), git, the
upstream bundle, and stand-ins the tests of several modules use."""

import contextlib
import functools
import inspect
import io
import json
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks import metrics
from benchtools import cli, settings

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
# Upstream Equinox's real history (main and its tags), beside the project where the workplace keeps it.
BUNDLE = ROOT.parent / "shared" / "upstream" / "equinox.bundle"
NEEDS_BUNDLE = pytest.mark.skipif(not BUNDLE.is_file(), reason="the upstream bundle is not in ../shared/upstream")
needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
PRIMARY_JAX = settings.load().reference_jax  # the JAX of the primary environment
PY313_VERSION = "3.13.5"  # the CPython scripts/setup builds
# The cheap exact benchmark a replay runs in the primary environment.
REPLAY_BENCH = "bench_counts.PythonCost"
# The slow tests that use the environments made beside asv_env_dir's (the confirm step's, the profiles'): one group,
# which conftest.py deals to one worker, so that one worker makes them.
ASV_SIDE_ENVS = "confirm-env and profile-env"

# Metric names and the kind and threshold benchmarks/metrics.py gives each.
EXAMPLES = {
    "bench_counts.PythonCost.track_tree_at(4)": (metrics.COST, metrics.COST_FLOOR),
    "bench_instructions.Instructions.track_module('construct(default)')": (
        metrics.INSTRUCTIONS,
        metrics.SPREAD_MARGIN * metrics.INSTRUCTIONS_SPREADS[("construct(default)", "module")],
    ),
    "bench_instructions.Instructions.track_tuple('dispatch(jit)')": (metrics.INSTRUCTIONS, metrics.INSTRUCTIONS_FLOOR),
    "bench_counts.JaxprExcessEquations.track_excess_equations('jit', 8)": (metrics.DETERMINISTIC, 0.0),
    "bench_memory.LargeStateUpdate.track_copied_bytes_tree_at": (metrics.DETERMINISTIC, 0.0),
    "bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at": (metrics.RATIO, 0.10),
    "bench_overhead.EagerSurgeryInTreeMapPasses.track_tuple": (metrics.RATIO, 0.50),
    "bench_answer.AnswerStep.track_ratio('jit', 'median')": (metrics.RATIO, 0.10),
    "bench_answer.AnswerStep.track_ratio('jit', 'high')": (metrics.RATIO, 0.50),
    "bench_answer.AnswerStep.track_tree_at('jit', 'median')": (metrics.TIME, 0.50),
    "bench_overhead.TracingRatio.track_overhead_ratio": (metrics.RATIO, 0.50),
    "bench_eager.EagerSurgery.time_tree_at": (metrics.TIME, 0.50),
    "bench_memory.LargeStateUpdate.peakmem_tree_at": (metrics.TIME, 0.50),
    "bench_construct.ConstructionCost.track_module('custom', 8, 4)": (metrics.COST, metrics.COST_FLOOR),
    "bench_update.UpdateCost.track_update('replace', 'default', 16)": (metrics.COST, metrics.COST_FLOOR),
    "bench_flatten.FlattenCost.track_unflatten_tuple(32, 1)": (metrics.COST, metrics.COST_FLOOR),
    "bench_update.UpdateInTreeMapPasses.track_update('tree_at')": (metrics.RATIO, 0.10),
    "bench_access.AccessInTreeMapPasses.track_module": (metrics.RATIO, 0.10),
    "bench_answer.AnswerStep.track_ratio('filter_jit', 'median')": (metrics.RATIO, 0.10),
    "bench_answer.AnswerSweep.track_ratio('filter_jit', 10000000, 'median')": (metrics.RATIO, 0.50),
    "bench_answer.AnswerDispatch.track_tuple('jit', 'dispatch', 'low')": (metrics.TIME, 0.50),
}


def squeezed(text: str) -> str:
    """Markdown with the padding of its tables' columns (tabulate's) taken out: "| a | b |" whatever the widths."""
    return re.sub(r" {2,}\|", " |", re.sub(r"\|-+", "|---", text))


def git(repo, *args, env=None) -> str:
    """``git -C repo ARGS``'s output, stripped; a failure raises."""
    return subprocess.run(
        ["git", "-C", str(repo), *map(str, args)], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def tool(name: str) -> list[str]:
    """The command line of scripts/NAME in this Python (.venv's): ``benchtools NAME``, as scripts/door runs it."""
    return [sys.executable, "-m", "benchtools", name]


def script(name: str, *args, **kwargs) -> subprocess.CompletedProcess:
    """scripts/NAME ARGS run in a process of its own with this Python (.venv's), output captured as text.

    For what needs a separate process: locks between runs, a killed run, an environment the command
    reads at start.  Everything else calls ``command``.
    """
    return subprocess.run([*tool(name), *map(str, args)], capture_output=True, text=True, **kwargs)


@dataclass
class Ran:
    """What a command run in-process did: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def command(name: str, *args) -> Ran:
    """scripts/NAME ARGS run in this process, as the door runs it: ``cli.run``, its exit code as
    docs/exit-codes.md gives it, an argparse exit (usage error, --help) included; what it prints to
    sys.stdout and sys.stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.run(name, [str(arg) for arg in args])
        except SystemExit as exit_:  # argparse's usage errors and --help, as the executable exits
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    return Ran(code, out.getvalue(), err.getvalue())


def track_result(values: list):
    """asv's result of a track benchmark that gave ``values``, one per parameter combination."""
    from asv import runner

    count = len(values)
    return runner.BenchmarkResult(
        result=values, samples=[None] * count, number=[None] * count, errcode=0, stderr="", profile=None
    )


def bench(*args, env=None, cwd=ROOT, **kwargs) -> subprocess.CompletedProcess:
    """scripts/bench ARGS as an executable, output captured as text."""
    return subprocess.run(
        [*tool("bench"), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        **kwargs,
    )


def real_replay(revisions: str, upstream: Path, output: Path, *args) -> tuple[subprocess.CompletedProcess, dict]:
    """scripts/replay of REVISIONS of UPSTREAM into OUTPUT, the cheap exact benchmark in the primary environment."""
    result = subprocess.run(
        [*tool("replay"), revisions, "--upstream", str(upstream), "--output", str(output)]
        + ["--bench", REPLAY_BENCH, "--jax", PRIMARY_JAX, *map(str, args)],
        capture_output=True,
        text=True,
    )
    return result, json.loads((output / "replay.json").read_text())


def bundle_clone(folder: Path) -> Path:
    """A bare clone of the upstream bundle (main and its tags), FOLDER/equinox.git."""
    upstream = folder / "equinox.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(BUNDLE), str(upstream)], check=True)
    return upstream


def executable(path: Path, text: str) -> Path:
    """PATH written with TEXT and made executable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_python313(path: Path) -> Path:
    """A stand-in that answers every `python3.13 -c ...` with success, as a working 3.13 does."""
    return executable(path, "#!/bin/sh\nexit 0\n")


def table_cells(text: str) -> list[list[str]]:
    """Every row of the Markdown tables in ``text``, header rows included: its cells, stripped (tabulate pads them;
    an escaped \\| stays in its cell)."""
    import re

    rows = [line.strip() for line in text.splitlines() if line.startswith("|") and not line.startswith("|--")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row[1:-1])] for row in rows]


def markdown_rows(text: str) -> dict[str, list[str]]:
    """The rows of the Markdown tables in ``text``, by their first cell: each row's cells, stripped."""
    return {cells[0]: cells for cells in table_cells(text)}


def numbers(cell: str) -> list[float]:
    """The figures of a table cell, "1,069 (16×)" as [1069.0, 16.0]."""
    import re

    return [float(found.replace(",", "")) for found in re.findall(r"[-+]?\d[\d,]*\.?\d*", cell)]


def one_job_options(folder: Path, workflow_file: Path):
    """scripts/replay's options, checked, for running one job of ``workflow_file`` in ``folder``, its checkout this
    project's."""
    from types import SimpleNamespace

    return SimpleNamespace(
        upstream=folder,
        range="",
        output=folder,
        per_night=None,
        workflow=workflow_file,
        checkout="HEAD",
        env_dir=folder,
        bench=[],
        jax=[],
        confirm_max_pairs=None,
        quick=False,
        runner_python=None,
        docs=None,
        table="",
        no_base=True,
        fail_fast=False,
        keep_workspaces=False,
        limit=None,
    )


@functools.cache
def asv_layout() -> dict:
    """What asv's Results.save writes: its top-level ``keys`` and its ``result_columns``, from asv itself."""
    from asv import results, runner

    saved = results.Results({"machine": "m"}, {}, "0" * 40, 0, "3", "e", {})
    benchmark = {"name": "b", "version": "1", "params": []}
    saved.add_result(benchmark, runner.BenchmarkResult([1.0], [[1.0]], [1], 0, "", None))
    with tempfile.TemporaryDirectory(prefix="asv-layout-") as tmp:
        saved.save(tmp)
        data = json.loads((Path(tmp) / results.get_filename("m", "0" * 40, "e")).read_bytes())
    return {"keys": frozenset(data), "result_columns": tuple(data["result_columns"])}


def mutated(function, old: str, new: str):
    """``function`` with the one place where its source reads ``old`` reading ``new``, compiled with its module's
    globals: a mutant of docs/mutants.toml to run beside the original (decorators applied again; a method comes
    back as a plain function, to set on its class with monkeypatch)."""
    source = textwrap.dedent(inspect.getsource(function))
    assert source.count(old) == 1, f"{old!r} stands {source.count(old)} times in {function.__qualname__}"
    namespace = dict(function.__globals__)
    exec(compile(source.replace(old, new), inspect.getsourcefile(function), "exec"), namespace)
    return namespace[function.__name__]
