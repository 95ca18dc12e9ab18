"""The nightly: check out the results branch, benchmark what is new, publish, judge against the baseline."""

import dataclasses
import os
import shutil
import signal
from pathlib import Path

from benchmarks import metrics

from .. import git, settings
from ..asvtools import publishable, runs, shapes
from ..asvtools.sides import log
from ..errors import BadInput, Error, ExitCode
from ..judging import gate, render, verdicts
from ..judging.sources import Source
from ..publishing import results_branch
from . import bench

# Set in the checkouts this script makes: it resets them, so it refuses any other folder.
OWNER_KEY = "nightly.results-checkout"


def is_results_checkout(output: Path) -> bool:
    return (output / ".git").exists() and git.out("config", OWNER_KEY, repo=output, check=False).strip() == "true"


def checkout_results(output: Path, remote: str, branch: str) -> None:
    """Make OUTPUT hold the branch's files, keeping files that no commit of it tracks."""
    ours = is_results_checkout(output)
    if (output / ".git").exists() and not ours:
        raise BadInput(f"--output {output}: a git repository that scripts/nightly did not make")
    if not ours and output.exists() and any(output.iterdir()):
        raise BadInput(f"--output {output}: not empty and not a results checkout")
    results_branch.branches(remote, branch)  # BadInput before anything is made
    if not ours:
        output.mkdir(parents=True, exist_ok=True)
        git.run("init", "--quiet", repo=output)
        git.run("config", OWNER_KEY, "true", repo=output)
    # Untracked files (a killed run's results) survive the reset.
    if results_branch.fetch_branch(output, remote, branch) is None:
        log(f"{remote} has no branch {branch} yet: starting without results")


class Stopped(BaseException):
    """SIGINT or SIGTERM."""


def stop(signum, _frame):
    raise Stopped(signal.Signals(signum).name)


def nightly(args) -> int:
    # The stage running now; "" once the verdict is written, so that a later failure does not fail a judged night.
    stage = ["scripts/nightly"]
    # GitHub's timeout and cancel send SIGINT, then SIGTERM: each leaves a failed verdict (a shell may ignore SIGINT).
    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        return night(args, stage)
    except (Stopped, Exception) as error:
        if isinstance(error, Stopped):
            code, message = ExitCode.FAILED, f"stopped by {error} (a cancel, or the step's timeout)"
        elif isinstance(error, Error):
            code, message = error.code, str(error)
        else:
            code, message = ExitCode.CRASHED, f"crashed: {type(error).__name__}: {error}"
        if stage[0]:  # a night that could not be judged is a failure, never a quiet night
            document = verdicts.failure(stage[0], code, message)
            write_report(args, f"No report: {document['summary']}\n", document)
        if isinstance(error, Exception) and (not isinstance(error, Error) or stage[0] in ("scripts/nightly", "")):
            raise
        log(f"{stage[0] or 'scripts/nightly'}: {message}")
        return code
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def night(args, stage: list[str]) -> int:
    remote = args.results_remote or results_branch.default_remote()
    options = bench.Options(
        repo=args.upstream or settings.load().upstream_url,
        **{name: getattr(args, name) for name in ("machine", "output", "quick", "bench", "jax", "range")},
        **({"env_dir": args.env_dir} if args.env_dir else {}),
    )
    target = bench.Target(options)
    checkout_results(args.output, remote, args.results_branch)
    shutil.rmtree(target.html_dir, ignore_errors=True)
    if args.range == "NEW" and not any((target.results_dir / args.machine).glob("*-*.json")):
        log(f"no results for machine {args.machine!r} yet: benchmarking the branch tip")
        options.range = None
        # The tip is every later night's baseline, even if it leaves the package as its parent had it ("Fix typo").
        options.include_unchanged = True
    baseline = runs.newest_with_results(target.results_dir, args.machine)
    stage[0] = "scripts/bench"
    status = publish_stored(target) if args.publish_only else bench.bench(options)
    stage[0] = "the regression gate"
    if args.rejudge_run:
        scope = rejudge_scope(target, args.rejudge_run, remote, args.results_branch)
    else:
        scope = gate_scope(args.output, baseline, bench.git_dir(target))
    if scope.nothing:
        text = render.nothing_judged(scope.nothing)
        document = verdicts.nothing_judged(scope.nothing, str(target.results_dir), args.machine, scope.unchanged)
    else:
        verdict = gate.judge(
            Source(output=args.output),
            scope.compare,
            # Explaining runs upstream code, which the publish job (whose site Pages deploys) must never run.
            explain=not args.publish_only,
            confirm=scope.confirmed and not args.no_confirm,
            max_pairs=args.confirm_max_pairs,
        )
        if args.rejudge_run:  # its timing rows go: no side-by-side re-measuring confirmed them
            counted = [c for c in verdict.counted if c.kind not in metrics.TIMING_KINDS]
            verdict = dataclasses.replace(verdict, counted=counted, not_alerting=[], confirmations=None)
        text, document = render.markdown(verdict), verdicts.data(verdict)
    stage[0] = "scripts/nightly"
    write_report(args, text, document)
    stage[0] = ""
    refresh_overhead_page(target)
    if args.site and (target.html_dir / "index.html").is_file():
        shutil.copytree(target.html_dir, args.site, dirs_exist_ok=True)
        log(f"site copied to {args.site}")
    return status


def refresh_overhead_page(target) -> None:
    """The site's overhead page again, now that the gate has profiled the steps' causes."""
    if (target.html_dir / "index.html").is_file():
        try:
            bench.write_overhead_page(target)
        except Error as error:
            log(f"scripts/overhead-report: {error}; the page keeps the causes it had")


def publish_stored(target) -> int:
    if not any(target.results_dir.glob("*/*-*.json")):
        raise BadInput(f"the results branch holds no results in {target.results_dir.name}/: nothing to publish")
    bench.publish(target)
    bench.record_last_run(target, [])
    return ExitCode.OK


@dataclasses.dataclass(frozen=True)
class Scope:
    compare: tuple[str, str] | None = None  # (BEFORE, AFTER), or None: asv's step detection
    confirmed: bool = True
    nothing: str | None = None  # why nothing is judged
    unchanged: list[str] = dataclasses.field(default_factory=list)


def gate_scope(output: Path, baseline: str | None, repo: Path) -> Scope:
    """The baseline against tonight's newest commit, if it descends from it; the first night, asv's step detection."""
    path = output / ".asv" / "last-run.json"
    record = shapes.read_checked(path, "last-run", "the latest scripts/bench run record") if path.is_file() else {}
    commits, unchanged = record.get("commits", []), record.get("unchanged", [])
    newest = commits[-1] if commits else None
    if baseline is None:
        return Scope()
    if newest in (None, baseline):
        nothing = f"no commit after the baseline {baseline[:8]} was benchmarked tonight"
    elif git.is_ancestor(repo, baseline, newest):
        return Scope(compare=(baseline, newest))
    else:
        nothing = f"tonight's newest commit {newest[:8]} does not descend from the baseline {baseline[:8]} "
        nothing += "(a range of older commits): their steps are on the site, not compared"
    return Scope(nothing=nothing, unchanged=unchanged)


def rejudge_scope(target, run_id: str, remote: str, branch: str) -> Scope:
    """The baseline against the newest commit whose results run RUN_ID stored (the tip's ``Run:`` trailer says it)."""
    output, machine = target.args.output, target.args.machine
    if f"\n{results_branch.RUN_TRAILER}: {run_id}\n" not in f"\n{git.out('log', '-1', '--format=%B', repo=output)}\n":
        return Scope(nothing=f"run {run_id} stored no results")
    # The checkout is shallow: diff-tree needs the tip's parent.
    results_branch.git_(
        "fetch", "--quiet", "--deepen", "1", git.END, remote, f"refs/heads/{branch}", cwd=output, check=False
    )
    # With --root, a tip without a parent shows every file it holds as added.
    added = git.out(
        "diff-tree", "--no-commit-id", "-r", "--name-only", "--diff-filter=A", "--root", "HEAD", repo=output
    )
    commits = {
        shapes.read_json(output / name, "asv results file").get("commit_hash")
        for name in added.split()
        if (output / name).parent == target.results_dir / machine and publishable.RESULT_NAME.fullmatch(Path(name).name)
    }
    if not commits:
        return Scope(nothing=f"run {run_id} stored no results for machine {machine!r}")
    repo = bench.git_dir(target)
    order = git.topological_order(repo)
    newest = max(commits, key=lambda commit: order.get(commit, -1))
    if (baseline := runs.newest_with_results(target.results_dir, machine, leave_out=commits)) is None:
        return Scope(nothing=f"no results before run {run_id}'s to compare them with")
    if not git.is_ancestor(repo, baseline, newest):
        return Scope(
            nothing=f"run {run_id}'s newest commit {newest[:8]} does not descend from the baseline {baseline[:8]}"
        )
    return Scope(compare=(baseline, newest), confirmed=False)


def write_report(args, text: str, document: dict) -> None:
    """The report and the verdict, written into OUTPUT only if this command made it a results checkout."""
    ours = is_results_checkout(args.output)
    if ours or not args.report.is_relative_to(args.output):
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text)
    if ours or not args.verdict.is_relative_to(args.output):
        verdicts.write(args.verdict, document)
    print(text, end="")
    summarize(f"**Verdict: {document['summary']}.**\n\n{text}")


def summarize(text: str) -> None:
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a") as out:
            out.write(text + "\n")
