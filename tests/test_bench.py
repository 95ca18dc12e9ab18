"""scripts/bench end to end: real release histories, real asv virtualenvs, real kills.

The slow tests share a history of two real Equinox releases (0.13.7 and
0.13.8), built from PyPI sdists cached in .cache/sdists, and asv's virtualenv
for the primary JAX in .asv/env; both are ignored folders, so reruns are fast.
"""

import contextlib
import http.server
import itertools
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path

import pytest
from packaging.version import Version

from benchtools import cli, project
from benchtools.history import release_history
from benchtools.running import bench as bench_module
from tests.helpers import PRIMARY_JAX, ROOT, bench, git, script, tool

MACHINE = "bench-tests"
# A deterministic, cheap benchmark class keeps the robustness tests short.
CHEAP = "bench_counts.PythonCalls"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def result_files(output: Path, name: str) -> dict[str, Path]:
    """{commit hash prefix: results file} of one results folder."""
    folder = output / "results" / name / MACHINE
    return {p.name.split("-", 1)[0]: p for p in folder.glob("*-virtualenv-*.json")} if folder.is_dir() else {}


def label(repo: Path, commit: str) -> str:
    """How scripts/bench names a commit: by its tag, else by its short hash."""
    tags = git(repo, "tag", "--points-at", commit).split()
    return tags[0] if tags else commit[:8]


def summary_states(stdout: str) -> dict[str, list[str]]:
    """{state: commits} from the summary of a one-environment run."""
    summary = stdout[stdout.index("Summary") :]
    states = {}
    for line in summary.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] in ("ran", "failed", "skipped", "missing"):
            states[words[0]] = words[2:]
    return states


def repo_results_name(output: Path) -> str:
    names = [p.name for p in (output / "results").iterdir()]
    assert len(names) == 1, names
    return names[0]


def skipped_by_design(description: dict) -> set[int]:
    """The parameter combinations a benchmark skips (NotImplementedError in setup): dataclasses.replace on a
    custom __init__ (benchmarks/module_ops.way_applies)."""
    from benchmarks import module_ops

    names = description.get("param_names", [])
    if not {"way", "init"} <= set(names):
        return set()
    combos = itertools.product(*description["params"])
    return {
        i
        for i, combo in enumerate(combos)
        if not module_ops.way_applies(combo[names.index("way")].strip("'"), combo[names.index("init")].strip("'"))
    }


@pytest.mark.slow(minutes=3)
def test_quick_run_of_a_release_measures_every_benchmark(history, asv_env_dir, tmp_path):
    """v0.13.7 in the primary environment, every benchmark and parameter once (v0.13.8 runs in the Python 3.13
    test; runs over several commits are the robustness tests' "ALL", with a cheap benchmark)."""
    result = bench(
        "--quick", "--repo", history, "--jax", PRIMARY_JAX, "--machine", MACHINE, "--output", tmp_path,
        "--env-dir", asv_env_dir, "v0.13.7^!",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    name = repo_results_name(tmp_path)
    assert name.startswith("repo-equinox-") and name.endswith("-quick")

    benchmarks = json.loads((tmp_path / "results" / name / "benchmarks.json").read_text())
    benchmarks.pop("version")
    # The answer is the suite's timing figure: every run takes it (issue 52), its figures checked apart.
    answer = [key for key in benchmarks if key.startswith("bench_answer.")]
    benchmarks = {key: found for key, found in benchmarks.items() if key not in answer}
    assert len(benchmarks) >= 20 and answer
    files = result_files(tmp_path, name)
    release = git(history, "rev-parse", "v0.13.7^{commit}")
    assert sorted(files) == [release[:8]]
    for path in files.values():
        stored = json.loads(path.read_text())
        assert stored["params"]["device"] == "cpu"  # as the environment's JAX reports it: PyPI's jaxlib
        columns = stored["result_columns"]
        assert [key for key in answer if key not in stored["results"]] == []
        for key, description in benchmarks.items():
            assert key in stored["results"], f"{path.name}: no result for {key}"
            values = stored["results"][key][columns.index("result")]
            values = values if isinstance(values, list) else [values]
            skipped = skipped_by_design(description)
            measured = [v is not None and not math.isnan(v) for v in values]
            assert values and measured == [i not in skipped for i in range(len(values))], (path.name, key, values)
    assert (tmp_path / "html" / name / "index.html").is_file()
    assert summary_states(result.stdout) == {"ran": [label(history, release)]}


@pytest.fixture
def history_with_broken_release(history, tmp_path) -> Path:
    """v0.13.7, then a commit whose pyproject.toml cannot be parsed, then v0.13.8's tree."""
    repo = tmp_path / "broken-history"
    subprocess.run(["git", "clone", "-q", str(history), str(repo)], check=True)
    git(repo, "checkout", "-q", "-B", "main", "v0.13.7")
    (repo / "pyproject.toml").write_text("this is [not toml\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "broken build")
    git(repo, "checkout", "-q", "v0.13.8", "--", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "v0.13.8 again")
    return repo


@pytest.mark.slow(minutes=0.5)
def test_a_release_that_fails_to_build_is_recorded_and_the_run_goes_on(
    history_with_broken_release, asv_env_dir, tmp_path
):
    # A relative --output, as a user types it: asv must get absolute paths whatever its working folder.
    result = bench(
        "--quick",
        "--repo",
        history_with_broken_release,
        "--jax",
        PRIMARY_JAX,
        "--machine",
        MACHINE,
        "--output",
        "out",
        "--env-dir",
        asv_env_dir,
        "-b",
        CHEAP,
        "ALL",
        cwd=tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    name = repo_results_name(tmp_path / "out")
    commits = git(history_with_broken_release, "rev-list", "--reverse", "main").split()
    assert sorted(result_files(tmp_path / "out", name)) == sorted(c[:8] for c in commits)
    states = summary_states(result.stdout)
    repo = history_with_broken_release
    assert states["ran"] == [label(repo, commits[0]), label(repo, commits[2])]
    assert states.get("failed", []) + states.get("skipped", []) == [label(repo, commits[1])]


@pytest.mark.slow(minutes=0.7)
def test_a_killed_run_keeps_what_was_written_and_the_rerun_finishes_the_rest(history, asv_env_dir, tmp_path):
    args = [
        *tool("bench"),
        "--quick",
        "--repo",
        str(history),
        "--jax",
        PRIMARY_JAX,
        "--machine",
        MACHINE,
        "--output",
        str(tmp_path),
        "--env-dir",
        str(asv_env_dir),
        "-b",
        CHEAP,
        "ALL",
    ]
    first_commit, second_commit = git(history, "rev-list", "--reverse", "main").split()
    log = (tmp_path / "killed.log").open("w")
    process = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 600
    while not any(result_files(tmp_path, p.name) for p in (tmp_path / "results").glob("*")):
        assert process.poll() is None, (tmp_path / "killed.log").read_text()[-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()

    name = repo_results_name(tmp_path)
    written = result_files(tmp_path, name)
    assert list(written) == [first_commit[:8]]
    before = written[first_commit[:8]].read_bytes()
    json.loads(before)

    rerun = bench(*args[len(tool("bench")) :])
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr[-3000:]
    assert "1 commit(s) already done, 1 to run" in rerun.stderr
    files = result_files(tmp_path, name)
    assert sorted(files) == sorted([first_commit[:8], second_commit[:8]])
    assert files[first_commit[:8]].read_bytes() == before

    # Nothing new: no asv run, and every file stays as it was.
    snapshot = {p: p.read_bytes() for p in (tmp_path / "results").rglob("*") if p.is_file()}
    site = tmp_path / "html" / name / "index.html"
    site_mtime = site.stat().st_mtime_ns
    again = bench(*args[len(tool("bench")) :])
    assert again.returncode == 0, again.stderr[-3000:]
    assert "2 commit(s) already done, 0 to run" in again.stderr
    assert " asv run " not in again.stderr
    assert {p: p.read_bytes() for p in (tmp_path / "results").rglob("*") if p.is_file()} == snapshot
    assert site.stat().st_mtime_ns == site_mtime


@pytest.fixture
def closed_index():
    """An index that answers nothing: scripts/bench must stop before running asv."""
    return f"http://127.0.0.1:{closed_port()}/pypi"


def test_unreadable_results_and_benchmark_files_are_quarantined_not_deleted(tmp_path, capsys):

    output = tmp_path / "out"
    folder = output / "results" / "releases" / MACHINE
    folder.mkdir(parents=True)
    truncated = folder / "deadbeef-virtualenv-py3.11-x.json"
    truncated.write_text('{"commit_hash": "deadbeef", "resu')
    benchmarks = output / "results" / "releases" / "benchmarks.json"
    benchmarks.write_text('{"version": 2, "bench_')
    target = bench_module.Target(bench_module.Options(machine=MACHINE, output=output))
    bench_module.quarantine_unreadable(target)
    assert not truncated.exists() and not benchmarks.exists()
    quarantine = output / ".asv" / "quarantine" / "releases"
    [quarantined] = quarantine.glob("deadbeef-*")
    assert quarantined.read_text() == '{"commit_hash": "deadbeef", "resu'
    [kept] = quarantine.glob("benchmarks.json.*")
    assert kept.read_text() == '{"version": 2, "bench_'
    assert capsys.readouterr().err.count(" is unreadable (") == 2


class NotFound(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_error(404)

    def log_message(self, *args):
        pass


@pytest.fixture
def empty_index():
    """An index that has no package and says so at once (a closed port is asked again, for seconds)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/pypi"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("args", [["--releases", "1"], ["--releases", ">=nonsense"], ["--jax", "9.9.9"]])
def test_bad_arguments_move_no_results_file(empty_index, tmp_path, args):
    output = tmp_path / "out"
    folder = output / "results" / "releases" / MACHINE
    folder.mkdir(parents=True)
    truncated = folder / "deadbeef-virtualenv-py3.11-x.json"
    truncated.write_text('{"commit_hash": "deadbeef", "resu')
    result = bench("--machine", MACHINE, "--output", output, "--index", empty_index, *args)
    assert result.returncode in (2, 3), result.stderr
    assert "Traceback" not in result.stderr
    assert truncated.exists() and not (output / ".asv" / "quarantine").exists()


def test_unreachable_index_is_a_clear_error_and_changes_nothing(closed_index, tmp_path):
    result = bench("--output", tmp_path, "--machine", MACHINE, "--index", closed_index)
    assert result.returncode == 3
    assert closed_index in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.network
def test_unknown_release_is_a_clear_error(tmp_path):
    result = bench("--output", tmp_path, "--machine", MACHINE, "--releases", "0.13.99")
    if "cannot reach" in result.stderr.lower() or "urlopen" in result.stderr.lower():
        pytest.skip("PyPI cannot be reached")
    assert result.returncode == 2
    assert "0.13.99" in result.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("args", "answer", "releases", "folder"),
    [
        ([], True, "1", "answer"),
        (["--jax", PRIMARY_JAX], True, "1", "answer"),
        (["--full"], False, "3", "releases"),
        (["--releases", "5"], False, "5", "releases"),
        (["--bench", "Cost"], False, "3", "releases"),
        (["--quick"], False, "3", "releases-quick"),
    ],
)
def test_the_default_is_the_first_answer_and_any_selection_the_run_it_always_was(args, answer, releases, folder):
    from benchtools.commands import bench as command

    options = command.options(cli.parse("bench", args))
    assert (options.answer, options.releases) == (answer, releases)
    assert bench_module.Target(options).name == folder


def test_the_first_answer_takes_no_selection_of_its_own():
    from benchtools.errors import BadInput

    for selection in ({"releases": "3"}, {"quick": True}, {"bench": ["Cost"]}, {"jax_history": True}):
        with pytest.raises(BadInput, match="first answer"):
            bench_module.Options(answer=True, **{"releases": "1", **selection})


def test_the_first_answer_runs_every_exact_benchmark_but_the_counts_and_the_answer_and_tree_at_s_steady_one():
    from benchmarks import metrics
    from benchtools.asvtools import suite

    described = json.loads(suite.description())
    exact, timed = bench_module.answer_benchmarks(described)
    assert not set(exact) & set(timed)
    for name, benchmark in described.items():
        if name == "version":
            continue
        kinds = {metrics.kind(metrics.entry(name, ", ".join(c))) for c in itertools.product(*benchmark["params"])}
        if name.startswith("bench_answer."):  # every class of it shares one measurement, taken alone
            assert name in timed
        elif kinds & set(metrics.TIMING_KINDS):
            assert name not in exact, f"{name}: a timing among the figures measured beside other runs"
        elif metrics.INSTRUCTIONS in kinds:  # the gate's, across commits: no page of the first answer shows a count
            assert name not in exact + timed, f"{name}: counted under valgrind for the first answer"
        else:
            assert name in exact, f"{name}: an exact figure left out of the first answer"
    answer = [name for name in described if name.startswith("bench_answer.")]
    passes = [metrics.PASSES_TREE_AT, metrics.PASSES_TREE_AT.replace("track_tree_at", "track_tuple")]
    assert metrics.ANSWER_RATIO in answer and timed == sorted(answer + passes)


def test_a_benchmark_that_mixes_a_timing_with_exact_figures_is_measured_alone(monkeypatch):
    from benchmarks import metrics

    kinds = {"a.B.track_mixed('x')": metrics.TIME, "a.B.time_other": metrics.TIME}
    monkeypatch.setattr(metrics, "kind", lambda entry: kinds.get(entry, metrics.DETERMINISTIC))
    described = {
        "version": 2,
        "a.B.track_mixed": {"unit": "calls", "params": [["'x'", "'y'"]]},
        "a.B.track_exact": {"unit": "calls", "params": []},
        "a.B.time_other": {"unit": "seconds", "params": []},
    }
    assert bench_module.answer_benchmarks(described) == (["a.B.track_exact"], ["a.B.track_mixed"])


def test_the_first_answer_overlaps_its_exact_runs_and_times_alone_after_them():
    from benchtools.asvtools import suite

    exact, timed = bench_module.answer_benchmarks(json.loads(suite.description()))
    first, second = bench_module.stages(answer=True)
    assert (first.overlapping, first.benchmarks) == (True, tuple(exact))
    assert (second.overlapping, second.benchmarks) == (False, tuple(timed))
    assert [stage.overlapping for stage in bench_module.stages(answer=False)] == [False]


def test_runs_in_other_environments_overlap_and_a_run_that_holds_them_all_waits(tmp_path):
    from benchtools.asvtools import lock

    entered = {name: threading.Event() for name in ("a again", "b", "all")}
    release = threading.Event()

    def hold(name, context):
        with context:
            entered[name].set()
            release.wait(60)

    with lock.one_environment(tmp_path, "a"):
        threads = [
            threading.Thread(target=hold, args=("a again", lock.one_environment(tmp_path, "a"))),
            threading.Thread(target=hold, args=("b", lock.one_environment(tmp_path, "b"))),
            threading.Thread(target=hold, args=("all", lock.exclusive(tmp_path))),
        ]
        for thread in threads:
            thread.start()
        assert entered["b"].wait(60)
        assert not entered["a again"].wait(0.5) and not entered["all"].is_set()
    release.set()
    for thread in threads:
        thread.join(120)
    assert all(event.is_set() for event in entered.values())


@pytest.mark.parametrize("overlapping", [True, False], ids=["exact", "timing"])
def test_an_exact_run_holds_its_environment_and_a_timing_run_holds_them_all(tmp_path, monkeypatch, overlapping):
    # While asv runs, a run in another environment may start only beside an exact run; a second run in the
    # same environment, or one that holds them all, never.
    from benchtools import util
    from benchtools.asvtools import environments as asv_envs
    from benchtools.asvtools import lock

    options = bench_module.Options(
        releases="1", answer=True, output=tmp_path, env_dir=tmp_path / "env", machine=MACHINE
    )
    target = bench_module.Target(options)
    (name, entry), (other, _) = asv_envs.named_entries(asv_envs.asv_config(target.config()))[:2]
    stage = bench_module.Stage("a stage", overlapping, ("bench_counts.PythonCalls.track_tree_at",))
    entered, threads = {}, []

    def asv_runs(cmd, prefix=None, env=None):
        assert "bench_counts\\.PythonCalls\\.track_tree_at" in " ".join(map(str, cmd))
        attempts = {
            "other environment": lock.one_environment(options.env_dir, other),
            "same environment": lock.one_environment(options.env_dir, name),
            "all environments": lock.exclusive(options.env_dir),
        }
        for what, context in attempts.items():
            entered[what] = threading.Event()
            threads.append(threading.Thread(target=hold, args=(context, entered[what]), daemon=True))
            threads[-1].start()
        if overlapping:
            assert entered["other environment"].wait(60)
        else:
            assert not entered["other environment"].wait(1)
        assert not entered["same environment"].is_set() and not entered["all environments"].is_set()
        return subprocess.CompletedProcess(cmd, 0)

    def hold(context, event):
        with context:
            event.set()

    monkeypatch.setattr(bench_module, "record_machine", lambda *_args: None)
    monkeypatch.setattr(util, "run", asv_runs)
    assert bench_module.asv_run(target, stage, 1, name, entry, ["c" * 40]) == 0
    for thread in threads:
        thread.join(60)
    assert all(event.is_set() for event in entered.values())


def test_asv_s_valgrind_process_counts_the_operations_that_bench_selects_and_every_one_otherwise(tmp_path, monkeypatch):
    from benchmarks import callgrind, params
    from benchmarks.instruction_ops import OPERATIONS
    from benchtools import util

    construction = r"bench_instructions\.Instructions\.track_module\('construct\(default\)'\)"
    tuple_access = r"Instructions\.track_tuple\('access'\)"
    assert bench_module.counted_operations([construction, tuple_access]) == ["construct(default)", "access"]
    for regexes in ([r"bench_instructions\.Instructions\.track_module"], [r"bench_counts"], []):
        assert bench_module.counted_operations(regexes) == []  # all of them, or none: one process counts all
    seen = []
    monkeypatch.setattr(bench_module, "record_machine", lambda *_args: None)
    monkeypatch.setattr(
        util, "run", lambda cmd, prefix=None, env=None: seen.append(env) or subprocess.CompletedProcess(cmd, 0)
    )
    target = bench_module.Target(bench_module.Options(output=tmp_path, env_dir=tmp_path / "env", bench=[construction]))
    bench_module.run_asv(target, "config.json", contextlib.nullcontext(), [construction])
    bench_module.run_asv(target, "config.json", contextlib.nullcontext(), [r"bench_instructions"])
    assert [env[params.OPERATIONS_VARIABLE] for env in seen] == ['["construct(default)"]', ""]
    monkeypatch.setenv(params.OPERATIONS_VARIABLE, seen[0][params.OPERATIONS_VARIABLE])
    assert callgrind.selected(list(OPERATIONS)) == ["construct(default)"]
    monkeypatch.setenv(params.OPERATIONS_VARIABLE, "")
    assert callgrind.selected(list(OPERATIONS)) == list(OPERATIONS)


def test_a_docs_file_without_its_block_is_refused_before_anything_runs(tmp_path):
    page = tmp_path / "README.md"
    page.write_text("# no block\n")
    result = bench("--output", tmp_path, "--docs", page)
    assert result.returncode == 2, result.stderr
    assert "<!-- bench-time:start -->" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "results").exists() and page.read_text() == "# no block\n"


def test_range_without_repo_is_refused(tmp_path):
    result = bench("--output", tmp_path, "ALL")
    assert result.returncode == 2
    assert "RANGE needs --repo" in result.stderr


@pytest.mark.slow(minutes=0.3)
def test_unreachable_package_index_fails_the_environment_clearly(history, tmp_path):
    port = closed_port()
    env = dict(
        os.environ,
        PIP_INDEX_URL=f"http://127.0.0.1:{port}/simple",
        PIP_CONFIG_FILE=os.devnull,
        PIP_EXTRA_INDEX_URL="",
        PIP_FIND_LINKS="",
        PIP_NO_CACHE_DIR="1",
        PIP_RETRIES="0",
        PIP_DEFAULT_TIMEOUT="5",
    )
    result = bench(
        "--quick",
        "--repo",
        history,
        "--jax",
        PRIMARY_JAX,
        "--machine",
        MACHINE,
        "--output",
        tmp_path / "out",
        "--env-dir",
        tmp_path / "env",
        "-b",
        CHEAP,
        "ALL",
        env=env,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"127.0.0.1:{port}" in output
    assert "missing" in result.stdout


@pytest.mark.slow
def test_asv_s_environments_get_their_requirements_from_the_lock_s_uv(tmp_path):
    """asv setup with the project's configuration: each requirement as pinned, installed by uv (the plugin), and the
    lock's asv_runner, which scripts/bench pins with PIP_CONSTRAINT."""
    from benchtools import util
    from benchtools.asvtools import runs

    config = util.load_asv_config(project.UPSTREAM_CONFIG) | {"env_dir": str(tmp_path / "env")}
    config |= {
        "pythons": [f"{sys.version_info[0]}.{sys.version_info[1]}"],
        "matrix": {"req": {"typing_extensions": "4.15.0"}},
    }
    del config["exclude"]
    (tmp_path / "asv.conf.json").write_text(json.dumps(config))
    env = dict(os.environ, PIP_CONSTRAINT=str(runs.runner_constraint()))
    cmd = [sys.executable, "-m", "asv", "setup", "--config", tmp_path / "asv.conf.json"]
    ran = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert "Installed" in ran.stderr, ran.stdout + ran.stderr  # uv's summary
    (site,) = (tmp_path / "env").glob("*/lib/python*/site-packages")
    installed = {
        path.name.removesuffix(".dist-info"): (path / "INSTALLER").read_text() for path in site.glob("*.dist-info")
    }
    assert installed["typing_extensions-4.15.0"] == installed[f"asv_runner-{metadata.version('asv_runner')}"] == "uv"


def jax_release(version: str, requires_python: str) -> tuple[release_history.Release, str]:
    """A release of the JAX history and its commit (here the version, for readable assertions)."""
    import datetime

    return release_history.Release(
        Version(version), f"jax-{version}.tar.gz", "", "", datetime.datetime(2026, 1, 1), requires_python
    ), version


def test_jax_history_runs_each_release_on_the_oldest_python_that_admits_it():
    selected = [
        jax_release("0.4.33", ">=3.10"),
        jax_release("0.9.2", ">=3.11"),
        jax_release("0.10.2", ">=3.11"),
        jax_release("0.11.0", ">=3.12"),
        jax_release("0.12.0.1", ">=3.12"),
    ]
    by_python = bench_module.hashes_by_python(selected, ["3.11", "3.13"])
    # 3.13 also runs the newest 3.11 release, so that the two lines of the history meet.
    assert by_python == {"3.11": ["0.4.33", "0.9.2", "0.10.2"], "3.13": ["0.10.2", "0.11.0", "0.12.0.1"]}
    # A selection of new releases only: no bridge, nothing on 3.11.
    assert bench_module.hashes_by_python(selected[3:], ["3.11", "3.13"]) == {"3.11": [], "3.13": ["0.11.0", "0.12.0.1"]}
    # Without the 3.13 environment (setup could not provide it), the new releases run nowhere.
    assert bench_module.hashes_by_python(selected, ["3.11"]) == {"3.11": ["0.4.33", "0.9.2", "0.10.2"]}


@pytest.mark.slow(minutes=3)
def test_one_release_runs_the_quick_suite_in_the_313_environment(history, asv_env_dir, tmp_path):
    """v0.13.8 on Python 3.13 with JAX 0.12.0.1, every benchmark once; where setup could not provide
    Python 3.13 this skips, with setup's reason."""
    import json

    link = ROOT / ".asv" / "python" / "bin" / "python3.13"
    if not link.exists():
        reason = ROOT / ".asv" / "python" / "skipped-3.13"
        pytest.skip(
            "Python 3.13 environments skipped: "
            + (reason.read_text().strip() if reason.exists() else "scripts/setup has not run")
        )
    result = script(
        "bench",
        "--quick",
        "--repo",
        history,
        "--jax",
        "0.12.0.1",
        "--machine",
        "bench-tests",
        "--output",
        tmp_path,
        "--env-dir",
        asv_env_dir,
        "v0.13.8^!",
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    (folder,) = (tmp_path / "results").iterdir()
    (path,) = (folder / "bench-tests").glob("*-virtualenv-py3.13-*jax0.12.0.1*.json")
    saved = json.loads(path.read_text())
    assert saved["params"]["python"] == "3.13" and saved["params"]["jax"] == "0.12.0.1"
    # Every benchmark measured every parameter combination (asv stores a failure as None).
    for name, columns in saved["results"].items():
        values = columns[0] if isinstance(columns[0], list) else [columns[0]]
        assert columns[0] is not None and None not in values, name
    summary = result.stdout[result.stdout.index("Summary") :]
    assert "ran" in summary and "failed" not in summary


# ---- asv's machine file: the runs' own, never the user's ~/.asv-machine.json

# suite.description() (what scripts/push-results stores) as a process of its own, with a cache of its own,
# so that it runs `asv machine --yes` and `asv run` every time.
DESCRIBE = """
import sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from benchtools.asvtools import suite
suite.CACHE = Path(sys.argv[3])
sys.stdout.buffer.write(suite.description())
"""


def users_home(tmp_path: Path) -> tuple[Path, bytes]:
    """A HOME whose ~/.asv-machine.json holds a machine of the user's own; that file's bytes."""
    home = tmp_path / "home"
    home.mkdir()
    mine = {"machine": "mine", "arch": "x", "cpu": "x", "num_cpu": "1", "os": "x", "ram": "1"}
    (home / ".asv-machine.json").write_text(json.dumps({"mine": mine, "version": 1}, indent=4))
    return home, (home / ".asv-machine.json").read_bytes()


def test_concurrent_suite_descriptions_leave_the_users_machine_file_alone(tmp_path):
    home, before = users_home(tmp_path)
    env = {**os.environ, "HOME": str(home)}
    command = [sys.executable, "-c", DESCRIBE, str(ROOT), str(ROOT / "scripts")]
    runs = [
        subprocess.Popen(
            [*command, str(tmp_path / f"cache{i}")], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for i in range(3)
    ]
    outputs = [run.communicate(timeout=600) for run in runs]
    for run, (_out, err) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, err.decode()
    assert len({out for out, _err in outputs}) == 1
    assert json.loads(outputs[0][0])["version"] == 2
    assert (home / ".asv-machine.json").read_bytes() == before
    assert sorted(os.listdir(home)) == [".asv-machine.json"]


def test_concurrent_machine_records_are_each_runs_own(tmp_path, monkeypatch):
    # What scripts/bench does before asv run, three times at once: each run's machine file is whole and
    # its own, the user's is untouched, and the HOMEs go when the runs end.
    home, before = users_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text("[user]\n\tname = The User\n")
    written, homes = {}, []

    def record(number):
        with project.asv_home() as env:
            homes.append(Path(env["HOME"]))
            assert env["XDG_CACHE_HOME"] == (os.environ.get("XDG_CACHE_HOME") or str(home / ".cache"))
            assert (Path(env["HOME"]) / ".gitconfig").read_text() == "[user]\n\tname = The User\n"
            bench_module.record_machine(MACHINE, ROOT / "asv.conf.json", env)
            written[number] = json.loads((Path(env["HOME"]) / ".asv-machine.json").read_text())

    threads = [threading.Thread(target=record, args=(number,)) for number in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(written) == [0, 1, 2]
    assert all(list(machines) == [MACHINE, "version"] for machines in written.values())
    assert (home / ".asv-machine.json").read_bytes() == before
    assert len(set(homes)) == 3 and not any(path.exists() for path in homes)


def test_commits_that_leave_the_package_as_their_parent_had_it_are_not_benchmarked(upstream):
    """On real history, v0.13.6..main: docs, CI and awesome-list commits change neither equinox/ nor pyproject.toml."""
    from benchtools import git as git_tool
    from benchtools.running.bench import PACKAGE_PATHS, unchanged_package

    commits = git_tool.out("rev-list", "--first-parent", "--reverse", "v0.13.6..main", repo=upstream).split()
    unchanged = unchanged_package(upstream, commits)
    subjects = {c: git_tool.out("log", "-1", "--format=%s", c, repo=upstream).strip() for c in commits}
    assert 0 < len(unchanged) < len(commits)
    assert any("awesome" in subjects[c].lower() for c in unchanged)
    for commit in commits:
        changed = git_tool.out("diff", "--name-only", f"{commit}^", commit, "--", *PACKAGE_PATHS, repo=upstream)
        assert (commit in unchanged) == (not changed.strip()), subjects[commit]
    root = git_tool.out("rev-list", "--max-parents=0", "main", repo=upstream).split()
    assert unchanged_package(upstream, root) == []  # no parent to equal: benchmarked


def test_the_machine_s_folder_exists_before_environments_run_side_by_side(tmp_path, monkeypatch):
    """Two asv runs started together both make the machine's results folder unless it exists; the second failed
    with FileExistsError in a fresh clone's scripts/bench."""
    target = bench_module.Target(bench_module.Options(machine=MACHINE, output=tmp_path))
    found = []
    monkeypatch.setattr(bench_module, "needs_run", lambda *args: True)
    monkeypatch.setattr(bench_module, "record_devices", lambda *args: None)
    monkeypatch.setattr(
        bench_module, "asv_run", lambda target, stage, *call: found.append((target.results_dir / MACHINE).is_dir()) or 0
    )
    envs = [("one", {}), ("two", {})]
    bench_module.run_stages(target, envs, {"one": ["a"], "two": ["a"]}, {}, lambda phase: None)
    assert found and all(found)
