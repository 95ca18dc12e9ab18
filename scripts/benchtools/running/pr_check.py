"""Check a pull request before it merges: base and head benchmarked in one asv run per environment, then judged."""

import dataclasses
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

from benchmarks import metrics

from .. import git, util
from ..asvtools import runs, shapes, suite
from ..asvtools.sides import discovery_regex, log
from ..errors import BadInput, Error, Failed
from ..judging import confirm, explain, gate, instructions, pairs, pr_render, pr_summary
from ..judging.recheck import counted_operations, split_params, twin_of
from ..judging.sources import Source
from ..project import ROOT
from ..publishing import operation_history
from ..util import markdown_table
from . import bench

EXACT, CONFIRMED = "exact", "confirmed"  # each with a results folder of its own
BLOCK = "pull-requests"
TIMES = ROOT / "docs" / "commit-history-times.json"


@dataclass
class Request:
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

    @property
    def mode(self) -> str:
        return EXACT if self.no_confirm else CONFIRMED

    @property
    def name(self) -> str:
        """What is checked, in words: "#N", "#N (test merge)", "BASE..HEAD", or "HEAD"."""
        if self.number is None:
            return f"{self.base}..{self.head}" if self.base else self.head
        return f"#{self.number}" + (" (test merge)" if self.merge else "")

    def target(self) -> bench.Target:
        options = bench.Options(
            repo=self.upstream,
            branch=self.branch,
            machine=self.machine,
            output=self.output / self.mode,
            jax=self.jax,
            env_dir=self.env_dir,
            quick=True,
            include_unchanged=True,  # a side whose last commit changed no package path is still a side
        )
        return bench.Target(options)


def resolve(target: bench.Target, request: Request) -> tuple[str, str, list[str]]:
    """Base and head (full hashes), fetched first from a remote, and the package's paths that differ between them."""
    runs.range_hashes(target.config(), target.branch, None, target.results_dir)  # asv's mirror, made or fetched
    repo = bench.git_dir(target)
    if request.base or request.merge:
        head_ref = request.head if request.base else f"refs/pull/{request.number}/merge"
        base_ref = request.base or f"{head_ref}^1"
        head, base = git.commit(repo, head_ref), git.commit(repo, base_ref)
    else:
        head_ref = request.head or f"refs/pull/{request.number}/head"
        head = git.commit(repo, head_ref)
        found = git.run("merge-base", git.END, git.commit(repo, request.branch), head, repo=repo, check=False)
        if found.returncode != 0:
            raise BadInput(f"{head_ref} ({head[:8]}) shares no commit with {request.branch}")
        base, base_ref = found.stdout.strip(), f"merge base with {request.branch}"
    log(f"check-pr: {request.name}: base {base[:8]} ({base_ref}), head {head[:8]} ({head_ref})")
    return base, head, git.out("diff", "--name-only", base, head, "--", *bench.PACKAGE_PATHS, repo=repo).split()


def check(request: Request) -> pr_summary.Summary:
    """Benchmark both sides, judge, explain; Failed where a side could not be measured, never "no change"."""
    started, load_before = time.monotonic(), os.getloadavg()[0]
    target = request.target()
    base, head, touched = resolve(target, request)
    if touched:
        summary = measure(target, request, base, head)
    else:
        why = f"it changes nothing in {' or '.join(bench.PACKAGE_PATHS)}"
        summary = pr_summary.Summary(request.name, [], nothing_to_measure=why)
    took = dict(seconds=time.monotonic() - started, load=(load_before, os.getloadavg()[0]))
    return dataclasses.replace(summary, base=base, head=head, touched=touched, **took)


def measured(names: list[str], confirmed: bool) -> list[str]:
    """Every exact benchmark but the answer's and, when timings are confirmed, the alerting timings and the answer."""
    answer = metrics.ANSWER_RATIO.split(".")[0] + "."
    return [
        name
        for name in names
        if name != "version"
        and (metrics.kind(name) not in metrics.TIMING_KINDS or (confirmed and metrics.alerting_timing(name)))
        and (confirmed or not name.startswith(answer))
    ]


def measure(target: bench.Target, request: Request, base: str, head: str) -> pr_summary.Summary:
    confirmed = not request.no_confirm
    wanted = measured(sorted(json.loads(suite.description())), confirmed)
    with tempfile.TemporaryDirectory(prefix="check-pr-") as scratch:
        hashfile = Path(scratch) / "sides.hashes"
        hashfile.write_text(f"{base}\n{head}\n")
        # One asv run per environment: both sides under one load.
        bench.bench(dataclasses.replace(target.args, bench=discovery_regex(wanted), range=f"HASHFILE:{hashfile}"))
    what = {"missing": "has no results", "failed": "measured nothing (it did not build, install or import)"}
    failures = []
    for env_name, _entry in bench.environments(target):
        for side, commit in (("base", base), ("head", head)):
            path = runs.result_path(target.results_dir, request.machine, commit, env_name)
            if (state := runs.classify(path, request.machine)[0]) in what:
                failures.append(f"the {side} {commit[:8]} {what[state]} in {env_name}")
    if failures:
        raise Failed(f"{request.name}: {'; '.join(failures)}; see asv's log above")
    verdict = gate.judge(
        Source(output=target.args.output), (base, head), confirm=confirmed, max_pairs=request.max_pairs
    )
    faster = confirm.suspects(verdict.changes, verdict.source.thresholds, faster=True) if confirmed else []
    faster = confirm.confirmations(verdict.source.config, verdict.source.conf, faster, request.max_pairs)
    found = causes(verdict.source, pr_summary.changed_exact(verdict))
    environments = sorted({c.env for c in verdict.changes})
    return pr_summary.summarize(verdict, request.name, found, faster, environments=environments)


def causes(source: Source, changes: list) -> dict:
    """{(benchmark, params, env): the cause, in words, or the error that kept it unknown}."""
    found, profiled, counted = {}, {}, counted_operations(changes)
    for change in changes:
        key = (change.benchmark, change.params, change.env)
        if change.kind == metrics.INSTRUCTIONS:
            operation, twin = split_params(change.params)[0], twin_of(change)
            try:
                env = explain.env_config(source.config, source.conf, change.env_params, source.profiles)
                found[key] = instructions.explain(env, change.good, change.bad, operation, twin, counted).sentence()
            except Failed as error:
                found[key] = f"not counted ({error})"
        elif name := pr_summary.profiled(change):
            profiled.setdefault(tuple(sorted(change.env_params.items())), []).append((key, change, name))
    for env_params, rows in profiled.items():
        names = {name for *_, name in rows}
        good, bad = rows[0][1].good, rows[0][1].bad  # a check's changes are all between its base and head
        try:
            env = explain.env_config(source.config, source.conf, dict(env_params), source.profiles)
            explain.profile_commits(env, {good: names, bad: names}, source.profiles)
        except Failed as error:
            found.update({key: f"not profiled ({error})" for key, *_ in rows})
            continue
        for key, _change, name in rows:
            explained = explain.explain(env, good, bad, source.profiles, cached_only=True, profiled=name)
            per = "update" if name == explain.PROFILED else "call"
            found[key] = (
                (explained.sentence(per) or f"no function's number of calls per {per} changed") if explained else None
            )
    return found


def merged_as(repo: Path, branch: str, number: int | None) -> str | None:
    """The commit of BRANCH whose subject names pull request NUMBER (a squashed merge), or None."""
    if number is None:
        return None
    listing = git.out("log", "--format=%H%x00%s", git.END, branch, repo=repo, check=False)
    subjects = (line.partition("\0") for line in listing.splitlines())
    return next((commit for commit, _, s in subjects if operation_history.pull_request_of(s) == number), None)


def entry(request: Request, summary: pr_summary.Summary | None, error: Error | None = None) -> dict:
    asked = dict(
        title=request.name, number=request.number, merge=request.merge, mode=request.mode, jax=list(request.jax)
    )
    if error is not None:
        return {**asked, "failure": f"exit {int(error.code)}: {error}", "changes": []}
    repo = bench.git_dir(request.target())
    return {
        **asked,
        "base": summary.base,
        "head": summary.head,
        "merged_as": merged_as(repo, request.branch, request.number) if not request.merge else None,
        "touched": summary.touched,
        "environments": summary.environments,
        "seconds": round(summary.seconds, 1),
        "load": [round(value, 2) for value in summary.load],
        "sections": summary.counts(),
        "not_comparable": len(summary.unjudged),
        "regression": summary.regression,
        "nothing_to_measure": summary.nothing_to_measure,
        "changes": [
            {
                "operation": row.words.operation,
                "benchmark": row.change.benchmark,
                "params": row.change.params,
                "environment": row.change.env,
                "before": row.change.before,
                "after": row.change.after,
                "section": row.section,
                "cause": row.cause,
                "headline": row.words.rank[0] == 0 and row.words.rank[2] == 0,
            }
            for row in summary.rows
            if row.section in pr_summary.CHANGED
        ],
        "failure": None,
    }


def read(path: Path) -> list[dict]:
    return shapes.read_checked(path, "pull-requests", "record of pull-request checks")


def append(path: Path, found: dict) -> None:
    """Add one check to the record at PATH, replacing an earlier check of the same pull request and mode."""
    record = read(path) if path.exists() else []
    key = itemgetter("title", "mode", "jax")
    record = [e for e in record if key(e) != key(found)] + [found]
    util.write_json(path, record)


def history_time(times: dict, change: dict, merged: str) -> dict | None:
    """The side-by-side time of the squashed commit MERGED for the changed operation, from the history."""
    operation = operation_history.BY_LABEL.get(change["operation"].removesuffix(pr_summary.INSTRUCTIONS_SUFFIX))
    if operation is None:
        return None
    wanted = (change["environment"], metrics.entry(*operation.timed), merged)  # a key is "env | entry | before | after"
    kept = (value for key, value in times.items() if itemgetter(0, 1, 3)(key.split(" | ")) == wanted)
    return next(kept, {}).get("interval")


def agreement(change: dict, interval: dict | None) -> str:
    if interval is None:
        return "no time in the history"
    if interval["low"] <= 0 <= interval["high"]:
        return f"time undecided ({interval['estimate']:+.1%})"
    word = "agrees" if (change["after"] < change["before"]) == (interval["high"] < 0) else "**differs**"
    return f"{word}: time {interval['estimate']:+.1%} ({interval['low']:+.1%} to {interval['high']:+.1%})"


def table(record: list[dict], times_path: Path = TIMES) -> str:
    times = operation_history.read_kept(times_path)
    head = ["pull request", "mode, JAX", "base → head", "what merging does", "changes; against the history's time"]
    return markdown_table([*head, "check took", "load before → after"], [row(found, times) for found in record]) + "\n"


def row(found: dict, times: dict) -> list[str]:
    where = f"{found['mode']}, {', '.join(found['jax']) or 'every environment'}"
    if found.get("failure"):
        return [found["title"], where, "—", f"failed: {pr_render.cell(found['failure'], None)}", "—", "—", "—"]
    nothing, merged = found.get("nothing_to_measure"), found.get("merged_as")
    does = f"nothing to measure ({nothing})" if nothing else "".join(pr_render.counted(found["sections"]))
    headline = [change for change in found["changes"] if change.get("headline")]
    shown = [
        f"{c['operation']} {c['after'] / c['before'] - 1 if c['before'] else float('inf'):+.1%}"
        + (f" ({agreement(c, history_time(times, c, merged))})" if merged else "")
        for c in headline
    ] or ["—"]
    if len(found["changes"]) > len(headline):
        shown.append(f"and {len(found['changes']) - len(headline)} other measure(s) (other params or benchmarks)")
    squashed = f". Squashed as `{merged[:8]}`" if merged else ""
    sides, (before, after) = f"`{found['base'][:8]}` → `{found['head'][:8]}`", found["load"]
    changes = pr_render.cell("; ".join(shown) + squashed, None)
    took, load = f"{found['seconds'] / 60:.1f} min", f"{before:.2f} → {after:.2f}"
    return [found["title"], where, sides, does, changes, took, load]
