"""Run the tree_at benchmark suite with asv, then publish asv's HTML site.

What is benchmarked, each into a results and site folder of its own:

  default          the first answer: the newest Equinox release with each Python's newest
                   JAX of asv.conf.json (--jax picks others), the answer (bench_answer),
                   its exact figures and tree_at's steady time.
  --full           Equinox releases from PyPI (the 3 newest, or --releases), every
                   benchmark, with JAX {jax_releases} on Python {pythons}.
  --repo PATH|URL  any git repository of Equinox, RANGE of its commits.
  --jax-history    JAX releases from PyPI, Equinox held at {reference_equinox}.
  --here [PYTHON]  the JAX and Equinox installed in PYTHON, on its device (a GPU too): no
                   virtualenv, no registry (docs/here.md).

Python {newest_python} is the one scripts/setup builds; where it could not, its environments are left out, saying why.
A commit with results for an environment is not run again there, so a run resumes where it stopped. Exit 1: a
benchmark failed in a commit whose others ran, or a commit has no results."""

import dataclasses

from ..running import here
from ..running.bench import ANSWER_RELEASES, BENCH_TIME_BLOCK, DEFAULT_RELEASES, Options, bench
from . import common_args


def add_arguments(parser, config) -> None:
    defaults = Options()
    parser.add_argument(
        "range", nargs="?", metavar="RANGE", help="with --repo: asv's range (ALL, NEW, A..B, a tag, HASHFILE:PATH)"
    )
    common_args.add_quick(parser)
    parser.add_argument(
        "--releases",
        metavar="SPEC",
        help=f"N (newest N), 'all', '>=0.12,<0.13' or '0.12.0,0.13.0' ({DEFAULT_RELEASES})",
    )
    parser.add_argument("--full", action="store_true", help="every benchmark over the releases, not the first answer")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--repo", metavar="PATH|URL", help="this git repository of Equinox instead of the releases")
    source.add_argument(
        "--here", nargs="?", const="python3", metavar="PYTHON", help="the JAX and Equinox installed in PYTHON"
    )
    source.add_argument("--jax-history", action="store_true", help="JAX releases, Equinox held fixed")
    parser.add_argument("--branch", default=defaults.branch, help="with --repo: what NEW, ALL follow (%(default)s)")
    common_args.add_jax(parser)
    common_args.add_machine(parser)
    common_args.add_output(parser, defaults.output, "where results/ and html/ go (default: the project)")
    parser.add_argument(
        "--retry-failed", action="store_true", help="run again the benchmarks that failed or skipped in results"
    )
    common_args.add_env_dir(parser, defaults.env_dir)
    parser.add_argument("--index", metavar="URL", help="PyPI JSON API base for scripts/release-history")
    common_args.add_bench(parser)
    parser.add_argument(
        "--include-unchanged", action="store_true", help="with --repo: also commits that change no code"
    )
    common_args.add_docs(parser, f"{BENCH_TIME_BLOCK} (what the run took, by phase, and under what load)", True)


def check(parser, args) -> None:
    if args.here is not None and (args.releases or args.full or args.jax or args.retry_failed):
        parser.error(
            "--here measures the JAX and Equinox installed in PYTHON: "
            "it takes no --releases, --full, --jax or --retry-failed"
        )


def options(args) -> Options:
    answer = args.here is None and not any(
        (args.range, args.releases, args.repo, args.jax_history, args.bench, args.quick, args.full)
    )
    releases = ANSWER_RELEASES if answer else args.releases or DEFAULT_RELEASES
    return dataclasses.replace(common_args.options(Options, args), releases=releases, answer=answer)


def run(args, config) -> int:
    chosen = options(args)
    if chosen.here is not None:
        return here.here(chosen)
    return bench(chosen)
