"""benchtools/publishing/results_branch.py: the commands that keep the results branch (shard, merge-results,
push-results, commits; docs/automation.md), on real git repositories (local bare ones stand in for GitHub) and
real files.

shard (but for reading stdin), merge-results and commits run in-process; push-results runs as
its executable, since its tests need separate processes (concurrent pushes, a killed push, a git on PATH
that pushes in between).
"""

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchtools.asvtools import environments
from benchtools.project import UPSTREAM_CONFIG
from tests.helpers import command, git, tool


def script(name, *args, **kwargs):
    return subprocess.run([*tool(name), *map(str, args)], capture_output=True, text=True, **kwargs)


def write(path: Path, content) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def branch_files(remote: Path, branch="results") -> dict[str, bytes]:
    names = git(remote, "ls-tree", "-r", "--name-only", branch).split()
    return {
        name: subprocess.run(
            ["git", "-C", str(remote), "show", f"{branch}:{name}"], check=True, capture_output=True
        ).stdout
        for name in names
    }


# An environment of the suite's asv configuration, so that push-results' check against its matrix passes.
MATRIX = environments.stored_matrix([UPSTREAM_CONFIG])
ENV = next(iter(MATRIX))
# A benchmark of this suite without params, so that push-results' check against the suite passes.
STORED_BENCHMARK = "bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at"


def stored(relative: str, tag=1) -> dict:
    """A valid file of a results folder at RELATIVE, as asv writes it; TAG makes its content differ."""
    path = Path(relative)
    if path.name == "benchmarks.json":
        return {"version": 2, f"bench_{tag}.T.track_x": {"name": f"bench_{tag}.T.track_x", "type": "track"}}
    if path.name == "machine.json":
        return {"machine": path.parent.name, "cpu": str(tag), "version": 1}
    hash8, env = path.stem.split("-", 1)
    value = tag if isinstance(tag, (int, float)) else len(str(tag))
    python, requirements = MATRIX.get(env, ("3.11", {}))
    return {
        "commit_hash": hash8 * 5,
        "env_name": env,
        "date": 1767225600000,
        "params": {"machine": path.parent.name, "python": python, **requirements, "cpu": str(tag)},
        "python": python,
        "requirements": requirements,
        "env_vars": {},
        "result_columns": ["result", "params", "version"],
        "results": {STORED_BENCHMARK: [[value], [], "1"]},
        "durations": {},
        "version": 2,
    }


def put(root: Path, relative: str, tag=1) -> Path:
    return write(root / relative, stored(relative, tag))


def read(path: Path) -> dict:
    return json.loads(path.read_text())


# scripts/shard

COMMITS = [f"{i:040x}" for i in range(1, 11)]


@pytest.mark.parametrize("shards", [1, 2, 3, 7, 10, 13])
def test_shards_cover_every_commit_exactly_once_in_order(shards, tmp_path):
    hashes = write(tmp_path / "hashes.txt", "\n".join(COMMITS) + "\n\n")
    indices = json.loads(command("shard", "--shards", shards, "--indices", hashes).stdout)
    assert indices == list(range(min(shards, len(COMMITS))))
    slices = [command("shard", "--shards", shards, "--index", i, hashes).stdout.split() for i in range(shards)]
    assert sorted(c for s in slices for c in s) == sorted(COMMITS)
    for piece in slices:
        assert piece == [c for c in COMMITS if c in piece]
    assert all(slices[i] for i in indices)
    assert max(map(len, slices)) - min(map(len, slices)) <= 1


def test_shard_reads_stdin():
    # A subprocess: the parser's default, sys.stdin, is bound when the command is imported.
    sharded = script("shard", "--shards", "2", "--index", "1", input="a\nb\nc\n")
    assert sharded.stdout.split() == ["b"]


@pytest.mark.parametrize(
    "args, content, message",
    [
        (["--shards", "0", "--index", "0"], "a\n", "--shards 0"),
        (["--shards", "2", "--index", "2"], "a\n", "--index 2"),
        (["--shards", "2", "--index", "0"], "a\nb\na\n", "listed more than once: a"),
        (["--shards", "2", "--index", "0"], "\n", "no commits"),
        (["--shards", "2", "--index", "0"], "a b\n", "one commit per line"),
        (["--shards", "2"], "a\n", "--index"),
        (["--shards", "2", "--index", "0"], b"a\n\xff\xfe\n", "hashes.txt: not a text list of commits"),
    ],
)
def test_shard_refuses_bad_input(args, content, message, tmp_path):
    result = command("shard", *args, write(tmp_path / "hashes.txt", content))
    assert result.returncode == 2
    assert message in result.stderr


# scripts/merge-results

RESULT = f"upstream/m/aaaaaaaa-{ENV}.json"


def test_merge_copies_what_dest_lacks_and_never_overwrites(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    put(src, RESULT, 1)
    put(src, f"upstream/m/bbbbbbbb-{ENV}.json", 2)
    put(src, f"upstream/m/cccccccc-{ENV}.json", "new")
    put(dest, f"upstream/m/bbbbbbbb-{ENV}.json", 2)
    put(dest, f"upstream/m/cccccccc-{ENV}.json", "old")
    result = command("merge-results", src, dest)
    assert result.returncode == 1, result.stderr
    assert f"cccccccc-{ENV}.json" in result.stderr and "conflict" in result.stderr
    assert read(dest / RESULT) == stored(RESULT, 1)
    assert read(dest / f"upstream/m/cccccccc-{ENV}.json") == stored(f"upstream/m/cccccccc-{ENV}.json", "old")
    assert "1 copied, 1 identical, 1 conflict" in result.stdout
    assert not [p for p in dest.rglob("*") if p.name.startswith(".")], "temporary files left behind"

    again = command("merge-results", src, dest)
    assert "0 copied, 2 identical, 1 conflict" in again.stdout


def test_merge_skips_hidden_files(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    write(src / f"upstream/m/.bbbbbbbb-{ENV}.json.x.tmp", "{}")
    put(src, f"upstream/m/cccccccc-{ENV}.json", 3)
    result = command("merge-results", src, dest)
    assert result.returncode == 0, result.stderr
    assert tree(dest) == {
        f"upstream/m/cccccccc-{ENV}.json": json.dumps(stored(f"upstream/m/cccccccc-{ENV}.json", 3)).encode()
    }


# Each invalid file: what it is, then a fragment of the one line that must name it.
INVALID = {
    "half-written": ('{"commit_hash": "aaaa", "resu', "is corrupt"),
    "empty object": ("{}", "'commit_hash' is missing"),
    "deeply nested": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "a list": ("[1, 2]", "expected an object"),
    "short commit": (lambda d: {**d, "commit_hash": "aaaaaaaa"}, "not a full hash"),
    "another commit": (lambda d: {**d, "commit_hash": "b" * 40}, "not a full hash that starts with"),
    "another machine": (lambda d: {**d, "params": {**d["params"], "machine": "evil"}}, "machine 'evil'"),
    "another environment": (lambda d: {**d, "env_name": "other"}, "does not give its name"),
    "a string value": (lambda d: {**d, "results": {"b.T.t": [["x"], [], "1"]}}, "expected a number or null"),
    "no version": (lambda d: {k: v for k, v in d.items() if k != "version"}, "'version' is missing"),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_one_invalid_file_stops_the_whole_merge_and_writes_nothing(case, tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    put(src, f"upstream/m/11111111-{ENV}.json", 1)  # sorted before the bad file
    put(src, "upstream/m/machine.json")
    content, message = INVALID[case]
    bad = write(src / RESULT, content(stored(RESULT)) if callable(content) else content)
    put(src, f"upstream/m/ffffffff-{ENV}.json", 2)  # sorted after it
    put(dest, f"upstream/m/00000000-{ENV}.json", 0)
    before = tree(dest)
    result = command("merge-results", src, dest)
    assert result.returncode == 2, result.stdout + result.stderr
    assert str(bad) in result.stderr and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert tree(dest) == before


@pytest.mark.parametrize(
    "relative",
    [
        "upstream/m/notes.txt",
        "upstream/m/aaaaaaaa.json",
        f"upstream/m/AAAAAAAA-{ENV}.json",
        f"x/y/m/aaaaaaaa-{ENV}.json",
        f"upstream/m/aaaaaaaa-{ENV}.json/inner.json",
        f"upstream/-m/aaaaaaaa-{ENV}.json",
        "evil.json",
    ],
)
def test_a_file_where_results_do_not_go_is_refused(relative, tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    write(src / relative, {"version": 2})
    result = command("merge-results", src, dest)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not dest.exists() or tree(dest) == {}


def test_a_link_is_refused_not_followed(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    secret = write(tmp_path / "secret.json", stored(RESULT))
    (src / "upstream/m").mkdir(parents=True)
    (src / RESULT).symlink_to(secret)
    result = command("merge-results", src, dest)
    assert result.returncode == 2 and "not a plain file" in result.stderr, result.stderr
    assert not dest.exists() or tree(dest) == {}


def test_a_machine_file_must_name_its_folder(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    write(src / "upstream/m/machine.json", {"machine": "other", "version": 1})
    result = command("merge-results", src, dest)
    assert result.returncode == 2 and "'other'" in result.stderr, result.stderr


def test_merge_keeps_dest_metadata_unless_the_suite_comes_from_the_sources(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    put(old, "upstream/benchmarks.json", "old")
    put(old, "upstream/m/machine.json", "old")
    put(new, "upstream/benchmarks.json", "new")
    put(new, "upstream/m/machine.json", "new")

    dest = tmp_path / "dest"
    assert command("merge-results", new, old, dest).returncode == 0  # DEST lacked them: the first source's
    assert read(dest / "upstream/benchmarks.json") == stored("benchmarks.json", "new")

    branch = tmp_path / "branch"
    put(branch, "upstream/benchmarks.json", "old")
    put(branch, "upstream/m/machine.json", "old")
    assert command("merge-results", new, branch).returncode == 0
    assert read(branch / "upstream/benchmarks.json") == stored("benchmarks.json", "old")

    # A source that ran the new suite, then one that ran nothing and holds the branch's old copy.
    result = command("merge-results", "--benchmarks-from-sources", new, old, branch)
    assert result.returncode == 0, result.stderr
    assert read(branch / "upstream/benchmarks.json") == stored("benchmarks.json", "new")
    assert read(branch / "upstream/m/machine.json") == stored("upstream/m/machine.json", "old")


@pytest.mark.parametrize("case", ["missing source", "dest inside source", "dest is a file"])
def test_merge_refuses_bad_arguments_and_changes_nothing(case, tmp_path):
    src = tmp_path / "src"
    put(src, RESULT)
    dest = {
        "missing source": tmp_path / "dest",
        "dest inside source": src / "inner",
        "dest is a file": write(tmp_path / "file", "x"),
    }[case]
    sources = [tmp_path / "nowhere"] if case == "missing source" else [src]
    before = tree(tmp_path)
    result = command("merge-results", *sources, dest)
    assert result.returncode == 2
    assert str(dest if case != "missing source" else sources[0]) in result.stderr
    assert tree(tmp_path) == before


# scripts/push-results


@pytest.fixture
def remote(tmp_path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def results_folder(root: Path, files: dict) -> Path:
    """ROOT holding a valid file at each name, told apart by its tag."""
    for name, tag in files.items():
        put(root, name, tag)
    return root


@pytest.mark.parametrize("benchmark, params", [("bench_evil.T.track_x", []), (STORED_BENCHMARK, [["'x'"]])])
def test_a_result_the_suite_does_not_have_is_not_pushed(remote, tmp_path, benchmark, params):
    """The run job ran upstream code: what it stored may name only this suite's benchmarks and params."""
    incoming = results_folder(tmp_path / "incoming", {RESULT: 1})
    path = incoming / RESULT
    data = json.loads(path.read_text())
    data["results"] = {benchmark: [[1.0] * max(1, len(params and params[0])), params, "1"]}
    path.write_text(json.dumps(data))
    pushed = script("push-results", "--results-remote", remote, incoming)
    assert pushed.returncode == 2, pushed.stdout + pushed.stderr
    assert "this suite does not have" in pushed.stderr
    assert git(remote, "for-each-ref", "refs/heads") == ""  # nothing pushed


def test_push_creates_the_branch_then_only_adds(remote, tmp_path):
    first = results_folder(
        tmp_path / "first", {"upstream/benchmarks.json": 1, RESULT: 1, "upstream/m/machine.json": "x"}
    )
    pushed = script("push-results", "--results-remote", remote, first)
    assert pushed.returncode == 0, pushed.stderr
    files = branch_files(remote)
    suite = json.loads(files.pop("results/upstream/benchmarks.json"))
    # benchmarks.json is this repository's suite, never the source's copy.
    assert "bench_counts.PythonCalls.track_tree_at" in suite and "bench_1.T.track_x" not in suite
    assert files == {f"results/{k}": v for k, v in tree(first).items() if not k.endswith("benchmarks.json")}
    tip = git(remote, "rev-parse", "results")
    assert git(remote, "rev-list", "--count", "results") == "1"

    nothing = script("push-results", "--results-remote", remote, first)
    assert nothing.returncode == 0 and "Nothing new" in nothing.stdout
    assert git(remote, "rev-parse", "results") == tip

    second = results_folder(tmp_path / "second", {RESULT: "other", f"upstream/m/bbbbbbbb-{ENV}.json": 2})
    conflicted = script("push-results", "--results-remote", remote, second)
    assert conflicted.returncode == 1
    assert "conflict" in conflicted.stderr
    files = branch_files(remote)
    assert json.loads(files[f"results/{RESULT}"]) == stored(RESULT, 1)
    assert json.loads(files[f"results/upstream/m/bbbbbbbb-{ENV}.json"]) == stored(f"upstream/m/bbbbbbbb-{ENV}.json", 2)
    assert git(remote, "rev-list", "--first-parent", "results").split()[1] == tip  # a new commit on top
    assert "Add 1 result file(s)" in git(remote, "log", "-1", "--format=%s", "results")


def test_push_retries_when_another_run_pushed_meanwhile(remote, tmp_path):
    ours = results_folder(tmp_path / "ours", {f"upstream/m/aaaaaaaa-{ENV}.json": 1})
    theirs = results_folder(tmp_path / "theirs", {f"upstream/m/bbbbbbbb-{ENV}.json": 2})
    assert (
        script(
            "push-results",
            "--results-remote",
            remote,
            results_folder(tmp_path / "base", {f"upstream/m/00000000-{ENV}.json": 0}),
        ).returncode
        == 0
    )
    # A git that, at our first push, lets the other run push first.
    wrapper = write(
        tmp_path / "bin" / "git",
        f"""#!/bin/sh
if [ "$1" = push ] && [ ! -e {tmp_path}/raced ]; then
    touch {tmp_path}/raced
    PATH={os.environ["PATH"]} {sys.executable} -m benchtools push-results --results-remote {remote} {theirs} >&2
fi
exec {subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()} "$@"
""",
    )
    wrapper.chmod(0o755)
    env = dict(os.environ, PATH=f"{wrapper.parent}:{os.environ['PATH']}")
    pushed = script("push-results", "--results-remote", remote, ours, env=env)
    assert pushed.returncode == 0, pushed.stderr
    assert "push attempt 1/30 refused" in pushed.stderr
    assert set(branch_files(remote)) == {
        f"results/upstream/m/{c}-{ENV}.json" for c in ("00000000", "aaaaaaaa", "bbbbbbbb")
    } | {"results/upstream/benchmarks.json"}
    assert git(remote, "rev-list", "--count", "results") == "3"


def test_a_push_killed_at_any_moment_loses_nothing_already_pushed(remote, tmp_path):
    base = results_folder(tmp_path / "base", {f"upstream/m/{i:08x}-{ENV}.json": i for i in range(20)})
    assert script("push-results", "--results-remote", remote, base).returncode == 0
    pushed = branch_files(remote)
    big = results_folder(tmp_path / "big", {f"upstream/m/{i:08x}-{ENV}.json": i for i in range(20, 400)})
    for delay in (0.05, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8, 1.0):
        process = subprocess.Popen(
            [*tool("push-results"), "--results-remote", str(remote), str(big)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        subprocess.run(["git", "-C", str(remote), "fsck", "--no-progress"], check=True, capture_output=True)
        files = branch_files(remote)
        assert {k: v for k, v in files.items() if k in pushed} == pushed
        assert set(files) in (set(pushed), set(pushed) | {f"results/{k}" for k in tree(big)})
    finished = script("push-results", "--results-remote", remote, big)
    assert finished.returncode == 0, finished.stderr
    assert len(branch_files(remote)) == 401  # and benchmarks.json


def test_push_refuses_bad_input(remote, tmp_path):
    missing = script("push-results", "--results-remote", remote, tmp_path / "nowhere")
    assert missing.returncode == 2 and "nowhere" in missing.stderr
    folder = results_folder(tmp_path / "r", {RESULT: 1})
    unreachable = script("push-results", "--results-remote", tmp_path / "no-such-remote", folder)
    assert unreachable.returncode == 2 and "no-such-remote" in unreachable.stderr


# scripts/commits


@pytest.fixture
def tagged_repo(tmp_path) -> tuple[Path, list[str]]:
    """main: v0.1.0, v0.2.0rc1, v0.2.0 (annotated), an untagged commit, v0.3.0."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    hashes = []
    for tag in ("v0.1.0", "v0.2.0rc1", "v0.2.0", None, "v0.3.0"):
        write(repo / "file", str(len(hashes)))
        git(repo, "add", "file")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", str(tag))
        if tag == "v0.2.0":
            git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "-m", tag, tag)
        elif tag:
            git(repo, "tag", tag)
        hashes.append(git(repo, "rev-parse", "HEAD"))
    return repo, hashes


@pytest.mark.parametrize(
    "args, picked",
    [
        (["--range", "ALL"], [0, 1, 2, 3, 4]),
        (["--range", "v0.2.0..main"], [3, 4]),
        (["--range", "v0.2.0^!"], [2]),
        (["--releases", "2"], [2, 4]),
        (["--releases", "all"], [0, 2, 4]),
        (["--releases", ">=0.2"], [2, 4]),
        (["--releases", "0.3.0,0.1.0"], [0, 4]),
        (["--range", "", "--releases", "1"], [4]),
        ([], [0, 2, 4]),  # neither: every release, the backfill's default
        (["--range", "", "--releases", ""], [0, 2, 4]),
    ],
)
def test_commits_by_range_or_release(tagged_repo, args, picked):
    repo, hashes = tagged_repo
    listed = command("commits", "--repo", repo, *args)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == [hashes[i] for i in picked]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--range", "nope..main"], "nope..main"),
        (["--range", "main..main"], "selects no commit"),
        (["--releases", "0.9.9"], "0.9.9"),
        (["--range", "NEW"], "NEW"),
        (["--range", "ALL", "--releases", "1"], "either"),
    ],
)
def test_commits_refuses_bad_input(tagged_repo, args, message):
    listed = command("commits", "--repo", tagged_repo[0], *args)
    assert listed.returncode == 2
    assert message in listed.stderr
    assert "Traceback" not in listed.stderr


def test_push_of_an_invalid_file_pushes_nothing(remote, tmp_path):
    folder = results_folder(tmp_path / "r", {f"upstream/m/00000000-{ENV}.json": 0})
    write(folder / RESULT, "{}")
    result = script("push-results", "--results-remote", remote, folder)
    assert result.returncode == 2 and RESULT.split("/")[-1] in result.stderr, result.stderr
    assert git(remote, "branch", "--list") == "", "nothing may be pushed"


def test_a_push_that_keeps_being_refused_exits_3(remote, tmp_path):
    hook = write(remote / "hooks" / "pre-receive", "#!/bin/sh\necho refused by policy >&2\nexit 1\n")
    hook.chmod(0o755)
    result = script("push-results", "--results-remote", remote, results_folder(tmp_path / "r", {RESULT: 1}))
    assert result.returncode == 3, result.stdout + result.stderr
    assert "refused by policy" in result.stderr and "Traceback" not in result.stderr


def test_the_results_branch_is_matched_exactly(remote, tmp_path):
    old = results_folder(tmp_path / "old", {f"upstream/m/00000000-{ENV}.json": 0})
    assert script("push-results", "--results-remote", remote, "--results-branch", "old/results", old).returncode == 0
    new = results_folder(tmp_path / "new", {RESULT: 1})
    pushed = script("push-results", "--results-remote", remote, new)
    assert pushed.returncode == 0, pushed.stderr
    assert set(branch_files(remote)) == {f"results/{RESULT}", "results/upstream/benchmarks.json"}
    assert set(branch_files(remote, "old/results")) == {
        f"results/upstream/m/00000000-{ENV}.json",
        "results/upstream/benchmarks.json",
    }


def test_commits_prints_a_commit_with_two_tags_once(tagged_repo):
    repo, hashes = tagged_repo
    git(repo, "tag", "v0.3.1", hashes[4])
    listed = command("commits", "--repo", repo, "--releases", "all")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == [hashes[0], hashes[2], hashes[4]]


# Links and other non-files: never followed, on the branch, in DEST or in a SRC (issue 17, item 5)


def commit_branch(remote: Path, work: Path, build) -> str:
    """Push to REMOTE's results branch one commit of WORK's results/, as BUILD(WORK) leaves it; its hash."""
    git(work.parent, "init", "-q", "-b", "results", str(work))
    build(work)
    git(work, "add", "--all")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "planted")
    git(work, "push", "-q", str(remote), "HEAD:refs/heads/results")
    return git(remote, "rev-parse", "results")


def link(at: Path, target: Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(target)


def submodule(work: Path) -> None:
    put(work / "results", f"upstream/m/00000000-{ENV}.json", 0)
    git(work, "add", "--all")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    head = git(work, "rev-parse", "HEAD")
    git(work, "update-index", "--add", "--cacheinfo", f"160000,{head},results/upstream/sub")
    (work / "results/upstream/sub").mkdir()  # as a submodule not checked out


PLANTED = {
    # what is planted on the branch, the path the refusal names, and the SRC file that would go through it
    "a linked folder": (
        lambda work, outside: link(work / "results/upstream/evil", outside),
        "results/upstream/evil",
        f"upstream/evil/aaaaaaaa-{ENV}.json",
    ),
    "results itself linked": (
        lambda work, outside: link(work / "results", outside),
        "results",
        RESULT,
    ),
    "a linked file": (
        lambda work, outside: link(work / "results" / RESULT, write(outside / "secret.json", "{}")),
        f"results/{RESULT}",
        RESULT,
    ),
    "a dangling link": (
        lambda work, outside: link(work / "results/upstream/m", outside / "nowhere"),
        "results/upstream/m",
        RESULT,
    ),
    "a submodule": (lambda work, outside: submodule(work), "results/upstream/sub", RESULT),
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_a_link_on_the_results_branch_is_refused_and_nothing_is_written_outside(case, remote, tmp_path):
    plant, named, incoming = PLANTED[case]
    outside = tmp_path / "outside"
    outside.mkdir()
    tip = commit_branch(remote, tmp_path / "work", lambda work: plant(work, outside))
    before = tree(outside)
    src = results_folder(tmp_path / "src", {incoming: 1, f"releases/m/bbbbbbbb-{ENV}.json": 2})
    pushed = script("push-results", "--results-remote", remote, src)
    assert pushed.returncode == 2, pushed.stdout + pushed.stderr
    assert named in pushed.stderr and "Traceback" not in pushed.stderr, pushed.stderr
    assert len(pushed.stderr.splitlines()) == 1, pushed.stderr
    assert "Nothing new" not in pushed.stdout
    assert git(remote, "rev-parse", "results") == tip, "nothing may be pushed"
    assert tree(outside) == before, "nothing may be written outside the clone"


def test_merge_never_writes_through_a_link_in_dest(tmp_path):
    src, dest, outside = tmp_path / "src", tmp_path / "dest", tmp_path / "outside"
    outside.mkdir()
    put(src, RESULT, 1)
    link(dest / "upstream/m", outside)
    result = command("merge-results", src, dest)
    assert result.returncode == 2, result.stdout + result.stderr
    assert str(dest / "upstream/m") in result.stderr and "link" in result.stderr, result.stderr
    assert list(outside.iterdir()) == []


def test_merge_refuses_a_file_in_dest_where_a_folder_must_go(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    put(src, RESULT, 1)
    write(dest / "upstream/m", "not a folder")
    result = command("merge-results", src, dest)
    assert result.returncode == 2, result.stdout + result.stderr
    assert str(dest / "upstream/m") in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("at", ["upstream", "upstream/m"])
def test_a_linked_folder_in_a_source_is_refused_as_a_link(at, tmp_path):
    src, dest, elsewhere = tmp_path / "src", tmp_path / "dest", tmp_path / "elsewhere"
    put(elsewhere, RESULT, 1)
    link(src / at, elsewhere / at)
    put(src, f"releases/m/bbbbbbbb-{ENV}.json", 2)
    result = command("merge-results", src, dest)
    assert result.returncode == 2, result.stdout + result.stderr
    assert str(src / at) in result.stderr and "link" in result.stderr, result.stderr
    assert not dest.exists() or tree(dest) == {}


# A merge is all or nothing on I/O errors too (issue 17, item 8)


def test_an_unreadable_source_file_is_bad_input(monkeypatch, tmp_path):
    from benchtools.asvtools import publishable

    src, dest = tmp_path / "src", tmp_path / "dest"
    bad = put(src, RESULT, 1)

    def refused(path, relative, **kwargs):  # as reading a file without permission fails (root reads anything)
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(publishable, "stored_file", refused)
    result = command("merge-results", src, dest)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{bad}: cannot be read (Permission denied)" in result.stderr, result.stderr
    assert not dest.exists()


def everything(folder: Path) -> dict[str, bytes | None]:
    """Every path below FOLDER, hidden ones and folders included (None for a folder)."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


def failing(monkeypatch, name: str, number: int, code: int) -> None:
    """Make os.NAME raise OSError(CODE) from its NUMBERth call on."""
    real, calls = getattr(os, name), []

    def fake(*args, **kwargs):
        calls.append(args)
        if len(calls) >= number:
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, fake)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO, errno.EROFS, errno.EACCES])
@pytest.mark.parametrize("call, number", [("fsync", 1), ("fsync", 3), ("link", 1), ("link", 3), ("mkdir", 2)])
def test_an_io_error_while_merging_exits_3_and_leaves_dest_as_it_was(call, number, code, monkeypatch, tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    put(dest, f"upstream/m/00000000-{ENV}.json", 0)
    for i in range(1, 6):
        put(src, f"upstream/m/{i:08x}-{ENV}.json", i)
        put(src, f"releases/m{i}/{i:08x}-{ENV}.json", i)  # folders this merge must create
    before = everything(dest)
    failing(monkeypatch, call, number, code)
    result = command("merge-results", src, dest)
    monkeypatch.undo()
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert os.strerror(code) in result.stderr and str(dest) in result.stderr, result.stderr
    assert everything(dest) == before


@pytest.mark.parametrize("call", ["replace", "fsync"])
def test_an_io_error_keeps_the_old_suite_description_too(call, monkeypatch, tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    put(dest, "upstream/benchmarks.json", "old")
    put(src, "upstream/benchmarks.json", "new")
    put(src, RESULT, 1)
    before = everything(dest)
    failing(monkeypatch, call, 1, errno.EIO)
    result = command("merge-results", "--benchmarks-from-sources", src, dest)
    monkeypatch.undo()
    assert result.returncode == 3, result.stdout + result.stderr
    assert everything(dest) == before


def test_a_merge_onto_a_full_disk_exits_3_and_leaves_dest_as_it_was(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        dest = disk / "dest"
        put(dest, f"upstream/m/00000000-{ENV}.json", 0)
        before = everything(dest)
        src = results_folder(tmp_path / "src", {f"upstream/m/{i:08x}-{ENV}.json": "x" * 500 for i in range(1, 200)})
        result = command("merge-results", src, dest)
        assert result.returncode == 3, result.stdout + result.stderr
        assert "No space left on device" in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert everything(dest) == before
        small = results_folder(tmp_path / "small", {RESULT: 1})
        assert command("merge-results", small, dest).returncode == 0  # and the space came back
    finally:
        subprocess.run(["umount", str(disk)], check=True)


# Concurrent pushes converge (issue 17, item 10c)


def test_six_concurrent_pushes_all_land(remote, tmp_path):
    base = results_folder(tmp_path / "base", {f"upstream/m/00000000-{ENV}.json": 0})
    assert script("push-results", "--results-remote", remote, base).returncode == 0
    sources = [results_folder(tmp_path / f"src{i}", {f"upstream/m/{i:08x}-{ENV}.json": i}) for i in range(1, 7)]
    started = time.monotonic()
    processes = [
        subprocess.Popen(
            [*tool("push-results"), "--results-remote", str(remote), str(src)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for src in sources
    ]
    done = [(p.wait(), *p.communicate()) for p in processes]
    took = time.monotonic() - started
    refused = [err.count("refused") for _, _, err in done]
    print(f"6 pushers: {took:.1f} s, refusals per pusher {refused}")
    for code, out, err in done:
        assert code == 0, out + err
    assert set(branch_files(remote)) == {f"results/upstream/m/{i:08x}-{ENV}.json" for i in range(7)} | {
        "results/upstream/benchmarks.json"
    }
    assert git(remote, "rev-list", "--count", "results") == "7"


def test_an_unreachable_remote_is_named_in_one_short_line(tmp_path):
    folder = results_folder(tmp_path / "r", {RESULT: 1})
    missing = tmp_path / "no-such-remote"
    result = command("push-results", "--results-remote", missing, folder)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip() == (
        f"scripts/push-results: cannot reach the results remote {missing}: "
        f"'{missing}' does not appear to be a git repository"
    )


def test_a_remote_that_cannot_be_reached_this_time_exits_3_not_2(tmp_path):
    """A network drop is an operation that failed (3); only a remote that is not there at all is bad input (2)."""
    folder = results_folder(tmp_path / "r", {RESULT: 1})
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = command("push-results", "--results-remote", f"http://127.0.0.1:{port}/results.git", folder)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "cannot reach the results remote" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_with_machine_another_machines_results_are_not_pushed(remote, tmp_path):
    """The run job could write upstream/<any machine>/: the store job takes its own machine's folder alone."""
    folder = results_folder(tmp_path / "r", {RESULT: 1, f"upstream/other/aaaaaaaa-{ENV}.json": 1})
    refused = command("push-results", "--machine", "m", "--results-remote", remote, folder)
    assert refused.returncode == 2 and "machine 'other', not 'm'" in refused.stderr, refused.stderr
    assert git(remote, "branch", "--list", "results") == ""


@pytest.mark.parametrize(
    "field, key, value",
    [
        ("requirements", "jax", "0.4.33 [x](https://evil) @someone"),
        ("params", "jax", "0.4.33 [x](https://evil) @someone"),
        ("python", None, "3.11 @someone"),
    ],
)
def test_markdown_in_a_stored_environment_value_is_refused(tmp_path, field, key, value):
    """An environment's values are named in the issue and the report: a link or a mention must not form there."""
    src = results_folder(tmp_path / "src", {RESULT: 1})
    data = read(src / RESULT)
    if key is None:
        data[field] = value
    else:
        data[field][key] = value
    write(src / RESULT, data)
    result = command("merge-results", src, tmp_path / "dest")
    assert result.returncode == 2 and "a version" in result.stderr, result.stderr
    assert not (tmp_path / "dest").exists()


@pytest.mark.parametrize("change", ["env_name", "requirements"])
def test_an_environment_the_asv_matrix_lacks_is_not_pushed(remote, tmp_path, change):
    src = results_folder(tmp_path / "src", {RESULT: 1})
    data = read(src / RESULT)
    if change == "env_name":
        (src / RESULT).unlink()
        name = "upstream/m/aaaaaaaa-virtualenv-py3.11-jax0.4.34.json"
        data["env_name"] = Path(name).stem.split("-", 1)[1]
        write(src / name, data)
    else:
        data["requirements"]["jax"] = data["params"]["jax"] = "0.4.34"
        write(src / RESULT, data)
    result = command("push-results", "--results-remote", remote, src)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "configuration" in result.stderr and git(remote, "branch", "--list", "results") == ""
