"""Measure the headline figures over fresh processes: each one's median and the interval a second run lies in.

--agree-with and --timing-noise compare two records instead; --from-record prints the record without measuring.
"""

from pathlib import Path

from ..project import ROOT
from ..trial import headline, noise
from . import common_args


def add_arguments(parser, config) -> None:
    defaults = headline.Options()
    parser.add_argument("--release", default=defaults.release, help="the Equinox release (default: %(default)s)")
    common_args.add_jax(parser)
    parser.add_argument(
        "--processes", type=common_args.at_least(2, "processes"), default=defaults.processes, help="(%(default)s)"
    )
    common_args.add_record(parser, ROOT / ".cache/headline/record.json")
    compare = parser.add_mutually_exclusive_group()
    compare.add_argument(
        "--agree-with", type=Path, metavar="RECORD", help="measure nothing: whether --record's run and RECORD's agree"
    )
    compare.add_argument("--timing-noise", type=Path, metavar="RECORD", help="measure nothing: its two sides, as runs")
    common_args.add_env_dir(parser, defaults.env_dir)
    common_args.add_docs(parser, "headline (headline-runs with --agree-with, headline-agreement with --timing-noise)")


def run(args, config) -> int:
    if args.timing_noise:
        runs = headline.timing_noise_runs(noise.read(args.timing_noise))
        block = "headline-agreement"
        text = headline.agreement_table(*runs, f"the two sides of {args.timing_noise.name}")
    elif args.agree_with:
        runs = [headline.timing_values(headline.read(path)) for path in (args.record, args.agree_with)]
        block, text = "headline-runs", headline.agreement_table(*runs, f"{args.record.name} and {args.agree_with.name}")
    else:
        options = common_args.options(headline.Options, args)
        record = headline.read(args.record) if args.from_record else headline.campaign(options)
        block, text = "headline", headline.table(record)
    common_args.show(text, args.docs, block)
    return 0
