"""asv's site made self-contained and safe to open, and release pages linked upstream."""

import json
import re
import shutil
import sys
from pathlib import Path

from .. import settings
from ..errors import BadInput
from ..project import ROOT
from . import templating

NODE_MODULES = ROOT / "node_modules"
# What asv 0.6's index.html loads from CDNs: (its address, {version} the npm package's; its file in node_modules).
# fmt: off
CDN_ASSETS = (
    ("https://code.jquery.com/jquery-{version}.min.js", "jquery/dist/jquery.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/flot/{version}/jquery.flot.min.js", "flot/jquery.flot.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/flot/{version}/jquery.flot.time.min.js", "flot/jquery.flot.time.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/flot/{version}/jquery.flot.selection.min.js", "flot/jquery.flot.selection.js"),  # noqa: E501 (addresses)
    ("https://cdnjs.cloudflare.com/ajax/libs/flot/{version}/jquery.flot.categories.min.js", "flot/jquery.flot.categories.js"),  # noqa: E501 (addresses)
    ("https://cdn.jsdelivr.net/npm/flot-orderbars@{version}/js/jquery.flot.orderBars.js", "flot-orderbars/js/jquery.flot.orderBars.js"),  # noqa: E501 (addresses)
    ("https://cdnjs.cloudflare.com/ajax/libs/stupidtable/{version}/stupidtable.min.js", "stupid-table-plugin/stupidtable.min.js"),  # noqa: E501 (addresses)
    ("https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/{version}/js/md5.min.js", "blueimp-md5/js/md5.min.js"),
    ("https://cdn.jsdelivr.net/npm/bootstrap@{version}/dist/js/bootstrap.min.js", "bootstrap/dist/js/bootstrap.min.js"),
    ("https://cdn.jsdelivr.net/npm/bootstrap@{version}/dist/css/bootstrap.min.css", "bootstrap/dist/css/bootstrap.min.css"),  # noqa: E501 (addresses)
)
# fmt: on

# Where asv's page asks for another version than the one served: npm has only stupid-table-plugin 1.1.3.
ASV_VERSIONS = {"stupid-table-plugin": "1.0.1"}


def assets() -> dict[str, str]:
    """{CDN address in asv's index.html: the same library's file in node_modules}."""
    versions = {**settings.site_packages(), **ASV_VERSIONS}
    return {url.format(version=versions[file.split("/")[0]]): file for url, file in CDN_ASSETS}


EXTERNAL = re.compile(r'(?P<head><(?:script|link)\b[^>]*?)(?P<attr>src|href)="(?P<url>https?://[^"]+)"(?P<rest>[^>]*)>')
# Attributes that would reject a file that is not byte-for-byte the CDN's, or only make sense for a CDN.
CDN_ATTRIBUTES = re.compile(r'\s(integrity|crossorigin|referrerpolicy)(="[^"]*")?')
# A tag name as releases are named: a tag named `<img/src/onerror=...>` ran its script on the site.
PLAIN_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+/-]*")


def localize(site: Path) -> int:
    """The site's CDN scripts served from vendor/, its tags that are no plain names left out; how many."""
    page = site / "index.html"
    if not page.is_file():
        raise BadInput(f"no asv site at {site} (no index.html)")
    # asv's graph inserts each tag name of index.json into the page as HTML, and upstream code names its tags.
    index_file, index = read_index(site)
    tags = index.get("tags") or {}
    if dropped := [tag for tag in tags if not PLAIN_TAG.fullmatch(tag)]:
        index["tags"] = {tag: revision for tag, revision in tags.items() if tag not in dropped}
        index_file.write_text(json.dumps(index), encoding="utf-8")
        print(f"{site}: left out {len(dropped)} tag(s) not plainly named: {ascii(dropped)[:300]}", file=sys.stderr)
    text = page.read_text(encoding="utf-8")
    vendor = site / "vendor"
    local = assets()

    def swap(match):
        url = match["url"]
        if url not in local:
            raise BadInput(f"{page} loads {url}, which has no local copy; add it to CDN_ASSETS and package.json")
        source = NODE_MODULES / local[url]
        if not source.is_file():
            raise BadInput(f"{source} is missing; run scripts/setup to install package.json's packages")
        target = vendor / local[url]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        head, rest = CDN_ATTRIBUTES.sub("", match["head"]), CDN_ATTRIBUTES.sub("", match["rest"])
        return f'{head}{match["attr"]}="vendor/{local[url]}"{rest}>'

    text, replaced = EXTERNAL.subn(swap, text)
    fonts = "bootstrap/dist/fonts"  # bootstrap's stylesheet loads them by relative path
    shutil.copytree(NODE_MODULES / fonts, vendor / fonts, dirs_exist_ok=True)
    page.write_text(text, encoding="utf-8")
    return replaced


def read_index(site: Path) -> tuple[Path, dict]:
    index_file = site / "index.json"
    if not index_file.is_file():
        raise BadInput(f"no asv site at {site} (no index.json)")
    return index_file, json.loads(index_file.read_text(encoding="utf-8"))


# A release-history repository's hashes exist nowhere upstream (built from sdists): a release links its tag page.
RELEASE_PAGES = {
    "equinox": "https://github.com/patrick-kidger/equinox/releases/tag/{tag}",
    "jax": "https://github.com/jax-ml/jax/releases/tag/jax-{tag}",
}
COMMIT_PAGE = "commit.html"


def link_releases(site: Path, package: str) -> int:
    index_file, index = read_index(site)
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
