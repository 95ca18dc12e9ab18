"""Make an asv site self-contained: serve the scripts and styles it loads from CDNs from the site itself.

The files come from package.json's npm packages (scripts/setup); a CDN address it does not know is an
error, so that an asv upgrade that adds one is noticed.
"""

from pathlib import Path

from ..publishing.site import localize


def add_arguments(parser, config) -> None:
    parser.add_argument("site", type=Path, help="the asv site folder (asv publish's html_dir)")


def run(args, config) -> int:
    print(f"{args.site}: {localize(args.site)} CDN address(es) now served from vendor/")
    return 0
