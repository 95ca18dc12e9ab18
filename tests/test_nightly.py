"""scripts/nightly with scripts/push-results, as the workflows run them, end to end.

Local bare repositories stand in for upstream Equinox and for this
repository's results branch.  Upstream is a release history of 0.13.7 and
0.13.8 (scripts/release-history, from PyPI sdists cached in .cache/sdists);
first it holds 0.13.7 alone, then 0.13.8 is pushed.  The slow tests run real
asv virtualenvs, kept in a folder of their own so that they never disturb
benchmarks running from the project's .asv/env, with one cheap deterministic
benchmark class, each benchmark once.
"""

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchtools.asvtools import runs
from tests.asv_sites import MACHINE as SITE_MACHINE
from tests.asv_sites import PASSES, make_site
from tests.helpers import PRIMARY_JAX, ROOT, git, tool

MACHINE = "nightly-tests"
CHEAP = "bench_counts.PythonCalls"
# Run under GitHub Actions, the scripts must not write into the test job's own summary.
ENV = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}


def script(name, *args, env=None):
    return subprocess.run([*tool(name), *map(str, args)], cwd=ROOT, capture_output=True, text=True, env=env or ENV)


def bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def branch_files(remote: Path, branch="results") -> dict[str, bytes]:
    if (
        subprocess.run(
            ["git", "-C", str(remote), "rev-parse", "-q", "--verify", branch], capture_output=True
        ).returncode
        != 0
    ):
        return {}
    names = git(remote, "ls-tree", "-r", "--name-only", branch).split()
    return {
        name: subprocess.run(
            ["git", "-C", str(remote), "show", f"{branch}:{name}"], check=True, capture_output=True
        ).stdout
        for name in names
    }


# Fast: bad input stops scripts/nightly before anything is run or written.


@pytest.fixture
def places(tmp_path):
    upstream = tmp_path / "upstream"
    git(tmp_path, "init", "-q", "-b", "main", upstream)
    git(upstream, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    return SimpleNamespace(
        upstream=upstream, remote=bare(tmp_path / "results.git"), output=tmp_path / "out", tmp=tmp_path
    )


def nightly_fast(places, *args, env=None):
    return script(
        "nightly",
        "--upstream",
        places.upstream,
        "--results-remote",
        places.remote,
        "--machine",
        MACHINE,
        *args,
        env=env,
    )


def test_an_unreachable_results_remote_is_named_and_nothing_is_made(places):
    summary, verdict = places.tmp / "summary.md", places.tmp / "verdict.json"
    result = nightly_fast(
        places,
        "--output",
        places.output,
        "--results-remote",
        places.tmp / "nowhere.git",
        "--report",
        places.tmp / "report.md",
        "--verdict",
        verdict,
        env=dict(ENV, GITHUB_STEP_SUMMARY=str(summary)),
    )
    assert result.returncode == 2
    assert "nowhere.git" in result.stderr and "Traceback" not in result.stderr
    assert not places.output.exists()
    assert "No report" in summary.read_text()
    # The alert reads this: a failed night, never a quiet one.
    document = json.loads(verdict.read_text())
    assert (document["status"], document["stage"], document["exit"]) == ("failed", "scripts/nightly", 2)
    assert "nowhere.git" in document["message"] and document["regression"] is False


def test_an_output_that_is_not_a_results_checkout_is_left_alone(places):
    places.output.mkdir()
    (places.output / "precious.txt").write_text("mine")
    result = nightly_fast(places, "--output", places.output)
    assert result.returncode == 2 and "not a results checkout" in result.stderr
    foreign = places.tmp / "foreign"
    git(places.tmp, "init", "-q", foreign)
    result = nightly_fast(places, "--output", foreign)
    assert result.returncode == 2 and "did not make" in result.stderr
    assert [p.name for p in places.output.iterdir()] == ["precious.txt"]


def test_a_bad_upstream_or_site_is_refused(places):
    not_a_repo = places.tmp / "plain"
    not_a_repo.mkdir()
    result = script("nightly", "--upstream", not_a_repo, "--results-remote", places.remote, "--output", places.output)
    assert result.returncode == 2 and "plain: not a git repository" in result.stderr
    site = places.tmp / "site"
    site.mkdir()
    (site / "old.html").write_text("")
    result = nightly_fast(places, "--output", places.output, "--site", site)
    assert result.returncode == 2 and "--site" in result.stderr
    assert not places.output.exists()


# Slow: real asv runs.


def nightly_command(env_dir, upstream, remote, output, *args):
    return [
        *tool("nightly"),
        "--upstream",
        str(upstream),
        "--results-remote",
        str(remote),
        "--machine",
        MACHINE,
        "--quick",
        "-b",
        CHEAP,
        "--jax",
        PRIMARY_JAX,
        "--env-dir",
        str(env_dir),
        "--output",
        str(output),
        *map(str, args),
    ]


def run(command, env=None):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env or ENV)


def written_result(output: Path, commit: str) -> bool:
    """Whether OUTPUT holds a complete results file for COMMIT."""
    for path in output.glob(f"results/*/{MACHINE}/{commit[:8]}-*.json"):
        try:
            json.loads(path.read_text())
            return True
        except ValueError:
            pass
    return False


@pytest.fixture(scope="module")
def story(history, asv_env_dir, tmp_path_factory):
    """Night 1 on 0.13.7; night 2 on 0.13.8, killed once it has written results, then run again."""
    base = tmp_path_factory.mktemp("nightly")
    upstream, remote, output = bare(base / "upstream.git"), bare(base / "results.git"), base / "checkout"
    first, second = git(history, "rev-list", "--reverse", "main").split()
    git(history, "push", "-q", upstream, f"{first}:refs/heads/main")
    s = SimpleNamespace(base=base, upstream=upstream, remote=remote, output=output, first=first, second=second)

    summary = base / "summary.md"
    s.run1 = run(
        nightly_command(
            asv_env_dir, upstream, remote, output, "--report", base / "report1.md", "--site", base / "site"
        ),
        env=dict(ENV, GITHUB_STEP_SUMMARY=str(summary)),
    )
    s.summary = summary.read_text() if summary.exists() else ""
    s.branch_before_push = branch_files(remote)
    s.push1 = script("push-results", "--results-remote", remote, output / "results")
    s.pushed1 = branch_files(remote)
    s.tip1 = git(remote, "rev-parse", "results") if s.pushed1 else None

    git(history, "push", "-q", upstream, f"{second}:refs/heads/main")
    log_path = base / "killed.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            nightly_command(asv_env_dir, upstream, remote, output),
            cwd=ROOT,
            env=ENV,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 900
        while not written_result(output, second) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        s.killed_while_running = process.poll() is None
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    s.killed_log = log_path.read_text()
    s.after_kill = branch_files(remote)
    s.tip_after_kill = git(remote, "rev-parse", "results") if s.after_kill else None

    s.run2 = run(nightly_command(asv_env_dir, upstream, remote, output, "--report", base / "report2.md"))
    s.push2 = script("push-results", "--results-remote", remote, output / "results")
    s.pushed2 = branch_files(remote)
    return s


def result_names(files: dict, commit: str) -> list[str]:
    return [name for name in files if Path(name).name.startswith(commit[:8] + "-")]


@pytest.mark.slow(minutes=1.1)
def test_first_night_benchmarks_the_tip_publishes_and_stores(story):
    assert story.run1.returncode == 0, story.run1.stdout[-2000:] + story.run1.stderr[-3000:]
    assert "benchmarking the branch tip" in story.run1.stderr
    assert story.branch_before_push == {}, "scripts/nightly must never write the results branch"
    assert story.push1.returncode == 0, story.push1.stderr
    assert len(result_names(story.pushed1, story.first)) == 1
    assert all(name.startswith("results/") for name in story.pushed1)
    assert any(name.endswith("/benchmarks.json") for name in story.pushed1)
    assert (story.base / "site" / "index.html").is_file()
    report = (story.base / "report1.md").read_text()
    assert report.startswith("# Benchmark regressions") and report in story.run1.stdout
    assert report.strip() in story.summary


@pytest.mark.slow(minutes=0.2)
def test_a_killed_night_loses_nothing_pushed_and_the_next_finishes_its_work(story):
    assert story.killed_while_running, story.killed_log[-3000:]
    # The killed run was benchmarking the new commit alone.
    assert f"0 commit(s) already done, 1 to run: {story.second[:8]}" in story.killed_log
    assert story.after_kill == story.pushed1 and story.tip_after_kill == story.tip1

    # The rerun finds the killed run's results in the checkout, runs nothing, and publishes.
    assert story.run2.returncode == 0, story.run2.stdout[-2000:] + story.run2.stderr[-3000:]
    assert "0 commit(s) of" in story.run2.stderr and " asv run " not in story.run2.stderr
    assert story.push2.returncode == 0, story.push2.stderr
    assert {k: v for k, v in story.pushed2.items() if k in story.pushed1} == story.pushed1
    assert len(result_names(story.pushed2, story.second)) == 1
    assert git(story.remote, "merge-base", "--is-ancestor", story.tip1, "results") == ""

    [site] = (story.output / "html").iterdir()
    index = json.loads((site / "index.json").read_text())
    assert {story.first, story.second} <= set(index["revision_to_hash"].values())
    assert (story.base / "report2.md").read_text().startswith("# Benchmark regressions")


@pytest.mark.slow(minutes=0.5)
def test_a_backfill_in_two_shards_stores_what_unsharded_runs_store(story, asv_env_dir, tmp_path):
    remote = bare(tmp_path / "backfill.git")
    listed = script("commits", "--repo", story.upstream, "--range", "ALL")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == [story.first, story.second]
    hashes = tmp_path / "hashes.txt"
    hashes.write_text(listed.stdout)
    outputs = []
    for index in (0, 1):
        slice_file = tmp_path / f"slice-{index}.txt"
        slice_file.write_text(script("shard", "--shards", 2, "--index", index, hashes).stdout)
        output = tmp_path / f"shard-{index}"
        ran = run(nightly_command(asv_env_dir, story.upstream, remote, output, f"HASHFILE:{slice_file}"))
        assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-3000:]
        assert "1 commit(s) of" in ran.stderr
        outputs.append(output / "results")
    assert branch_files(remote) == {}
    stored = script("push-results", "--results-remote", remote, *outputs)
    assert stored.returncode == 0, stored.stderr

    sharded, unsharded = branch_files(remote), story.pushed2
    assert sorted(sharded) == sorted(unsharded)
    for name in sharded:
        ours, theirs = json.loads(sharded[name]), json.loads(unsharded[name])
        if name.endswith("/benchmarks.json"):
            assert ours == theirs
        elif "results" in ours:
            column = ours["result_columns"].index("result")
            assert {k: v[column] for k, v in ours["results"].items()} == {
                k: v[column] for k, v in theirs["results"].items()
            }, name


@pytest.mark.parametrize("failure, code", [(RuntimeError("boom"), 4), ("bad input", 2), ("failed", 3)])
def test_a_gate_that_fails_makes_the_nightly_fail_and_its_report_says_so(places, monkeypatch, failure, code):
    """In process, with scripts/bench stubbed: the gate crashing or exiting 2 or 3 is never a quiet night."""
    from benchtools import cli, errors
    from benchtools.judging import gate
    from benchtools.running import bench, nightly

    def judge(source, compare=None, **options):
        raise {
            "bad input": errors.BadInput("asv site index is corrupt: x/index.json"),
            "failed": errors.Failed("git failed"),
        }.get(failure, failure)

    monkeypatch.setattr(nightly, "checkout_results", lambda *args: None)
    monkeypatch.setattr(bench, "bench", lambda options: 0)
    monkeypatch.setattr(gate, "judge", judge)
    monkeypatch.setattr(nightly, "Source", lambda **where: where)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    report = places.tmp / "report.md"
    status = cli.run(
        "nightly",
        [
            "--upstream",
            str(places.upstream),
            "--results-remote",
            str(places.remote),
            "--output",
            str(places.output),
            "--report",
            str(report),
        ],
    )
    assert status == code
    text = report.read_text()
    assert text.startswith("No report: the regression gate failed") and text.strip() != "No report:"
    # The alert job opens the issue from this report rather than reading it as a quiet night.
    assert "No regression counts." not in text


def test_a_failure_after_the_verdict_is_written_keeps_the_judged_verdict(places, monkeypatch):
    """A night that was judged stays judged: a later failure (refreshing the site) exits non-zero, no more."""
    from types import SimpleNamespace

    from benchtools import cli, errors
    from benchtools.judging import gate
    from benchtools.running import bench, nightly

    judged = {"schema": 1, "status": "judged", "regression": False, "summary": "no regression counts"}
    monkeypatch.setattr(nightly, "checkout_results", lambda *args: None)
    monkeypatch.setattr(nightly, "is_results_checkout", lambda output: True)
    monkeypatch.setattr(bench, "bench", lambda options: 0)
    monkeypatch.setattr(gate, "judge", lambda source, compare=None, **options: SimpleNamespace())
    monkeypatch.setattr(nightly, "Source", lambda **where: where)
    monkeypatch.setattr(nightly.render, "markdown", lambda verdict: "# Benchmark regressions\n")
    monkeypatch.setattr(nightly.verdicts, "data", lambda verdict: judged)

    def refresh(target):
        raise errors.Failed("copying the site failed")

    monkeypatch.setattr(nightly, "refresh_overhead_page", refresh)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    verdict = places.tmp / "verdict.json"
    status = cli.run(
        "nightly",
        ["--upstream", str(places.upstream), "--results-remote", str(places.remote), "--output", str(places.output)]
        + ["--report", str(places.tmp / "report.md"), "--verdict", str(verdict)],
    )
    assert status == 3
    assert json.loads(verdict.read_text()) == judged


@pytest.mark.parametrize("stored", [False, True], ids=["first-night", "later-night"])
def test_the_first_night_benchmarks_the_tip_even_when_it_left_the_package_unchanged(places, monkeypatch, stored):
    """Without results there is no baseline: the tip must get one, whatever its parent had."""
    from types import SimpleNamespace

    from benchtools import cli
    from benchtools.judging import gate
    from benchtools.running import bench, nightly

    ran = []
    monkeypatch.setattr(nightly, "checkout_results", lambda *args: None)
    monkeypatch.setattr(nightly, "is_results_checkout", lambda output: True)
    monkeypatch.setattr(bench, "bench", lambda options: ran.append(options) or 0)
    monkeypatch.setattr(gate, "judge", lambda source, compare=None, **options: SimpleNamespace())
    monkeypatch.setattr(nightly, "Source", lambda **where: where)
    monkeypatch.setattr(nightly.render, "markdown", lambda verdict: "# Benchmark regressions\n")
    judged = {"schema": 1, "status": "judged", "regression": False, "summary": "no regression counts"}
    monkeypatch.setattr(nightly.verdicts, "data", lambda verdict: judged)
    monkeypatch.setattr(nightly, "refresh_overhead_page", lambda target: None)
    monkeypatch.setattr(nightly, "gate_scope", lambda output, baseline, repo: nightly.Scope(confirmed=False))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    if stored:
        target = bench.Target(bench.Options(repo=str(places.upstream), machine=MACHINE, output=places.output))
        (target.results_dir / MACHINE).mkdir(parents=True)
        (target.results_dir / MACHINE / "0123abcd-env.json").write_text("{}")
        monkeypatch.setattr(runs, "newest_with_results", lambda results_dir, machine: None)
    status = cli.run(
        "nightly",
        ["--upstream", str(places.upstream), "--results-remote", str(places.remote), "--output", str(places.output)]
        + ["--machine", MACHINE, "--report", str(places.tmp / "report.md"), "--verdict", str(places.tmp / "v.json")],
    )
    assert status == 0
    [options] = ran
    assert (options.range, options.include_unchanged) == (("NEW", False) if stored else (None, True))


def publish_only(upstream, remote, output, *args):
    """scripts/nightly --publish-only from REMOTE's results branch, as the publish job runs it."""
    return script(
        "nightly",
        "--publish-only",
        "--upstream",
        upstream,
        "--results-remote",
        remote,
        "--machine",
        SITE_MACHINE,
        "--output",
        output,
        *args,
    )


def test_publish_only_makes_the_site_and_report_from_the_branch_and_runs_no_benchmark(tmp_path):
    """The workflows' `publish` job: the site for Pages from stored results alone."""
    import shutil

    from benchtools.running.bench import Options, Target
    from tests.asv_sites import COUNT, TIMING

    make_site(tmp_path, {TIMING: [[1.0e-3, 2.0e-3]] * 3 + [[1.6e-3, 2.0e-3]] * 3, COUNT: [[100, 400]] * 6})
    upstream = (tmp_path / "repo").resolve()
    remote = bare(tmp_path / "results.git")
    work = tmp_path / "branch"
    shutil.copytree(tmp_path / "results", work / "results" / Target(Options(repo=str(upstream))).name)
    git(tmp_path, "init", "-q", "-b", "results", work)
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "results")
    git(work, "push", "-q", remote, "results")
    report, site = tmp_path / "report.md", tmp_path / "site"
    result = publish_only(
        upstream,
        remote,
        tmp_path / "out",
        "--report",
        report,
        "--site",
        site,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert " run " not in " ".join(line for line in result.stderr.splitlines() if line.startswith("$"))
    assert (site / "index.html").is_file()
    # It benchmarked nothing, so it judges nothing: the step on the branch is the site's, not tonight's news.
    text = report.read_text()
    assert text.startswith("# Benchmark regressions (nothing judged)") and "No regression counts." in text


def test_the_nightly_compares_its_baseline_with_the_newest_new_commit(tmp_path):
    from benchtools.running import nightly

    config = make_site(tmp_path, {PASSES: [[20.0], [20.1], [20.2]]})
    hashes = [
        line.split()[0]
        for line in subprocess.run(
            ["git", "-C", str(tmp_path / "repo"), "log", "--reverse", "--format=%H"], capture_output=True, text=True
        ).stdout.splitlines()
    ]
    assert runs.newest_with_results(tmp_path / "results", SITE_MACHINE) == hashes[-1]
    assert runs.newest_with_results(tmp_path / "results", "elsewhere") is None
    (tmp_path / ".asv").mkdir()
    last_run = tmp_path / ".asv" / "last-run.json"
    last_run.write_text(json.dumps({"config": str(config), "commits": hashes[1:]}))
    repo = tmp_path / "repo"
    # A baseline and new commits: the baseline against the newest, confirmed.
    assert nightly.gate_scope(tmp_path, hashes[0], repo) == nightly.Scope(compare=(hashes[0], hashes[-1]))
    # The first night: asv's step detection, confirmed.
    assert nightly.gate_scope(tmp_path, None, repo) == nightly.Scope()
    # A dispatched range of older commits: never compared newest → older.
    last_run.write_text(json.dumps({"config": str(config), "commits": hashes[:2]}))
    older = nightly.gate_scope(tmp_path, hashes[-1], repo)
    assert older.compare is None and "does not descend from the baseline" in older.nothing
    # Nothing new: nothing judged (not asv's step detection over every stored result).
    last_run.write_text(json.dumps({"config": str(config), "commits": []}))
    assert "no commit after the baseline" in nightly.gate_scope(tmp_path, hashes[-1], repo).nothing


def test_a_night_with_nothing_new_judges_nothing_although_the_branch_holds_steps(tmp_path, monkeypatch):
    """The quiet day: the results hold a real step, and no new commit came; the verdict is quiet, saying why."""
    from benchtools import cli
    from benchtools.judging import verdicts
    from benchtools.running import bench, nightly

    make_site(tmp_path, {PASSES: [[20.0], [20.0], [40.0]]})  # a step that asv's step detection reports
    hashes = git(tmp_path / "repo", "log", "--reverse", "--format=%H").split()
    (tmp_path / ".asv").mkdir(exist_ok=True)
    monkeypatch.setattr(nightly, "checkout_results", lambda *args: None)
    monkeypatch.setattr(nightly, "is_results_checkout", lambda output: True)
    monkeypatch.setattr(runs, "newest_with_results", lambda results, machine: hashes[-1])
    monkeypatch.setattr(nightly, "refresh_overhead_page", lambda target: None)
    monkeypatch.setattr(bench, "bench", lambda options: 0)
    monkeypatch.setattr(bench, "git_dir", lambda target: tmp_path / "repo")
    record = {"config": "asv.conf.json", "commits": [], "unchanged": ["0c95418f" * 5]}
    (tmp_path / ".asv" / "last-run.json").write_text(json.dumps(record))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    verdict, report = tmp_path / "verdict.json", tmp_path / "report.md"
    status = cli.run(
        "nightly",
        ["--upstream", str(tmp_path / "repo"), "--results-remote", str(tmp_path), "--output", str(tmp_path)]
        + ["--report", str(report), "--verdict", str(verdict), "--machine", SITE_MACHINE],
    )
    assert status == 0
    document = verdicts.read(verdict)
    assert document["regression"] is False and document["mode"] == verdicts.NOTHING_JUDGED
    assert "no commit after the baseline" in document["summary"] and "No regression counts." in report.read_text()
    # A night whose commits all left the package unchanged names them still (the replay's "unchanged" column).
    assert document["unchanged_commits"] == record["unchanged"]


# The real confirm step, end to end: asv environments, real Equinox, fresh processes.


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_a_night_stopped_by_a_signal_leaves_a_failed_verdict(places, monkeypatch, how):
    """GitHub's step timeout and a cancel send SIGINT then SIGTERM: the alert must still get a failed night."""
    from benchtools import cli
    from benchtools.running import bench, nightly

    def killed(options):
        os.kill(os.getpid(), getattr(signal, how))
        time.sleep(5)
        return 0

    monkeypatch.setattr(nightly, "checkout_results", lambda *args: None)
    monkeypatch.setattr(nightly, "is_results_checkout", lambda output: True)
    monkeypatch.setattr(bench, "bench", killed)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    verdict = places.tmp / "verdict.json"
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    # A background job's SIGINT is ignored by its shell: the night must catch it all the same.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    before[signal.SIGINT] = signal.SIG_IGN
    status = cli.run(
        "nightly",
        ["--upstream", str(places.upstream), "--results-remote", str(places.remote), "--output", str(places.output)]
        + ["--report", str(places.tmp / "report.md"), "--verdict", str(verdict)],
    )
    after = {number: signal.getsignal(number) for number in before}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    assert status == 3 and after == before
    document = json.loads(verdict.read_text())
    assert document["status"] == "failed" and document["stage"] == "scripts/bench" and how in document["message"]


def test_publish_only_never_explains_so_runs_no_upstream_code(places, monkeypatch):
    """The publish job's site goes to Pages: explaining a step would install and profile upstream commits there."""
    from benchtools import cli
    from benchtools.judging import gate
    from benchtools.running import nightly

    asked = []

    def judge(source, compare=None, *, explain, **options):
        asked.append(explain)
        raise RuntimeError("stop here")

    monkeypatch.setattr(nightly, "checkout_results", lambda *args: None)
    monkeypatch.setattr(nightly, "Source", lambda **where: where)
    monkeypatch.setattr(nightly, "publish_stored", lambda target: 0)
    monkeypatch.setattr(runs, "newest_with_results", lambda results, machine: None)
    monkeypatch.setattr(gate, "judge", judge)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    cli.run(
        "nightly",
        ["--upstream", str(places.upstream), "--results-remote", str(places.remote), "--output", str(places.output)]
        + ["--report", str(places.tmp / "report.md"), "--publish-only"],
    )
    assert asked == [False]


def test_the_publish_job_judges_the_runs_stored_commits_again_exact_metrics_only(tmp_path):
    """--rejudge-run: the commits the run stored (its trailer on the branch) against the baseline before them."""
    import shutil

    from benchtools.judging import verdicts
    from benchtools.running.bench import Options, Target
    from tests.asv_sites import COST, COUNT, TIMING

    make_site(
        tmp_path,
        {
            TIMING: [[1.0e-3, 2.0e-3]] * 3 + [[1.6e-3, 2.0e-3]],  # a timing step: never judged here
            COST: [[100, 400]] * 3 + [[100, 440]],
            COUNT: [[100, 400]] * 4,
        },
    )
    upstream = (tmp_path / "repo").resolve()
    hashes = git(upstream, "log", "--reverse", "--format=%H").split()
    remote = bare(tmp_path / "results.git")
    work = tmp_path / "branch"
    folder = work / "results" / Target(Options(repo=str(upstream))).name
    shutil.copytree(tmp_path / "results", folder)
    tonight = [p for p in (folder / SITE_MACHINE).glob(f"{hashes[-1][:8]}-*.json")]
    moved = {p: p.read_bytes() for p in tonight}
    for path in tonight:
        path.unlink()
    git(tmp_path, "init", "-q", "-b", "results", work)
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    git(work, "add", "-A")
    git(work, *identity, "commit", "-qm", "earlier results")
    for path, data in moved.items():
        path.write_bytes(data)
    git(work, "add", "-A")
    git(work, *identity, "commit", "-qm", "Add 1 result file(s)\n\nRun: 77")
    git(work, "push", "-q", remote, "results")

    def rejudge(run_id, name):
        verdict = tmp_path / f"{name}.json"
        result = publish_only(
            upstream,
            remote,
            tmp_path / name,
            "--rejudge-run",
            run_id,
            "--report",
            tmp_path / f"{name}.md",
            "--verdict",
            verdict,
        )
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
        return verdicts.read(verdict)

    judged = rejudge("77", "night")
    assert judged["mode"] == f"{hashes[-2]} → {hashes[-1]}" and not judged["confirmed"]
    assert [(c["kind"], c["benchmark"]) for c in judged["counted"]] == [("cost", COST)]
    other = rejudge("78", "other-night")
    assert other["mode"] == verdicts.NOTHING_JUDGED and "run 78 stored no results" in other["summary"]
