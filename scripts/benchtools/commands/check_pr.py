"""Check a pull request of Equinox before it merges: what merging does to each operation, and how sure.

N is refs/pull/N/head against its merge base with --branch, with --merge GitHub's test merge against its first
parent; --head alone is a ref against its merge base, --base and --head any two commits. Exit 1 when a regression
counts or a benchmark fails on the head alone; 3 when a side fails to build, install or import."""

from pathlib import Path

from .. import util
from ..errors import Error, ExitCode
from ..judging import pr_render, pr_summary, verdicts
from ..running import nightly, pr_check
from . import common_args


def add_arguments(parser, config) -> None:
    defaults = pr_check.Request(config.upstream_url)
    parser.add_argument("number", nargs="?", type=common_args.at_least(1), metavar="N", help="the pull request")
    parser.add_argument(
        "--upstream", default=defaults.upstream, metavar="URL|PATH", help="with refs/pull/* (default: %(default)s)"
    )
    parser.add_argument("--merge", action="store_true", help="check refs/pull/N/merge against its first parent")
    parser.add_argument("--base", metavar="REF", help="with --head: the commit before the change")
    parser.add_argument(
        "--head", metavar="REF", help="the commit after the change (without --base: from the merge base)"
    )
    parser.add_argument("--branch", default=defaults.branch, help="the branch of a merge base (default: %(default)s)")
    common_args.add_jax(parser)
    common_args.add_confirm(parser)
    common_args.add_machine(parser, defaults.machine)
    common_args.add_output(parser, defaults.output, "where results/ and html/ go (default: %(default)s)")
    common_args.add_env_dir(parser, defaults.env_dir)
    parser.add_argument("--summary", type=Path, metavar="FILE", help="also write the summary (Markdown) to FILE")
    parser.add_argument("--verdict", type=Path, metavar="FILE", help="write the verdict as JSON to FILE")
    parser.add_argument("--record", type=Path, metavar="FILE", help="append this check to the JSON record FILE")
    parser.add_argument("--from-record", type=Path, metavar="FILE", help="check nothing: print FILE's table")
    common_args.add_docs(parser, pr_check.BLOCK)


def check(parser, args) -> None:
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


def run(args, config) -> int:
    if args.from_record is not None:
        common_args.show(pr_check.table(pr_check.read(args.from_record)), args.docs, pr_check.BLOCK)
        return ExitCode.OK
    if Path(args.upstream).exists():
        args.upstream = str(Path(args.upstream).resolve())
    args.output, args.env_dir, args.max_pairs = args.output.resolve(), args.env_dir.resolve(), args.confirm_max_pairs
    request = common_args.options(pr_check.Request, args)
    try:
        summary = pr_check.check(request)
    except Error as error:
        tell(args, request, None, error)
        raise
    return tell(args, request, summary)


def tell(args, request: pr_check.Request, summary: pr_summary.Summary | None, error: Error | None = None) -> ExitCode:
    text = pr_render.failed(request.name, error) if error else pr_render.fitted(summary)
    if not error:
        print(text, end="")
    if args.summary:
        util.write_atomic(args.summary, text.encode())
    nightly.summarize(text)
    if args.verdict:
        document = verdicts.failure("scripts/check-pr", error.code, str(error)) if error else pr_summary.data(summary)
        verdicts.write(args.verdict, document)
    if args.record:
        pr_check.append(args.record, pr_check.entry(request, summary, error))
    return ExitCode.FOUND if summary and summary.regression else ExitCode.OK
