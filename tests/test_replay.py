"""scripts/replay: nights, the workflow read from its YAML, the expressions, and a real replay of the bundle.

The fast tests check the machinery's parts: the split into nights, that the
replay's jobs are nightly.yml's (and that a step it cannot map stops it,
exit 3), the `${{ }}` expressions the workflows use, and the runner's PATH.
The slow test replays two real nights of upstream Equinox (the bundle in
../shared/upstream) through every job of nightly.yml, with one cheap exact
benchmark in the primary environment, and checks what each night recorded.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from benchtools.git import first_parent_commits
from benchtools.judging import pairs
from benchtools.publishing import issue
from benchtools.running import jobs, replay, workflow
from tests.helpers import ASV_SIDE_ENVS, NEEDS_BUNDLE, ROOT, bundle_clone, git, markdown_rows, real_replay, tool

NIGHTLY = ROOT / ".github" / "workflows" / "nightly.yml"


def commit(hash_, date):
    return replay.Commit(hash_, date, "subject")


def test_nights_are_every_k_commits_or_one_per_commit_date_in_utc():
    commits = [
        commit("a", "2026-05-01T23:30:00+00:00"),
        commit("b", "2026-05-01T23:59:59+00:00"),
        commit("c", "2026-05-02T00:00:00+00:00"),
        commit("d", "2026-05-04T10:00:00+00:00"),
        commit("e", "2026-05-04T11:00:00+00:00"),
    ]
    by_date = replay.split_nights(commits)
    assert [(label, [c.hash for c in night]) for label, night in by_date] == [
        ("1", ["a", "b"]),
        ("2", ["c"]),
        ("3", ["d", "e"]),
    ]
    assert [[c.hash for c in night] for _, night in replay.split_nights(commits, 2)] == [["a", "b"], ["c", "d"], ["e"]]
    assert [[c.hash for c in night] for _, night in replay.split_nights(commits, 9)] == [["a", "b", "c", "d", "e"]]


def test_the_first_parent_commits_are_dated_in_utc(tmp_path):
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", repo)
    for day, zone in (("2026-05-01T23:30:00", "-0200"), ("2026-05-02T08:00:00", "+0900")):
        env = dict(os.environ, GIT_COMMITTER_DATE=f"{day} {zone}", GIT_AUTHOR_DATE=f"{day} {zone}")
        subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty"]
            + ["-m", day],
            check=True,
            env=env,
        )
    commits = first_parent_commits(repo, "main")
    # 23:30 at -02:00 is the next day in UTC; 08:00 at +09:00 is the day before.
    assert [c.date for c in commits] == ["2026-05-02T01:30:00+00:00", "2026-05-01T23:00:00+00:00"]
    assert [c.subject for c in commits] == ["2026-05-01T23:30:00", "2026-05-02T08:00:00"]


def test_the_replays_jobs_are_nightly_yml_s_jobs_in_needs_order():
    nightly = workflow.read_workflow(NIGHTLY)
    document = yaml.safe_load(NIGHTLY.read_text())
    assert {job.name for job in nightly.jobs} == set(document["jobs"])
    seen = set()
    for job in nightly.jobs:
        needs = document["jobs"][job.name].get("needs") or []
        assert set([needs] if isinstance(needs, str) else needs) <= seen, job.name
        assert len(job.steps) == len(document["jobs"][job.name]["steps"])
        seen.add(job.name)
    assert nightly.inputs == {k: v.get("default") for k, v in document[True]["workflow_dispatch"]["inputs"].items()}
    workflow.check_workflow(nightly)  # every expression and setup-python of today's YAML is one it can run


def write_workflow(tmp_path, change) -> Path:
    document = yaml.safe_load(NIGHTLY.read_text())
    change(document)
    path = tmp_path / "nightly.yml"
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["jobs"]["store"]["steps"].insert(0, {"uses": "actions/cache@abc"}), "actions/cache@abc"),
        (
            lambda d: d["jobs"]["store"]["steps"][0].setdefault("with", {}).update(ref="results"),
            "actions/checkout with ref",
        ),
        (lambda d: d["jobs"]["alert"].update(strategy={"matrix": {"x": [1]}}), "strategy"),
        (lambda d: d["jobs"]["alert"].update({"runs-on": "macos-latest"}), "macos-latest"),
        (lambda d: d["jobs"]["alert"]["steps"][-1]["env"].update(T="${{ secrets.TOKEN }}"), "secrets.TOKEN"),
        (lambda d: d["jobs"]["alert"].update({"if": "${{ hashFiles('x') }}"}), "hashFiles()"),
        (lambda d: d["jobs"]["alert"]["steps"][-1].update(shell="pwsh"), "pwsh"),
        (lambda d: d["jobs"]["alert"]["steps"].insert(0, {"run": "sudo rm -rf /opt"}), "uses sudo"),
        (
            lambda d: d["jobs"]["run"]["steps"].insert(
                0, {"run": "sudo apt-get update && sudo apt-get install -y eqxb-no-such-package=1.0"}
            ),
            "lacks the package eqxb-no-such-package",
        ),
    ],
)
def test_a_step_the_replay_cannot_map_stops_it_with_exit_3(tmp_path, change, message):
    path = write_workflow(tmp_path, change)
    with pytest.raises(workflow.Unmappable, match=message.replace("(", r"\(").replace(")", r"\)")) as raised:
        workflow.check_workflow(workflow.read_workflow(path))
    assert raised.value.code == 3


def test_a_pinned_ubuntu_package_is_replayed_as_this_machines_own_package():
    nightly = workflow.read_workflow(NIGHTLY)
    pins = [workflow.pinned_packages(step.run) for job in nightly.jobs for step in job.steps]
    assert [pin for pin in pins if pin] == [{"valgrind": "1:3.22.0-0ubuntu3"}]
    assert workflow.pinned_packages("sudo apt-get update -qq && sudo apt-get install -y a=1 b=2:3~x") == {
        "a": "1",
        "b": "2:3~x",
    }
    for script in ("sudo apt-get install -y a=1", "sudo apt-get update && sudo apt-get install a", "apt-get install"):
        assert workflow.pinned_packages(script) is None, script
    assert workflow.installed_version("eqxb-no-such-package") is None


def test_the_command_refuses_an_unknown_action_before_any_night(tmp_path):
    path = write_workflow(tmp_path, lambda d: d["jobs"]["run"]["steps"].insert(1, {"uses": "docker/login@v3"}))
    upstream = tmp_path / "upstream"
    git(tmp_path, "init", "-q", "-b", "main", upstream)
    git(upstream, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    result = subprocess.run(
        [*tool("replay"), "main", "--upstream", str(upstream)]
        + ["--output", str(tmp_path / "out"), "--workflow", str(path), "--no-docs"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 3, result.stderr
    assert "docker/login@v3, an action the replay cannot run" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "nights").exists()


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("inputs.range || 'NEW'", "NEW"),
        ("inputs.quick && 'yes' || ''", ""),
        ("!cancelled() && !inputs.quick && needs.store.result == 'success'", True),
        ("!cancelled() && !inputs.quick && needs.store.result == 'SUCCESS'", True),
        ("needs.store.result != 'success' || inputs.quick", None),  # ||'s value is an operand's
        ("(failure() || success()) && 'it''s'", "it's"),
        ("steps.python313.outputs.python-path", "/x/python3.13"),
        ("steps.absent.outputs.python-path", None),
        ("runner.temp", "/tmp/t"),
    ],
)
def test_the_expressions_the_workflows_use(expression, expected):
    context = {
        "inputs": {},
        "needs": {"store": {"result": "success"}},
        "steps": {"python313": {"outputs": {"python-path": "/x/python3.13"}}},
        "runner": {"temp": "/tmp/t"},
        "github": {},
        "env": {},
    }
    assert workflow.evaluate(expression, context, {"success": True, "failure": False}) == expected


def test_substitution_and_conditions():
    context = {"inputs": {"quick": True}, "runner": {"temp": "/t"}, "env": {}, "github": {"token": "x"}}
    assert workflow.substitute("${{ runner.temp }}/nightly/results", context) == "/t/nightly/results"
    assert workflow.substitute("${{ inputs.quick && 'yes' || '' }}", context) == "yes"
    assert workflow.condition(None, context, {"success": False, "failure": True}) is False  # default: success()
    assert workflow.condition("${{ !cancelled() }}", context, {"success": False, "failure": True}) is True
    with pytest.raises(workflow.Unmappable, match="github.sha"):
        workflow.substitute("${{ github.sha }}", context)


def test_the_runner_has_no_python_but_its_own(tmp_path):
    folder = jobs.make_runner_bin(tmp_path / "bin", None)
    names = {p.name for p in folder.iterdir()}
    assert "git" in names and "bash" in names
    assert not {n for n in names if jobs.PYTHONISH.fullmatch(n)} - {"python3"}
    stub = subprocess.run([str(folder / "python3"), "-c", "pass"], capture_output=True, text=True)
    assert stub.returncode == 3 and "3.12" in stub.stderr
    found = subprocess.run(
        ["bash", "-c", "command -v python3.11 || echo none"],
        capture_output=True,
        text=True,
        env={"PATH": str(folder)},
    )
    assert found.stdout.strip() == "none"


def test_the_issue_action_is_read_from_the_requests_the_alert_made():
    ran = jobs.JobRun("success")
    issue = {"number": 1, "state": "open", "updated_at": "1", "labels": ["x"], "body": "", "title": "t"}
    state = {"issues": [issue]}
    get = {"method": "GET", "path": "/repos/o/r/issues"}
    assert replay.issue_action([], {"issues": []}, ran) == "none"
    assert replay.issue_action([get, {"method": "POST", "path": "/repos/o/r/issues"}], state, ran) == "opened #1"
    patch = {"method": "PATCH", "path": "/repos/o/r/issues/1"}
    assert replay.issue_action([get, patch], state, ran) == "updated #1"
    reopen = dict(patch, body={"body": "b", "state": "open"})
    assert replay.issue_action([get, reopen], state, ran) == "reopened #1"
    comment = {"method": "POST", "path": "/repos/o/r/issues/1/comments"}
    assert replay.issue_action([get, comment], state, ran) == "commented on #1"
    assert replay.issue_action([get], state, ran) == "kept #1"
    assert replay.issue_action([get], {"issues": [dict(issue, state="closed")]}, ran) == "kept (closed #1)"
    assert replay.issue_action([], state, jobs.JobRun("skipped")) == "alert skipped"
    assert replay.issue_action([get], state, jobs.JobRun("failure", exit=3)) == "alert failed (exit 3)"


def test_the_table_goes_between_its_markers_and_nothing_else_changes(tmp_path):
    page = tmp_path / "replay.md"
    page.write_text(
        "# Replay\n\nkept\n\n<!-- replay-table:a..b:start -->\nold\n<!-- replay-table:a..b:end -->\n\nafter\n"
    )
    record = {
        "range": "a..b",
        "source": "/x/up.git",
        "by": "2 commit(s)",
        "base": True,
        "workflow": "/x/nightly.yml",
        "jobs": ["run", "alert"],
        "project": {"head": "0123456789", "checkout": "worktree", "changed": []},
        "nightly_extras": ["--upstream", "u", "--env-dir", "e", "--bench", "X"],
        "runner_python": "Python 3.12.1",
        "started": "s",
        "nights": [
            {
                "night": "1",
                "dates": ["2026-05-01T00:00:00+00:00", "2026-05-02T00:00:00+00:00"],
                "commits": [
                    {"name": "v1", "state": "benchmarked"},
                    {"name": "abcdef12", "state": "failed"},
                ],
                "verdict": {"summary": "no regression counts", "counted": [], "suspects": []},
                "issue": "none",
                "jobs": {"run": {"result": "failure", "exit": 1, "seconds": 75}, "alert": {"result": "skipped"}},
                "seconds": 80,
            }
        ],
    }
    replay.write_table(page, "a..b", record)
    text = page.read_text()
    assert text.startswith("# Replay\n\nkept\n\n") and text.endswith("\n\nafter\n") and "old" not in text
    row = markdown_rows(text)["1"]
    assert row[:7] == ["1", "2 (2026-05-01 to 2026-05-02)", "`v1`", "–", "–", "`abcdef12`", "no regression counts"]
    assert row[-3:] == ["**failed** (exit 1, 1m15s)", "skipped", "1m20s"]
    replay.write_table(page, "c..d", record)
    assert page.read_text().count("replay-table:c..d:start") == 1


def test_the_table_names_each_change_with_its_params_and_lists_the_large_improvements_beside_what_counted():
    """Issue 37, item 13: a reversal counts on its night as a large improvement, which the record keeps and the
    table shows; an instruction count's benchmark is one per operation, so the params name which."""
    rise = {"benchmark": "bench_instructions.Instructions.track_module", "params": "'construct(default)'"}
    verdict = {
        "status": "judged",
        "summary": "no regression counts",
        "counted": [],
        "improvements": [dict(rise, environment="e", change=-0.125, good="a" * 40, bad="b" * 40, unit="", cause=None)],
        "suspects": [],
    }
    summary = replay.verdict_summary(verdict)
    assert summary["improvements"] == [
        dict(rise, environment="e", change=-0.125, good="a" * 40, bad="b" * 40, cause=None)
    ]
    record = {
        "range": "a..b",
        "source": "/x/up.git",
        "by": "1 commit(s)",
        "base": False,
        "workflow": "/x/nightly.yml",
        "jobs": ["alert"],
        "project": {"head": "0123456789", "checkout": "HEAD", "changed": []},
        "nightly_extras": [],
        "runner_python": "Python 3.12.1",
        "started": "s",
        "nights": [
            {
                "night": "4",
                "dates": ["2024-02-26T12:00:00+00:00"],
                "commits": [{"name": "bbbbbbbb", "state": "benchmarked"}],
                "verdict": summary,
                "issue": "kept #1",
                "jobs": {"alert": {"result": "success", "seconds": 5}},
                "seconds": 5,
            }
        ],
    }
    assert (
        "| no regression counts | – | bench_instructions.Instructions.track_module('construct(default)') -12.5% at "
        "`bbbbbbbb` | – | kept #1 |" in replay.table(record)
    )


def test_a_missing_upstream_or_a_used_output_is_bad_input(tmp_path):
    result = subprocess.run(
        [*tool("replay"), "a..b", "--upstream", str(tmp_path), "--output", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "not a git repository" in result.stderr


def test_a_job_without_setup_python_fails_the_replay_as_it_fails_on_ubuntu_latest(tmp_path):
    """The runner's python3 (3.12 here, or a stub that says there is none) is one scripts/setup refuses."""
    workflow = tmp_path / "nightly.yml"
    checkout = {
        "uses": "actions/checkout@93cb6efe18208431cddfb8368fd83d5badbf9bfd",
        "with": {"persist-credentials": False},
    }
    workflow.write_text(
        yaml.safe_dump(
            {
                "on": {"schedule": [{"cron": "17 3 * * *"}]},
                "jobs": {
                    "store": {"runs-on": "ubuntu-latest", "steps": [checkout, {"run": "scripts/setup"}]},
                    "alert": {"needs": "store", "runs-on": "ubuntu-latest", "steps": [{"run": "true"}]},
                },
            }
        )
    )
    upstream = tmp_path / "upstream"
    git(tmp_path, "init", "-q", "-b", "main", upstream)
    git(upstream, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    output = tmp_path / "out"
    result = subprocess.run(
        [*tool("replay"), "main", "--upstream", str(upstream), "--output", str(output)]
        + ["--workflow", str(workflow), "--no-docs", "--no-base", "--checkout", "HEAD"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    [night] = json.loads((output / "replay.json").read_text())["nights"]
    assert night["jobs"]["store"]["result"] == "failure" and night["jobs"]["store"]["exit"] in (2, 3)
    assert night["jobs"]["alert"]["result"] == "skipped"  # needs store, which failed
    log = (output / "nights" / "000" / "store" / "log.txt").read_text()
    assert "is not Python 3.11" in log or "3.12" in log


def test_sigterm_stops_the_replay_and_the_step_it_was_running(tmp_path):
    import os
    import signal
    import time

    pid_file = tmp_path / "step.pid"
    workflow = tmp_path / "nightly.yml"
    step = {"run": f"echo $$ > {pid_file}; sleep 600"}
    workflow.write_text(
        yaml.safe_dump(
            {
                "on": {"schedule": [{"cron": "17 3 * * *"}]},
                "jobs": {"run": {"runs-on": "ubuntu-latest", "steps": [step]}},
            }
        )
    )
    upstream = tmp_path / "upstream"
    git(tmp_path, "init", "-q", "-b", "main", upstream)
    git(upstream, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    replaying = subprocess.Popen(
        [
            *tool("replay"),
            "main",
            "--upstream",
            str(upstream),
            "--output",
            str(tmp_path / "out"),
        ]
        + ["--workflow", str(workflow), "--no-docs", "--no-base", "--checkout", "HEAD"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not (pid_file.is_file() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    step_pid = int(pid_file.read_text())
    replaying.send_signal(signal.SIGTERM)
    assert replaying.wait(timeout=60) == 128 + signal.SIGTERM
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # the step's shell (and its sleep) went with the replay
        os.kill(step_pid, 0)


# c14a7d3d (2024-02-21) raised construction's instructions; its revert, pushed by a maintainer the night after
# (the same hash every time).  docs/replay.md's campaign has a quiet night between the two; the revert's night is
# a quiet one for the issue too, and this test spares that night's minutes.
RISE, REVERT = "c14a7d3da7405f51045af79feb70a0061813eb70", "dc122554426feb43bf6e51f15fe5af4401b65412"
CONSTRUCTION = r"bench_instructions\.Instructions\.track_module\('construct\(default\)'\)"
MAINTAINER = {"NAME": "maintainer", "EMAIL": "maintainer@example.invalid", "DATE": "2024-02-26T12:00:00Z"}


def revert_pushed_later(upstream: Path, folder: Path) -> str:
    """UPSTREAM's branch revert-c14a7d3: the rise's revert committed by a maintainer on top of it."""
    git(upstream, "worktree", "add", "--detach", folder, RISE)
    env = os.environ | {
        f"GIT_{who}_{key}": value for who in ("AUTHOR", "COMMITTER") for key, value in MAINTAINER.items()
    }
    git(folder, "revert", "--no-edit", RISE, env=env)
    revert = git(folder, "rev-parse", "HEAD")
    git(upstream, "branch", "revert-c14a7d3", revert)
    return revert


def changed(rows: list[dict]) -> list[tuple]:
    """What a verdict's rows count, without their wording: benchmark, params, environment and commits."""
    return sorted((c["benchmark"], c["params"], c["environment"], c["good"], c["bad"]) for c in rows)


@pytest.mark.history
@pytest.mark.slow(minutes=10, group=ASV_SIDE_ENVS)
@NEEDS_BUNDLE
def test_an_instruction_rise_opens_its_issue_on_its_night_and_its_revert_counts_on_its_own(tmp_path, asv_env_dir):
    """Issue 37, item 13: the instruction kind through every job of nightly.yml on real history, night by night.
    The rise opens the issue on its night, under the key of what counted; the revert's fall is a large improvement
    on its night, placed at the revert, and leaves the issue as the rise's night opened it."""
    upstream = bundle_clone(tmp_path)
    assert revert_pushed_later(upstream, tmp_path / "revert") == REVERT
    page = tmp_path / "replay.md"
    result, record = real_replay(
        f"{RISE}^..revert-c14a7d3",
        upstream,
        tmp_path / "out",
        # One operation's Module twin (asv's regex over a parameter): the rise that this test follows, and its revert,
        # are the Module's; one rise is one operation's time to re-measure, where the whole benchmark's six rises
        # were four (a minute each).
        *("--per-night", 1, "--bench", CONSTRUCTION, "--env-dir", asv_env_dir),
        *("--docs", page),
        # The fewest pairs a look takes: each rise's time is re-measured, not for as long as a night would.
        *("--confirm-max-pairs", pairs.START_PAIRS, "--table", "test"),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert record["jobs"] == [job.name for job in workflow.read_workflow(NIGHTLY).jobs]
    assert record["nightly_extras"][-2:] == ["--confirm-max-pairs", str(pairs.START_PAIRS)]
    base, rise, revert = record["nights"]
    assert base["night"] == "base" and base["tip"] == git(upstream, "rev-parse", f"{RISE}^")
    assert [c["commit"] for c in rise["commits"] + revert["commits"]] == [RISE, REVERT]
    for night in record["nights"]:
        # The publish job's re-judgement, where no upstream code ran, counts what the run job counted.
        assert night["verdict"]["status"] == night["exact_verdict"]["status"] == "judged", night
        assert changed(night["exact_verdict"]["counted"]) == changed(night["verdict"]["counted"])
        assert {name: job["result"] for name, job in night["jobs"].items()} == dict.fromkeys(record["jobs"], "success")
    assert not base["verdict"]["counted"] and base["issue"] == "none"
    counted = rise["verdict"]["counted"]
    assert counted and {(c["benchmark"], c["bad"]) for c in counted} == {
        ("bench_instructions.Instructions.track_module", RISE)
    }
    assert all(c["change"] > 0 for c in counted) and rise["issue"] == "opened #1"
    # The rise counted once its operation's time, re-measured side by side, was not decided faster.
    assert [s["benchmark"] for s in rise["verdict"]["suspects"]] == [
        "bench_construct.ConstructionInTreeMapPasses.track_module"
    ]
    [opened] = record["issues"]
    assert issue.split_body(opened["body"])[1] == issue.regression_key({"status": "judged", "counted": counted})
    # A night that counts nothing asks GitHub nothing: the issue stays open as the rise's night opened it.
    assert not revert["verdict"]["counted"] and revert["issue"] == "none" and opened["state"] == "open"
    # Undone, each rise is the same fall: a large improvement (10% or more) wherever the rise was 1 / 0.9 - 1.
    fallen = {(c["benchmark"], c["params"]): c for c in revert["verdict"]["improvements"] if c["bad"] == REVERT}
    large = {(c["benchmark"], c["params"]) for c in counted if c["change"] >= 1 / 0.9 - 1}
    assert large and large <= fallen.keys() and all(c["change"] <= -0.1 for c in fallen.values())
    assert changed(revert["exact_verdict"]["improvements"]) == changed(revert["verdict"]["improvements"])
    # What the deploy and store jobs made: the site, the docs table's rows, the results on the replay's remote.
    assert (tmp_path / "out" / "pages" / "index.html").is_file()
    assert markdown_rows(page.read_text())["base"][1].startswith("1 (")
    remote = tmp_path / "out" / "github" / jobs.REPOSITORY
    assert revert["tip"][:8] in git(Path(f"{remote}.git"), "ls-tree", "-r", "--name-only", "results")


def test_every_day_is_a_night_days_without_a_commit_included():
    commits = [commit("a", "2026-04-09T10:00:00+00:00"), commit("b", "2026-04-09T12:00:00+00:00")]
    commits.append(commit("c", "2026-04-12T01:00:00+00:00"))
    days = replay.split_nights(commits, every_day=True)
    assert [(day, [c.hash for c in listed]) for day, listed in days] == [
        ("2026-04-09", ["a", "b"]),
        ("2026-04-10", []),
        ("2026-04-11", []),
        ("2026-04-12", ["c"]),
    ]


def test_a_seasons_events_act_on_the_stand_in_and_its_goals_are_read_from_the_record(tmp_path):
    from benchtools.errors import BadInput
    from benchtools.publishing import github, issue
    from benchtools.running import season

    bad = tmp_path / "events.json"
    bad.write_text('{"2026-04-10": ["close", "dance"]}')
    with pytest.raises(BadInput, match="'dance' is no event"):
        season.read_events(bad)
    failure = {"schema": 1, "status": "failed", "regression": False, "summary": "x", "stage": "s", "exit": 3}
    body = issue.issue_body({**failure, "message": "m"}, "No report")
    with github.StandIn(repos=["o/r"]) as api:
        state = api.state()
        state["issues"] = [
            {"number": 1, "title": "t", "body": body, "labels": ["benchmark-regression"], "state": "open"}
            | {"updated_at": "1", "comments": []}
        ]
        api.save(state)
        assert season.apply(api, ["502", "maintainer-issue", "clear", "reopen"]) == [
            "502",
            "maintainer-issue",
            "clear",
            "reopen: nothing to act on",
        ]
        after = api.state()
        assert after["failures"] == [[502, "Bad Gateway"]] and after["issues"][0]["body"] is None
        assert after["issues"][1]["user"] == season.MAINTAINER
        snap = season.snapshot(after)
    ran = {"result": "success"}
    quiet = {"status": "judged", "counted": []}
    night = {"night": "n", "issue": "opened #1", "verdict": quiet, "jobs": {"run": ran, "alert": ran}}
    overwritten = [dict(i, body="mine") if i["user"] == season.MAINTAINER else i for i in snap]
    record = {"nights": [dict(night, issues_after=snap), dict(night, issue="updated #1", issues_after=snap)]}
    record["nights"].append(dict(night, issue="none", issues_after=overwritten))
    assert season.problems(record) == [
        "night n: opened an issue that names no change",
        "night n: edited #1 without a change in its report",
        "night n: the maintainer's issue #2 was overwritten",
    ]


def test_a_runner_python_event_gives_setup_python_that_patch_release_and_asv_its_own_environments(tmp_path):
    """Issue 37, item 14: a night whose runner image changed, its Python patch release with it, is a season's
    event (python-X.Y.Z); from that night on setup-python gives that release, and asv's environments are made
    with it rather than taken from the nights before, as a fresh runner makes them."""
    import io
    from types import SimpleNamespace

    from benchtools.errors import BadInput
    from benchtools.running import season

    events = tmp_path / "events.json"
    events.write_text('{"2026-04-10": ["python-3.11.2", "close"]}')
    assert season.runner_python(season.read_events(events)["2026-04-10"]) == "3.11.2"
    events.write_text('{"2026-04-10": ["python-3.11"]}')
    with pytest.raises(BadInput, match="'python-3.11' is no event"):
        season.read_events(events)
    if workflow.find_python("3.11.2") is None:
        pytest.skip("this machine has no Python 3.11.2 (Debian 12's /usr/bin/python3.11)")
    options = SimpleNamespace(
        env_dir=tmp_path / "asv-env", output=tmp_path / "out", bench=[], jax=[], confirm_max_pairs=None
    )
    machine = jobs.Replay(options, api=None)
    machine.runner_patch = "3.11.2"
    context = {"runner": {"path": "/bin"}, "steps": {}}
    workspace = tmp_path / "job" / "workspace"
    step = SimpleNamespace(index=1, id="python")
    machine.step_setup_python({"python-version": "3.11"}, step, context, workspace, {}, io.StringIO())
    python = context["steps"]["python"]["outputs"]["python-path"]
    ran = subprocess.run([workspace.parent / "python-1" / "bin" / "python3.11", "-V"], capture_output=True, text=True)
    assert ran.stdout.strip() == "Python 3.11.2" and workflow.python_version(python)[1] == "3.11.2"
    extras = jobs.nightly_extras(options, tmp_path / "upstream.git", machine.runner_patch)
    assert extras[extras.index("--env-dir") + 1] == str(tmp_path / "asv-env-python-3.11.2")
