"""Check a pull request before it merges: its base and head benchmarked in one job, judged by the gate.

The sides are resolved in the benchmarked repository (a local path, or asv's mirror of a remote one, which holds
GitHub's refs/pull/*): pull request N is refs/pull/N/head against its merge base with the branch, or with ``merge``
GitHub's test merge refs/pull/N/merge against its first parent (the branch it merges into). scripts/bench runs both
commits in each environment (HASHFILE:), the gate compares them (``gate.judge``, BASE → HEAD), confirming every timing
suspect side by side unless ``no_confirm``, and each changed exact measure gets its cause (explain.py, one call of its
operation profiled in both commits). judging/pr_summary.py turns the outcome into the summary.
"""

import dataclasses
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics

from .. import git, util
from ..asvtools import runs, suite
from ..asvtools.sides import discovery_regex
from ..errors import BadInput, Failed
from ..judging import confirm, explain, gate, instructions, pairs, pr_summary
from ..judging.recheck import split_params
from ..judging.sources import Source
from ..project import ROOT
from . import bench

NOTHING_TO_MEASURE = "nothing to measure"
EXACT, CONFIRMED = "exact", "confirmed"  # the two modes, each with a results folder of its own


@dataclass
class Request:
    """One check (see scripts/check-pr --help)."""

    upstream: str
    number: int | None = None
    merge: bool = False
    base: str | None = None
    head: str | None = None
    branch: str = "main"
    jax: list[str] = field(default_factory=list)
    no_confirm: bool = False
    machine: str = "check-pr"
    output: Path = ROOT / ".cache" / "check-pr"
    env_dir: Path = bench.ENV_DIR
    max_pairs: int = pairs.MAX_PAIRS

    def __post_init__(self):
        if (self.number is None) == (self.head is None) or (self.base and self.head is None):
            raise BadInput("name a pull request N, or --head (with --base, or against its merge base), not both")
        if self.merge and self.number is None:
            raise BadInput("--merge needs a pull request NUMBER")
        self.output = Path(self.output).resolve()

    @property
    def mode(self) -> str:
        return EXACT if self.no_confirm else CONFIRMED

    @property
    def name(self) -> str:
        """What is checked, in words: "#N", "#N (test merge)", "BASE..HEAD", or "HEAD"."""
        if self.number is None:
            return f"{self.base}..{self.head}" if self.base else self.head
        return f"#{self.number}" + (" (test merge)" if self.merge else "")


@dataclass
class Sides:
    base: str  # full hashes
    head: str
    base_ref: str  # how each was found
    head_ref: str
    touched: list[str]  # the package's paths (bench.PACKAGE_PATHS) that differ between them


@dataclass
class Outcome:
    """What one check found: the sides, the gate's verdict (None when there was nothing to measure), its changed
    measures' causes, how long it took and under what load."""

    request: Request
    sides: Sides
    verdict: gate.Verdict | None
    causes: dict = field(default_factory=dict)  # {(benchmark, params, env): the cause, in words}
    faster_confirmations: list = field(default_factory=list)  # timing improvements re-measured side by side
    seconds: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)
    environments: list[str] = field(default_factory=list)


def load_average() -> float:
    return os.getloadavg()[0]


def target_of(request: Request) -> bench.Target:
    options = bench.Options(
        repo=request.upstream,
        branch=request.branch,
        machine=request.machine,
        output=request.output / request.mode,
        jax=request.jax,
        env_dir=request.env_dir,
        quick=True,
        include_unchanged=True,  # a side whose last commit changed no package path is still a side
    )
    return bench.Target(options)


def rev(repo: Path, name: str) -> str:
    """The commit NAME names in REPO; BadInput naming it when there is none."""
    found = git.run("rev-parse", "--verify", "--quiet", git.END, f"{name}^{{commit}}", repo=repo, check=False)
    if found.returncode != 0:
        raise BadInput(f"{repo} has no commit {name!r}")
    return found.stdout.strip()


def resolve(target: bench.Target, request: Request) -> Sides:
    """Base and head of the request, in the target's repository (fetched first when it is a remote)."""
    runs.range_hashes(target.config(), target.branch, None, target.results_dir)  # asv's mirror, made or fetched
    repo = bench.git_dir(target)
    if request.base:
        base_ref, head_ref = request.base, request.head
        base, head = rev(repo, base_ref), rev(repo, head_ref)
    elif request.merge:
        head_ref = f"refs/pull/{request.number}/merge"
        head = rev(repo, head_ref)
        base_ref = f"{head_ref}^1"
        base = rev(repo, base_ref)
    else:
        head_ref = request.head or f"refs/pull/{request.number}/head"
        head = rev(repo, head_ref)
        branch = rev(repo, request.branch)
        found = git.run("merge-base", git.END, branch, head, repo=repo, check=False)
        if found.returncode != 0:
            raise BadInput(f"{head_ref} ({head[:8]}) shares no commit with {request.branch}")
        base, base_ref = found.stdout.strip(), f"merge base with {request.branch}"
    return Sides(base, head, base_ref, head_ref, touched_package(repo, base, head))


def touched_package(repo: Path, base: str, head: str) -> list[str]:
    """The files under bench.PACKAGE_PATHS that differ between BASE and HEAD."""
    listed = git.out("diff", "--name-only", base, head, "--", *bench.PACKAGE_PATHS, repo=repo)
    return listed.split()


def benchmarks_to_run(confirmed: bool) -> list[str]:
    """The suite's benchmarks a check runs, by name: every exact one (any kind benchmarks/metrics.py does not declare a
    timing) and, when timings are confirmed, the alerting timings, which alone can become suspects; a timing that never
    alerts is never counted, so it is not run."""
    described = json.loads(suite.description())
    return sorted(
        name
        for name in described
        if name != "version"
        and (metrics.kind(name) not in metrics.TIMING_KINDS or (confirmed and metrics.alerting_timing(name)))
    )


def side_failures(target: bench.Target, sides: Sides, environments: list[tuple[str, dict]]) -> list[str]:
    """Each side that measured nothing in an environment (it did not build, install or import), in words."""
    found = []
    for env_name, _entry in environments:
        for side, commit in (("base", sides.base), ("head", sides.head)):
            path = runs.result_path(target.results_dir, target.args.machine, commit, env_name)
            state, _failures = runs.classify(path, target.args.machine)
            if state in ("failed", "missing"):
                what = (
                    "has no results" if state == "missing" else "measured nothing (it did not build, install or import)"
                )
                found.append(f"the {side} {commit[:8]} {what} in {env_name}")
    return found


def check(request: Request) -> Outcome:
    """Benchmark both sides in each environment, judge, and explain what changed; the outcome.

    Failed (exit 3) when a side could not be measured in an environment: a failure is never "no change".
    """
    started, load_before = time.monotonic(), load_average()
    target = target_of(request)
    sides = resolve(target, request)
    if not sides.touched:
        return Outcome(request, sides, None, seconds=time.monotonic() - started, load=(load_before, load_average()))
    regexes = discovery_regex(benchmarks_to_run(confirmed=not request.no_confirm))
    print(
        f"check-pr: {request.name}: base {sides.base[:8]} ({sides.base_ref}), head {sides.head[:8]} ({sides.head_ref})",
        file=sys.stderr,
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="check-pr-") as scratch:
        hashfile = Path(scratch) / "sides.hashes"
        hashfile.write_text(f"{sides.base}\n{sides.head}\n")
        # Both sides in one asv run per environment: one job, one machine, one load.
        bench.bench(dataclasses.replace(target.args, bench=regexes, range=f"HASHFILE:{hashfile}"))
    environments = bench.environments(target)
    failures = side_failures(target, sides, environments)
    if failures:
        raise Failed(f"{request.name}: {'; '.join(failures)}; see asv's log above")
    verdict = gate.judge(
        Source(output=target.args.output),
        (sides.base, sides.head),
        confirm=not request.no_confirm,
        max_pairs=request.max_pairs,
    )
    outcome = Outcome(request, sides, verdict, environments=sorted({c.env for c in verdict.changes}))
    if not request.no_confirm:
        faster = pr_summary.faster_suspects(verdict)
        outcome.faster_confirmations = confirm.confirmations(verdict.source.config, faster, request.max_pairs)
    outcome.causes = causes(verdict, pr_summary.changed_exact(verdict))
    outcome.seconds, outcome.load = time.monotonic() - started, (load_before, load_average())
    return outcome


def causes(verdict: gate.Verdict, changes: list) -> dict:
    """{(benchmark, params, env): the functions whose calls changed, in words} of each change whose operation can be
    profiled (pr_summary.profiled), each commit installed once per environment; an error, in words, where profiling
    failed."""
    source = verdict.source
    wanted, found = {}, {}
    cache = source.asv_dir / explain.PROFILES
    for change in changes:
        if change.kind == metrics.INSTRUCTIONS:  # where the instructions went, C included
            counted = split_params(change.params)[0]
            twin = "module" if change.benchmark.endswith("track_module") else "tuple"
            try:
                explained = instructions.explain(
                    source.config, change.env_params, change.good, change.bad, cache, counted, twin
                )
                found[change.benchmark, change.params, change.env] = explained.sentence()
            except Failed as error:
                found[change.benchmark, change.params, change.env] = f"not counted ({error})"
            continue
        profiled = pr_summary.profiled(change)
        if profiled:
            wanted.setdefault(tuple(sorted(change.env_params.items())), []).append((change, profiled))
    for env_params, rows in wanted.items():
        names = {profiled for _change, profiled in rows}
        first = rows[0][0]
        try:
            explain.profile_commits(source.config, dict(env_params), {first.good: names, first.bad: names}, cache)
        except Failed as error:
            for change, _ in rows:
                found[change.benchmark, change.params, change.env] = f"not profiled ({error})"
            continue
        for change, profiled in rows:
            explained = explain.explain(
                source.config, change.env_params, change.good, change.bad, cache, cached_only=True, profiled=profiled
            )
            per = "update" if profiled == explain.PROFILED else "call"
            found[change.benchmark, change.params, change.env] = (
                (explained.sentence(per) or f"no function's number of calls per {per} changed") if explained else None
            )
    return found


def summary_of(outcome: Outcome) -> pr_summary.Summary:
    """The outcome as the summary's data (pr_summary): every measure in its section."""
    sides = outcome.sides
    facts = dict(
        base=sides.base,
        head=sides.head,
        seconds=outcome.seconds,
        load=outcome.load,
        environments=outcome.environments,
    )
    if outcome.verdict is None:
        why = f"it changes nothing in {' or '.join(bench.PACKAGE_PATHS)}"
        return pr_summary.nothing_to_measure(outcome.request.name, why, **facts)
    return pr_summary.summarize(
        outcome.verdict, outcome.request.name, outcome.causes, outcome.faster_confirmations, **facts
    )


def write_text(path: Path, text: str) -> None:
    util.write_atomic(path, text.encode())
