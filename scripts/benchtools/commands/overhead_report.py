"""Answer "what does tree_at cost over a tuple?" for each benchmarked release, each timing with its interval.

Then every step of tree_at's cost above its floor, with its time and its cause."""

from pathlib import Path

from ..publishing.blocks import HISTORY_BLOCK, SUMMARY_BLOCK, answer_markdown, update_markdown
from ..publishing.page import html_page
from ..publishing.rows import investigate, load_rows
from . import common_args


def add_arguments(parser, config) -> None:
    common_args.add_results_inputs(parser)
    parser.add_argument("--latest", action="store_true", help="only the most recent commit")
    parser.add_argument("--html", type=Path, metavar="DIR", help="write DIR/overhead/ and link it from the site in DIR")
    common_args.add_readme(parser, f"rewrite FILE's generated blocks ({SUMMARY_BLOCK}, {HISTORY_BLOCK}...); repeatable")
    parser.add_argument("--config", type=Path, metavar="PATH", help="the results' asv configuration (the causes)")
    parser.add_argument("--explain", action="store_true", help="with --config: profile each step not yet profiled")
    parser.add_argument("--confirm-steps", action="store_true", help="with --config: time each step side by side")
    common_args.add_confirm(parser, optional=False)
    parser.add_argument("--step-times", type=Path, metavar="FILE", help="the steps' kept times (beside the profiles)")


def check(parser, args) -> None:
    if (args.explain or args.confirm_steps) and args.config is None:
        parser.error("--explain and --confirm-steps need --config")


def run(args, config) -> int:
    rows = load_rows(args.results, args.repo, args.machine, args.latest)
    max_pairs = args.confirm_max_pairs if args.confirm_steps else None
    by_operation = investigate(rows, args.config, args.explain, max_pairs, args.step_times)
    if args.html:
        print(f"wrote {html_page(rows, by_operation, args.html)}")
    for path in args.readme:
        update_markdown(path, rows, by_operation, args.results)
        print(f"updated {path}")
    if not (args.html or args.readme):
        print(answer_markdown(rows))
    return 0
