#!/usr/bin/env python3
"""Benchmark the upstream Equinox commits that the results branch lacks, publish the site, report regressions.

  1. OUTPUT becomes a checkout of the results branch of --results-remote (the
     branch is only read: results that a killed run left in OUTPUT stay, and
     the next run does not benchmark them again).
  2. scripts/bench --repo UPSTREAM --machine MACHINE --output OUTPUT RANGE
     benchmarks the commits of RANGE that have no results yet and publishes
     the site of every result in OUTPUT into OUTPUT/html (rebuilt each run).
     RANGE NEW is every commit after the newest one with results; on a branch
     without results for this machine, it is the branch tip alone (a history
     is for a backfill, not a nightly run).
  3. scripts/regressions --explain writes the regression report (Markdown)
     to --report, to stdout and, in GitHub Actions, to the job summary; the
     issue that scripts/open-regression-issue opens carries it.  When the
     results branch had a baseline (the newest commit with results before
     this run) and the run benchmarked new commits, it compares the baseline
     with the newest of them, and re-measures the baseline in this job, side
     by side with the new commit, for every timing suspect (the gate's
     confirm step), so that a timing verdict never compares two runners or
     two nights; deterministic metrics compare across nights.  Otherwise it
     reports asv's step detection (unconfirmed when nothing new ran).  Each
     deterministic or cost regression and each large improvement comes with
     its cause (one update profiled in both commits with asv profile).
  4. --site copies the site into a folder for GitHub Pages.

With --publish-only, step 2 runs no benchmark: the site is published from
the results on the branch alone.  The workflows make the site for Pages so,
in a job of its own after the results are stored, so that nothing a job
running upstream Equinox wrote reaches Pages but the validated results.

It never writes the results branch: scripts/push-results OUTPUT/results does,
in a job that runs no benchmarked code and so is the only one holding a token
that can push.  No new commit is not a failure.  The asv machine name is
fixed (default github-actions), so that results from different runners line
up on one graph.

Exit status: 0 when every commit has results (a regression is in the report,
not in the status); 1 when a benchmark failed (scripts/bench's 1); 2 for bad
arguments, an unreachable repository, or bad results or site files; 3 when
a command it ran failed; 4 when it, scripts/bench or the gate crashed.
Whenever no regression report could be made, the report file says so in a
line that starts with "No report:" and names what failed (never an empty
report), and the exit status is not 0.
"""

import os
import shutil
import sys
from pathlib import Path

from . import bench, cli, confirm, gate, git, report, validate
from .cli import BadInput, Error, ExitCode
from .project import HISTORY_DIR, ROOT, upstream_url

# Set in the checkouts this script makes: it resets them, so it refuses any other folder.
OWNER_KEY = "nightly.results-checkout"


def parse_args(argv):
    parser = cli.parser("scripts/nightly", __doc__)
    parser.add_argument("range", nargs="?", default="NEW", metavar="RANGE",
                        help="asv's range of upstream commits: NEW, a tag, A..B, HASHFILE:PATH (default: NEW)")
    parser.add_argument("--upstream", metavar="URL|PATH",
                        help="the Equinox repository (default: asv.conf.json's)")
    parser.add_argument("--results-remote", metavar="URL|PATH",
                        help="the repository that holds the results branch (default: this project's origin)")
    parser.add_argument("--results-branch", default="results", metavar="BRANCH",
                        help="the branch (default: %(default)s)")
    cli.add_machine(parser, "github-actions", "asv machine name, the same on every runner (default: %(default)s)")
    cli.add_output(parser, ROOT / ".cache" / "nightly",
                   "the results checkout, where results/ and html/ go (default: .cache/nightly)")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="where the regression report goes (default: OUTPUT/regressions.md)")
    parser.add_argument("--site", type=Path, metavar="DIR", help="copy the published site into DIR (a new folder)")
    parser.add_argument("--publish-only", action="store_true",
                        help="run no benchmark: publish the site and the report from the results branch alone, "
                             "so that the job that makes the site for Pages runs no upstream code")
    cli.add_quick(parser, "run each benchmark once (scripts/bench --quick)")
    cli.add_bench(parser)
    cli.add_jax(parser)
    parser.add_argument("--env-dir", type=Path, metavar="DIR", help="where asv keeps its virtualenvs")
    parser.add_argument("--no-confirm", action="store_true",
                        help="report timing changes without re-measuring the baseline (scripts/regressions "
                             "--no-confirm)")
    parser.add_argument("--confirm-max-pairs", type=int, default=confirm.MAX_PAIRS, metavar="N",
                        help="scripts/regressions --confirm-max-pairs (default: %(default)s)")
    args = parser.parse_args(argv)
    # scripts/bench runs in the project folder: paths are made absolute from here.
    args.output = args.output.resolve()
    args.report = (args.report or args.output / "regressions.md").resolve()
    args.env_dir = args.env_dir and args.env_dir.resolve()
    for option in ("upstream", "results_remote"):
        location = getattr(args, option)
        if location and Path(location).exists():
            setattr(args, option, str(Path(location).resolve()))
    if args.range.startswith("HASHFILE:"):
        args.range = f"HASHFILE:{Path(args.range.removeprefix('HASHFILE:')).resolve()}"
    if args.site and args.site.exists() and any(args.site.iterdir()):
        parser.error(f"--site {args.site}: not empty")
    return args


def checkout_results(output: Path, remote: str, branch: str) -> None:
    """Make OUTPUT hold the branch's files, keeping files that no commit of it tracks."""
    ours = (output / ".git").exists()
    if ours and git.out("config", OWNER_KEY, repo=output, check=False).strip() != "true":
        raise BadInput(f"--output {output}: a git repository that scripts/nightly did not make")
    if not ours and output.exists() and any(output.iterdir()):
        raise BadInput(f"--output {output}: not empty and not a results checkout")
    listed = git.run("ls-remote", "--exit-code", "--heads", git.END, remote, f"refs/heads/{branch}", check=False)
    if listed.returncode not in (0, 2):
        raise BadInput(f"cannot reach the results remote {remote}: {listed.stderr.strip()}")
    if not ours:
        output.mkdir(parents=True, exist_ok=True)
        git.run("init", "--quiet", repo=output)
        git.run("config", OWNER_KEY, "true", repo=output)
    if not git.lists_branch(listed.stdout, branch):
        print(f"{remote} has no branch {branch} yet: starting without results", file=sys.stderr)
        return
    git.run("fetch", "--quiet", "--depth", "1", git.END, remote, f"refs/heads/{branch}", repo=output)
    # Untracked files (results of a run killed before they were pushed) survive the reset.
    git.run("reset", "--quiet", "--hard", "FETCH_HEAD", repo=output)


def results_remote(args) -> str:
    if args.results_remote:
        return args.results_remote
    found = git.run("remote", "get-url", "origin", repo=ROOT, check=False)
    if found.returncode != 0:
        raise BadInput("this project has no origin remote; name the repository with --results-remote")
    return found.stdout.strip()


def main(argv):
    args = parse_args(argv)
    try:
        return nightly(args)
    except Error as error:
        summarize(f"No report: scripts/nightly: {error}")
        raise


def nightly(args) -> int:
    upstream = args.upstream or upstream_url()
    remote = results_remote(args)
    options = bench.Options(repo=upstream, machine=args.machine, output=args.output, quick=args.quick,
                            bench=args.bench, jax=args.jax, **({"env_dir": args.env_dir} if args.env_dir else {}))
    target = bench.Target(options)

    checkout_results(args.output, remote, args.results_branch)
    # The site is rebuilt from every result, so that no run leaves a stale one behind.
    shutil.rmtree(target.html_dir, ignore_errors=True)
    options.range = args.range
    if args.range == "NEW" and not any((target.results_dir / args.machine).glob("*-*.json")):
        print(f"no results for machine {args.machine!r} yet: benchmarking the branch tip", file=sys.stderr)
        options.range = None
    baseline = newest_with_results(target.results_dir, args.machine)
    try:
        status = publish_stored(target) if args.publish_only else bench.bench(options)
    except Error as error:
        print(f"scripts/bench: {error}", file=sys.stderr)
        write_report(args, f"No report: scripts/bench failed (exit {int(error.code)}): {error}\n")
        return error.code
    except Exception:
        write_report(args, f"No report: scripts/bench crashed (exit {int(ExitCode.CRASHED)}).\n")
        raise

    try:
        compare, confirmed = gate_scope(args.output, baseline)
        location = gate.Location(output=args.output, explain=True, confirm=confirmed and not args.no_confirm,
                                 max_pairs=args.confirm_max_pairs)
        _source, text, _counted = gate.judge(location, compare)
    except Error as error:
        write_report(args, f"No report: the regression gate failed (scripts/regressions would exit "
                           f"{int(error.code)}): {error}\n")
        return error.code
    except Exception as error:
        write_report(args, f"No report: the regression gate failed: scripts/regressions crashed "
                           f"(exit {int(ExitCode.CRASHED)}): {type(error).__name__}: {error}\n")
        raise
    write_report(args, text)
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
    commits = gate.read_json(last_run, "the latest scripts/bench run record", validate.LAST_RUN).get(
        "commits", []) if last_run.is_file() else []
    newest = commits[-1] if commits else None
    if baseline and newest and newest != baseline:
        return (baseline, newest), True
    return None, baseline is None


def write_report(args, text: str) -> None:
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(text)
    print(text, end="")
    summarize(text)


def summarize(text: str) -> None:
    """Append TEXT to the GitHub Actions job summary, when there is one."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a") as out:
            out.write(text + "\n")
