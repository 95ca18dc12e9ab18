"""asv's site made self-contained (its CDN scripts served from vendor/), and release pages linked upstream."""

import re
import shutil
from pathlib import Path

from ..errors import BadInput
from ..project import ROOT
from . import templating

NODE_MODULES = ROOT / "node_modules"
# CDN address in asv 0.6's index.html -> the same library in node_modules.
ASSETS = {
    "https://code.jquery.com/jquery-3.3.1.min.js": "jquery/dist/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.min.js": "flot/jquery.flot.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.time.min.js": "flot/jquery.flot.time.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.selection.min.js": "flot/jquery.flot.selection.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.categories.min.js": "flot/jquery.flot.categories.js",
    "https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js": "flot-orderbars/js/jquery.flot.orderBars.js",  # noqa: E501 (addresses)
    "https://cdnjs.cloudflare.com/ajax/libs/stupidtable/1.0.1/stupidtable.min.js": "stupid-table-plugin/stupidtable.min.js",  # noqa: E501 (addresses)
    "https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/2.19.0/js/md5.min.js": "blueimp-md5/js/md5.min.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js": "bootstrap/dist/js/bootstrap.min.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css": "bootstrap/dist/css/bootstrap.min.css",
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


# ---- commit links on a release-history site

# The release-history repositories are built from sdists: their hashes exist nowhere upstream, so asv's
# links (show_commit_url + hash) would 404.  Each release links to its upstream tag page instead.
RELEASE_PAGES = {
    "equinox": "https://github.com/patrick-kidger/equinox/releases/tag/{tag}",
    "jax": "https://github.com/jax-ml/jax/releases/tag/jax-{tag}",
}
COMMIT_PAGE = "commit.html"


def link_releases(site: Path, package: str) -> int:
    """Point the site's commit links at each release's upstream page; returns how many releases are linked."""
    import json

    index_file = site / "index.json"
    if not index_file.is_file():
        raise BadInput(f"no asv site at {site} (no index.json)")
    index = json.loads(index_file.read_text(encoding="utf-8"))
    revision_to_hash = index.get("revision_to_hash", {})
    pages = {
        revision_to_hash[str(revision)]: RELEASE_PAGES[package].format(tag=tag)
        for tag, revision in index.get("tags", {}).items()
        if str(revision) in revision_to_hash
    }
    (site / COMMIT_PAGE).write_text(templating.render("commit.html.j2", pages=pages), encoding="utf-8")
    index["show_commit_url"] = f"{COMMIT_PAGE}#"
    index_file.write_text(json.dumps(index), encoding="utf-8")
    return len(pages)
