"""A git repository of a package's PyPI releases: one commit and tag per sdist, made by git fast-import, append-only."""

import argparse
import dataclasses
import datetime
import hashlib
import re
import tarfile
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
from ..asvtools.sides import log
from ..errors import BadInput, Failed
from ..project import HISTORY_DIR, ROOT

DEFAULT_INDEX = "https://pypi.org/pypi"
DEFAULT_SINCE = {"equinox": Version("0.10.11")}
TIMEOUT = 60  # seconds
NAME, EMAIL = "PyPI release history", "release-history@localhost"
# Set in the repositories this script creates: it resets and cleans its repository, so it refuses to touch any other.
OWNER_KEY = "releasehistory.package"
PARAMETERS_KEY = "releasehistory.parameters"
GONE_NOTES = "refs/notes/gone"
RELEASE_MESSAGE = re.compile(
    r"(?P<name>\S+) (?P<version>\S+)\n\nsdist: (?P<filename>\S+)\nsha256: (?P<sha256>[0-9a-f]{64})\n?"
)
GIT_ENV = git_.isolated_env(NAME, EMAIL)


@dataclasses.dataclass(frozen=True)
class Release:
    version: Version
    filename: str
    url: str
    sha256: str
    uploaded: datetime.datetime
    requires_python: object = None  # None: not listed

    @property
    def tag(self):
        return f"v{self.version}"

    def admits(self, python):
        """Whether requires_python (missing or invalid: any) admits X.Y.0, or an X.Y.z or X.Y.(z+1) a clause names."""
        if self.requires_python in (None, ""):
            return True
        try:
            if not isinstance(self.requires_python, str):
                raise InvalidSpecifier("not a string")
            specifier = SpecifierSet(self.requires_python)
        except InvalidSpecifier as e:
            log(
                f"warning: {self.version}: requires_python {self.requires_python!r} is not a valid "
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
    select_option: str = "--select"  # how messages name ``select``


def git(repo, *args, input=None, stdin=None, check=True):
    return git_.out(*args, repo=repo, env=GIT_ENV, input=input, stdin=stdin, check=check)


def python_series(text):
    if not (match := re.fullmatch(r"([0-9]+)\.([0-9]+)", text)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a Python version X.Y, such as 3.11")
    return int(match[1]), int(match[2])


def fetch(url, as_json=False):
    try:
        answer = util.http_session().get(url, timeout=TIMEOUT)
        answer.raise_for_status()
        return answer.json() if as_json else answer.content
    except requests.exceptions.ChunkedEncodingError as e:  # fewer bytes than its Content-Length said
        raise Failed(f"download of {url} was cut off: {e}") from None
    except (requests.exceptions.JSONDecodeError, RecursionError) as e:
        raise Failed(f"{url} did not return JSON: {e}") from None
    except requests.RequestException as e:
        raise Failed(f"cannot fetch {url}: {e}") from None


def release_history(metadata, since, until, python=None, *, base):
    """Every final, non-yanked sdist release in [since, until] that admits python, by upload; the versions left out."""
    history, unsupported = [], []
    for key, files in metadata["releases"].items():
        try:
            version = Version(key)
        except InvalidVersion:
            continue  # a legacy version cannot be ordered against the bounds
        sdists = [f for f in files if f["packagetype"] == "sdist" and not f.get("yanked")]
        if version.is_prerelease or (since and version < since) or (until and version > until) or not sdists:
            continue
        # Old releases may have several sdists (.tar.gz and .zip): pick one the same way everywhere.
        sdist = min(sdists, key=lambda f: (f["upload_time_iso_8601"], f["filename"]))
        uploaded = datetime.datetime.fromisoformat(sdist["upload_time_iso_8601"])
        # Index times are UTC; reading them in the local zone would change the hashes.
        uploaded = uploaded if uploaded.tzinfo else uploaded.replace(tzinfo=datetime.UTC)
        url = urllib.parse.urljoin(base, sdist["url"])
        release = Release(
            version, sdist["filename"], url, sdist["digests"]["sha256"], uploaded, sdist.get("requires_python")
        )
        (unsupported if python and not release.admits(python) else history).append(release)
    history.sort(key=lambda r: (r.uploaded, r.version))
    return history, sorted(r.version for r in unsupported)


def describe(history):
    versions = sorted(r.version for r in history)
    return f"{len(history)} releases, {versions[0]} to {versions[-1]}"


def select(history, spec, option="--select"):
    """The releases of ``history`` that SPEC picks; BadInput names ``option``."""
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
        if not (chosen := [r for r in history if specifier.contains(r.version, prereleases=True)]):
            raise BadInput(f"{option} {spec!r} matches no release of the history ({describe(history)})")
        return chosen
    try:
        wanted = {Version(v) for v in spec.split(",")}
    except InvalidVersion as e:
        raise BadInput(f"{option} {spec!r}: {e}") from None
    if unknown := wanted - {r.version for r in history}:
        raise BadInput(
            f"{option} names versions that are not in the history: "
            f"{', '.join(map(str, sorted(unknown)))} (the history has {describe(history)})"
        )
    return [r for r in history if r.version in wanted]


def build(args: Options) -> list[tuple[Release, str]]:
    """Build or update the history; return the selected releases with their commit hashes, oldest first."""
    package = canonicalize_name(args.package)
    repo = (args.repo or HISTORY_DIR / package).absolute()
    since = args.since or DEFAULT_SINCE.get(package)
    url = f"{args.index.rstrip('/')}/{package}/json"

    # Everything that can fail is checked before the repository is touched.
    metadata = fetch(url, as_json=True)
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
    selected = [r for r in selected if not args.admits or r.admits(args.admits)]

    # One build of a repository at a time: a second waits, then finds the releases the first added.
    parameters = f"since={since or ''} until={args.until or ''} python={python or ''}"
    with lock.held(lock.beside(repo), f"another scripts/release-history building {repo}"):
        tags = update(repo, package, name, url, history, args.cache, parameters)
    return [(r, tags[r.tag]) for r in selected]


def update(repo, package, name, url, history, cache, parameters):
    """Append to repo (made if missing) the releases it lacks; return its tags. Under the repo's lock."""
    exists = (repo / ".git").exists()
    if exists and (owner := git(repo, "config", "--local", "--get", OWNER_KEY, check=False).strip()) != package:
        raise BadInput(
            f"{repo} is a git repository but not a release history of {package} "
            f"(its {OWNER_KEY} is {owner or 'unset'}); choose another --repo"
        )
    if not exists and repo.exists() and (not repo.is_dir() or any(repo.iterdir())):
        raise BadInput(f"{repo} exists and is not a release history; choose another --repo")
    chain, tags, built = [], {}, {}  # built: {version: (commit, sha256)} of main's release commits, oldest first
    if exists:
        if git(repo, "for-each-ref", "refs/heads/main"):
            chain = git(repo, "rev-list", "--reverse", "--first-parent", "refs/heads/main").split()
        tags = git_.tags(repo, env=GIT_ENV)
        # Append-only: committed releases stay whatever the index says now; a commit that is not one ends them.
        for commit in chain:
            match = RELEASE_MESSAGE.fullmatch(git(repo, "show", "-s", "--format=%B", commit).strip() + "\n")
            try:
                built[Version(match["version"])] = commit, match["sha256"]
            except (TypeError, InvalidVersion):
                break
        check_parameters(repo, parameters, list(built), [r.version for r in history])
    published = {r.version: r for r in history}
    for version, (_commit, sha256) in built.items():
        if version in published and published[version].sha256 != sha256:
            raise BadInput(
                f"{url} now publishes sha256 {published[version].sha256} for {version}, whose sdist was built "
                f"into this history with sha256 {sha256}: a release's file changed; nothing was changed"
            )
    last = list(built.values())[-1][0] if built else None
    pending = [r for r in history if r.version not in built]
    with tempfile.TemporaryFile() as stream:
        # The sdist cache may be shared by builds of other repositories: one at a time fetches into it.
        with lock.held(lock.beside(cache), f"another scripts/release-history using the sdist cache {cache}"):
            for release in pending:
                fetch_sdist(release, cache)
            write_import_stream(stream, pending, last, cache, name)
        stream.seek(0)

        if not exists:
            repo.mkdir(parents=True, exist_ok=True)
            git(repo, "init", "-q", "-b", "main")
            git(repo, "config", OWNER_KEY, package)
        git(repo, "config", PARAMETERS_KEY, parameters)
        git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
        wanted = {f"v{version}": commit for version, (commit, _sha256) in built.items()}
        updates = [f"delete refs/tags/{t}\n" for t in tags if t not in wanted]
        updates += [f"update refs/tags/{t} {commit}\n" for t, commit in wanted.items() if tags.get(t) != commit]
        if len(built) < len(chain):
            log(f"removing {len(chain) - len(built)} commit(s) of {repo} that are not releases it built")
            updates.append(f"update refs/heads/main {last}\n" if built else "delete refs/heads/main\n")
        if updates:
            git(repo, "update-ref", "--stdin", input="".join(updates))
        for version in [version for version in built if version not in published]:
            note = (
                f"{version}: no longer in the index's history (yanked or removed); kept, so that later releases "
                "keep their hashes, and no longer selected"
            )
            if git(repo, "notes", "--ref", GONE_NOTES, "show", built[version][0], check=False).strip() != note:
                git(repo, "notes", "--ref", GONE_NOTES, "add", "-f", "-m", note, built[version][0])
                log(f"warning: {note}")
        if pending:
            git(repo, "fast-import", "--quiet", "--done", stdin=stream)

    if git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all"):
        git(repo, "reset", "--hard", "-q")
        git(repo, "clean", "-fdxq")
    added = f", {len(pending)} added: {' '.join(str(r.version) for r in pending)}" if pending else ""
    log(f"{name} history in {repo}: {describe(history)}, {len(built)} already present{added}")
    return git_.tags(repo, env=GIT_ENV)


def check_parameters(repo, parameters, built, order):
    """BadInput if other --since, --until or --python would rewrite REPO's history rather than extend it."""
    recorded = git(repo, "config", "--local", "--get", PARAMETERS_KEY, check=False).strip()
    if recorded and recorded != parameters:
        dropped = [str(version) for version in built if version not in order]
        inserted = [str(version) for version in order[: len(built)] if version not in built]
        if dropped or inserted:
            change = (
                f"would drop {' '.join(dropped)}"
                if dropped
                else f"would insert {' '.join(inserted)} before built releases"
            )
            raise BadInput(
                f"{repo} holds a history built with {recorded}; {parameters} {change}: a history is "
                "append-only, so its commits cannot change; choose another --repo"
            )


def fetch_sdist(release, cache):
    if Path(release.filename).name != release.filename or release.filename.startswith("."):
        raise BadInput(f"the index gives a suspicious file name: {release.filename!r}")
    if (target := cache / release.filename).exists():
        with open(target, "rb") as f:
            if hashlib.file_digest(f, "sha256").hexdigest() == release.sha256:
                return
        log(f"{target} does not have the published sha256; downloading it again")
    log(f"downloading {release.url}")
    content = fetch(release.url)
    if (digest := hashlib.sha256(content).hexdigest()) != release.sha256:
        raise BadInput(
            f"sha256 mismatch for {release.filename} downloaded from {release.url}: "
            f"the index publishes {release.sha256}, the file has {digest}"
        )
    # Only a complete, verified file may ever bear the final name.
    util.write_atomic(target, content)


def sdist_files(path):
    tops = set()
    try:
        with tarfile.open(path) as tar:
            for member in tar:
                if member.isdir():
                    continue
                top, _, inner = member.name.removeprefix("./").partition("/")
                tops.add(top)
                if not inner or len(tops) > 1:
                    raise BadInput(f"{path.name} is not a single top-level folder: it has {member.name}")
                if {"", ".", "..", ".git"} & set(inner.split("/")):
                    raise BadInput(f"{path.name} contains an unsafe path: {member.name}")
                if member.issym():
                    yield inner, b"120000", member.linkname.encode("utf-8", "surrogateescape")
                elif member.isfile() or member.islnk():
                    # git keeps only the owner's execute bit.
                    mode = b"100755" if member.mode & 0o100 else b"100644"
                    yield inner, mode, tar.extractfile(member).read()
                else:
                    raise BadInput(f"{path.name} contains {member.name}, neither a file nor a link")
    except (tarfile.TarError, OSError, EOFError, KeyError) as e:
        raise BadInput(f"cannot read {path}: {e}") from None


def write_import_stream(out, releases, parent, cache, name):
    def data(content):
        out.write(b"data %d\n%s\n" % (len(content), content))

    for mark, release in enumerate(releases, start=1):
        signature = f"{NAME} <{EMAIL}> {int(release.uploaded.timestamp())} +0000"
        out.write(f"commit refs/heads/main\nmark :{mark}\nauthor {signature}\ncommitter {signature}\n".encode())
        data(f"{name} {release.version}\n\nsdist: {release.filename}\nsha256: {release.sha256}\n".encode())
        if mark == 1 and parent:
            out.write(f"from {parent}\n".encode())
        out.write(b"deleteall\n")
        for path, mode, content in sdist_files(cache / release.filename):
            # fast-import accepts C-style quoting for any path, and needs it for some.
            raw = path.encode("utf-8", "surrogateescape")
            quoted = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
            out.write(b'M %s inline "%s"\n' % (mode, quoted))
            data(content)
        out.write(f"reset refs/tags/{release.tag}\nfrom :{mark}\n\n".encode())
    # With --done, a stream cut short (the script killed) updates no ref.
    out.write(b"done\n")
