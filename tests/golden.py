"""Golden files: each renderer's whole output, made from fixed input (``fixed_rows``), kept in tests/golden/.

A test compares a renderer's text with its file; ``REGEN_GOLDEN=1 scripts/test ...`` writes the files
instead (CONTRIBUTING.md), for the change to be read in ``git diff tests/golden``.
"""

import itertools
import os
from pathlib import Path

import pytest

from benchmarks import metrics, params
from benchtools.asvtools import operations
from benchtools.publishing.rows import (
    ANSWER_DEFAULT,
    ANSWER_DISPATCH,
    ANSWER_JAXPRS,
    ANSWER_PROVENANCE,
    ANSWER_STEP,
    REPORT_DEPTH,
    SINGLE_SAMPLE,
    TRACING_BENCHMARK,
    CommitFigures,
    Interval,
)

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = "REGEN_GOLDEN"


def assert_golden(name: str, text: str) -> None:
    """``text`` is tests/golden/NAME, or, with REGEN_GOLDEN=1, becomes it."""
    path = GOLDEN / name
    if os.environ.get(REGENERATE) == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"no golden file {path}: run the test with {REGENERATE}=1 to write it")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from its golden file: if the change is meant, rerun with {REGENERATE}=1 and read "
        "git diff tests/golden"
    )


ENVS = ("Python 3.13, jax 0.12.0.1", "Python 3.11, jax 0.4.33")
# Three releases per environment: tree_at's cost steps up by a third at the last, one Module operation's
# cost steps down at the second; every other figure is the same, so that each table has a change to show.
RELEASES = (("v0.13.6", 12000, 9000), ("v0.13.7", 12000, 6000), ("v0.13.8", 16000, 6000))


STATISTIC_SCALES = {"median": 1.0, "low": 0.98, "high": 1.02}  # the answer's figures: the median and its interval


def single(value: float, name: str) -> Interval:
    """A single-sample figure with its metric's threshold on either side, as the rows give it."""
    grown = 1 + metrics.threshold(name)
    return Interval(value, value / grown, value * grown, SINGLE_SAMPLE)


def fixed_rows() -> list[CommitFigures]:
    """Rows of fixed figures, built directly (no asv, no measurement), for the golden files."""
    rows = []
    for number, (label, cost, construction) in enumerate(RELEASES):
        for env_number, env in enumerate(ENVS):
            row = CommitFigures(label, env, commit=f"{number + 1:040x}", release=True)
            row.subject, row.commit_date = f"Version {label}", f"2025-0{number + 1}-01"
            row.env_params = {"python": env.split(",")[0].split()[1]}
            row.cost, row.bytecodes = cost, cost - 2000
            row.tree_map_passes = (20.0 + number, 1.0)
            row.excess_equations = [0]
            # The answer: its median and its interval; under JAX's own dispatch too, where jit's call returned first.
            answer = [(ANSWER_STEP, params.WRAPPINGS, 1.0), (ANSWER_DEFAULT, params.DEFAULT_WRAPPINGS, 1.5)]
            answer.append((ANSWER_DISPATCH, ("jit",), 0.5))
            for figure, slower, (position, wrapping) in [(f, s, at) for f, ws, s in answer for at in enumerate(ws)]:
                ratio, tuple_seconds = (5.5 if wrapping == "eager" else 1.0 + position / 20), 2e-5 * (position + 1)
                sides = {"ratio": ratio, "tuple": tuple_seconds * slower, "tree_at": tuple_seconds * slower * ratio}
                for (side, value), (statistic, scale) in itertools.product(sides.items(), STATISTIC_SCALES.items()):
                    name = metrics.entry(figure + side, f"{wrapping!r}, {statistic!r}")
                    row.timings[figure + side, f"{wrapping!r}, {statistic!r}"] = single(value * scale, name)
                row.exact[ANSWER_JAXPRS, repr(wrapping)] = 0
            run = (3, 3, 0.95, 0, 0.5, 0.75, 80, 0.9, 0.1)  # what a run from before the busy spells recorded
            for what, value in zip(params.PROVENANCE[: len(run)], run, strict=True):
                row.exact[ANSWER_PROVENANCE, repr(what)] = value
            row.timings[TRACING_BENCHMARK, ""] = single(2.1, TRACING_BENCHMARK)
            row.timings[metrics.PASSES_TREE_AT, ""] = single(row.tree_map_passes[0], metrics.PASSES_TREE_AT)
            passes_tuple = metrics.PASSES_TREE_AT.replace("track_tree_at", "track_tuple")
            row.timings[passes_tuple, ""] = single(1.0, passes_tuple)
            for position, operation in enumerate(operations.OPERATIONS):
                module_cost = construction if position == 0 else 1000 * (position + 1)
                row.operations[operation.label] = (module_cost, 150 + env_number, 2.5, 0.125)
            row.exact[metrics.COST_TREE_AT, REPORT_DEPTH] = cost
            row.exact["bench_counts.PythonCalls.track_tree_at", REPORT_DEPTH] = 100 * int(REPORT_DEPTH) + number
            rows.append(row)
    return rows
