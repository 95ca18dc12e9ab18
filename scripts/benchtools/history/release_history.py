"""A git repository of a package's PyPI releases: one commit and tag per sdist, append-only."""

import argparse
import dataclasses
import datetime
import hashlib
import re
import sys
import tempfile
import urllib.parse
from pathlib import Path

import requests
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from .. import git as git_
from .. import util
from ..asvtools import lock
from ..errors import BadInput, Failed
from ..project import HISTORY_DIR, ROOT
from . import release_repo

DEFAULT_INDEX = "https://pypi.org/pypi"
# Where the benchmarked equinox history starts unless --since says otherwise.
DEFAULT_SINCE = {"equinox": Version("0.10.11")}
TIMEOUT = 60  # seconds, for each network operation


@dataclasses.dataclass(frozen=True)
class Release:
    version: Version
    filename: str
    url: str
    sha256: str
    uploaded: datetime.datetime
    requires_python: object = None  # the sdist's, as the index lists it (None: not listed)

    @property
    def tag(self):
        return f"v{self.version}"

    def admits(self, python):
        return requires_python_admits(self.requires_python, python, self.version)


def log(message):
    print(message, file=sys.stderr, flush=True)


def python_series(text):
    """Parse --python: a Python version series X.Y, as (X, Y)."""
    match = re.fullmatch(r"([0-9]+)\.([0-9]+)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a Python version X.Y, such as 3.11")
    return int(match[1]), int(match[2])


def fetch_json(url):
    try:
        answer = util.http_session().get(url, timeout=TIMEOUT)
        answer.raise_for_status()
        return answer.json()
    except requests.RequestException as e:
        raise Failed(f"cannot fetch {url}: {e}") from None
    except (ValueError, RecursionError) as e:
        raise Failed(f"{url} did not return JSON: {e}") from None


def release_history(metadata, since, until, python=None, base=""):
    """Every final, non-yanked release with an sdist in [since, until], in upload order; given python, a series
    (X, Y), only those whose sdist admits it, and the versions this left out.  File URLs are read relative to base,
    the metadata's URL: some mirrors list them so."""
    history, unsupported = [], []
    for key, files in metadata["releases"].items():
        try:
            version = Version(key)
        except InvalidVersion:
            continue  # a legacy version cannot be ordered against the bounds
        if version.is_prerelease or (since and version < since) or (until and version > until):
            continue
        sdists = [f for f in files if f["packagetype"] == "sdist" and not f.get("yanked")]
        if not sdists:
            continue
        # Old releases may have several sdists (.tar.gz and .zip): pick one the same way everywhere.
        sdist = min(sdists, key=lambda f: (f["upload_time_iso_8601"], f["filename"]))
        if python and not requires_python_admits(sdist.get("requires_python"), python, version):
            unsupported.append(version)
            continue
        uploaded = datetime.datetime.fromisoformat(sdist["upload_time_iso_8601"])
        if uploaded.tzinfo is None:
            # Index times are UTC; reading them in the local zone would change the hashes.
            uploaded = uploaded.replace(tzinfo=datetime.UTC)
        history.append(
            Release(
                version=version,
                filename=sdist["filename"],
                url=urllib.parse.urljoin(base, sdist["url"]),
                sha256=sdist["digests"]["sha256"],
                uploaded=uploaded,
                requires_python=sdist.get("requires_python"),
            )
        )
    history.sort(key=lambda r: (r.uploaded, r.version))
    return history, sorted(unsupported)


def requires_python_admits(requires_python, python, version):
    """Whether a release's requires_python admits some version X.Y.z of the series python, (X, Y); missing, empty or
    invalid admits all.

    The versions of the series a specifier admits, if any, start at X.Y.0 or just at or after a version its clauses
    name (X.Y.z itself or X.Y.(z+1), as for '>X.Y.z', '!=X.Y.z' or '>=X.Y.z'), so trying those is enough.
    """
    if requires_python is None or requires_python == "":
        return True
    try:
        if not isinstance(requires_python, str):
            raise InvalidSpecifier("not a string")
        specifier = SpecifierSet(requires_python)
    except InvalidSpecifier as e:
        log(
            f"warning: {version}: requires_python {requires_python!r} is not a valid "
            f"version specifier ({e}); keeping the release"
        )
        return True
    micros = {0}
    for clause in specifier:
        try:
            named = Version(clause.version.removesuffix(".*")).release + (0, 0)
        except InvalidVersion:
            continue  # '===' may name anything
        if named[:2] == python:
            micros |= {named[2], named[2] + 1}
    return any(specifier.contains(Version(f"{python[0]}.{python[1]}.{micro}")) for micro in sorted(micros))


def describe(history):
    versions = sorted(r.version for r in history)
    return f"{len(history)} releases, {versions[0]} to {versions[-1]}"


def select(history, spec, option="--select"):
    """The releases of ``history`` (objects with a ``version``) that SPEC picks; BadInput names ``option``."""
    if spec is None:
        return history
    if spec.isascii() and spec.isdigit():
        if int(spec) == 0:
            raise BadInput(f"{option} 0 selects no release")
        return history[-int(spec) :]
    if any(c in spec for c in "<>=!~"):
        try:
            specifier = SpecifierSet(spec)
        except InvalidSpecifier:
            raise BadInput(f"{option} {spec!r} is not a valid version specifier") from None
        chosen = [r for r in history if specifier.contains(r.version, prereleases=True)]
        if not chosen:
            raise BadInput(f"{option} {spec!r} matches no release of the history ({describe(history)})")
        return chosen
    try:
        wanted = {Version(v) for v in spec.split(",")}
    except InvalidVersion as e:
        raise BadInput(f"{option} {spec!r}: {e}") from None
    unknown = wanted - {r.version for r in history}
    if unknown:
        raise BadInput(
            f"{option} names versions that are not in the history: "
            f"{', '.join(map(str, sorted(unknown)))} (the history has {describe(history)})"
        )
    return [r for r in history if r.version in wanted]


def fetch_sdist(release, cache):
    if Path(release.filename).name != release.filename or release.filename.startswith("."):
        raise BadInput(f"the index gives a suspicious file name: {release.filename!r}")
    target = cache / release.filename
    if target.exists():
        with open(target, "rb") as f:
            if hashlib.file_digest(f, "sha256").hexdigest() == release.sha256:
                return
        log(f"{target} does not have the published sha256; downloading it again")
    log(f"downloading {release.url}")
    digest = hashlib.sha256()
    # Only a complete, verified file may ever bear the final name.
    with util.atomic_output(target) as placed:
        try:
            with util.http_session().get(release.url, stream=True, timeout=TIMEOUT) as answer:
                answer.raise_for_status()
                for chunk in answer.iter_content(1 << 16):
                    digest.update(chunk)
                    placed.file.write(chunk)
        except requests.exceptions.ChunkedEncodingError as e:  # fewer bytes than its Content-Length said
            raise Failed(f"download of {release.url} was cut off: {e}") from None
        except requests.RequestException as e:
            raise Failed(f"cannot download {release.url}: {e}") from None
        digest = digest.hexdigest()
        if digest != release.sha256:
            raise BadInput(
                f"sha256 mismatch for {release.filename} downloaded from {release.url}: "
                f"the index publishes {release.sha256}, the file has {digest}"
            )


@dataclasses.dataclass
class Options:  # scripts/release-history's
    package: str = "equinox"
    repo: Path | None = None
    index: str = DEFAULT_INDEX
    cache: Path = ROOT / ".cache/sdists"
    since: Version | None = None
    until: Version | None = None
    python: tuple[int, int] | None = None
    select: str | None = None
    admits: tuple[int, int] | None = None  # of the selected releases, only those that admit this Python
    print_: str | None = None
    select_option: str = "--select"  # how messages name the option that gave ``select``


def build(args: Options) -> list[tuple[Release, str]]:
    """Build or update the history; return the selected releases with their commit hashes, oldest first."""
    package = canonicalize_name(args.package)
    repo = (args.repo or HISTORY_DIR / package).absolute()
    since = args.since or DEFAULT_SINCE.get(package)
    url = f"{args.index.rstrip('/')}/{package}/json"

    # Everything that can fail is checked before the repository is touched.
    metadata = fetch_json(url)
    try:
        name = metadata["info"]["name"]
        history, unsupported = release_history(metadata, since, args.until, args.python, base=url)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise Failed(f"unexpected metadata from {url}: {e!r}") from None
    python = ".".join(map(str, args.python)) if args.python else None
    if unsupported:
        log(f"--python {python} leaves out {len(unsupported)} release(s): {' '.join(map(str, unsupported))}")
    if not history:
        bounds = f"--since {since or 'any'}, --until {args.until or 'any'}" + (f", --python {python}" if python else "")
        raise BadInput(f"{url} lists no final release with an sdist ({bounds})")
    selected = select(history, args.select, args.select_option)
    if args.admits:
        selected = [r for r in selected if r.admits(args.admits)]

    # One build of a repository at a time: a second waits, then finds the releases the first added.
    parameters = f"since={since or ''} until={args.until or ''} python={python or ''}"
    with lock.held(lock.beside(repo), f"another scripts/release-history building {repo}"):
        tags = update(repo, package, name, url, history, args.cache, parameters)
    return [(r, tags[r.tag]) for r in selected]


def update(repo, package, name, url, history, cache, parameters):
    """Append to repo (made if missing) the releases of history it lacks; return its tags.  Under the repo's lock."""
    exists = release_repo.check_repo(repo, package)
    chain, tags, built = [], {}, []
    if exists:
        if release_repo.git(repo, "for-each-ref", "refs/heads/main"):
            chain = release_repo.git(repo, "rev-list", "--reverse", "--first-parent", "refs/heads/main").split()
        tags = git_.tags(repo, env=release_repo.GIT_ENV)
        # Append-only: the releases already committed stay, with their hashes, whatever the index says now.
        built = release_repo.built_releases(repo, chain)
        release_repo.check_parameters(repo, parameters, built, history)
    kept = len(built)
    gone = release_repo.check_built(built, history, url)
    built_versions = {version for _commit, version, _sha256 in built}
    pending = [r for r in history if r.version not in built_versions]
    with tempfile.TemporaryFile() as stream:
        # The sdist cache may be shared by builds of other repositories: one at a time fetches into it.
        with lock.held(lock.beside(cache), f"another scripts/release-history using the sdist cache {cache}"):
            for release in pending:
                fetch_sdist(release, cache)
            release_repo.write_import_stream(stream, pending, built[-1][0] if built else None, cache, name)
        stream.seek(0)

        if not exists:
            repo.mkdir(parents=True, exist_ok=True)
            release_repo.git(repo, "init", "-q", "-b", "main")
            release_repo.git(repo, "config", release_repo.OWNER_KEY, package)
        release_repo.git(repo, "config", release_repo.PARAMETERS_KEY, parameters)
        release_repo.git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
        # Tags follow the built releases; a commit that is not one (an interrupted or edited state) goes.
        wanted = {f"v{version}": commit for commit, version, _sha256 in built}
        updates = [f"delete refs/tags/{t}\n" for t in tags if t not in wanted]
        updates += [f"update refs/tags/{t} {commit}\n" for t, commit in wanted.items() if tags.get(t) != commit]
        if kept < len(chain):
            log(f"removing {len(chain) - kept} commit(s) of {repo} that are not releases it built")
            updates.append(f"update refs/heads/main {built[-1][0]}\n" if built else "delete refs/heads/main\n")
        if updates:
            release_repo.git(repo, "update-ref", "--stdin", input="".join(updates))
        for commit, version in gone:
            release_repo.record_gone(repo, commit, version)
        if pending:
            release_repo.git(repo, "fast-import", "--quiet", "--done", stdin=stream)

    if release_repo.git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all"):
        release_repo.git(repo, "reset", "--hard", "-q")
        release_repo.git(repo, "clean", "-fdxq")

    added = f", {len(pending)} added: {' '.join(str(r.version) for r in pending)}" if pending else ""
    log(f"{name} history in {repo}: {describe(history)}, {kept} already present{added}")
    return git_.tags(repo, env=release_repo.GIT_ENV)
