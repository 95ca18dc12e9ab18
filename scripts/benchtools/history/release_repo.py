"""A release history's git repository, checked, and the fast-import stream that appends a release's sdist to it."""

import re
import sys
import tarfile

from packaging.version import InvalidVersion, Version

from .. import git as git_
from ..errors import BadInput

NAME, EMAIL = "PyPI release history", "release-history@localhost"
# Set in the repositories this script creates: it resets and cleans its repository, so it refuses to touch any other.
OWNER_KEY = "releasehistory.package"
# Nothing but this script may shape the commits: not the user's git config (signing, autocrlf, default branch...) nor
# the caller's GIT_* variables. Release commits take their author and dates from the import stream; this identity
# names the reflog's entries and the notes of releases gone.
GIT_ENV = git_.isolated_env(
    GIT_COMMITTER_NAME=NAME, GIT_COMMITTER_EMAIL=EMAIL, GIT_AUTHOR_NAME=NAME, GIT_AUTHOR_EMAIL=EMAIL
)


def git(repo, *args, input=None, stdin=None, check=True):
    return git_.out(*args, repo=repo, env=GIT_ENV, input=input, stdin=stdin, check=check)


def check_repo(repo, package):
    """Whether repo is a history of package; BadInput if it is something else."""
    if (repo / ".git").exists():
        owner = git(repo, "config", "--local", "--get", OWNER_KEY, check=False).strip()
        if owner != package:
            raise BadInput(
                f"{repo} is a git repository but not a release history of {package} "
                f"(its {OWNER_KEY} is {owner or 'unset'}); choose another --repo"
            )
        return True
    if repo.exists() and (not repo.is_dir() or any(repo.iterdir())):
        raise BadInput(f"{repo} exists and is not a release history; choose another --repo")
    return False


def sdist_files(path):
    """Yield (path, git mode, content) for each file in the sdist's top-level folder."""
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


def write_data(out, data):
    out.write(b"data %d\n%s\n" % (len(data), data))


def quote(path):
    # fast-import accepts C-style quoting for any path, and needs it for some.
    raw = path.encode("utf-8", "surrogateescape")
    return b'"%s"' % raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")


def write_import_stream(out, releases, parent, cache, name):
    """Write a git fast-import stream committing and tagging releases on main after parent."""
    for mark, release in enumerate(releases, start=1):
        signature = f"{NAME} <{EMAIL}> {int(release.uploaded.timestamp())} +0000"
        out.write(f"commit refs/heads/main\nmark :{mark}\nauthor {signature}\ncommitter {signature}\n".encode())
        message = f"{name} {release.version}\n\nsdist: {release.filename}\nsha256: {release.sha256}\n"
        write_data(out, message.encode())
        if mark == 1 and parent:
            out.write(f"from {parent}\n".encode())
        out.write(b"deleteall\n")
        for path, mode, content in sdist_files(cache / release.filename):
            out.write(b"M %s inline %s\n" % (mode, quote(path)))
            write_data(out, content)
        out.write(f"reset refs/tags/{release.tag}\nfrom :{mark}\n\n".encode())
    # With --done, a stream cut short (the script killed) updates no ref.
    out.write(b"done\n")


# The history is append-only: the parameters that decide which releases it holds are fixed when it
# is made, and a release committed once stays, even if the index later yanks or removes it.
PARAMETERS_KEY = "releasehistory.parameters"
GONE_NOTES = "refs/notes/gone"
RELEASE_MESSAGE = re.compile(
    r"(?P<name>\S+) (?P<version>\S+)\n\nsdist: (?P<filename>\S+)\nsha256: (?P<sha256>[0-9a-f]{64})\n?"
)


def check_parameters(repo, parameters, built, history):
    """BadInput if other --since, --until or --python would rewrite REPO's history rather than extend it: new
    parameters are taken when the history they select holds every built release and adds releases only after them."""
    recorded = git(repo, "config", "--local", "--get", PARAMETERS_KEY, check=False).strip()
    if not recorded or recorded == parameters:
        return
    order = [r.version for r in history]
    kept = [version for _commit, version, _sha256 in built if version in order]
    dropped = [str(version) for _commit, version, _sha256 in built if version not in order]
    inserted = [str(version) for version in order[: len(kept)] if version not in kept]
    if dropped or inserted:
        change = (
            f"would drop {' '.join(dropped)}" if dropped else f"would insert {' '.join(inserted)} before built releases"
        )
        raise BadInput(
            f"{repo} holds a history built with {recorded}; {parameters} {change}: a history is "
            "append-only, so its commits cannot change; choose another --repo"
        )


def built_releases(repo, chain):
    """(commit, version, sha256) of each release commit of main, oldest first, up to the first that is not one."""
    built = []
    for commit in chain:
        match = RELEASE_MESSAGE.fullmatch(git(repo, "show", "-s", "--format=%B", commit).strip() + "\n")
        if not match:
            break
        try:
            built.append((commit, Version(match["version"]), match["sha256"]))
        except InvalidVersion:
            break
    return built


def check_built(built, history, url):
    """The built releases that the index's history no longer holds; BadInput if one's sha256 changed."""
    published = {r.version: r for r in history}
    gone = []
    for commit, version, sha256 in built:
        release = published.get(version)
        if release is None:
            gone.append((commit, version))
        elif release.sha256 != sha256:
            raise BadInput(
                f"{url} now publishes sha256 {release.sha256} for {version}, whose sdist was built "
                f"into this history with sha256 {sha256}: a release's file changed; nothing was changed"
            )
    return gone


def record_gone(repo, commit, version):
    """A git note on its commit that a built release left the index; warn once."""
    note = (
        f"{version}: no longer in the index's history (yanked or removed); kept, so that later releases "
        "keep their hashes, and no longer selected\n"
    )
    if git(repo, "notes", "--ref", GONE_NOTES, "show", commit, check=False) == note:
        return
    git(repo, "notes", "--ref", GONE_NOTES, "add", "-f", "-m", note.strip(), commit)
    print(f"warning: {note.strip()}", file=sys.stderr, flush=True)
