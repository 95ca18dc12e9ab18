"""The nightly: check out the results branch, benchmark what is new, publish, judge against the baseline."""

import os
import shutil
import sys
from pathlib import Path

from .. import git
from ..asvtools import validate
from ..errors import BadInput, Error, ExitCode
from ..judging import gate, render, verdicts
from ..project import HISTORY_DIR, upstream_url
from ..publishing import report, results_branch
from . import bench

# Set in the checkouts this script makes: it resets them, so it refuses any other folder.
OWNER_KEY = "nightly.results-checkout"


def is_results_checkout(output: Path) -> bool:
    """Whether OUTPUT is a checkout that scripts/nightly made (and so may write into)."""
    return (output / ".git").exists() and git.out("config", OWNER_KEY, repo=output, check=False).strip() == "true"


def checkout_results(output: Path, remote: str, branch: str) -> None:
    """Make OUTPUT hold the branch's files, keeping files that no commit of it tracks."""
    ours = (output / ".git").exists()
    if ours and git.out("config", OWNER_KEY, repo=output, check=False).strip() != "true":
        raise BadInput(f"--output {output}: a git repository that scripts/nightly did not make")
    if not ours and output.exists() and any(output.iterdir()):
        raise BadInput(f"--output {output}: not empty and not a results checkout")
    results_branch.branches(remote, branch)  # BadInput before anything is made when it cannot be reached
    if not ours:
        output.mkdir(parents=True, exist_ok=True)
        git.run("init", "--quiet", repo=output)
        git.run("config", OWNER_KEY, "true", repo=output)
    # Untracked files (results of a run killed before they were pushed) survive the reset.
    if results_branch.fetch_branch(output, remote, branch) is None:
        print(f"{remote} has no branch {branch} yet: starting without results", file=sys.stderr)


def nightly(args) -> int:
    """The night (see scripts/nightly --help); whatever fails, the verdict says which stage and why."""
    # The stage running now, named in the verdict of a failed night; "" once the verdict is written, so that
    # a later failure (the site's copy, say) exits non-zero without turning a judged night into a failed one.
    stage = ["scripts/nightly"]
    try:
        return night(args, stage)
    except Error as error:
        if stage[0]:
            fail(args, stage[0], error.code, str(error))
        if stage[0] in ("scripts/nightly", ""):
            raise
        print(f"{stage[0]}: {error}", file=sys.stderr)
        return error.code
    except Exception as error:
        if stage[0]:
            fail(args, stage[0], ExitCode.CRASHED, f"crashed: {type(error).__name__}: {error}")
        raise


def night(args, stage: list[str]) -> int:
    upstream = args.upstream or upstream_url()
    remote = args.results_remote or results_branch.default_remote()
    options = bench.Options(
        repo=upstream,
        machine=args.machine,
        output=args.output,
        quick=args.quick,
        bench=args.bench,
        jax=args.jax,
        **({"env_dir": args.env_dir} if args.env_dir else {}),
    )
    target = bench.Target(options)

    checkout_results(args.output, remote, args.results_branch)
    # The site is rebuilt from every result, so that no run leaves a stale one behind.
    shutil.rmtree(target.html_dir, ignore_errors=True)
    options.range = args.range
    if args.range == "NEW" and not any((target.results_dir / args.machine).glob("*-*.json")):
        print(f"no results for machine {args.machine!r} yet: benchmarking the branch tip", file=sys.stderr)
        options.range = None
        # The tip is the baseline of every later night, even where it left the package as its parent had it:
        # that parent has no results either (upstream's 0c95418f "Fix typo" would have left a first night empty).
        options.include_unchanged = True
    baseline = newest_with_results(target.results_dir, args.machine)
    stage[0] = "scripts/bench"
    status = publish_stored(target) if args.publish_only else bench.bench(options)
    stage[0] = "the regression gate"
    compare, confirmed = gate_scope(args.output, baseline)
    options = gate.GateOptions(
        output=args.output, explain=True, confirm=confirmed and not args.no_confirm, max_pairs=args.confirm_max_pairs
    )
    verdict = gate.judge(options, compare)
    stage[0] = "scripts/nightly"
    write_report(args, render.markdown(verdict), verdicts.data(verdict))
    stage[0] = ""
    refresh_overhead_page(target)
    if args.site and (target.html_dir / "index.html").is_file():
        shutil.copytree(target.html_dir, args.site, dirs_exist_ok=True)
        print(f"site copied to {args.site}", file=sys.stderr)
    return status


def refresh_overhead_page(target) -> None:
    """Write the site's overhead page again, now that the gate has profiled the causes of the steps."""
    if not (target.html_dir / "index.html").is_file():
        return
    repo = target.repo if isinstance(target.repo, Path) else HISTORY_DIR / "equinox"
    try:
        report.write_page(target.results_dir, target.html_dir, target.args.machine, repo, config=target.config())
    except Error as error:
        print(f"scripts/overhead-report: {error}; the page keeps the causes it had", file=sys.stderr)


def publish_stored(target) -> int:
    """The site of the results the branch holds, made without running a benchmark; the latest-run record."""
    if not any(target.results_dir.glob("*/*-*.json")):
        raise BadInput(f"the results branch holds no results in {target.results_dir.name}/: nothing to publish")
    bench.publish(target)
    bench.record_last_run(target, [])
    return ExitCode.OK


def newest_with_results(results_dir: Path, machine: str) -> str | None:
    """The baseline: the newest commit (by commit date) that has results for the machine."""
    from asv import results

    if not (results_dir / machine).is_dir():
        return None
    found = {}
    for result in results.iter_results_for_machine(str(results_dir), machine):
        found[result.commit_hash] = max(result.date or 0, found.get(result.commit_hash, 0))
    return max(found, key=found.get) if found else None


def gate_scope(output: Path, baseline: str | None) -> tuple[tuple[str, str] | None, bool]:
    """What the gate judges: (baseline, newest commit benchmarked) when both exist, confirmed;
    else asv's step detection, confirmed unless nothing new ran."""
    last_run = output / ".asv" / "last-run.json"
    # Without the record, the gate itself reports it missing, with its own exit code.
    commits = (
        gate.read_json(last_run, "the latest scripts/bench run record", validate.LAST_RUN).get("commits", [])
        if last_run.is_file()
        else []
    )
    newest = commits[-1] if commits else None
    if baseline and newest and newest != baseline:
        return (baseline, newest), True
    return None, baseline is None


def fail(args, stage: str, code: int, message: str) -> None:
    """The report and verdict of a night that could not be judged: a failure to be told, never a quiet night.

    Written into OUTPUT only once OUTPUT is a results checkout this command
    made: a folder it refused to take over is left as it was.
    """
    document = verdicts.failure(stage, code, message)
    write_report(args, f"No report: {document['summary']}\n", document)


def write_report(args, text: str, document: dict) -> None:
    """The Markdown report to --report and the verdict to --verdict, the one the alert reads."""
    ours = is_results_checkout(args.output)
    if ours or not args.report.is_relative_to(args.output):
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text)
    if ours or not args.verdict.is_relative_to(args.output):
        verdicts.write(args.verdict, document)
    print(text, end="")
    summarize(f"**Verdict: {document['summary']}.**\n\n{text}")


def summarize(text: str) -> None:
    """Append TEXT to the GitHub Actions job summary, when there is one."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a") as out:
            out.write(text + "\n")
