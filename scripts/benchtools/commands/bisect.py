"""Find the commit where an operation's instruction count stepped, in JAX's history or in Equinox's.

Counts OPERATION at both ends and every release between, then bisects the commits between neighbouring
releases apart by more than --spread; each step is confirmed by counting again, and across two jaxlibs split in
two. Every count is kept under --cache. Exit 1 when a step found does not confirm (a commit that does not build is
recorded, not a failure)."""

import shlex
from pathlib import Path

from benchmarks import metrics
from benchmarks.instruction_ops import OPERATIONS, TWINS

from ..history import probes
from ..judging import bisect
from ..project import ROOT
from ..publishing import bisections, instruction_history
from ..running import bisection
from . import common_args


def add_arguments(parser, config) -> None:
    parser.add_argument("start", metavar="FROM", help="the earlier version: a tag (jax-v0.7.2, v0.13.3), a hash")
    parser.add_argument("end", metavar="TO", help="the later version")
    parser.add_argument("--project", choices=sorted(bisection.PACKAGE), default=probes.JAX_PROJECT)
    # A metavar: Python 3.11.2's argparse strips parentheses from a wrapped usage line.
    parser.add_argument(
        "--operation",
        choices=sorted(OPERATIONS),
        default="dispatch(jit)",
        metavar="OPERATION",
        help=f"what is counted: {', '.join(sorted(OPERATIONS))} (default: %(default)s)",
    )
    parser.add_argument("--twin", choices=TWINS, default="module", help="the Module twin or its tuple twin")
    parser.add_argument("--equinox", default=config.reference_equinox, help="the Equinox held fixed (%(default)s)")
    parser.add_argument("--jax", help=f"with --project equinox: the JAX held fixed (jax-v{config.reference_jax})")
    parser.add_argument("--python", default=f"python{config.pythons[0]}", help="the interpreter (%(default)s)")
    fraction = common_args.fraction
    spread = "a step (default: the spread measured for the operation and twin, benchmarks/instruction_spread.json)"
    parser.add_argument("--spread", type=fraction, help=spread)
    parser.add_argument("--min-step", type=fraction, metavar="FRACTION", help="bisect releases apart by more")
    for project in bisection.PACKAGE:
        clone = bisection.CLONES / f"{project}.git"
        parser.add_argument(f"--{project}-repo", type=Path, default=clone, metavar="DIR", help="(%(default)s)")
    parser.add_argument("--cache", type=Path, default=ROOT / ".asv" / "bisect", metavar="DIR", help="kept probes")
    parser.add_argument("--every", type=common_args.at_least(1), metavar="N", help="count every N-th commit instead")
    parser.add_argument("--shard", metavar="I/N", help="with --every: count only shard I of N (as scripts/shard)")
    parser.add_argument("--record", type=Path, metavar="FILE", help="keep the bisection as JSON in FILE")
    parser.add_argument(
        "--records", type=Path, default=ROOT / "docs" / "bisections", metavar="DIR", help="for --readme"
    )
    common_args.add_readme(parser, f"rewrite FILE's generated block {bisections.BLOCK} from --records' records")


def check(parser, args) -> None:
    if args.shard is not None:
        index, _, count = args.shard.partition("/")
        if not (index.isdigit() and count.isdigit() and int(index) < int(count)) or args.every is None:
            parser.error(f"--shard {args.shard}: give I/N with 0 <= I < N, and --every")
        args.shard = (int(index), int(count))
    if args.jax and args.project != probes.EQUINOX_PROJECT:
        parser.error("--jax holds JAX fixed while Equinox is bisected: use it with --project equinox")
    if args.spread is None:
        args.spread = metrics.instruction_spread(args.operation, args.twin)
    args.min_step = args.spread if args.min_step is None else args.min_step


def run(args, config) -> int:
    repo = bisection.repository(getattr(args, f"{args.project}_repo"), args.project)
    jax_repo = repo if args.project == probes.JAX_PROJECT else bisection.repository(args.jax_repo, probes.JAX_PROJECT)
    kept = probes.Probes(args.cache, args.python, tuple(sorted({*instruction_history.JAX_OPERATIONS, args.operation})))
    equinox, jax = probes.Source(probes.EQUINOX_PROJECT, version=args.equinox), None
    if args.project == probes.EQUINOX_PROJECT:
        fixed = args.jax or f"jax-v{config.reference_jax}"
        equinox, jax = None, probes.commit_source(probes.JAX_PROJECT, jax_repo, fixed)
    search = bisect.Search(kept, equinox, jax, args.operation, args.twin, args.spread)
    ends = [bisection.commit_of(args.project, repo, revision) for revision in (args.start, args.end)]
    bisection.ordered(*ends)
    if args.every:
        return bisection.count_history(search, ends, every=args.every, shard=args.shard)
    return bisection.bisect_range(
        search,
        ends,
        jax_repo=jax_repo,
        min_step=args.min_step,
        command=shlex.join(["scripts/bisect", *args.argv]),
        record_file=args.record,
        readmes=args.readme,
        records=args.records,
    )
