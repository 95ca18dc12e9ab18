"""Measure the timing noise between fresh processes: each alerting timing benchmark's A/A pairs and its MDE."""

from pathlib import Path

from ..project import ROOT
from ..trial import noise
from . import common_args


def add_arguments(parser, config) -> None:
    defaults = noise.Options()
    parser.add_argument("--release", default=defaults.release, help="the Equinox release (default: %(default)s)")
    parser.add_argument(
        "--jax", default=defaults.jax, metavar="VERSION", help="the environment's JAX (default: %(default)s)"
    )
    pairs = common_args.at_least(noise.pairs.START_PAIRS)
    parser.add_argument("--pairs", type=pairs, default=defaults.pairs, metavar="N", help="A/A pairs each (%(default)s)")
    suspects = common_args.at_least(1)
    parser.add_argument("--suspects", type=suspects, default=defaults.suspects, metavar="M", help="(%(default)s)")
    parser.add_argument(
        "--hash-seed",
        choices=(noise.FRESH, noise.PAIRED),
        default=defaults.hash_seed,
        help="fresh: a PYTHONHASHSEED each process, as the confirm step; paired: one a pair (%(default)s)",
    )
    common_args.add_bench(parser, "only the alerting timing benchmarks whose name matches REGEX; repeatable")
    record = ROOT / ".cache/timing-noise/record.json"
    parser.add_argument("--record", type=Path, default=record, metavar="FILE", help="the JSON record (%(default)s)")
    parser.add_argument("--from-record", action="store_true", help="measure nothing: print --record's table")
    common_args.add_env_dir(parser, defaults.env_dir)
    common_args.add_docs(parser, "timing-noise (timing-noise-paired for --hash-seed paired)")


def run(args, config) -> int:
    record = noise.read(args.record) if args.from_record else noise.campaign(common_args.options(noise.Options, args))
    block = "timing-noise" if record["hash_seed"] == noise.FRESH else f"timing-noise-{record['hash_seed']}"
    common_args.show(noise.table(record), args.docs, block)
    return 0
