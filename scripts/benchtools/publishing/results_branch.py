"""The results branch: results folders merged without overwriting any result, and pushed."""

import base64
import os
import random
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePath

from .. import git, util
from ..asvtools import environments, publishable, suite
from ..errors import BadInput, Failed
from ..project import JAX_CONFIG, ROOT, UPSTREAM_CONFIG

RESULTS_BRANCH = "results"  # the default branch that holds the results
METADATA = ("machine.json", "benchmarks.json")
IDENTITY = {
    f"GIT_{who}_{what}": value
    for who in ("AUTHOR", "COMMITTER")
    for what, value in (("NAME", "equinox-benchmarks"), ("EMAIL", "equinox-benchmarks@users.noreply.github.com"))
}


def source_files(source: Path) -> list[Path]:
    """Everything below SOURCE but folders and hidden files: links to folders too, so that validation refuses them."""
    found = (p.relative_to(source) for p in source.rglob("*") if p.is_symlink() or not p.is_dir())
    return sorted(path for path in found if not any(part.startswith(".") for part in path.parts))


def merge(sources: list[Path], dest: Path, benchmarks: str = "dest", suite=None, matrix=None, machine=None) -> bool:
    """Merge (scripts/merge-results --help), everything checked before it is written at once; whether it conflicted."""
    incoming = []
    for source in sources:
        for relative in source_files(source):
            path = plain_place(source, relative, "so not stored (nor anything below it)")
            if machine is not None and publishable.kind_of(relative) != "benchmarks" and relative.parts[-2] != machine:
                raise BadInput(f"{path}: machine {relative.parts[-2]!r}, not {machine!r} (--machine); nothing pushed")
            try:
                incoming.append((relative, publishable.stored_file(path, relative, suite=suite, matrix=matrix)))
            except OSError as error:
                raise BadInput(f"{path}: cannot be read ({error.strerror or error}), so not stored") from None
            plain_place(dest, relative, f"where a source's {relative} would go; nothing merged")
    outcome = {"copied": [], "identical": [], "conflict": [], "metadata kept": []}
    # DEST's benchmarks.json as they were: a source holding that old copy does not undo another's newer one.
    originals = {}
    planned: dict[Path, tuple[bytes, bool, PurePath]] = {}
    for relative, data in incoming:
        target = dest / relative
        held = planned[target][0] if target in planned else read_dest(target)
        suite_file = relative.name == "benchmarks.json"
        if suite_file and benchmarks == "left out":
            what = "benchmarks.json left out"
        elif held == data:
            what = "identical"
        elif suite_file and benchmarks == "sources":
            newer = data != originals.setdefault(relative, read_dest(target))
            if newer:
                planned[target] = (data, True, relative)
            what = "copied" if newer else "metadata kept"
        elif held is None:
            planned[target] = (data, False, relative)
            continue
        else:
            what = "metadata kept" if relative.name in METADATA else "conflict"
        outcome.setdefault(what, []).append(relative)
    placed = util.write_all((target, data, replace) for target, (data, replace, _) in planned.items())
    for (_, replace, relative), written in zip(planned.values(), placed, strict=True):
        if not replace:  # a file that appeared in DEST meanwhile is kept, never replaced
            kept = "metadata kept" if relative.name in METADATA else "conflict"
            outcome["copied" if written else kept].append(relative)
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise Failed(f"cannot create {dest}: {error.strerror}") from None
    for path in outcome["conflict"]:
        print(f"conflict: {dest / path} differs from a source's copy; kept as it was", file=sys.stderr)
    print(", ".join(f"{len(paths)} {what}" for what, paths in outcome.items()) + f" into {dest}", flush=True)
    return bool(outcome["conflict"])


def plain_place(base: Path, relative: PurePath, refused: str) -> Path:
    """BASE/RELATIVE, once no part of it that exists is a link (it could point anywhere) or other than plain."""
    for depth in range(1, len(relative.parts) + 1):
        path = base.joinpath(*relative.parts[:depth])
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            break
        except OSError as error:
            raise Failed(f"cannot read {path}: {error.strerror}") from None
        last = depth == len(relative.parts)
        if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) if last else stat.S_ISDIR(mode)):
            what = "a link" if stat.S_ISLNK(mode) else "something else"
            raise BadInput(f"{path}: {what}, not a plain {'file' if last else 'folder'}, {refused}")
    return base / relative


def read_dest(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Failed(f"cannot read {target}: {error.strerror}; nothing merged") from None


def git_(*args, cwd=None, check=True, input=None) -> subprocess.CompletedProcess:
    """git ARGS as the workflow, GITHUB_TOKEN in git's Authorization header where set."""
    env = dict(os.environ, **IDENTITY, GIT_TERMINAL_PROMPT="0")
    if token := os.environ.get("GITHUB_TOKEN"):
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        header = "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"http.{server}/.extraheader", GIT_CONFIG_VALUE_0=header)
    done = git.run(*args, cwd=cwd, env=env, input=input, check=False)
    if check and done.returncode != 0:
        raise Failed(f"git {' '.join(map(str, args))} failed: {reason(done.stderr)}")
    return done


# What git says of a remote that is not there at all (bad input), not one that could not be reached (a failure).
NO_SUCH_REMOTE = ("does not appear to be a git repository", "Repository not found", "not found")


def default_remote() -> str:
    found = git_("remote", "get-url", "origin", cwd=ROOT, check=False)
    if found.returncode != 0:
        raise BadInput("this project has no origin remote; name the repository with --results-remote")
    return found.stdout.strip()


def reason(stderr: str) -> str:
    """The first line of git's STDERR that says something."""
    for line in stderr.splitlines():
        line = " ".join(line.split())
        if line and not line.startswith(("hint:", "To ")):
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return "no reason given"


def branches(remote: str, branch: str) -> subprocess.CompletedProcess:
    listed = git_("ls-remote", "--exit-code", "--heads", git.END, remote, f"refs/heads/{branch}", check=False)
    if listed.returncode not in (0, 2):
        error = BadInput if any(words in listed.stderr for words in NO_SUCH_REMOTE) else Failed
        raise error(f"cannot reach the results remote {remote}: {reason(listed.stderr)}")
    return listed


PLAIN_MODES = {"100644", "100755"}
WHAT = {"120000": "a link", "160000": "a submodule"}


def fetch_branch(clone: Path, remote: str, branch: str) -> str | None:
    """The clone at the remote branch's tip, its hash, or None; plain files only, the tree checked before checkout."""
    # ls-remote prints any ref that ends in BRANCH (refs/heads/old/BRANCH).
    if f"refs/heads/{branch}" not in (line.split("\t")[-1] for line in branches(remote, branch).stdout.splitlines()):
        return None
    git_("fetch", "--quiet", "--depth", "1", git.END, remote, f"refs/heads/{branch}", cwd=clone)
    for entry in filter(None, git_("ls-tree", "-r", "-z", "--full-tree", "FETCH_HEAD", cwd=clone).stdout.split("\0")):
        mode, path = entry.split(" ", 1)[0], entry.split("\t", 1)[1]
        if mode not in PLAIN_MODES:
            what = f"{path}, {WHAT.get(mode, f'mode {mode}')}, not a plain file; nothing pushed"
            raise BadInput(
                f"the results branch {branch} of {remote} holds {what} (a results branch holds plain files only)"
            )
    git_("reset", "--quiet", "--hard", "FETCH_HEAD", cwd=clone)
    return git_("rev-parse", "HEAD", cwd=clone).stdout.strip()


# Names the workflow run that stored a commit's results: the publish job finds tonight's by it.
RUN_TRAILER = "Run"


def commit_message(clone: Path) -> str:
    added = git_("diff", "--cached", "--name-only", "--diff-filter=A", cwd=clone).stdout.split()
    changed = git_("diff", "--cached", "--name-only", "--diff-filter=M", cwd=clone).stdout.split()
    lines = [f"Add {len(added)} result file(s)", "", *added]
    if changed:
        lines += ["", "Suite description updated:", *changed]
    if os.environ.get("GITHUB_RUN_ID"):
        lines += ["", f"{RUN_TRAILER}: {os.environ['GITHUB_RUN_ID']}"]
    return "\n".join(lines) + "\n"


# What a push refused because another run moved the branch says: not a failure.
RACE = ("fetch first", "non-fast-forward", "failed to update ref", "cannot lock ref", "incorrect old value")


def store(args) -> int:
    """Merge the sources into a fresh clone of the branch, commit and push, again on a RACE after a random pause."""
    remote = args.results_remote or default_remote()
    if Path(remote).exists():  # git runs inside the clone
        remote = str(Path(remote).resolve())
    sources = [s.resolve() for s in args.sources]
    description = suite.description()
    matrix = environments.stored_matrix([UPSTREAM_CONFIG, JAX_CONFIG])
    with tempfile.TemporaryDirectory(prefix="push-results-") as tmp:
        clone = Path(tmp)
        results = clone / "results"
        git_("init", "--quiet", "--initial-branch", args.results_branch, cwd=clone)
        tip = fetch_branch(clone, remote, args.results_branch)
        for attempt in range(1, args.attempts + 1):
            problems = merge(
                sources, results, benchmarks="left out", suite=description, matrix=matrix, machine=args.machine
            )
            # Each results folder holds this repository's benchmarks.json, never a source's.
            folders = [f for f in results.iterdir() if f.is_dir() and any(p.is_dir() for p in f.iterdir())]
            stale = [f / "benchmarks.json" for f in sorted(folders) if read_dest(f / "benchmarks.json") != description]
            util.write_all((path, description, True) for path in stale)
            git_("add", "--all", "results", cwd=clone)
            if git_("diff", "--cached", "--quiet", cwd=clone, check=False).returncode == 0:
                print(f"Nothing new for {remote} {args.results_branch}")
                return int(problems)
            git_("commit", "--quiet", "--no-verify", "--file", "-", cwd=clone, input=commit_message(clone))
            pushed = git_("push", "--quiet", remote, f"HEAD:refs/heads/{args.results_branch}", cwd=clone, check=False)
            if pushed.returncode == 0:
                told = git_("log", "-1", "--format=%h %s", cwd=clone).stdout.strip()
                print(f"Pushed to {remote} {args.results_branch}: {told}")
                return int(problems)
            why = reason(pushed.stderr)
            print(f"push attempt {attempt}/{args.attempts} refused: {why}", file=sys.stderr, flush=True)
            # The merge only adds files, so redoing it on the new tip is a rebase.
            previous, tip = tip, fetch_branch(clone, remote, args.results_branch)
            if tip is None and previous is not None:
                raise Failed(f"the branch {args.results_branch} vanished from {remote} during the push")
            if tip == previous and not any(words in pushed.stderr for words in RACE):
                raise Failed(f"git push to {remote} failed: {why}")
            if tip is None:  # another run is creating the branch: ours must go, or it would be "nothing new"
                git_("update-ref", "-d", "HEAD", cwd=clone)
                git_("read-tree", "--empty", cwd=clone)
            if attempt < args.attempts:
                time.sleep(random.uniform(0, min(2.0, 0.1 * 2**attempt)))
    refused = f"{args.attempts} pushes refused, each while another run pushed"
    raise Failed(f"could not push to {remote} {args.results_branch}: {refused}")
