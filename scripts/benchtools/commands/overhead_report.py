"""Answer "what does tree_at cost over a tuple?" for each benchmarked release.

Reads asv results (by default those of scripts/bench's release runs) and, for
each commit and environment, gives:

* the tree_at / tuple time ratio per wrapping (eager, jit, scan, jit_scan, filter_jit);
* eager overhead per tree_at call, in microseconds, against pytree depth;
* tracing and compile overhead;
* whether the jaxprs of the tree_at and tuple steps are identical.

Each timing comes with the interval a second run's figure can be expected in
(the page's plots draw it; a ratio is a single sample of one process), and
--headline RECORD adds scripts/headline's figures over fresh processes for
its release.  The page leads with the exact metrics, chosen by their kind in
benchmarks/metrics.py.

and, across the releases, the history of tree_at's cost: every step of
bench_counts.PythonCost (one update at depth 4) above its 1% floor, with the
measured time (tree_map passes) on both sides, the calls and bytecodes, and
its cause: the functions whose calls per update changed, from one update
profiled in both releases (explain.py; profiles that scripts/regressions
--explain already made are used, --explain makes the missing ones).

Without options it prints Markdown for every commit.  --html DIR writes the
report as a page with PNG plots across releases into DIR/overhead/ and links
it from the asv site in DIR.  --readme FILE rewrites FILE's generated blocks:
between the overhead-summary markers one small table of the newest release
(README.md), between the overhead-report markers its every figure and the
history (docs/answer.md).
"""

from pathlib import Path

from ..publishing.blocks import FULL_BLOCK, SUMMARY_BLOCK, history_markdown, markdown, update_markdown
from ..publishing.page import html_page
from ..publishing.rows import attach_fresh, history, investigate, load_rows, read_headline
from . import common_args


def add_arguments(parser, config) -> None:
    common_args.add_results_inputs(parser)
    parser.add_argument("--latest", action="store_true", help="only the most recent commit")
    parser.add_argument("--headline", type=Path, metavar="RECORD", help="a scripts/headline record, beside its release")
    parser.add_argument("--html", type=Path, metavar="DIR", help="write DIR/overhead/ and link it from the site in DIR")
    common_args.add_readme(
        parser,
        f"rewrite FILE's generated blocks {SUMMARY_BLOCK} and {FULL_BLOCK}; repeatable (README.md, docs/answer.md)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="the results' asv configuration, to find the steps' causes in profiles under its output's .asv/profiles",
    )
    parser.add_argument(
        "--explain", action="store_true", help="with --config: profile the releases around each step not yet profiled"
    )
    parser.add_argument(
        "--confirm-steps", action="store_true", help="with --config: measure each step's time side by side"
    )
    common_args.add_confirm_max_pairs(parser)
    parser.add_argument(
        "--step-times",
        type=Path,
        metavar="FILE",
        help="where each step's side-by-side time is kept (default: confirmed-steps.json beside the profiles)",
    )


def check(parser, args) -> None:
    if (args.explain or args.confirm_steps) and args.config is None:
        parser.error("--explain and --confirm-steps need --config")


def run(args, config) -> int:
    rows = load_rows(args.results, args.repo, args.machine, args.latest)
    if args.headline:
        attach_fresh(rows, read_headline(args.headline))
    found = history(rows)
    max_pairs = args.confirm_max_pairs if args.confirm_steps else None
    by_operation = investigate(rows, found, args.config, args.explain, max_pairs, args.step_times)
    if args.html:
        print(f"wrote {html_page(rows, args.html, found, by_operation)}")
    for path in args.readme:
        update_markdown(path, rows, found, by_operation, args.results)
        print(f"updated {path}")
    if not (args.html or args.readme):
        print("\n".join(markdown(row) for row in rows))
        print(history_markdown(found))
    return 0
