"""A real asv site over a real git history, with results written through asv's own Results class.

The values are chosen by the test, so that what asv's step detection, the
regression gate and the browser must find is known.  Beside it: a verdict
document of the gate's full shape, and the confirm step's two sides faked.
"""

import datetime
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import asv
from asv import results, runner

from benchmarks import metrics
from benchtools.asvtools import device
from benchtools.judging import confirm
from tests.helpers import ROOT, git  # noqa: F401 - re-exported to the tests that build sites

MACHINE = "site-tests"
ENV = "virtualenv-py3.11-jax0.4.33"
TIMING = "bench_overhead.TracingRatio.track_overhead_ratio"  # an alerting timing: confirmed before it counts
TIMING_TWIN = "bench_construct.ConstructionTime.time_tuple"
ABSOLUTE = "bench_construct.ConstructionTime.time_module"  # an absolute time: shown, never confirmed or counted
COUNT = "bench_counts.PythonCalls.track_tree_at"  # a diagnostic: never counted
COST = "bench_counts.PythonCost.track_tree_at"
BYTECODES = "bench_counts.BytecodeInstructions.track_tree_at"
EQUATIONS = "bench_counts.JaxprExcessEquations.track_excess_equations"
RATIO = metrics.ANSWER_RATIO  # the answer's ×, at its median: the alerting ratio users read
STEP_TREE_AT, STEP_TUPLE = (RATIO.replace("ratio", twin) for twin in ("tree_at", "tuple"))  # the answer's µs
PASSES = "bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at"
INSTRUCTIONS = "bench_instructions.Instructions.track_module"  # an exact count that sees C work too
MODULE_COST = "bench_construct.ConstructionCost.track_module"  # a Module operation's cost: shown, never counted
CONSTRUCTION_PASSES = "bench_construct.ConstructionInTreeMapPasses.track_module"  # the time of a construction
NOT_ALERTING_RATIO = "bench_answer.AnswerSweep.track_ratio"  # a ratio that never alerts


def described(name: str, params: list, param_name: str | None, unit: str, kind: str = "track", *more) -> dict:
    """A benchmark as benchmarks.json describes it: one parameter dimension, or none; ``more`` adds the values of
    further dimensions."""
    return {
        "name": name,
        "params": [params, *more] if params else [],
        "param_names": [param_name, *(f"p{n}" for n in range(len(more)))] if param_name else [],
        "unit": unit,
        "type": kind,
        "version": "1",
    }


DEPTHS = ["1", "4"]
BENCHMARKS = {
    TIMING: described(TIMING, ["'jit'", "'scan'"], "wrapping", "ratio"),
    ABSOLUTE: described(ABSOLUTE, ["'jit'", "'scan'"], "wrapping", "seconds", "time"),
    TIMING_TWIN: described(TIMING_TWIN, ["'jit'", "'scan'"], "wrapping", "seconds", "time"),
    COUNT: described(COUNT, DEPTHS, "depth", "calls"),
    COST: described(COST, DEPTHS, "depth", "weighted instructions"),
    BYTECODES: described(BYTECODES, DEPTHS, "depth", "instructions"),
    EQUATIONS: described(EQUATIONS, ["'jit'"], "wrapping", "equations"),
    RATIO: described(RATIO, ["'eager'", "'jit'"], "wrapping", "ratio", "track", ["'median'"]),
    STEP_TREE_AT: described(STEP_TREE_AT, ["'eager'", "'jit'"], "wrapping", "seconds", "track", ["'median'"]),
    STEP_TUPLE: described(STEP_TUPLE, ["'eager'", "'jit'"], "wrapping", "seconds", "track", ["'median'"]),
    PASSES: described(PASSES, [], None, "tree_map passes"),
    INSTRUCTIONS: described(INSTRUCTIONS, ["'construct(default)'", "'dispatch(jit)'"], "operation", "instructions"),
    MODULE_COST: described(MODULE_COST, ["'default'"], "init", "weighted instructions"),
    CONSTRUCTION_PASSES: described(CONSTRUCTION_PASSES, ["'default'"], "init", "tree_map passes"),
    NOT_ALERTING_RATIO: described(NOT_ALERTING_RATIO, [], None, "ratio"),
}


def make_site(
    tmp_path: Path,
    series: dict[str, list[list[float]]],
    skip_results=(),
    devices=(),
    runners=(),
    statistics=("median",),
    first_day=1,
    cpus=(),
) -> Path:
    """A history of len(series[...]) tagged commits with these values, published; returns the config.

    ``series[name][i]`` holds the values of benchmark ``name`` at commit i,
    one per parameter; commits in ``skip_results`` get no results; with
    ``devices``, commit i's result was measured on ``devices[i]``, and with
    ``runners`` timed by ``runners[i]`` (asvtools/device.py's params); the answer's ``statistics`` (the second
    dimension of its × and µs): its median alone, or with its interval's ends for a page that draws it. Commit i
    is dated January ``first_day + i``, 2026: the same series on another day makes other commits. With ``cpus``,
    commit i's night ran on a runner whose cpu asv stamped as ``cpus[i]``.
    """
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    n_commits = len(next(iter(series.values())))
    hashes = []
    for i in range(n_commits):
        (repo / "file.txt").write_text(str(i))
        git(repo, "add", "file.txt")
        # Both dates fixed: the same series makes the same commits, and so a site that SITES may hold.
        dated = {
            **os.environ,
            "GIT_AUTHOR_DATE": f"2026-01-{i + first_day:02d}T00:00:00",
            "GIT_COMMITTER_DATE": "2026-02-01T00:00:00",
        }
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"commit {i}", env=dated)
        git(repo, "tag", f"v{i}")
        hashes.append(git(repo, "rev-parse", "HEAD"))

    results_dir, html_dir = tmp_path / "results", tmp_path / "html"
    (results_dir / MACHINE).mkdir(parents=True)
    (results_dir / MACHINE / "machine.json").write_text(
        json.dumps(
            {
                "machine": MACHINE,
                "arch": "x86_64",
                "cpu": "test",
                "num_cpu": "2",
                "os": "Linux",
                "ram": "1",
                "version": 1,
            }
        )
    )
    listed = {name: BENCHMARKS[name] for name in series}
    for name in {RATIO, STEP_TREE_AT, STEP_TUPLE} & set(listed):
        listed[name] = {**listed[name], "params": [listed[name]["params"][0], [repr(s) for s in statistics]]}
    (results_dir / "benchmarks.json").write_text(json.dumps({**listed, "version": 2}))
    for i, commit in enumerate(hashes):
        if i in skip_results:
            continue
        measured_at = datetime.datetime.fromtimestamp(1_767_225_600 + i * 86_400, datetime.UTC)  # day i of 2026
        measured_on = (
            ({device.DEVICE: devices[i]} if devices else {})
            | ({device.RUNNER: runners[i]} if runners else {})
            | ({"cpu": cpus[i]} if cpus else {})
        )
        result = results.Results(
            {"machine": MACHINE, "python": "3.11", "jax": "0.4.33", **measured_on},
            {"jax": "0.4.33"},
            commit,
            round(measured_at.timestamp() * 1000),
            "3.11",
            ENV,
            {},
        )
        for name, values in series.items():
            result.add_result(
                listed[name],
                runner.BenchmarkResult(
                    result=values[i],
                    samples=[[value] for value in values[i]],
                    number=[1] * len(values[i]),
                    errcode=0,
                    stderr="",
                    profile=None,
                ),
                started_at=measured_at,
            )
        result.save(str(results_dir))

    config = tmp_path / "asv.conf.json"
    config.write_text(
        json.dumps(
            {
                "version": 1,
                "project": "demo",
                "repo": str(repo),
                "branches": ["main"],
                "environment_type": "virtualenv",
                "results_dir": str(results_dir),
                "html_dir": str(html_dir),
                "benchmark_dir": str(ROOT / "benchmarks"),
                "regressions_thresholds": metrics.asv_thresholds(),
                "regressions_first_commits": metrics.asv_first_commits(),
            }
        )
    )
    publish(config)
    return config


# Sites asv published, by what it read: publishing is most of a site test's time, and a mutation run repeats each.
SITES = ROOT / ".cache" / "asv-sites"


def commit(config: Path, tag: str) -> str:
    """The full hash of the site's commit TAG."""
    return git(config.parent / "repo", "rev-parse", tag)


def publish(config: Path) -> None:
    """``asv publish --config CONFIG`` as its own process: asv's step detection forks a multiprocessing pool,
    and a pytest-xdist worker may have imported JAX, whose threads make a fork in this process unsafe. A site
    that asv published before from the same results, configuration and commits is copied from SITES instead."""
    conf = json.loads(config.read_text())
    html, cached = Path(conf["html_dir"]), SITES / site_key(conf)
    shutil.rmtree(html, ignore_errors=True)
    if cached.is_dir():
        shutil.copytree(cached, html)
        return
    published = subprocess.run(
        [sys.executable, "-m", "asv", "publish", "--config", str(config)], capture_output=True, text=True
    )
    assert published.returncode == 0, published.stdout + published.stderr
    staged = SITES / f".{cached.name}.{os.getpid()}"
    shutil.copytree(html, staged)
    try:
        staged.rename(cached)
    except OSError:  # another test process placed the same site first
        shutil.rmtree(staged)


def site_key(conf: dict) -> str:
    """What asv publish reads: its version, the configuration but its paths, every results file, the commits."""
    digest = hashlib.sha256(asv.__version__.encode())
    digest.update(json.dumps({k: v for k, v in conf.items() if k not in ("repo", "results_dir", "html_dir")}).encode())
    results_dir = Path(conf["results_dir"])
    for path in sorted(p for p in results_dir.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(results_dir)).encode() + b"\0" + path.read_bytes())
    for listing in (["for-each-ref"], ["log", "--all", "--format=%H %P %at %ct %s"]):
        digest.update(git(conf["repo"], *listing).encode())
    return digest.hexdigest()


def judged_document(**changed) -> dict:
    """A verdict document of the full judged shape (what the gate writes), with CHANGED keys replaced."""
    row = {
        "kind": "cost",
        "benchmark": COST,
        "params": "4",
        "environment": "—",
        "before": 100.0,
        "after": 440.0,
        "change": 3.4,
        "threshold": 0.05,
        "good": "a" * 40,
        "bad": "b" * 40,
        "single_commit": True,
        "unit": "unit",
        "latest": 440.0,
        "unmeasured_between": [],
        "diagnostics": [],
        "cause": None,
    }
    document = {
        "schema": 1,
        "status": "judged",
        "regression": True,
        "summary": "1 regression(s) count",
        "mode": "v0 → v1",
        "confirmed": True,
        "results": "results",
        "machine": MACHINE,
        "counted": [row],
        "improvements": [],
        "overruled": [],
        "suspects": [],
        "not_alerting": [],
        "unjudged": [],
        "unchanged_commits": [],
        "failed_commits": [],
        "explain_errors": [],
    }
    document.update(changed)
    return document


# The confirm step, through a fake measurement (nothing is installed or run).


class FakeSide:
    """An asvtools.sides.Side whose processes return made-up values: ``factor`` times a drifting level."""

    def __init__(self, factor: float, benchmarks: dict, log: list):
        self.factor, self.benchmarks, self.log = factor, benchmarks, log
        self.opened = 0

    def open(self):
        self.opened += 1

    def close(self):
        pass

    def value(self, name, index, hash_seed=None):
        self.log.append((self.factor, name, index))
        return 1e-3 * self.factor * (1 + 0.2 * math.sin(len(self.log) / 40))  # a slow drift


def fake_sides(monkeypatch, after_factor: dict, log: list):
    """Replace the installation of both commits by FakeSides; after_factor[name]: after's slowdown."""

    def prepare(config, env_label, commits, names, root):
        assert env_label == "Python 3.11, jax 0.4.33" and set(commits) == {"before", "after"}
        benchmarks = {TIMING: {"params": [["'jit'", "'scan'"]]}, PASSES: {"params": []}}
        return {
            "before": FakeSide(1.0, benchmarks, log),
            "after": FakeSide(after_factor.get(names[0], 1.0), benchmarks, log),
        }

    monkeypatch.setattr(confirm, "prepare", prepare)
