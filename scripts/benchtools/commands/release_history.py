"""Build or update a git repository with one commit per PyPI release of a package, for asv to benchmark.

Append-only: the same releases give the same hashes on every machine; the repository belongs to this script."""

from pathlib import Path

from packaging.version import Version

from ..history.release_history import DEFAULT_SINCE, Options, build, python_series
from . import common_args

EXAMPLES = """\
examples:
  scripts/release-history --print tags --select 3
      build or update the equinox history, and list its three newest releases' tags
  scripts/release-history --print hashes --select '>=0.12' > hashes.txt && asv run HASHFILE:hashes.txt
      benchmark the releases from 0.12 on
  scripts/release-history --package jax --since 0.4.33 --python 3.11 --repo .cache/history/jax-py3.11
      a jax history that stops where jax drops Python 3.11"""


def add_arguments(parser, config) -> None:
    defaults = Options()
    parser.epilog = f"{EXAMPLES}\n\n{parser.epilog}"
    parser.add_argument("--package", default=defaults.package, metavar="NAME", help="the PyPI project (%(default)s)")
    parser.add_argument(
        "--repo", type=Path, metavar="PATH", help="the git repository (default: .cache/history/<package>)"
    )
    parser.add_argument(
        "--index", default=defaults.index, metavar="URL", help="a PyPI-style JSON API (default: %(default)s)"
    )
    parser.add_argument(
        "--cache", type=Path, default=defaults.cache, metavar="DIR", help="kept sdists (default: %(default)s)"
    )
    since = ", ".join(f"{version} for {package}" for package, version in DEFAULT_SINCE.items())
    parser.add_argument("--since", type=Version, metavar="VERSION", help=f"the oldest version (default: {since})")
    parser.add_argument("--until", type=Version, metavar="VERSION", help="the newest version (default: no bound)")
    parser.add_argument(
        "--python", type=python_series, metavar="X.Y", help="only releases whose requires_python admits Python X.Y"
    )
    parser.add_argument("--select", metavar="SPEC", help="what --print prints: N, '>=0.12,<0.13', '0.12.0,0.13.0'")
    parser.add_argument(
        "--admits", type=python_series, metavar="X.Y", help="print only the releases that admit Python X.Y"
    )
    parser.add_argument(
        "--print", choices=["tags", "hashes"], dest="print_", help="the selected releases, oldest first"
    )


def run(args, config) -> int:
    selected = build(common_args.options(Options, args))
    if args.print_:
        print("\n".join(release.tag if args.print_ == "tags" else commit for release, commit in selected))
    return 0
