"""Make an asv site self-contained: serve the scripts and styles it loads from CDNs from the site
itself.

The files come from package.json's npm packages (node_modules/, installed by scripts/setup). A CDN
address it does not know is an error, so that an asv upgrade that adds one is noticed.

Exit status: 0 on success (also when already localized), 2 when the site, a package or a known
address is missing.
"""

from pathlib import Path

from ..publishing.site import localize


def add_arguments(parser, config) -> None:
    parser.add_argument("site", type=Path, help="the asv site folder (asv publish's html_dir)")


def run(args, config) -> int:
    replaced = localize(args.site)
    print(f"{args.site}: {replaced} CDN address(es) now served from vendor/")
    return 0
