"""The one way the commands run git: errors become ``errors.Error``, never a traceback."""

import datetime
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import BadInput, Error, Failed

END = "--end-of-options"  # before a value from the user, so that one starting with a dash is no option


def isolated_env(name: str, email: str) -> dict[str, str]:
    """os.environ without GIT_* variables or git config, NAME <EMAIL> committing: a repository the caller shapes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for role in ("AUTHOR", "COMMITTER"):
        env.update({f"GIT_{role}_NAME": name, f"GIT_{role}_EMAIL": email})
    return {**env, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def run(
    *args,
    repo: Path | str | None = None,
    cwd: Path | None = None,
    env: dict | None = None,
    input: str | None = None,
    stdin=None,
    check: bool = True,
    error: type[Error] = Failed,
) -> subprocess.CompletedProcess:
    result = subprocess.run(
        ["git", *(["-C", str(repo)] if repo is not None else []), *map(str, args)],
        cwd=cwd,
        env=env if env is not None else dict(os.environ, GIT_TERMINAL_PROMPT="0"),
        input=input,
        stdin=stdin,
        capture_output=True,
        text=True,
    )
    if check and result.returncode != 0:
        where = f" in {repo or cwd}" if (repo or cwd) is not None else ""
        raise error(f"git {' '.join(map(str, args))} failed{where}: {result.stderr.strip()}")
    return result


def out(*args, **kwargs) -> str:
    return run(*args, **kwargs).stdout


def tags(repo: Path, env: dict | None = None) -> dict[str, str]:
    """{tag name: commit hash} of a repository, an annotated tag peeled to its commit; {} where there is none."""
    shown = "--format=%(refname:strip=2) %(objectname) %(*objectname)"
    listing = out("for-each-ref", shown, "refs/tags", repo=repo, env=env, check=False)
    return {name: peeled or target for name, target, peeled in (line.split(" ") for line in listing.splitlines())}


def tag_of_commit(repo: Path) -> dict[str, str]:
    """{commit hash: tag name}; for a commit with several tags, the last in name order."""
    return {commit: name for name, commit in sorted(tags(repo).items())}


def commit_subjects(repo: Path) -> dict[str, tuple[str, str]]:
    """{commit hash: (subject, commit date as YYYY-MM-DD)} of every commit reachable from a ref."""
    listing = out("log", "--all", "--format=%H%x00%s%x00%cs", repo=repo, check=False)
    return {commit: (subject, date) for commit, subject, date in (line.split("\0") for line in listing.splitlines())}


def topological_order(repo: Path) -> dict[str, int]:
    """{commit hash: its position} over every ref, as asv orders a history (a rebased commit predates its parent)."""
    listing = out("rev-list", "--topo-order", "--reverse", "--all", repo=repo, check=False)
    return {commit: position for position, commit in enumerate(listing.split())}


def commit(repo: Path, revision: str) -> str:
    """REVISION's full hash; BadInput where REPO has no such commit."""
    found = run("rev-parse", "--verify", "--quiet", END, f"{revision}^{{commit}}", repo=repo, check=False)
    if found.returncode != 0:
        raise BadInput(f"{revision!r} is no commit of {repo}")
    return found.stdout.strip()


def is_ancestor(repo: Path, ancestor: str, commit: str) -> bool:
    done = run("merge-base", "--is-ancestor", END, ancestor, commit, repo=repo, check=False)
    if done.returncode not in (0, 1):
        raise Failed(f"git merge-base --is-ancestor {ancestor[:8]} {commit[:8]} in {repo}: {done.stderr.strip()}")
    return done.returncode == 0


@dataclass
class Commit:
    hash: str
    date: str  # commit date, UTC, ISO
    subject: str


def first_parent_commits(repo: Path, revisions: str) -> list[Commit]:
    """The first-parent commits of REVISIONS (git's range syntax, split at blanks), oldest first."""
    shown = "--format=%H%x00%ct%x00%s"
    listing = out("log", "--first-parent", "--reverse", shown, END, *revisions.split(), "--", repo=repo, error=BadInput)
    return [
        Commit(hash_, datetime.datetime.fromtimestamp(int(stamp), datetime.UTC).isoformat(timespec="seconds"), subject)
        for hash_, stamp, subject in (line.split("\0", 2) for line in listing.splitlines())
    ]
