#!/usr/bin/env python3
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

import re
import shutil
from pathlib import Path

from . import cli
from .cli import BadInput
from .project import ROOT

NODE_MODULES = ROOT / "node_modules"
# CDN address in asv 0.6's index.html -> the same library in node_modules.
ASSETS = {
    "https://code.jquery.com/jquery-3.3.1.min.js": "jquery/dist/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.min.js": "flot/jquery.flot.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.time.min.js": "flot/jquery.flot.time.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.selection.min.js":
        "flot/jquery.flot.selection.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.categories.min.js":
        "flot/jquery.flot.categories.js",
    "https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js":
        "flot-orderbars/js/jquery.flot.orderBars.js",
    "https://cdnjs.cloudflare.com/ajax/libs/stupidtable/1.0.1/stupidtable.min.js":
        "stupid-table-plugin/stupidtable.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/2.19.0/js/md5.min.js": "blueimp-md5/js/md5.min.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js": "bootstrap/dist/js/bootstrap.min.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css":
        "bootstrap/dist/css/bootstrap.min.css",
}
# Files the assets above load by relative path.
COMPANIONS = ["bootstrap/dist/fonts"]
# A script or stylesheet tag that loads from another host.
EXTERNAL = re.compile(r'(?P<head><(?:script|link)\b[^>]*?)(?P<attr>src|href)="(?P<url>https?://[^"]+)"(?P<rest>[^>]*)>')
# Attributes that would reject a file that is not byte-for-byte the CDN's, or only make sense for a CDN.
CDN_ATTRIBUTES = re.compile(r'\s(integrity|crossorigin|referrerpolicy)(="[^"]*")?')


def localize(site: Path) -> int:
    index = site / "index.html"
    if not index.is_file():
        raise BadInput(f"no asv site at {site} (no index.html)")
    text = index.read_text(encoding="utf-8")
    vendor = site / "vendor"
    replaced = 0

    def swap(match):
        nonlocal replaced
        url = match["url"]
        if url not in ASSETS:
            raise BadInput(f"{index} loads {url}, which has no local copy; add it to ASSETS and package.json")
        source = NODE_MODULES / ASSETS[url]
        if not source.is_file():
            raise BadInput(f"{source} is missing; run scripts/setup to install package.json's packages")
        target = vendor / ASSETS[url]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        replaced += 1
        head, rest = CDN_ATTRIBUTES.sub("", match["head"]), CDN_ATTRIBUTES.sub("", match["rest"])
        return f'{head}{match["attr"]}="vendor/{ASSETS[url]}"{rest}>'

    text = EXTERNAL.sub(swap, text)
    for companion in COMPANIONS:
        shutil.copytree(NODE_MODULES / companion, vendor / companion, dirs_exist_ok=True)
    index.write_text(text, encoding="utf-8")
    return replaced


def main(argv):
    parser = cli.parser("scripts/localize-site", __doc__)
    parser.add_argument("site", type=Path, help="the asv site folder (asv publish's html_dir)")
    args = parser.parse_args(argv)
    replaced = localize(args.site)
    print(f"{args.site}: {replaced} CDN address(es) now served from vendor/")
    return 0
