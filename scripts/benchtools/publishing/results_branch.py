"""The results branch: results folders merged without overwriting any result, and pushed."""

import base64
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .. import git, util
from ..asvtools import validate
from ..errors import BadInput, Failed
from ..project import ROOT

RESULTS_BRANCH = "results"  # the default branch that holds the results
METADATA = ("machine.json", "benchmarks.json")
# Results commits are made by the workflow, not by whoever runs it.
IDENTITY = {
    "GIT_AUTHOR_NAME": "equinox-benchmarks",
    "GIT_AUTHOR_EMAIL": "equinox-benchmarks@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "equinox-benchmarks",
    "GIT_COMMITTER_EMAIL": "equinox-benchmarks@users.noreply.github.com",
}


def source_files(source: Path):
    """Everything below SOURCE but folders, relative paths sorted; hidden and temporary files left out.

    Links and other non-files are listed too, so that validation refuses them
    rather than leaving them out unsaid.
    """
    found = []
    for folder, folders, files in os.walk(source, followlinks=False):
        folders[:] = [name for name in folders if not name.startswith(".")]
        links = [name for name in folders if os.path.islink(os.path.join(folder, name))]
        for name in files + links:
            if not name.startswith("."):
                found.append((Path(folder) / name).relative_to(source))
    yield from sorted(found)


def merge(
    sources: list[Path], dest: Path, benchmarks_from_sources: bool, take_benchmarks: bool = True
) -> dict[str, list]:
    """Merge (see MERGE_DOC); without TAKE_BENCHMARKS, the sources' benchmarks.json are checked, then left out."""
    outcome = {"copied": [], "identical": [], "conflict": [], "metadata kept": []}
    # All or nothing: every file of every source is checked (validate.stored_file) before any is written.
    incoming = [
        (relative, validate.stored_file(source / relative, relative))
        for source in sources
        for relative in source_files(source)
    ]
    # DEST's benchmarks.json files as they were, so that a source holding that
    # same old copy does not undo another source's newer one.
    originals = {}
    for relative, data in incoming:
        target = dest / relative
        if relative.name == "benchmarks.json" and not take_benchmarks:
            outcome.setdefault("benchmarks.json left out", []).append(relative)
        elif target.exists() and target.read_bytes() == data:
            outcome["identical"].append(relative)
        elif relative.name == "benchmarks.json" and benchmarks_from_sources:
            original = originals.setdefault(relative, target.read_bytes() if target.exists() else None)
            if data != original:
                util.write_atomic(target, data)
            outcome["copied" if data != original else "metadata kept"].append(relative)
        elif not target.exists() and util.write_atomic(target, data, replace=False):
            outcome["copied"].append(relative)
        elif relative.name in METADATA:
            outcome["metadata kept"].append(relative)
        else:
            outcome["conflict"].append(relative)
    return outcome


def merge_and_report(
    sources: list[Path], dest: Path, benchmarks_from_sources: bool, take_benchmarks: bool = True
) -> bool:
    """Merge, say what happened, and whether a conflict was reported; BadInput, writing nothing, for an invalid file."""
    dest.mkdir(parents=True, exist_ok=True)
    outcome = merge(sources, dest, benchmarks_from_sources, take_benchmarks)
    for path in outcome["conflict"]:
        print(f"conflict: {dest / path} differs from a source's copy; kept as it was", file=sys.stderr)
    print(", ".join(f"{len(paths)} {what}" for what, paths in outcome.items()) + f" into {dest}", flush=True)
    return bool(outcome["conflict"])


def git_env() -> dict:
    env = dict(os.environ, **IDENTITY, GIT_TERMINAL_PROMPT="0")
    token = os.environ.get("GITHUB_TOKEN")
    if token:
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update(
            GIT_CONFIG_COUNT="1",
            GIT_CONFIG_KEY_0=f"http.{server}/.extraheader",
            GIT_CONFIG_VALUE_0=f"AUTHORIZATION: basic {basic}",
        )
    return env


def git_(*args, cwd=None, check=True, input=None) -> subprocess.CompletedProcess:
    return git.run(*args, cwd=cwd, env=git_env(), input=input, check=check, error=BadInput)


def default_remote() -> str:
    found = git_("remote", "get-url", "origin", cwd=ROOT, check=False)
    if found.returncode != 0:
        raise BadInput("this project has no origin remote; name the repository with --results-remote")
    return found.stdout.strip()


def branches(remote: str, branch: str) -> subprocess.CompletedProcess:
    """``git ls-remote`` of ``branch`` on ``remote``; BadInput when the remote cannot be reached."""
    listed = git_("ls-remote", "--exit-code", "--heads", git.END, remote, f"refs/heads/{branch}", check=False)
    if listed.returncode not in (0, 2):
        raise BadInput(f"cannot reach the results remote {remote}: {listed.stderr.strip()}")
    return listed


def fetch_branch(clone: Path, remote: str, branch: str) -> str | None:
    """Point the clone at the remote branch's tip and return it; None when the remote has no such branch."""
    if not git.lists_branch(branches(remote, branch).stdout, branch):
        return None
    git_("fetch", "--quiet", "--depth", "1", git.END, remote, f"refs/heads/{branch}", cwd=clone)
    git_("reset", "--quiet", "--hard", "FETCH_HEAD", cwd=clone)
    return git_("rev-parse", "HEAD", cwd=clone).stdout.strip()


def commit_message(clone: Path) -> str:
    added = git_("diff", "--cached", "--name-only", "--diff-filter=A", cwd=clone).stdout.split()
    changed = git_("diff", "--cached", "--name-only", "--diff-filter=M", cwd=clone).stdout.split()
    lines = [f"Add {len(added)} result file(s)", "", *added]
    if changed:
        lines += ["", "Suite description updated:", *changed]
    return "\n".join(lines) + "\n"


def store(args) -> int:
    remote = args.results_remote or default_remote()
    if Path(remote).exists():  # a local path, made absolute since git runs inside the clone
        remote = str(Path(remote).resolve())
    sources = [s.resolve() for s in args.sources]
    with tempfile.TemporaryDirectory(prefix="push-results-") as tmp:
        clone = Path(tmp)
        git_("init", "--quiet", "--initial-branch", args.results_branch, cwd=clone)
        tip = fetch_branch(clone, remote, args.results_branch)
        for attempt in range(1, args.attempts + 1):
            problems = merge_and_report(
                sources, clone / "results", benchmarks_from_sources=False, take_benchmarks=False
            )
            describe_suite(clone / "results")
            git_("add", "--all", "results", cwd=clone)
            if git_("diff", "--cached", "--quiet", cwd=clone, check=False).returncode == 0:
                print(f"Nothing new for {remote} {args.results_branch}")
                return int(problems)
            git_("commit", "--quiet", "--no-verify", "--file", "-", cwd=clone, input=commit_message(clone))
            pushed = git_("push", "--quiet", remote, f"HEAD:refs/heads/{args.results_branch}", cwd=clone, check=False)
            if pushed.returncode == 0:
                print(
                    f"Pushed to {remote} {args.results_branch}: "
                    f"{git_('log', '-1', '--format=%h %s', cwd=clone).stdout.strip()}"
                )
                return int(problems)
            print(f"push attempt {attempt}/{args.attempts} refused: {pushed.stderr.strip()}", file=sys.stderr)
            # Start again from the remote's new tip: the merge only adds files, so redoing it is a rebase.
            # A push refused while the branch stayed put is not a race, and retrying would not help.
            previous, tip = tip, fetch_branch(clone, remote, args.results_branch)
            if tip == previous:
                raise Failed(f"git push to {remote} failed: {pushed.stderr.strip()}")
            if tip is None:
                raise Failed(f"the branch {args.results_branch} vanished from {remote} during the push")
            time.sleep(attempt)
    raise Failed(f"could not push to {remote} {args.results_branch} after {args.attempts} attempts")


def describe_suite(results: Path) -> None:
    """Give each results folder below RESULTS this repository's benchmarks.json (suite.py), never a source's."""
    from ..asvtools import suite

    folders = (
        [f for f in sorted(results.iterdir()) if f.is_dir() and any(p.is_dir() for p in f.iterdir())]
        if results.is_dir()
        else []
    )
    if not folders:
        return
    data = suite.description()
    for folder in folders:
        target = folder / "benchmarks.json"
        if not target.exists() or target.read_bytes() != data:
            util.write_atomic(target, data)
