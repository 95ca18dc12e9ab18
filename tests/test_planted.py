"""A planted commit: upstream code that, imported in the run job, writes wherever it can reach.

A commit on top of v0.13.8 (a local upstream cloned from the bundle) whose
``equinox/__init__.py`` writes, at import, into the run job's checkout (a
quiet verdict and report where the nightly writes them, a file in its
scripts), the results folder (another machine's results, a file asv never
writes) and the site folder, finding them in the environment of the
processes above it, and lists what it reached in a file of the test's own.
Its night is replayed through every job of nightly.yml; what the jobs after
`run` publish must hold nothing it wrote: the Pages site, the results
branch and the issue (docs/automation.md: what upstream code can reach is
its own results' values, and a timing regression's report).
"""

import json
import subprocess
from pathlib import Path

import pytest

from benchtools.running import jobs
from tests.helpers import NEEDS_BUNDLE, bundle_clone, git, real_replay

MARK = "PLANTED-BY-UPSTREAM"
# Appended to equinox/__init__.py; RAN and MARK are replaced. What it can reach it finds as an attacker would: in
# the environment of each process above it (the job's step), which a process of the same user can read.
PAYLOAD = r"""

def _planted():
    import json
    import os
    from pathlib import Path

    found, pid = {}, os.getpid()
    while pid > 1:
        try:
            listed = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            for item in listed:
                name, _, value = item.decode(errors="replace").partition("=")
                found.setdefault(name, value)
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    reached = []

    def put(path, text):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            reached.append(str(path))
        except OSError:
            pass

    quiet = {"schema": 1, "status": "judged", "regression": False, "summary": "no regression counts MARK"}
    if found.get("GITHUB_WORKSPACE"):
        workspace = Path(found["GITHUB_WORKSPACE"])
        put(workspace / "verdict.json", json.dumps(quiet))
        put(workspace / "regressions.md", "# Benchmark regressions\n\nNo regression counts. MARK\n")
        put(workspace / "scripts" / "benchtools" / "MARK.py", "MARK")
    if found.get("RUNNER_TEMP"):
        nightly = Path(found["RUNNER_TEMP"]) / "nightly"
        put(nightly / "html" / "MARK.html", "MARK")
        put(nightly / "results" / "MARK.txt", "MARK")
        for folder in (nightly / "results").glob("*/github-actions"):
            for result in folder.glob("*-*.json"):
                forged = result.read_text().replace("github-actions", "elsewhere")
                put(folder.parent / "elsewhere" / result.name, forged)
    Path("RAN").write_text(json.dumps(reached))


try:
    _planted()
except Exception:
    pass
"""


def texts(folder: Path):
    for path in folder.rglob("*"):
        if path.is_file():
            yield path, path.read_bytes()


@pytest.mark.slow(minutes=2)
@NEEDS_BUNDLE
def test_a_planted_commit_reaches_nothing_the_jobs_after_run_publish(tmp_path):
    upstream = bundle_clone(tmp_path)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(upstream), str(work))
    git(work, "checkout", "-q", "-B", "main", "v0.13.8")
    ran = tmp_path / "planted-ran"
    init = work / "equinox" / "__init__.py"
    init.write_text(init.read_text() + PAYLOAD.replace("RAN", str(ran)).replace("MARK", MARK))
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "A planted commit")
    git(work, "push", "-q", "--force", str(upstream), "main")

    out = tmp_path / "out"
    # Its own asv environments (OUTPUT/asv-env), not the clone's: the planted Equinox is installed in them.
    result, record = real_replay("v0.13.8..main", upstream, out, "--per-night", 1, "--no-docs")
    # It ran, and reached the run job's checkout and results folder: else the test would prove nothing.
    reached = json.loads(ran.read_text())
    assert any(p.endswith(f"results/{MARK}.txt") for p in reached), reached
    assert any(p.endswith("verdict.json") for p in reached), reached
    base, planted = record["nights"]
    assert base["verdict"]["status"] == "judged" and MARK not in json.dumps(base)
    # The run job's results hold another machine's folder: the store job refuses the whole push, loudly, and the
    # alert tells the night as a failure (no re-judgement where no upstream code ran), never a quiet one.
    assert planted["jobs"]["store"]["result"] == "failure", result.stderr[-3000:]
    assert planted["verdict"]["status"] in ("judged", "failed")
    [issue] = record["issues"]
    assert "could not make a regression report" in issue["body"] and MARK not in issue["body"]
    # Nothing it wrote is on the results branch, in the site Pages deployed, or in any issue.
    remote = Path(f"{out / 'github' / jobs.REPOSITORY}.git")
    stored = git(remote, "ls-tree", "-r", "--name-only", "results").split()
    assert not any(MARK in name or "/elsewhere/" in name for name in stored)
    planted_commit = git(upstream, "rev-parse", "main")
    assert not any(planted_commit[:8] in name for name in stored)
    for name in stored:
        assert (
            MARK.encode()
            not in subprocess.run(
                ["git", "-C", str(remote), "show", f"results:{name}"], capture_output=True, check=True
            ).stdout
        )
    assert not [path for path, data in texts(out / "pages") if MARK.encode() in data]
    assert all(MARK not in i["body"] for i in record["issues"])
