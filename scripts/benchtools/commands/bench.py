"""Run the tree_at benchmark suite with asv, then publish asv's HTML site.

On a fresh clone this sets everything up: .venv (scripts/setup), the release
history (scripts/release-history) when one is needed, and asv's virtualenvs.
What is benchmarked, each into a results and site folder of its own:

  default          the first answer: the newest Equinox release in every
                   environment of asv.conf.json, its exact figures (every
                   benchmark that is no timing, benchmarks/metrics.py; these
                   runs overlap, one per core) and tree_at's steady time
                   (tree_map passes), then the headline over fresh processes
                   (scripts/headline).  Folder: answer.  RANGE, --releases,
                   --repo, --jax-history, --bench, --quick or --full selects
                   one of the runs below instead.
  --full           Equinox releases from PyPI (the 3 newest, or --releases),
                   every benchmark, with JAX {jax_releases} on Python
                   {pythons}; the oldest JAX, {reference_jax}, runs every release
                   from 0.10.11 on.  Folder: releases.
  --repo PATH|URL  any git repository of Equinox, RANGE of its commits.
                   Folder: upstream for asv.conf.json's repo, else repo-NAME.
  --jax-history    JAX releases from PyPI (--releases picks them) with Equinox
                   held at {reference_equinox} (asv.jax.conf.json), each on the oldest
                   of Python {pythons} that it supports.  Folder: jax-history.
  --here [PYTHON]  the JAX and Equinox installed in PYTHON, on its device (a GPU
                   too), through asv's existing-environment mode: no virtualenv,
                   no registry.  The device goes into every result's params and
                   the machine name.  Folder: here (docs/here.md).

Python {newest_python} is the one scripts/setup builds; where it could not,
those environments are left out with one line that says why.  --quick runs
each benchmark once, into NAME-quick.  A commit with results for an environment
on this machine is not run again there, so a run resumes where it stopped;
results files a killed run left unreadable go to .asv/quarantine.  The summary
counts, per environment, the commits that ran, failed and skipped.

Exit status: 0 when every selected commit has results, even where a release
failed as a whole; 1 when a benchmark failed in a commit where the others ran,
or a commit has no results; 2 for bad arguments or a range that cannot be had;
3 when the index, a download or asv fails.
"""

import dataclasses

from ..running import here
from ..running.bench import ANSWER_RELEASES, BENCH_TIME_BLOCK, DEFAULT_RELEASES, Options, bench
from ..trial import headline
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
    common_args.add_docs(parser, f"{BENCH_TIME_BLOCK} (what the run took, by phase, and under what load)")


def check(parser, args) -> None:
    if args.here is not None and (args.releases or args.full):
        parser.error("--here measures the Equinox installed in PYTHON: it takes no --releases or --full")


def options(args) -> Options:
    """The run that the arguments select: --here, one of the selections, or the first answer."""
    answer = args.here is None and not any(
        (args.range, args.releases, args.repo, args.jax_history, args.bench, args.quick, args.full)
    )
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(Options) if f.name not in {"answer", "releases"}}
    return Options(**given, releases=ANSWER_RELEASES if answer else args.releases or DEFAULT_RELEASES, answer=answer)


def run(args, config) -> int:
    chosen = options(args)
    if chosen.here is not None:
        return here.here(chosen)
    return bench(chosen, headline.first_answer if chosen.answer else None)
