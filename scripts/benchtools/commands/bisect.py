"""Find the commit where an operation's instruction count stepped, in JAX's history or in Equinox's.

Counts OPERATION (benchmarks/instruction_ops.py) with both ends, then with every release between
them, then bisects the commits between each pair of neighbouring releases whose counts differ by
more than --spread: every step larger than the spread is placed at one commit (or, where it is
spread over several, as a drift with each part's share).  Each step is confirmed by counting both
its commits again in fresh processes, and explained by the functions, C and Python, whose own
instructions per call moved most.  Where its two sides ran on different jaxlibs the earlier commit
is counted on the later jaxlib too, which splits the step, and where jax's Python holds still the
bundle's jaxlib/ commits between the two jaxlib releases are listed as the candidates.

Each commit runs in an environment of its own, made once and kept under --cache (history/probes.py):
jax or Equinox built from its repository at that commit, the other held fixed, and the jaxlib
release the commit admits (a jax release tag: its own; any other commit: the oldest at or after its
_minimum_jaxlib_version that imports).  Every count is kept as soon as it is made, and a rerun
counts nothing it has counted.  --record FILE keeps the bisection as JSON; --readme FILE rewrites
FILE's generated block from every record in --records (docs/bisections.md).

Exit 1 when a step found does not confirm.
"""

import re
import shlex
import time
from pathlib import Path

from packaging.version import Version

from benchmarks import metrics
from benchmarks.instruction_ops import OPERATIONS, TWINS

from .. import cli, git, settings
from ..errors import BadInput, Failed
from ..history import probes, shards
from ..judging import bisect
from ..project import ROOT
from ..publishing import bisections, generated
from ..running import jax_commits
from . import common_args

COUNTED = ("dispatch(filter_jit)", "dispatch(jit)", "flatten", "unflatten")  # counted together in every probe
# what a commit must change to be counted: the package, or what builds it
PACKAGE = {
    probes.JAX_PROJECT: ("jax/", "setup.py", "pyproject.toml"),
    probes.EQUINOX_PROJECT: ("equinox/", "pyproject.toml"),
}
BUNDLES = ROOT.parent / "shared" / "upstream"
CLONES = ROOT / ".cache" / "upstream"
# jaxlib's folders that a CPU process never runs: a jaxlib step on the CPU is not among their commits
ACCELERATOR_ONLY = {"mosaic", "gpu", "cuda", "rocm", "triton", "tools"}


def parse_args(argv):
    parser = cli.parser("scripts/bisect", __doc__)
    parser.add_argument(
        "start", metavar="FROM", help="the earlier version: a release tag (jax-v0.7.2, v0.13.3) or a hash"
    )
    parser.add_argument("end", metavar="TO", help="the later version")
    parser.add_argument("--project", choices=sorted(PACKAGE), default=probes.JAX_PROJECT, help="whose history")
    parser.add_argument("--operation", choices=sorted(OPERATIONS), default="dispatch(jit)", help="what is counted")
    parser.add_argument("--twin", choices=TWINS, default="module", help="the Module twin or its tuple twin")
    parser.add_argument("--equinox", help="the Equinox held fixed: a PyPI release (default: the reference)")
    parser.add_argument("--jax", help="the JAX held fixed when bisecting Equinox: a jax release tag (jax-v0.4.33)")
    parser.add_argument("--python", default="python3.11", help="the interpreter of the environments")
    parser.add_argument(
        "--spread",
        type=float,
        default=metrics.INSTRUCTIONS_SPREAD,
        help="the relative change that is a step, above the counts' measured spread (default: %(default)s)",
    )
    parser.add_argument(
        "--min-step",
        type=float,
        metavar="FRACTION",
        help="bisect only the neighbouring releases whose counts differ by more than this (default: --spread)",
    )
    for project in PACKAGE:
        parser.add_argument(
            f"--{project}-repo",
            type=Path,
            default=CLONES / f"{project}.git",
            metavar="DIR",
            help=f"{project}'s git repository (default: a clone of ../shared/upstream/{project}.bundle there)",
        )
    parser.add_argument("--cache", type=Path, default=ROOT / ".asv" / "bisect", metavar="DIR", help="kept probes")
    parser.add_argument(
        "--every",
        type=int,
        metavar="N",
        help="count every N-th commit between FROM and TO that changes the package (1: each), not a bisection",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="with --every: count only shard I of N (round-robin, as scripts/shard), for a job matrix",
    )
    parser.add_argument(
        "--publish",
        action="store_true",
        help="then publish every JAX commit counted so far as asv results and asv's site (html/jax-commits)",
    )
    common_args.add_machine(parser)
    parser.add_argument("--record", type=Path, metavar="FILE", help="keep the bisection as JSON in FILE")
    parser.add_argument(
        "--records", type=Path, default=ROOT / "docs" / "bisections", metavar="DIR", help="records for --readme"
    )
    common_args.add_readme(parser, f"rewrite FILE's generated block {bisections.BLOCK} from --records' records")
    args = parser.parse_args(argv)
    if args.every is not None and args.every < 1:
        parser.error("--every is a whole number of commits, 1 or more")
    if args.shard is not None:
        index, _, shards = args.shard.partition("/")
        if not (index.isdigit() and shards.isdigit() and int(index) < int(shards)) or args.every is None:
            parser.error(f"--shard {args.shard}: give I/N with 0 <= I < N, and --every")
        args.shard = (int(index), int(shards))
    if args.publish and args.project != probes.JAX_PROJECT:
        parser.error("--publish publishes JAX's commit history; Equinox's is scripts/bench --repo's")
    args.min_step = args.spread if args.min_step is None else args.min_step
    for name in ("spread", "min_step"):
        if not 0 < getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} is a fraction between 0 and 1, such as 0.008")
    return args


def repository(path: Path, project: str) -> Path:
    """``path``, cloned from the shared bundle first where it is missing."""
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
    return bisect.Commit(source, subject, date, probes.pull_request(subject))


def releases_between(project: str, repo: Path, start: bisect.Commit, end: bisect.Commit) -> list[bisect.Commit]:
    """The release tags strictly between the ends' versions, by version; none where an end is no release."""
    low, high = (Version(c.source.version) if c.source.version else None for c in (start, end))
    if low is None or high is None:
        return []
    found = []
    for tag in git.tags(repo):
        matched = probes.RELEASE_TAG[project].match(tag)
        if matched and low < Version(matched.group(1)) < high:
            found.append((Version(matched.group(1)), tag))
    return [commit_of(project, repo, tag) for _, tag in sorted(found)]


def commits_between(project: str, repo: Path, start: bisect.Commit, end: bisect.Commit) -> tuple[list, int]:
    """The first-parent commits after ``start`` up to ``end`` that change the project's package, oldest first,
    framed by the two ends; and how many commits between changed nothing there."""
    found, skipped = [], 0
    for (commit, subject, date), files in first_parent_log(
        repo, "%H%x00%s%x00%cs", start.source.commit, end.source.commit
    ):
        if commit == end.source.commit:
            continue
        if any(name.startswith(PACKAGE[project]) for name in files):
            source = probes.Source(project, commit, repo)
            found.append(bisect.Commit(source, subject, date, probes.pull_request(subject)))
        else:
            skipped += 1
    return [start, *found, end], skipped


def jaxlib_candidates(repo: Path, before: str, after: str, identifiers: list[str]) -> list[tuple[str, str, list]]:
    """(hash, subject, the ``identifiers`` its diff names) of the commits between the jaxlib releases ``before``
    and ``after`` that change jaxlib's host runtime (some file of jaxlib/ outside ``ACCELERATOR_ONLY`` that is no
    test and no build rule); those whose diff names a moved function first."""
    tags = git.tags(repo)
    ends = [tags.get(f"jax-v{version}") for version in (before, after)]
    if None in ends:
        return []
    found = []
    # newest first, as git log lists them
    for (commit, subject), files in reversed(list(first_parent_log(repo, "%H%x00%s", ends[0], ends[1], "jaxlib/"))):
        if any(host_runtime(name) for name in files):
            diff = git.out("show", "--format=", "-U0", commit, "--", "jaxlib/", repo=repo) if identifiers else ""
            named = [name for name in identifiers if re.search(rf"\b{re.escape(name)}\b", diff)]
            found.append((commit, subject, named))
    return sorted(found, key=lambda candidate: not candidate[2])


def first_parent_log(repo: Path, fields: str, start: str, end: str, *paths: str):
    """((``fields`` of each commit, split at NUL), the files it changes against its first parent) of the
    first-parent commits after ``start`` up to ``end``, oldest first, touching ``paths`` where given."""
    listed = git.out(
        "log", "--first-parent", "-m", "--reverse", f"--format=%x01{fields}", "--name-only", f"^{start}", end, "--",
        *paths, repo=repo,
    )  # fmt: skip
    for entry in listed.split("\x01")[1:]:
        head, *files = entry.strip().split("\n")
        yield tuple(head.split("\0")), files


def host_runtime(path: str) -> bool:
    parts = path.split("/")
    build = parts[-1] == "BUILD" or parts[-1].endswith((".bzl", "_test.py", "_test.cc", ".md"))
    return len(parts) > 1 and parts[1] not in ACCELERATOR_ONLY and not build


def main(argv):
    args = parse_args(argv)
    started = time.monotonic()
    repo = repository(getattr(args, f"{args.project}_repo"), args.project)
    jax_repo = repo if args.project == probes.JAX_PROJECT else repository(args.jax_repo, probes.JAX_PROJECT)
    kept = probes.Probes(args.cache, args.python, tuple(sorted(set(COUNTED) | {args.operation})))
    equinox = probes.Source(probes.EQUINOX_PROJECT, version=args.equinox or settings.reference_equinox())
    jax = None
    if args.project == probes.EQUINOX_PROJECT:
        fixed = args.jax or f"jax-v{settings.reference_jax()}"
        equinox, jax = None, probes.commit_source(probes.JAX_PROJECT, jax_repo, fixed)
    elif args.jax:
        raise BadInput("--jax holds JAX fixed while Equinox is bisected: use it with --project equinox")
    search = bisect.Search(kept, equinox, jax, args.operation, args.twin, args.spread)
    ends = [commit_of(args.project, repo, revision) for revision in (args.start, args.end)]
    if args.every:
        code = count_history(search, args, repo, ends)
    else:
        code = bisect_range(search, args, argv, repo, jax_repo, ends, started)
    if args.publish:
        jax_commits.publish(kept, equinox.key, jax_repo, args.records, args.machine)
    return code


def count_history(search: bisect.Search, args, repo: Path, ends: list[bisect.Commit]) -> int:
    """Count every ``args.every``-th commit between the ends that changes the package, and the ends."""
    commits, skipped = commits_between(args.project, repo, *ends)
    chosen = [*commits[: -1 : args.every], commits[-1]]
    if args.shard:
        index, shards_count = args.shard
        chosen = shards.shard(chosen, shards_count, index)
    print(
        f"{len(commits) - 2} commits change {', '.join(PACKAGE[args.project])} ({skipped} skipped); "
        f"counting {len(chosen)}",
        flush=True,
    )
    for commit in chosen:
        print(bisections.point_line(search.point(commit), search.key), flush=True)
    failed = [c for c in chosen if search.point(c).value(*search.key) is None]
    print(f"{len(chosen) - len(failed)} commits counted, {len(failed)} failed (kept with their reasons)")
    return 0


def bisect_range(search, args, argv, repo: Path, jax_repo: Path, ends: list[bisect.Commit], started: float) -> int:
    """The bisection: the releases between the ends, then the commits of each pair of releases that lie apart."""
    releases = [ends[0], *releases_between(args.project, repo, *ends), ends[1]]
    points = [search.point(commit) for commit in releases]
    for point in points:
        print(bisections.point_line(point, search.key), flush=True)
    for end in (points[0], points[-1]):
        if end.value(*search.key) is None:
            raise Failed(f"{end.commit.source.label} counted nothing: {end.record.get('failed', 'no count')}")
    pairs = []
    for index, after in bisect.release_pairs(points, search.key, lambda b, a: abs(a / b - 1) > args.min_step):
        commits, skipped = commits_between(args.project, repo, releases[index], releases[after])
        print(
            f"bisecting {releases[index].source.label} → {releases[after].source.label}: "
            f"{len(commits) - 2} commits change {', '.join(PACKAGE[args.project])}, {skipped} skipped",
            flush=True,
        )
        steps = search.steps(commits)
        pairs.append({"from": index, "to": after, "commits": len(commits) - 2, "skipped": skipped, "steps": steps})
    for step in (step for pair in pairs for step in pair["steps"]):
        search.confirm(step)
        search.split_jaxlib(step)
    record = bisections.record(
        search,
        points,
        pairs,
        command=shlex.join(["scripts/bisect", *argv]),
        candidates=lambda step, named: jaxlib_candidates(jax_repo, step.before.jaxlib, step.after.jaxlib, named),
        seconds=time.monotonic() - started,
        probes_made=search.probes.made,
    )
    print(bisections.text(record))
    if args.record:
        bisections.write(args.record, record)
    for readme in args.readme:
        generated.write_blocks(readme, {bisections.BLOCK: bisections.markdown(bisections.read_all(args.records))})
    unconfirmed = [step for step in record["steps"] if not step["confirmation"].get("confirmed")]
    return 1 if unconfirmed else 0
