"""The one way the commands run git: errors become ``cli.Error``, never a traceback.

Revisions, remotes and other values that come from the user go after
``--end-of-options`` (``END``), so that a value that starts with a dash is
never read as an option.
"""

import os
import subprocess
from pathlib import Path

from .cli import Error, Failed

END = "--end-of-options"


def run(*args, repo: Path | str | None = None, cwd: Path | None = None, env: dict | None = None,
        input: str | None = None, stdin=None, check: bool = True,
        error: type[Error] = Failed) -> subprocess.CompletedProcess:
    """``git [-C repo] ARGS`` (run in ``cwd``), text in and out; with ``check``, a non-zero exit raises ``error``."""
    command = ["git", *(["-C", str(repo)] if repo is not None else []), *map(str, args)]
    result = subprocess.run(command, cwd=cwd, env=env if env is not None else dict(os.environ, GIT_TERMINAL_PROMPT="0"),
                            input=input, stdin=stdin, capture_output=True, text=True)
    if check and result.returncode != 0:
        where = f" in {repo or cwd}" if (repo or cwd) is not None else ""
        raise error(f"git {' '.join(map(str, args))} failed{where}: {result.stderr.strip()}")
    return result


def out(*args, **kwargs) -> str:
    """What ``git ARGS`` printed (see ``run``)."""
    return run(*args, **kwargs).stdout


def tags(repo: Path) -> dict[str, str]:
    """{commit hash: tag name} of a repository (for a commit with several tags, the last listed)."""
    listing = out("tag", "--format=%(objectname) %(refname:short)", repo=repo, check=False)
    return dict(line.split(" ", 1) for line in listing.splitlines())


def lists_branch(ls_remote_output: str, branch: str) -> bool:
    """Whether ``git ls-remote`` printed refs/heads/BRANCH itself (not, say, refs/heads/old/BRANCH)."""
    return any(line.split("\t")[-1] == f"refs/heads/{branch}" for line in ls_remote_output.splitlines())
