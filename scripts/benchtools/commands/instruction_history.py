"""How each operation's instruction count tracks its time, on the commit-level history's measured steps.

Counts both commits of each --step-times step under valgrind (kept: a rerun counts nothing twice)."""

import json
from pathlib import Path

from .. import util
from ..errors import BadInput
from ..project import HISTORY_DIR, ROOT
from ..publishing import instruction_history, operation_history
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("--config", type=Path, metavar="PATH", help="the asv configuration of a run over the history")
    times = ROOT / "docs/commit-history-times.json"
    parser.add_argument("--step-times", type=Path, default=times, metavar="FILE", help="the steps' times (%(default)s)")
    common_args.add_readme(
        parser,
        f"rewrite FILE's generated blocks {instruction_history.BLOCK} (every step) and "
        f"{instruction_history.TRACKING_BLOCK} (the agreement table); repeatable",
    )
    parser.add_argument("--jax-history", type=Path, metavar="RESULTS", help="a JAX history's counts, into their block")
    parser.add_argument("--jax-repo", type=Path, default=HISTORY_DIR / "jax", metavar="DIR", help="(%(default)s)")
    parser.add_argument("--data", type=Path, metavar="FILE", help="with --config, keep what the tables are made of")
    parser.add_argument("--from", dest="source", type=Path, metavar="FILE", help="the tables from a --data FILE")


def check(parser, args) -> None:
    if args.config is None and args.jax_history is None and args.source is None:
        parser.error("give --config (the commit-level history's steps), --from FILE, --jax-history RESULTS")
    if args.config is not None and args.source is not None:
        parser.error("--config counts the steps and --from reads them: give one")
    if args.data is not None and args.config is None:
        parser.error("--data writes what --config counted: give --config")


def run(args, config) -> int:
    blocks = {}
    if args.config is not None:
        if not args.config.is_file():
            raise BadInput(f"--config {args.config}: no such asv configuration")
        if not (kept := operation_history.read_kept(args.step_times)):
            raise BadInput(f"{args.step_times}: no kept step time to set instructions beside")
        asv_config = args.config.resolve()
        found = instruction_history.steps(kept, asv_config, operation_history.profile_cache(asv_config))
        rows = instruction_history.data(found, Path(util.load_asv_config(asv_config)["repo"]))
        if args.data is not None:
            util.write_json(args.data, rows, sort_keys=True)
            print(f"wrote {args.data}")
        found = instruction_history.from_data(rows)
    if args.source is not None:
        try:
            found = instruction_history.from_data(json.loads(args.source.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise BadInput(f"{args.source}: not the steps of scripts/instruction-history --data ({error!r})") from None
        if not found:
            raise BadInput(f"{args.source}: no step")
    if args.config is not None or args.source is not None:
        blocks[instruction_history.BLOCK] = instruction_history.markdown(found, config.project_url)
        blocks[instruction_history.TRACKING_BLOCK] = instruction_history.tracking_markdown(found)
    if args.jax_history is not None:
        if not args.jax_history.is_dir() or not args.jax_repo.exists():
            raise BadInput(f"--jax-history {args.jax_history} and --jax-repo {args.jax_repo} must both exist")
        if not (history := instruction_history.jax_history(args.jax_history, args.jax_repo)):
            raise BadInput(
                f"{args.jax_history}: no instruction counts (scripts/bench --jax-history --bench bench_instructions)"
            )
        blocks[instruction_history.JAX_BLOCK] = instruction_history.jax_markdown(history)
    common_args.write_readmes(args.readme, blocks)
    return 0
