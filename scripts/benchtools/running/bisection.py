"""scripts/bisect's work: a package's counts release by release, then bisected between those whose counts differ."""

import re
import time
from pathlib import Path

from packaging.version import Version

from .. import git, util
from ..errors import BadInput, Failed
from ..history import probes, shards
from ..judging import bisect
from ..project import ROOT
from ..publishing import bisections, generated

PACKAGE = {
    probes.JAX_PROJECT: ("jax/", "setup.py", "pyproject.toml"),
    probes.EQUINOX_PROJECT: ("equinox/", "pyproject.toml"),
}
BUNDLES = ROOT.parent / "shared" / "upstream"
CLONES = ROOT / ".cache" / "upstream"
# jaxlib's folders that a CPU process never runs
ACCELERATOR_ONLY = {"mosaic", "gpu", "cuda", "rocm", "triton", "tools"}


def repository(path: Path, project: str) -> Path:
    if (path / "HEAD").is_file() or (path / ".git").exists():
        return path
    bundle = BUNDLES / f"{project}.bundle"
    if not bundle.is_file():
        raise BadInput(f"no {project} repository at {path}: clone upstream there (git clone --bare URL {path})")
    path.parent.mkdir(parents=True, exist_ok=True)
    git.run("clone", "--bare", "--quiet", bundle, path)
    return path


def commit_of(project: str, repo: Path, revision: str) -> bisect.Commit:
    source = probes.commit_source(project, repo, revision)
    subject, date = git.out("show", "-s", "--format=%s%x00%cs", source.commit, repo=repo).strip().split("\0")
    return bisect.Commit(source, subject, date)


def releases_between(start: bisect.Commit, end: bisect.Commit) -> list[bisect.Commit]:
    """The release tags strictly between the ends' versions, by version; none where an end is no release."""
    project, repo = start.source.project, start.source.repo
    if not (start.source.version and end.source.version):
        return []
    low, high = Version(start.source.version), Version(end.source.version)
    versions = {tag: Version(found[1]) for tag in git.tags(repo) if (found := probes.RELEASE_TAG[project].match(tag))}
    return [commit_of(project, repo, tag) for tag in sorted(versions, key=versions.get) if low < versions[tag] < high]


def first_parent_log(repo: Path, start: str, end: str, *paths: str) -> list[tuple[str, str, str, list[str]]]:
    """(hash, subject, date, files changed, a move at both paths) of each first-parent commit in start..end."""
    listed = git.out(
        "log", "--first-parent", "-m", "--no-renames", "--reverse", "--format=%x01%H%x00%s%x00%cs", "--name-only",
        f"^{start}", end, "--", *paths, repo=repo,
    )  # fmt: skip
    entries = (entry.strip().split("\n") for entry in listed.split("\x01")[1:])
    return [(*head.split("\0"), files) for head, *files in entries]


def ordered(start: bisect.Commit, end: bisect.Commit) -> None:
    """Refuse ends that make no range: unrelated, or the end lacks the start, unless both are releases in order."""
    repo, ends = start.source.repo, (start.source.commit, end.source.commit)
    first, last = start.source.label, end.source.label
    if not (parted := git.out("merge-base", *ends, repo=repo, check=False).strip()):
        raise BadInput(f"{first} and {last} share no history")
    versions = [Version(source.version) for source in (start.source, end.source) if source.version]
    contained = git.run("merge-base", "--is-ancestor", *ends, repo=repo, check=False).returncode == 0
    if versions[0] < versions[1] if len(versions) == 2 else contained:
        return
    if len(versions) < 2 and parted != end.source.commit:  # neither contains the other
        raise BadInput(
            f"{last} does not contain {first}: it is on a line that {first} had not joined (main before a release "
            f"branch returns to it); start the range at {parted[:10]}, where the two lines part, or before"
        )
    raise BadInput(f"{last} does not follow {first}: give the earlier version first")


def commits_between(start: bisect.Commit, end: bisect.Commit) -> tuple[list[bisect.Commit], int]:
    """The ends and the commits between that change the package, from where ``start`` is merged; how many did not."""
    project, repo = start.source.project, start.source.repo
    log = [row for row in first_parent_log(repo, start.source.commit, end.source.commit) if row[0] != end.source.commit]
    descendants = set(
        git.out("rev-list", "--ancestry-path", f"{start.source.commit}..{end.source.commit}", repo=repo).split()
    )
    log = log[next((i for i, row in enumerate(log) if row[0] in descendants), 0) :]  # where never merged: all
    found = [
        bisect.Commit(probes.Source(project, commit, repo), subject, date)
        for commit, subject, date, files in log
        if any(name.startswith(PACKAGE[project]) for name in files)
    ]
    return [start, *found, end], len(log) - len(found)


def jaxlib_candidates(repo: Path, before: str, after: str, identifiers: list[str]) -> list[tuple[str, str, list]]:
    """(hash, subject, ``identifiers`` named) of the commits between two releases that change jaxlib's host runtime."""
    tags = git.tags(repo)
    ends = [tags.get(f"jax-v{version}") for version in (before, after)]
    if None in ends:
        return []
    found = []
    for commit, subject, _date, files in reversed(first_parent_log(repo, *ends, "jaxlib/")):  # newest first
        if any(map(host_runtime, files)):
            diff = git.out("show", "--format=", "-U0", commit, "--", "jaxlib/", repo=repo) if identifiers else ""
            named = [name for name in identifiers if re.search(rf"\b{re.escape(name)}\b", diff)]
            found.append((commit, subject, named))
    return sorted(found, key=lambda candidate: not candidate[2])


def host_runtime(path: str) -> bool:
    parts = path.split("/")
    build = parts[-1] == "BUILD" or parts[-1].endswith((".bzl", "_test.py", "_test.cc", ".md"))
    return len(parts) > 1 and parts[1] not in ACCELERATOR_ONLY and not build


def changing(commits: list[bisect.Commit]) -> str:
    return f"{len(commits) - 2} commits change {', '.join(PACKAGE[commits[0].source.project])}"


def count_history(search: bisect.Search, ends: list[bisect.Commit], *, every: int, shard: tuple | None) -> int:
    commits, skipped = commits_between(*ends)
    chosen = [*commits[:-1:every], commits[-1]]
    if shard:
        index, count = shard
        chosen = shards.shard(chosen, count, index)
    print(f"{changing(commits)} ({skipped} skipped); counting {len(chosen)}", flush=True)
    for commit in chosen:
        print(bisections.point_line(search.point(commit), search.key), flush=True)
    failed = [c for c in chosen if search.value(c) is None]
    print(f"{len(chosen) - len(failed)} commits counted, {len(failed)} failed (kept with their reasons)")
    return 0


def bisect_range(
    search: bisect.Search,
    ends: list[bisect.Commit],
    *,
    jax_repo: Path,
    min_step: float,
    command: str,
    record_file: Path | None,
    readmes: list[Path],
    records: Path,
) -> int:
    started = time.monotonic()
    releases = [ends[0], *releases_between(*ends), ends[1]]
    points = [search.point(commit) for commit in releases]
    for point in points:
        print(bisections.point_line(point, search.key), flush=True)
    for end in (points[0], points[-1]):
        if end.value(*search.key) is None:
            raise Failed(f"{end.commit.source.label} counted nothing: {end.record.get('failed', 'no count')}")
    pairs, steps = [], []
    for index, after in bisect.release_pairs(points, search.key, lambda b, a: bisect.apart(b, a, min_step)):
        commits, skipped = commits_between(releases[index], releases[after])
        labels = releases[index].source.label, releases[after].source.label
        print(f"bisecting {labels[0]} → {labels[1]}: {changing(commits)}, {skipped} skipped", flush=True)
        steps += search.steps(commits)
        pairs.append({"from": labels[0], "to": labels[1], "commits": len(commits) - 2, "skipped": skipped})
    for step in steps:
        search.confirm(step)
        search.split_jaxlib(step)

    def candidates(step: bisect.Step, named: list[str]) -> list:
        return jaxlib_candidates(jax_repo, step.before.jaxlib, step.after.jaxlib, named)

    seconds = time.monotonic() - started
    record = bisections.record(search, points, pairs, steps, command=command, candidates=candidates, seconds=seconds)
    print(bisections.markdown([record]))
    if record_file:
        util.write_json(record_file, record, sort_keys=True)
    for readme in readmes:
        generated.write_blocks(readme, {bisections.BLOCK: bisections.markdown(bisections.read_all(records))})
    return 1 if any(not step["confirmation"].get("confirmed") for step in record["steps"]) else 0
