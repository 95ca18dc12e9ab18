"""Fast unit tests of scripts/benchtools: the exit-code runner, the pure functions, and every
command typed in a plain shell."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from benchmarks import metrics
from benchtools import cli, project
from benchtools.errors import BadInput, Error, ExitCode, Failed
from benchtools.history import release_history, shards, upstream
from benchtools.judging import changes, gate
from tests.helpers import ROOT, SCRIPTS, git

COMMANDS = sorted(p.name for p in SCRIPTS.iterdir() if p.is_file() and os.access(p, os.X_OK))
PYTHON_COMMANDS = [name for name in COMMANDS if (SCRIPTS / name).read_text().startswith("#!/usr/bin/env python3")]


def test_every_command_is_listed():
    assert len(PYTHON_COMMANDS) == 13 and {"setup", "test"} < set(COMMANDS)
    assert not (SCRIPTS / "_project.py").exists()


def plain_environment() -> dict:
    """A shell's environment outside .venv: the machine's python3 first on PATH, no VIRTUAL_ENV."""
    path = os.pathsep.join(p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                           if not Path(p).resolve().is_relative_to(project.VENV.resolve()))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    return dict(env, PATH=path)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_answers_help_from_a_plain_shell(name, tmp_path):
    env = plain_environment()
    python3 = shutil.which("python3", path=env["PATH"])
    if python3 is None:
        pytest.skip("no python3 on this machine's PATH")
    assert not Path(python3).resolve().is_relative_to(project.VENV.resolve())
    # Typed as the README types it, from another folder.
    result = subprocess.run([str(SCRIPTS / name), "--help"], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith(f"usage: scripts/{name}"), result.stdout[:300]
    assert "Traceback" not in result.stderr


# The runner: one exit code per outcome.

def run(command, capsys):
    code = cli.run(command, [], "scripts/demo")
    return code, capsys.readouterr()


def test_success_exits_0(capsys):
    assert run(lambda argv: ExitCode.OK, capsys)[0] == 0
    assert run(lambda argv: None, capsys)[0] == 0


def test_a_finding_exits_1(capsys):
    code, out = run(lambda argv: ExitCode.FOUND, capsys)
    assert code == 1 and out.err == ""


def test_bad_input_exits_2_with_one_line(capsys):
    def command(argv):
        raise BadInput("--releases 0.13.99: no such release")

    code, out = run(command, capsys)
    assert code == 2
    assert out.err == "scripts/demo: --releases 0.13.99: no such release\n"


def test_a_failed_operation_exits_3_with_one_line(capsys):
    def command(argv):
        raise Failed("git fetch failed: no route to host")

    code, out = run(command, capsys)
    assert code == 3 and out.err.splitlines() == ["scripts/demo: git fetch failed: no route to host"]


def test_an_error_can_carry_a_documented_code(capsys):
    def command(argv):
        raise Error("gh issue list failed", ExitCode.FOUND)

    assert run(command, capsys)[0] == 1


def test_an_unexpected_exception_exits_4_with_its_traceback_never_1(capsys):
    def command(argv):
        return {}["missing"]

    code, out = run(command, capsys)
    assert code == 4
    assert "Traceback (most recent call last)" in out.err and "KeyError: 'missing'" in out.err


def test_a_crash_in_a_real_command_exits_4(tmp_path):
    # An unexpected exception where the gate reads its run record (valid JSON of the wrong shape is bad
    # input now, exit 2, so the crash is injected: json.loads raises what no code expects).
    (tmp_path / ".asv").mkdir()
    (tmp_path / ".asv" / "last-run.json").write_text("{}")
    (tmp_path / "inject").mkdir()
    (tmp_path / "inject" / "sitecustomize.py").write_text(
        "import json\ndef boom(*args, **kwargs):\n    raise RuntimeError('injected')\njson.loads = boom\n")
    result = subprocess.run([sys.executable, str(SCRIPTS / "regressions"), "--output", str(tmp_path)],
                            capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(tmp_path / "inject")))
    assert result.returncode == 4, result.stderr
    assert "Traceback" in result.stderr and "RuntimeError: injected" in result.stderr


def test_valid_json_of_the_wrong_shape_is_bad_input_not_a_crash(tmp_path):
    (tmp_path / ".asv").mkdir()
    (tmp_path / ".asv" / "last-run.json").write_text("[]")
    result = subprocess.run([sys.executable, str(SCRIPTS / "regressions"), "--output", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert "last-run.json" in result.stderr and "Traceback" not in result.stderr


def test_argparse_usage_errors_exit_2():
    result = subprocess.run([sys.executable, str(SCRIPTS / "shard"), "--shards", "0", "--index", "0"],
                            capture_output=True, text=True, input="a\n")
    assert result.returncode == 2 and "usage:" in result.stderr


# benchmarks/metrics.py: the one declaration of each metric's kind and threshold.

EXAMPLES = {
    "bench_counts.PythonCost.track_tree_at(4)": (metrics.COST, metrics.COST_FLOOR),
    "bench_counts.JaxprExcessEquations.track_excess_equations('jit', 8)": (metrics.DETERMINISTIC, 0.0),
    "bench_memory.LargeStateUpdate.track_copied_bytes_tree_at": (metrics.DETERMINISTIC, 0.0),
    "bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at": (metrics.RATIO, 0.10),
    "bench_overhead.EagerSurgeryInTreeMapPasses.track_tuple": (metrics.RATIO, 0.50),
    "bench_overhead.SteadyStateRatio.track_overhead_ratio('jit')": (metrics.RATIO, 0.50),
    "bench_seed.SeedScenario.track_overhead_ratio('scan')": (metrics.RATIO, 0.50),
    "bench_seed.SeedScenario.time_tree_at('scan')": (metrics.TIME, 0.50),
    "bench_eager.EagerSurgery.time_tree_at(4, 8)": (metrics.TIME, 2.0),
    "bench_steady.SteadyState.time_tuple('jit', 4)": (metrics.TIME, 0.50),
    "bench_memory.LargeStateUpdate.peakmem_tree_at": (metrics.TIME, 0.50),
}


@pytest.mark.parametrize("entry", EXAMPLES)
def test_each_benchmark_has_one_kind_and_threshold(entry):
    name = entry.split("(")[0]
    kind, threshold = EXAMPLES[entry]
    assert metrics.kind(name) == metrics.kind(entry) == kind
    assert metrics.threshold(entry) == threshold


@pytest.mark.parametrize("entry", EXAMPLES)
@pytest.mark.parametrize("branch", ["", "@main"])
def test_asv_reads_the_derived_thresholds_as_the_registry_declares_them(entry, branch):
    # asv's step detection takes the largest threshold among the regexes that match "name(params)[@branch]".
    matching = [value for regex, value in metrics.asv_thresholds().items() if re.match(regex, entry + branch)]
    assert len(matching) == 1
    assert matching[0] == metrics.threshold(entry)


def test_a_diagnostic_has_its_kind_and_never_counts():
    name = "bench_counts.PythonCalls.track_tree_at"
    assert metrics.kind(name) == metrics.kind(name + "(4)") == metrics.DIAGNOSTIC
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {})
    assert not thresholds.counts(changes.Change(name, "4", "", 1.0, 1e12, "", "x", True, ""))


def test_the_gate_judges_by_the_registry():
    thresholds = changes.Thresholds(metrics.asv_thresholds(), {})
    for entry, (kind, threshold) in EXAMPLES.items():
        name, _, params = entry.partition("(")
        change = changes.Change(name, params.rstrip(")"), "", 1.0, 1.0 + threshold + 1e-9, "", "x", True, "")
        assert change.kind == kind
        assert thresholds(change) == threshold
        assert thresholds.counts(change)
        assert not thresholds.counts(changes.Change(name, params.rstrip(")"), "", 1.0, 1.0 + threshold, "", "x",
                                                 True, ""))


def test_a_whole_kind_can_be_overridden_but_not_negative():
    location = gate.GateOptions(threshold=0.2)
    thresholds = changes.Thresholds(metrics.asv_thresholds(), location.overrides)
    ratio = changes.Change("bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at", "", "", 1, 1, "", "x", True, "")
    count = changes.Change("bench_counts.JaxprExcessEquations.track_excess_equations", "'jit', 8", "", 1, 1, "", "x",
                        True, "")
    assert thresholds(ratio) == 0.2 and thresholds(count) == 0.0
    with pytest.raises(BadInput, match="threshold"):
        gate.GateOptions(time_threshold=-0.1)


def test_the_suite_parameters_have_one_home():
    from benchmarks import params, workloads

    assert workloads.WRAPPINGS is params.WRAPPINGS
    report = (SCRIPTS / "benchtools" / "publishing" / "report.py").read_text()
    assert not re.search(r'WRAPPINGS = \(|DEPTHS = \("', report)


# Pure functions of the package.

def releases(*versions):
    return [release_history.Release(Version(v), f"p-{v}.tar.gz", "", "", None) for v in versions]


def test_select_releases():
    history = releases("0.12.0", "0.13.7", "0.13.8")
    assert release_history.select(history, None) == history
    assert [str(r.version) for r in release_history.select(history, "2")] == ["0.13.7", "0.13.8"]
    assert [str(r.version) for r in release_history.select(history, ">=0.13")] == ["0.13.7", "0.13.8"]
    assert [str(r.version) for r in release_history.select(history, "0.12.0,0.13.8")] == ["0.12.0", "0.13.8"]
    for bad, message in [("0", "selects no release"), ("0.13.99", "0.13.99"), (">=9", "matches no release"),
                         ("=<1", "not a valid version specifier")]:
        with pytest.raises(BadInput, match=message):
            release_history.select(history, bad, option="--releases")
    with pytest.raises(BadInput, match="^--select "):
        release_history.select(history, "0")


@pytest.mark.parametrize("spec,admits", [(">=3.11", True), (">3.11", True), (">=3.11.2", True), ("<3.11", False),
                                         ("!=3.11.*", False), (">=3.12", False), ("<3.12,!=3.11.0", True)])
def test_supports_python(spec, admits):
    assert release_history.supports_python(SpecifierSet(spec), (3, 11)) is admits


def test_requires_python_missing_or_invalid_admits():
    assert release_history.requires_python_admits(None, (3, 11), Version("1"))
    assert release_history.requires_python_admits("", (3, 11), Version("1"))
    assert release_history.requires_python_admits("not a spec", (3, 11), Version("1"))
    assert not release_history.requires_python_admits(">=3.12", (3, 11), Version("1"))


def test_shards_interleave_and_cover_every_commit():
    commits_ = [f"c{i}" for i in range(10)]
    slices = [shards.shard(commits_, 3, i) for i in range(3)]
    assert slices[0] == ["c0", "c3", "c6", "c9"]
    assert sorted(sum(slices, [])) == sorted(commits_)
    assert shards.non_empty_shards(commits_[:2], 4) == [0, 1]
    assert shards.read_commits(["a\n", "\n", " b \n"], "f") == ["a", "b"]
    for lines, message in [([], "no commits"), (["a b"], "one commit per line"), (["a", "a"], "more than once")]:
        with pytest.raises(ValueError, match=message):
            shards.read_commits(lines, "f")


def test_env_label():
    params = {"machine": "m", "python": "3.11", "jax": "0.4.33", "jaxlib": "0.4.33", "hatchling": "", "cpu": "x"}
    assert project.env_label(params) == "Python 3.11, jax 0.4.33, jaxlib 0.4.33"
    # The JAX history's two environments differ by their Python alone.
    assert {project.env_label({"python": python, "equinox": "0.13.8"}) for python in ("3.11", "3.13")} == \
        {"Python 3.11, equinox 0.13.8", "Python 3.13, equinox 0.13.8"}
    # The gate's step detection gets only the params that differ between environments (asv's regressions.json).
    assert project.env_label({"python": "3.13"}) == "Python 3.13"
    assert project.env_label({}) == ""


def test_a_revision_is_never_read_as_a_git_option(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    assert upstream.range_commits(repo, "ALL", "main") == [git(repo, "rev-parse", "HEAD")]
    with pytest.raises(BadInput):
        upstream.range_commits(repo, f"HEAD --output={tmp_path / 'planted'}", "main")
    assert not (tmp_path / "planted").exists()


def test_the_root_is_the_project():
    assert project.ROOT == ROOT and (project.ROOT / "asv.conf.json").is_file()


def test_the_documented_table_is_the_declared_exit_codes():
    documented = (ROOT / "docs" / "exit-codes.md").read_text()
    rows = re.findall(r"^\| (\d) \| ([A-Z_]+) \|", documented, re.M)
    assert [(int(code), name) for code, name in rows] == [(int(c), c.name) for c in ExitCode]
