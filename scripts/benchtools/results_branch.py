"""The results branch: merge results folders without overwriting any result, and push them.

Two commands: scripts/merge-results (``merge_main``) and scripts/push-results
(``push_main``), whose texts follow.
"""

import base64
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import cli, git, validate
from .cli import BadInput, ExitCode, Failed
from .project import ROOT

MERGE_DOC = """Merge asv results folders into DEST without ever overwriting a result.

Each SRC and DEST is an asv results folder (or a folder of them, such as
results/ holding results/upstream and results/releases); files are matched by
their path below it.  For each file of each SRC, in order:

  DEST lacks it              copied (written to a temporary file, then linked
                             into place, so DEST never holds half a file and a
                             file that appears meanwhile is not replaced)
  same content in DEST       nothing to do
  other content in DEST      a conflict: DEST's copy is kept and reported

A merge is all or nothing: every file of every SRC is checked first, and one
that is not valid stops the merge (exit 2, naming it) before anything is
written.  Valid means what asv's own readers load (asv.results.Results.load
for a results file, asv.util.load_json with asv's format version for
benchmarks.json and machine.json), and more: a results file lies at
[NAME/]MACHINE/<hash8>-<env>.json, its machine is its folder's, its commit
is a full hash that starts with its name, and its environment gives its name;
machine.json names its folder; nothing else (no other file, no link) is
accepted.  Hidden files (names starting with a dot) are left out.

machine.json and benchmarks.json describe the machine and the suite, not a
measurement, so two copies may differ without a conflict: DEST's is kept when
it has one, else the first source's.  With --benchmarks-from-sources, a
source's benchmarks.json that differs from DEST's replaces it instead: asv
rewrites benchmarks.json from the suite on every run, and the site lists only
the benchmarks it names, so a results branch must follow the suite that wrote
its newest results.

Exit status: 0 when everything merged; 1 when a conflict was reported
(everything else is merged); 2 for bad arguments or an invalid file, in
which case nothing is changed.
"""

PUSH_DOC = """Store results on the results branch: merge results folders into it, commit, push.

The branch holds a results/ folder, laid out as scripts/bench writes it
(results/upstream/MACHINE/*.json, ...); `main` holds no results.  Each SRC is
a results/ folder such as scripts/nightly's OUTPUT/results or a backfill
shard's; scripts/merge-results merges them into a fresh clone of the branch,
so that a result already on the branch is never changed or removed: a
differing copy is reported and the branch's kept.  Every file of every SRC is
checked first (see scripts/merge-results): one invalid file and nothing is
pushed.  benchmarks.json is never taken from a SRC (the job that wrote it ran
upstream code): each results folder on the branch gets this repository's,
made by asv from benchmarks/ alone (benchtools/suite.py).  The branch is
created, without history, when the remote lacks it.

The push is never forced.  When the remote moved meanwhile, the clone is
reset to the new tip and the merge is redone, up to --attempts times.  The
work happens in a temporary clone, so a run killed at any point leaves the
branch as it was or with the new commit, nothing in between.

GITHUB_TOKEN, when set, is sent to GitHub (GITHUB_SERVER_URL) as git's
Authorization header through git's environment: it is never written to disk
nor put on a command line.

Exit status: 0 when pushed or when nothing was new; 1 when a conflict was
reported (the rest is pushed); 2 for bad arguments, an invalid file in a SRC
(nothing is pushed) or an unreachable remote; 3 when the push kept failing.
"""

METADATA = ("machine.json", "benchmarks.json")
# Results commits are made by the workflow, not by whoever runs it.
IDENTITY = {"GIT_AUTHOR_NAME": "equinox-benchmarks", "GIT_AUTHOR_EMAIL": "equinox-benchmarks@users.noreply.github.com",
            "GIT_COMMITTER_NAME": "equinox-benchmarks",
            "GIT_COMMITTER_EMAIL": "equinox-benchmarks@users.noreply.github.com"}



def parse_merge_args(argv):
    parser = cli.parser("scripts/merge-results", MERGE_DOC)
    parser.add_argument("sources", nargs="+", type=Path, metavar="SRC", help="results folders to merge from")
    parser.add_argument("dest", type=Path, metavar="DEST", help="the results folder to merge into (created if missing)")
    parser.add_argument("--benchmarks-from-sources", action="store_true",
                        help="replace DEST's benchmarks.json by a source's that differs from it (the last one)")
    args = parser.parse_args(argv)
    for source in args.sources:
        if not source.is_dir():
            parser.error(f"SRC {source}: not a folder")
        if args.dest.resolve().is_relative_to(source.resolve()):
            parser.error(f"DEST {args.dest} lies inside SRC {source}")
    if args.dest.exists() and not args.dest.is_dir():
        parser.error(f"DEST {args.dest}: not a folder")
    return args


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


def write_new(path: Path, data: bytes, replace: bool = False) -> bool:
    """Write DATA to PATH atomically; unless REPLACE, only if PATH does not exist (False if it does)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, path)
            return True
        try:
            os.link(temporary, path)  # fails if PATH exists: never replaces a file
        except FileExistsError:
            return False
        return True
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def merge(sources: list[Path], dest: Path, benchmarks_from_sources: bool, take_benchmarks: bool = True) -> dict[str, list]:
    """Merge (see MERGE_DOC); without TAKE_BENCHMARKS, the sources' benchmarks.json are checked, then left out."""
    outcome = {"copied": [], "identical": [], "conflict": [], "metadata kept": []}
    # All or nothing: every file of every source is checked (validate.stored_file) before any is written.
    incoming = [(relative, validate.stored_file(source / relative, relative))
                for source in sources for relative in source_files(source)]
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
                write_new(target, data, replace=True)
            outcome["copied" if data != original else "metadata kept"].append(relative)
        elif not target.exists() and write_new(target, data):
            outcome["copied"].append(relative)
        elif relative.name in METADATA:
            outcome["metadata kept"].append(relative)
        else:
            outcome["conflict"].append(relative)
    return outcome


def merge_main(argv):
    args = parse_merge_args(argv)
    problems = merge_and_report(args.sources, args.dest, args.benchmarks_from_sources)
    return ExitCode.FOUND if problems else ExitCode.OK


def merge_and_report(sources: list[Path], dest: Path, benchmarks_from_sources: bool,
                     take_benchmarks: bool = True) -> bool:
    """Merge, say what happened, and whether a conflict was reported; BadInput, writing nothing, for an invalid file."""
    dest.mkdir(parents=True, exist_ok=True)
    outcome = merge(sources, dest, benchmarks_from_sources, take_benchmarks)
    for path in outcome["conflict"]:
        print(f"conflict: {dest / path} differs from a source's copy; kept as it was", file=sys.stderr)
    print(", ".join(f"{len(paths)} {what}" for what, paths in outcome.items()) + f" into {dest}", flush=True)
    return bool(outcome["conflict"])



def parse_push_args(argv):
    parser = cli.parser("scripts/push-results", PUSH_DOC)
    parser.add_argument("sources", nargs="+", type=Path, metavar="SRC", help="results/ folders to store")
    parser.add_argument("--results-remote", metavar="URL|PATH",
                        help="the repository that holds the results branch (default: this project's origin)")
    parser.add_argument("--results-branch", default="results", metavar="BRANCH",
                        help="the branch (default: %(default)s)")
    parser.add_argument("--attempts", type=int, default=5, help="pushes to try (default: %(default)s)")
    args = parser.parse_args(argv)
    for source in args.sources:
        if not source.is_dir():
            parser.error(f"SRC {source}: not a folder")
    if args.attempts < 1:
        parser.error("--attempts must be at least 1")
    return args


def git_env() -> dict:
    env = dict(os.environ, **IDENTITY, GIT_TERMINAL_PROMPT="0")
    token = os.environ.get("GITHUB_TOKEN")
    if token:
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"http.{server}/.extraheader",
                   GIT_CONFIG_VALUE_0=f"AUTHORIZATION: basic {basic}")
    return env


def git_(*args, cwd=None, check=True, input=None) -> subprocess.CompletedProcess:
    return git.run(*args, cwd=cwd, env=git_env(), input=input, check=check, error=BadInput)


def default_remote() -> str:
    found = git_("remote", "get-url", "origin", cwd=ROOT, check=False)
    if found.returncode != 0:
        raise BadInput("this project has no origin remote; name the repository with --results-remote")
    return found.stdout.strip()


def fetch_branch(clone: Path, remote: str, branch: str) -> str | None:
    """Point the clone at the remote branch's tip and return it; None when the remote has no such branch."""
    listed = git_("ls-remote", "--exit-code", "--heads", git.END, remote, f"refs/heads/{branch}", check=False)
    if listed.returncode not in (0, 2):
        raise BadInput(f"cannot reach the results remote {remote}: {listed.stderr.strip()}")
    if not git.lists_branch(listed.stdout, branch):
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
            problems = merge_and_report(sources, clone / "results", benchmarks_from_sources=False,
                                        take_benchmarks=False)
            describe_suite(clone / "results")
            git_("add", "--all", "results", cwd=clone)
            if git_("diff", "--cached", "--quiet", cwd=clone, check=False).returncode == 0:
                print(f"Nothing new for {remote} {args.results_branch}")
                return int(problems)
            git_("commit", "--quiet", "--no-verify", "--file", "-", cwd=clone, input=commit_message(clone))
            pushed = git_("push", "--quiet", remote, f"HEAD:refs/heads/{args.results_branch}", cwd=clone, check=False)
            if pushed.returncode == 0:
                print(f"Pushed to {remote} {args.results_branch}: "
                      f"{git_('log', '-1', '--format=%h %s', cwd=clone).stdout.strip()}")
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
    from . import suite

    folders = [f for f in sorted(results.iterdir()) if f.is_dir() and any(p.is_dir() for p in f.iterdir())] \
        if results.is_dir() else []
    if not folders:
        return
    data = suite.description()
    for folder in folders:
        target = folder / "benchmarks.json"
        if not target.exists() or target.read_bytes() != data:
            write_new(target, data, replace=True)


def push_main(argv):
    return store(parse_push_args(argv))
