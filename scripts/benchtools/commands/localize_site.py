"""Make an asv site self-contained: serve the scripts and styles it loads from CDNs from the site itself.

asv's index.html loads jQuery, flot, Bootstrap and a few plugins from public
CDNs, so a site opened without internet access shows nothing.  This copies
those files from the npm packages that package.json pins (installed by
scripts/setup into node_modules/) into SITE/vendor/ and points index.html at
them.  Any CDN address it does not know is an error, so that an asv upgrade
that adds one is noticed rather than silently breaking the offline site.

Exit status: 0 on success (also when the site is already localized), 2 when
the site, a package or a known address is missing.
"""

from pathlib import Path

from ..publishing.site import localize


def add_arguments(parser, config) -> None:
    parser.add_argument("site", type=Path, help="the asv site folder (asv publish's html_dir)")


def run(args, config) -> int:
    replaced = localize(args.site)
    print(f"{args.site}: {replaced} CDN address(es) now served from vendor/")
    return 0
