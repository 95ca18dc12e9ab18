"""Check a pull request of Equinox before it merges: what merging does to each operation, and how sure.

  scripts/check-pr N --upstream URL|PATH            pull request N: its head against its merge base with main
  scripts/check-pr N --merge --upstream URL|PATH    GitHub's test merge refs/pull/N/merge against main under it
  scripts/check-pr --base REF --head REF --upstream URL|PATH    any two commits
  scripts/check-pr --head REF --upstream URL|PATH   a ref against its merge base with main

A change that touches neither equinox/ nor pyproject.toml is answered at
once: nothing to measure, exit 0.  Otherwise both sides are benchmarked in
one job, in each environment of asv.conf.json (--jax narrows them), with
scripts/bench's machinery (HASHFILE:): each benchmark run once, which gives
the exact measures (counts; an instruction count within its measured
spread) and screens the alerting timings (a timing that never alerts is
never counted, so it is not run);
then the gate compares base with head (scripts/regressions --compare), and
re-measures every timing suspect side by side, slower and faster ones, in
fresh interpreters of both sides in balanced order, before it counts.
--no-confirm runs the exact measures alone (a few minutes an environment).
Each changed exact measure gets its cause: one call of its operation
profiled in both commits, the functions whose calls changed.

The summary (Markdown) goes to stdout, to --summary FILE and, in GitHub
Actions, to the job summary.  Its first line says what merging does; a
table gives what changed, with how sure (exact, or the time's interval and
minimum detectable effect) and the cause; the rest sits in collapsed
sections.  It always fits a GitHub comment.  A check that fails says why
there instead, with the marker, so that the comment shows it.  --verdict FILE writes the
verdict as data: the gate's JSON (the shape scripts/open-regression-issue
reads), plus the faster and slower measures and the untouched count.

Results are kept in OUTPUT/exact or OUTPUT/confirmed (one per mode, so that
single timing samples never mix with exact-only runs), under the asv machine
--machine: a second check of the same commits runs nothing again.

--record FILE appends the check (its verdict's counts, time and load) to a
JSON record; --from-record FILE --docs PAGE writes the record's table into
PAGE's generated block (docs/pull-requests.md), measuring nothing.

Exit status: 0 when no regression counts (nothing to measure included); 1
when one does, or when a benchmark fails on the head and not on the base; 2
for bad input (an unknown pull request or ref, an unreachable repository); 3
when a side fails to build, install or import in an environment, or a
command it ran failed: a failure is never "no change".
"""

import dataclasses
from pathlib import Path

from .. import cli
from ..errors import Error, ExitCode
from ..judging import pr_render, pr_summary, verdicts
from ..project import ROOT
from ..running import nightly, pr_check, pr_proof
from ..settings import upstream_url
from . import common_args


def parse_args(argv):
    parser = cli.parser("scripts/check-pr", __doc__)
    parser.add_argument("number", nargs="?", type=common_args.at_least(1), metavar="N", help="the pull request")
    parser.add_argument(
        "--upstream", metavar="URL|PATH", help="the Equinox repository, with refs/pull/* (default: asv.conf.json's)"
    )
    parser.add_argument("--merge", action="store_true", help="check refs/pull/N/merge against its first parent")
    parser.add_argument("--base", metavar="REF", help="with --head: the commit before the change")
    parser.add_argument(
        "--head", metavar="REF", help="the commit after the change (without --base: against its merge base)"
    )
    parser.add_argument(
        "--branch", default="main", help="the branch a pull request's merge base is taken with (default: main)"
    )
    common_args.add_jax(parser)
    common_args.add_confirm(parser)
    common_args.add_machine(parser, "check-pr", "asv machine name the results are filed under (default: %(default)s)")
    common_args.add_output(
        parser, ROOT / ".cache" / "check-pr", "where results/ and html/ go, per mode (default: .cache/check-pr)"
    )
    common_args.add_env_dir(parser, ROOT / ".asv" / "env", "default: .asv/env in the project folder")
    parser.add_argument("--summary", type=Path, metavar="FILE", help="also write the summary (Markdown) to FILE")
    parser.add_argument("--verdict", type=Path, metavar="FILE", help="write the verdict as JSON to FILE")
    parser.add_argument("--record", type=Path, metavar="FILE", help="append this check to the JSON record FILE")
    parser.add_argument(
        "--from-record", type=Path, metavar="FILE", help="check nothing: print (with --docs, write) FILE's table"
    )
    common_args.add_docs(parser, pr_proof.BLOCK)
    args = parser.parse_args(argv)
    if args.base and not args.head:
        parser.error("--base needs --head")
    if args.from_record is None and args.number is None and not args.head:
        parser.error("name a pull request N, or --head (with --base, or against its merge base)")
    if args.merge and args.number is None:
        parser.error("--merge needs a pull request N")
    if args.number is not None and (args.base or args.head):
        parser.error("name a pull request N or --base and --head, not both")
    if args.docs and args.from_record is None:
        parser.error("--docs writes the table of --from-record FILE")
    return args


def main(argv):
    args = parse_args(argv)
    if args.from_record is not None:
        text = pr_proof.table(pr_proof.read(args.from_record))
        print(text)
        if args.docs:
            pr_proof.write_docs(args.docs, text)
        return ExitCode.OK
    args.upstream = args.upstream or upstream_url()
    if Path(args.upstream).exists():
        args.upstream = str(Path(args.upstream).resolve())
    args.env_dir, args.max_pairs = args.env_dir.resolve(), args.confirm_max_pairs
    request = pr_check.Request(
        **{field.name: getattr(args, field.name) for field in dataclasses.fields(pr_check.Request)}
    )
    try:
        outcome = pr_check.check(request)
    except Error as error:
        tell_failure(args, request, error)
        raise
    return tell(args, outcome)


def tell(args, outcome: pr_check.Outcome) -> ExitCode:
    """The outcome as its summary (stdout, --summary, the job summary), --verdict and --record; the exit code."""
    summary = pr_check.summary_of(outcome)
    text = pr_render.fitted(summary)
    print(text, end="")
    if args.summary:
        pr_check.write_text(args.summary, text)
    nightly.summarize(text)
    if args.verdict:
        verdicts.write(args.verdict, pr_summary.data(summary, outcome.verdict))
    if args.record:
        pr_proof.append(args.record, pr_proof.entry(outcome, summary))
    return ExitCode.FOUND if summary.regression else ExitCode.OK


def tell_failure(args, request: pr_check.Request, error: Error) -> None:
    """A check that failed, told where a good one is: --verdict (status failed), the summary, --record."""
    if args.verdict:
        verdicts.write(args.verdict, verdicts.failure("scripts/check-pr", error.code, str(error)))
    # Where the reviewer looks: the comment (from --summary) and the job summary say why, not only the log.
    text = pr_render.failed(request.name, error)
    if args.summary:
        pr_check.write_text(args.summary, text)
    nightly.summarize(text)
    if args.record:
        pr_proof.append(args.record, pr_proof.failed_entry(request, error))
