"""benchtools/history/release_history.py: its pure functions, and scripts/release-history run as a user
would: a subprocess talking to a real HTTP server (a fake PyPI JSON index on 127.0.0.1) and real git.

The command stays a subprocess: it reads git's environment (GIT_*) when it is imported."""

import collections
import datetime
import fcntl
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import socket
import subprocess
import sys
import tarfile
import threading
import time
import urllib.request

import pytest
from packaging.version import Version

from benchtools.asvtools import lock
from benchtools.errors import BadInput
from benchtools.history import release_history as history_module
from tests import helpers
from tests.helpers import tool

SCRIPT = str(helpers.SCRIPTS / "release-history")
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@localhost",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@localhost",
}


def make_sdist(version):
    """A small gzipped tar like a real sdist: one top-level folder, odd modes and mtimes."""
    top = f"pkg-{version}"
    entries = [
        ("pyproject.toml", f'[project]\nname = "pkg"\nversion = "{version}"\n'.encode(), 0o664),
        ("pkg/__init__.py", f'__version__ = "{version}"\n'.encode(), 0o600),
        ("bin/run.sh", b"#!/bin/sh\necho run\n", 0o775),
    ]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for directory in (top, f"{top}/pkg", f"{top}/bin"):
            info = tarfile.TarInfo(directory)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        for i, (name, data, mode) in enumerate(entries):
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), mode, 1_600_000_000 + i
            tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo(f"{top}/link.toml")
        info.type, info.linkname = tarfile.SYMTYPE, "pyproject.toml"
        tar.addfile(info)
    return gzip.compress(buffer.getvalue(), mtime=0)


class FakeIndex:
    """The releases of the project "pkg", served as PyPI's JSON API does."""

    def __init__(self, base):
        self.base = base
        self.url = f"{base}/pypi"
        self.releases = {}
        self.files = {}
        self.requests = collections.Counter()
        self.cut_off = set()  # files whose connection drops halfway
        self.stalled = set()  # files whose transfer stops halfway until `resume` is set
        self.stalling = threading.Event()
        self.resume = threading.Event()

    def add(self, version, uploaded, packagetype="sdist", yanked=False, sha256=None, **requires_python):
        """Add a file; requires_python=VALUE sets that key of its entry (absent unless given)."""
        data = make_sdist(version)
        filename = f"pkg-{version}.tar.gz" if packagetype == "sdist" else f"pkg-{version}-py3-none-any.whl"
        self.files[filename] = data
        self.releases.setdefault(version, []).append(
            {
                "filename": filename,
                "packagetype": packagetype,
                "url": f"{self.base}/files/{filename}",
                "digests": {"sha256": sha256 or hashlib.sha256(data).hexdigest()},
                "upload_time_iso_8601": uploaded,
                "yanked": yanked,
                **requires_python,
            }
        )
        return filename

    def file_requests(self):
        return sum(n for path, n in self.requests.items() if path.startswith("/files/"))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        index = self.server.index
        index.requests[self.path] += 1
        if self.path == "/pypi/pkg/json":
            body = json.dumps({"info": {"name": "pkg"}, "releases": index.releases}).encode()
        elif self.path.startswith("/files/") and self.path[7:] in index.files:
            body = index.files[self.path[7:]]
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        name = self.path[7:]
        if name in index.cut_off or name in index.stalled:
            self.wfile.write(body[: len(body) // 2])
            if name in index.stalled:
                index.stalling.set()
                index.resume.wait(30)
            return  # HTTP/1.0: returning closes the connection
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def index():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.index = FakeIndex(f"http://127.0.0.1:{server.server_port}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.index
    server.index.resume.set()
    server.shutdown()
    server.server_close()


def history_arguments(index, tmp_path, *args, repo="repo"):
    return [
        "--package",
        "pkg",
        "--index",
        index.url,
        "--repo",
        str(tmp_path / repo),
        "--cache",
        str(tmp_path / "cache"),
        *args,
    ]


def history_command(index, tmp_path, *args, repo="repo"):
    return [*tool("release-history"), *history_arguments(index, tmp_path, *args, repo=repo)]


def release_history(index, tmp_path, *args, repo="repo", **kwargs):
    """scripts/release-history run in this process (helpers.command); in a process of its own where KWARGS give it
    another environment or umask."""
    if kwargs:
        command = history_command(index, tmp_path, *args, repo=repo)
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)
    else:
        result = helpers.command("release-history", *history_arguments(index, tmp_path, *args, repo=repo))
    assert "Traceback" not in result.stderr
    return result


def git(repo, *args):
    return helpers.git(repo, *args, env=GIT_ENV)


def snapshot(repo):
    """Everything a run could change in repo, short of the object store."""
    return (
        git(repo, "symbolic-ref", "-q", "HEAD"),
        git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
        git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all"),
    )


def commits(repo):
    return git(repo, "rev-list", "--reverse", "main").split()


def tags(repo):
    return dict(
        line.split()
        for line in git(repo, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/tags").splitlines()
    )


def cache_listing(tmp_path):
    return sorted(os.listdir(tmp_path / "cache"))


def epoch(iso):
    return int(datetime.datetime.fromisoformat(iso).timestamp())


UPLOADS = {
    "1.0.0": "2024-01-01T10:00:00.123456Z",
    "2.0.0": "2024-02-01T11:00:00.000001Z",
    "1.1.0": "2024-03-01T12:00:00Z",  # a backport, uploaded after 2.0.0
}


@pytest.fixture
def three(index):
    for version, uploaded in UPLOADS.items():
        index.add(version, uploaded)
    # None of these belongs in the history.
    index.add("2.1.0rc1", "2024-03-02T00:00:00Z")
    index.add("1.2.0", "2024-03-03T00:00:00Z", yanked=True)
    index.add("1.3.0", "2024-03-04T00:00:00Z", packagetype="bdist_wheel")
    return index


def test_builds_one_commit_per_release_in_upload_order(three, tmp_path):
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "3 releases, 1.0.0 to 2.0.0, 0 already present, 3 added: 1.0.0 2.0.0 1.1.0\n" in result.stderr
    repo = tmp_path / "repo"
    log = git(repo, "log", "--reverse", "--format=%H|%at|%ct|%an <%ae>|%cn <%ce>|%s").splitlines()
    assert len(log) == 3
    for line, (version, uploaded) in zip(log, UPLOADS.items(), strict=True):
        commit, authored, committed, author, committer, subject = line.split("|")
        assert subject == f"pkg {version}"
        assert int(authored) == int(committed) == epoch(uploaded)
        assert author == committer == "PyPI release history <release-history@localhost>"
        assert tags(repo)[f"v{version}"] == commit
        body = git(repo, "log", "-1", "--format=%b", commit)
        assert f"pkg-{version}.tar.gz" in body
        assert hashlib.sha256(three.files[f"pkg-{version}.tar.gz"]).hexdigest() in body
    assert sorted(tags(repo)) == ["v1.0.0", "v1.1.0", "v2.0.0"]
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/heads") == "refs/heads/main"
    assert git(repo, "show", "v2.0.0:pkg/__init__.py") == '__version__ = "2.0.0"'
    listing = git(repo, "ls-tree", "-r", "v1.0.0").splitlines()
    assert [f"{line.split()[0]} {line.split(chr(9))[1]}" for line in listing] == [
        "100755 bin/run.sh",
        "120000 link.toml",
        "100644 pkg/__init__.py",
        "100644 pyproject.toml",
    ]
    # The work tree shows the newest upload, nothing else.
    assert (repo / "pkg" / "__init__.py").read_text() == '__version__ = "1.1.0"\n'
    assert git(repo, "status", "--porcelain", "--ignored") == ""


@pytest.mark.parametrize(
    "spec, expected",
    [
        (None, ["v1.0.0", "v2.0.0", "v1.1.0"]),
        ("2", ["v2.0.0", "v1.1.0"]),
        ("5", ["v1.0.0", "v2.0.0", "v1.1.0"]),
        (">=1.1", ["v2.0.0", "v1.1.0"]),
        (">=1.0,<2", ["v1.0.0", "v1.1.0"]),
        ("1.1.0,1.0.0", ["v1.0.0", "v1.1.0"]),
        ("1.1", ["v1.1.0"]),
    ],
)
def test_print_selects_releases_oldest_first(three, tmp_path, spec, expected):
    select = [] if spec is None else ["--select", spec]
    printed_tags = release_history(three, tmp_path, "--print", "tags", *select)
    assert printed_tags.returncode == 0, printed_tags.stderr
    assert printed_tags.stdout.splitlines() == expected
    printed_hashes = release_history(three, tmp_path, "--print", "hashes", *select)
    assert printed_hashes.returncode == 0, printed_hashes.stderr
    assert printed_hashes.stdout.splitlines() == [tags(tmp_path / "repo")[t] for t in expected]


def test_select_does_not_change_what_is_built(three, tmp_path):
    assert release_history(three, tmp_path, "--select", "1").returncode == 0
    assert release_history(three, tmp_path, repo="other").returncode == 0
    assert commits(tmp_path / "repo") == commits(tmp_path / "other")


def test_since_and_until_bound_the_history(three, tmp_path):
    result = release_history(three, tmp_path, "--since", "1.1", "--until", "1.1.0", "--print", "tags")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["v1.1.0"]
    assert len(commits(tmp_path / "repo")) == 1


def test_same_releases_give_same_hashes_anywhere(three, tmp_path):
    assert release_history(three, tmp_path, repo="a").returncode == 0
    # Another machine: hostile git config, GIT_* variables, time zone, umask.
    home = tmp_path / "home"
    home.mkdir()
    hostile = home / ".gitconfig"
    hostile.write_text(
        "[user]\n name = Someone Else\n email = else@example.com\n"
        "[commit]\n gpgsign = true\n[tag]\n gpgsign = true\n"
        "[core]\n autocrlf = true\n filemode = false\n"
        "[init]\n defaultBranch = trunk\n[i18n]\n commitEncoding = ISO-8859-1\n"
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(hostile),
        "GIT_AUTHOR_NAME": "Intruder",
        "GIT_COMMITTER_DATE": "2001-01-01T00:00:00",
        "TZ": "Asia/Tokyo",
    }
    assert release_history(three, tmp_path, repo="b", env=env, umask=0o077).returncode == 0
    assert commits(tmp_path / "a") == commits(tmp_path / "b")
    assert tags(tmp_path / "a") == tags(tmp_path / "b")


def test_rerun_with_nothing_new_changes_nothing(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before, downloads = snapshot(repo), three.file_requests()
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "3 releases, 1.0.0 to 2.0.0, 3 already present\n" in result.stderr and "removing" not in result.stderr
    assert snapshot(repo) == before
    assert three.file_requests() == downloads == 3
    assert three.requests["/pypi/pkg/json"] == 2


def test_a_git_step_that_fails_stops_the_build_loudly_and_changes_nothing(three, tmp_path):
    assert release_history(three, tmp_path, "--until", "1.0.0").returncode == 0
    repo = tmp_path / "repo"
    before = snapshot(repo)
    (repo / ".git" / "config.lock").touch()  # another git writing the repository's configuration
    result = release_history(three, tmp_path)
    assert result.returncode == 3
    assert f"git config {history_module.PARAMETERS_KEY} " in result.stderr and "could not lock config" in result.stderr
    (repo / ".git" / "config.lock").unlink()
    assert snapshot(repo) == before


def test_the_caller_s_git_environment_is_not_the_history_s(three, tmp_path, monkeypatch):
    """Run from a git hook, GIT_DIR names the caller's repository: the history is built in --repo all the same."""
    assert release_history(three, tmp_path, "--until", "1.0.0").returncode == 0
    repo = tmp_path / "repo"
    git(repo, "tag", "v9.0.0")  # a tag of no release, which the next build removes
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "caller.git"))
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(commits(repo)) == 3 and sorted(tags(repo)) == ["v1.0.0", "v1.1.0", "v2.0.0"]
    assert not (tmp_path / "caller.git").exists()


def test_rerun_appends_a_new_release(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    old_commits, old_tags = commits(repo), tags(repo)
    three.add("2.1.0", "2024-04-01T00:00:00Z")
    result = release_history(three, tmp_path, "--print", "tags", "--select", "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["v2.1.0"]
    assert commits(repo)[:-1] == old_commits
    assert len(commits(repo)) == len(old_commits) + 1
    assert tags(repo) == {**old_tags, "v2.1.0": commits(repo)[-1]}
    assert three.file_requests() == 4
    assert git(repo, "status", "--porcelain", "--ignored") == ""


@pytest.mark.parametrize(
    ("changed", "asked", "dropped"),
    [
        (["--until", "1.1.0"], "since= until=1.1.0", "2.0.0"),
        (["--since", "1.1"], "since=1.1 until=", "1.0.0"),
        (["--until", "1.0.0"], "since= until=1.0.0", "2.0.0 1.1.0"),
    ],
)
def test_parameters_that_would_rewrite_a_history_are_refused(three, tmp_path, changed, asked, dropped):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before = snapshot(repo)
    result = release_history(three, tmp_path, *changed)
    assert result.returncode == 2
    assert (
        f"{repo} holds a history built with since= until= python=; {asked} python= would drop {dropped}: a history"
        " is append-only, so its commits cannot change; choose another --repo"
    ) in result.stderr
    assert snapshot(repo) == before
    # Another repository takes them.
    assert release_history(three, tmp_path, *changed, repo="other").returncode == 0


def test_parameters_that_only_extend_a_history_are_taken(three, tmp_path):
    assert release_history(three, tmp_path, "--until", "1.0.0").returncode == 0
    repo = tmp_path / "repo"
    built = commits(repo)
    result = release_history(three, tmp_path, "--python", "3.11")  # admits every release: two appended
    assert result.returncode == 0, result.stderr
    assert commits(repo)[:1] == built and len(commits(repo)) == 3
    assert release_history(three, tmp_path, "--python", "3.11", repo="fresh").returncode == 0
    assert commits(repo) == commits(tmp_path / "fresh")
    # A history that records no parameters (a run stopped between its two config writes) is extended, not refused.
    subprocess.run(["git", "-C", repo, "config", "--unset", "releasehistory.parameters"], check=True)
    three.add("2.1.0", "2024-04-01T00:00:00Z")
    result = release_history(three, tmp_path, "--python", "3.11")
    assert result.returncode == 0, result.stderr
    assert len(commits(repo)) == 4


def test_parameters_that_would_insert_an_earlier_upload_are_refused(three, tmp_path):
    three.add("2.0.1", "2024-02-15T00:00:00Z")
    three.add("1.1.1", "2024-03-20T00:00:00Z")
    assert release_history(three, tmp_path, "--until", "1.1.1").returncode == 0  # 2.0.0 and 2.0.1 came before 1.1.0
    repo = tmp_path / "repo"
    before = snapshot(repo)
    result = release_history(three, tmp_path, "--python", "3.11")
    assert result.returncode == 2
    assert (
        "; since= until= python=3.11 would insert 2.0.0 2.0.1 before built releases: a history is append-only"
        in result.stderr
    )
    assert snapshot(repo) == before


def test_a_release_yanked_later_is_recorded_and_later_releases_keep_their_hashes(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    built, built_tags = commits(repo), tags(repo)
    for f in three.releases["2.0.0"]:
        f["yanked"] = True
    three.add("2.1.0", "2024-04-01T00:00:00Z")
    result = release_history(three, tmp_path, "--print", "tags")
    assert result.returncode == 0, result.stderr
    assert commits(repo)[:3] == built and len(commits(repo)) == 4
    assert {t: c for t, c in tags(repo).items() if t in built_tags} == built_tags
    assert result.stdout.split() == ["v1.0.0", "v1.1.0", "v2.1.0"]  # a yanked release is no longer selected
    note = (
        "2.0.0: no longer in the index's history (yanked or removed); kept, so that later releases keep their "
        "hashes, and no longer selected"
    )
    assert f"warning: {note}\n" in result.stderr
    assert git(repo, "notes", "--ref", "refs/notes/gone", "show", built_tags["v2.0.0"]).strip() == note
    again = release_history(three, tmp_path)
    assert again.returncode == 0 and "warning" not in again.stderr
    assert commits(repo)[:3] == built
    # A note of other words (an earlier wording) is written over.
    git(repo, "notes", "--ref", "refs/notes/gone", "add", "-f", "-m", "gone", built_tags["v2.0.0"])
    assert release_history(three, tmp_path).returncode == 0
    assert git(repo, "notes", "--ref", "refs/notes/gone", "show", built_tags["v2.0.0"]).strip() == note


def test_a_changed_digest_of_a_built_release_is_refused(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before = snapshot(repo)
    three.releases["1.1.0"][0]["digests"]["sha256"] = "f" * 64
    result = release_history(three, tmp_path)
    assert result.returncode == 2
    assert f"{three.url}/pkg/json now publishes sha256 {'f' * 64} for 1.1.0" in result.stderr
    assert snapshot(repo) == before


def test_an_index_named_with_a_trailing_slash_is_the_same_index(three, tmp_path):
    arguments = history_arguments(three, tmp_path, "--print", "tags")
    arguments[arguments.index("--index") + 1] += "/"
    result = helpers.command("release-history", *arguments)
    assert (result.returncode, result.stdout.split()) == (0, ["v1.0.0", "v2.0.0", "v1.1.0"])


def test_the_index_loses_only_its_trailing_slashes(tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(history_module, "fetch", lambda url, as_json: asked.append(url) or {})
    options = history_module.Options(package="pkg", index="https://i.example/simpleX//", cache=tmp_path)
    with pytest.raises(history_module.Failed, match="unexpected metadata from https://i.example/simpleX/pkg/json"):
        history_module.build(options)
    assert asked == ["https://i.example/simpleX/pkg/json"]


def test_an_answer_that_is_not_json_fails_naming_the_address(index):
    index.files["page.html"] = b"<html>a proxy's page</html>"
    with pytest.raises(history_module.Failed, match=f"^{index.base}/files/page.html did not return JSON: "):
        history_module.fetch(f"{index.base}/files/page.html", as_json=True)


def test_an_index_that_stops_answering_fails_after_the_timeout(index, monkeypatch):
    index.files["slow.tar.gz"] = b"x" * 1000
    index.stalled.add("slow.tar.gz")
    monkeypatch.setattr(history_module, "TIMEOUT", 0.5)
    monkeypatch.setattr(history_module.util, "RETRY", 0)
    with pytest.raises(history_module.Failed, match=f"^cannot fetch {index.base}/files/slow.tar.gz: .*timed out"):
        history_module.fetch(f"{index.base}/files/slow.tar.gz")


def test_metadata_without_a_field_it_needs_fails_naming_the_index_and_the_field(three, tmp_path):
    del three.releases["1.1.0"][0]["digests"]
    result = release_history(three, tmp_path)
    assert result.returncode == 3 and not (tmp_path / "repo").exists()
    assert f"unexpected metadata from {three.url}/pkg/json: KeyError('digests')" in result.stderr


def test_a_history_is_made_by_default_in_the_history_folder_under_its_canonical_name_from_its_default_since(
    three, tmp_path, monkeypatch
):
    monkeypatch.setattr(history_module, "HISTORY_DIR", tmp_path / "histories")
    monkeypatch.setitem(history_module.DEFAULT_SINCE, "pkg", Version("1.1"))  # as equinox's is 0.10.11
    options = history_module.Options(package="PKG", index=three.url, cache=tmp_path / "cache")
    built = history_module.build(options)
    assert [str(release.version) for release, _ in built] == ["2.0.0", "1.1.0"]
    assert tags(tmp_path / "histories" / "pkg") == {release.tag: commit for release, commit in built}


def test_file_urls_relative_to_the_index_are_resolved(three, tmp_path):
    assert release_history(three, tmp_path, repo="absolute").returncode == 0
    # As some mirrors list them: relative to the metadata's URL, /pypi/pkg/json.
    for files in three.releases.values():
        for f in files:
            f["url"] = f"../../files/{f['filename']}"
    result = release_history(three, tmp_path, "--cache", str(tmp_path / "cache2"), repo="relative")
    assert result.returncode == 0, result.stderr
    assert three.requests["/files/pkg-1.0.0.tar.gz"] == 2
    assert commits(tmp_path / "relative") == commits(tmp_path / "absolute")


def test_sha256_mismatch_leaves_repository_and_cache_unchanged(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before, cached = snapshot(repo), cache_listing(tmp_path)
    wrong = "0" * 64
    filename = three.add("2.1.0", "2024-04-01T00:00:00Z", sha256=wrong)
    result = release_history(three, tmp_path)
    assert result.returncode == 2
    actual = hashlib.sha256(three.files[filename]).hexdigest()
    assert filename in result.stderr and wrong in result.stderr and actual in result.stderr
    assert snapshot(repo) == before
    assert "v2.1.0" not in tags(repo)
    assert cache_listing(tmp_path) == cached


def test_cached_file_with_wrong_digest_is_downloaded_again(three, tmp_path):
    assert release_history(three, tmp_path, repo="a").returncode == 0
    (tmp_path / "cache" / "pkg-1.1.0.tar.gz").write_bytes(b"corrupt")
    result = release_history(three, tmp_path, repo="b")
    assert result.returncode == 0, result.stderr
    assert three.requests["/files/pkg-1.1.0.tar.gz"] == 2
    assert three.file_requests() == 4
    cached = tmp_path / "cache" / "pkg-1.1.0.tar.gz"
    assert f"{cached} does not have the published sha256; downloading it again" in result.stderr
    assert f"downloading {three.base}/files/pkg-1.1.0.tar.gz" in result.stderr
    assert (tmp_path / "cache" / "pkg-1.1.0.tar.gz").read_bytes() == three.files["pkg-1.1.0.tar.gz"]
    assert commits(tmp_path / "a") == commits(tmp_path / "b")


def test_download_cut_off_halfway_leaves_repository_and_cache_unchanged(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before, cached = snapshot(repo), cache_listing(tmp_path)
    three.cut_off.add(three.add("2.1.0", "2024-04-01T00:00:00Z"))
    result = release_history(three, tmp_path)
    assert result.returncode == 3
    assert f"{three.base}/files/pkg-2.1.0.tar.gz" in result.stderr
    assert "cut off" in result.stderr
    assert snapshot(repo) == before
    assert cache_listing(tmp_path) == cached


def test_killed_during_download_leaves_nothing_half_made(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before, cached = snapshot(repo), cache_listing(tmp_path)
    filename = three.add("2.1.0", "2024-04-01T00:00:00Z")
    three.stalled.add(filename)
    process = subprocess.Popen(history_command(three, tmp_path), stderr=subprocess.DEVNULL)
    try:
        assert three.stalling.wait(60)
    finally:
        process.kill()
        process.wait()
    assert snapshot(repo) == before
    # At most a partial download under a temporary name.
    assert filename not in cache_listing(tmp_path)
    assert all(n in cached or (n.startswith(".") and n.endswith(".tmp")) for n in cache_listing(tmp_path))
    three.stalled.clear()
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(tags(repo)) == ["v1.0.0", "v1.1.0", "v2.0.0", "v2.1.0"]


def test_unknown_version_in_select_changes_nothing(three, tmp_path):
    assert release_history(three, tmp_path, "--until", "1.1.0").returncode == 0
    repo = tmp_path / "repo"
    before, downloads = snapshot(repo), three.file_requests()
    result = release_history(three, tmp_path, "--select", "1.0.0,9.9.9", "--print", "tags")
    assert result.returncode == 2
    assert "9.9.9" in result.stderr
    assert result.stdout == ""
    assert snapshot(repo) == before  # 2.0.0, newly in range, was not added
    assert three.file_requests() == downloads
    result = release_history(three, tmp_path, "--select", "9.9.9", repo="fresh")
    assert result.returncode == 2
    assert not (tmp_path / "fresh").exists()


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("broken", ["closed port", "HTTP 404"])
def test_index_that_fails_changes_nothing(three, tmp_path, broken):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before = snapshot(repo)
    if broken == "closed port":
        index_url = f"http://127.0.0.1:{closed_port()}/pypi"
    else:
        index_url = f"{three.base}/nothing-here"
    command = history_command(three, tmp_path)
    command[command.index("--index") + 1] = index_url
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 3
    assert f"{index_url}/pkg/json" in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(repo) == before


def test_recovers_from_interrupted_or_edited_state(three, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # run from a folder that is no repository
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    canonical, canonical_tags = commits(repo), tags(repo)
    # Killed between commit and tag: an untagged commit on main...
    (repo / "pyproject.toml").write_text("changed\n")
    git(repo, "commit", "-qam", "untagged")
    # ...plus a tag lost from a release commit, a tag of no release, and a dirty work tree.
    git(repo, "tag", "v9.0.0")
    git(repo, "tag", "-d", "v1.1.0")
    (repo / "pkg" / "__init__.py").write_text("edited\n")
    (repo / "untracked.txt").write_text("stray\n")
    (repo / "build").mkdir()
    (repo / ".git" / "info" / "exclude").write_text("build/\n")
    (repo / "build" / "ignored.o").write_text("stray\n")
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"removing 1 commit(s) of {repo} that are not releases it built" in result.stderr
    assert commits(repo) == canonical
    assert tags(repo) == canonical_tags
    assert git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all") == ""
    assert not (repo / "untracked.txt").exists()
    # A detached HEAD goes back to main.
    git(repo, "checkout", "-q", "v1.0.0")
    assert release_history(three, tmp_path).returncode == 0
    assert git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert git(repo, "rev-parse", "HEAD") == canonical[-1]
    # An ignored file alone is cleaned away too.
    (repo / "build").mkdir()
    (repo / "build" / "ignored.o").write_text("stray\n")
    assert release_history(three, tmp_path).returncode == 0
    assert not (repo / "build").exists()


@pytest.mark.parametrize("kind", ["foreign git repository", "non-empty folder"])
def test_refuses_a_repository_it_did_not_make(three, tmp_path, kind):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "precious.txt").write_text("keep me\n")
    if kind == "foreign git repository":
        git(repo, "init", "-q")
    result = release_history(three, tmp_path)
    assert result.returncode == 2
    said = {
        "foreign git repository": "is a git repository but not a release history of pkg (its "
        "releasehistory.package is unset)",
        "non-empty folder": "exists and is not a release history",
    }[kind]
    assert f"{repo} {said}; choose another --repo" in result.stderr
    assert (repo / "precious.txt").read_text() == "keep me\n"
    assert sorted(os.listdir(repo)) == sorted(["precious.txt"] + ([".git"] if kind != "non-empty folder" else []))


def test_an_empty_folder_is_taken_and_a_file_refused(three, tmp_path):
    (tmp_path / "empty").mkdir()
    assert release_history(three, tmp_path, repo="empty").returncode == 0
    assert release_history(three, tmp_path, repo="not/made/yet").returncode == 0
    assert commits(tmp_path / "empty") == commits(tmp_path / "not/made/yet") and len(commits(tmp_path / "empty")) == 3
    (tmp_path / "file").write_text("keep me\n")
    result = release_history(three, tmp_path, repo="file")
    assert result.returncode == 2
    assert f"{tmp_path / 'file'} exists and is not a release history; choose another --repo" in result.stderr
    assert (tmp_path / "file").read_text() == "keep me\n"


def test_a_history_stopped_before_its_first_commit_is_built_from_inside_another_repository(
    three, tmp_path, monkeypatch
):
    """A first run stopped after git init leaves a history with no main; the repository the command is run from
    has one, and is not the history's."""
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    for folder in (repo, elsewhere):
        folder.mkdir()
        git(folder, "init", "-q", "-b", "main")
    git(repo, "config", history_module.OWNER_KEY, "pkg")
    git(elsewhere, "commit", "-q", "--allow-empty", "-m", "elsewhere")
    monkeypatch.chdir(elsewhere)
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(commits(repo)) == 3


def test_a_history_whose_main_was_deleted_or_replaced_is_built_again_to_the_same_commits(three, tmp_path):
    assert release_history(three, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    canonical = commits(repo)
    git(repo, "update-ref", "-d", "refs/heads/main")  # its tags left
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert commits(repo) == canonical
    # main replaced by a commit made by hand, no release: it goes, and every release is built again
    git(repo, "update-ref", "refs/heads/main", git(repo, "commit-tree", "HEAD^{tree}", "-m", "by hand"))
    result = release_history(three, tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"removing 1 commit(s) of {repo} that are not releases it built" in result.stderr
    assert commits(repo) == canonical


def test_help_documents_every_option():
    result = subprocess.run([*tool("release-history"), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for option in [
        "--package",
        "--repo",
        "--index",
        "--cache",
        "--since",
        "--until",
        "--python",
        "--select",
        "--print",
        "--admits",
    ]:
        assert option in result.stdout


# requires_python of each release's sdist, in upload order (the key is absent for 1.0.0).
REQUIRES_PYTHON = {
    "1.0.0": None,
    "1.1.0": {"requires_python": None},
    "1.2.0": {"requires_python": ""},
    "1.3.0": {"requires_python": ">=3.9"},
    "1.4.0": {"requires_python": "<3.11"},
    "1.5.0": {"requires_python": ">3.11"},  # admits 3.11.1, not 3.11.0
    "1.6.0": {"requires_python": ">=3.11.2"},
    "1.7.0": {"requires_python": "<3.12"},
    "1.8.0": {"requires_python": "!=3.11.*"},
    "1.9.0": {"requires_python": ">=3.10,!=3.11.0,!=3.11.1,<3.11.3"},
    "2.0.0": {"requires_python": ">=3.12"},  # as jax 0.11 drops Python 3.11
    "2.1.0": {"requires_python": ">=3.12"},
}


@pytest.fixture
def pythons(index):
    for day, (version, requires_python) in enumerate(REQUIRES_PYTHON.items(), start=1):
        index.add(version, f"2024-01-{day:02}T00:00:00Z", **(requires_python or {}))
    # A wheel's requires_python is not the sdist's.
    index.add("1.7.0", "2024-01-08T00:00:00Z", packagetype="bdist_wheel", requires_python="<3")
    return index


@pytest.mark.parametrize(
    "python, expected",
    [
        (None, list(REQUIRES_PYTHON)),
        ("3.11", ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.5.0", "1.6.0", "1.7.0", "1.9.0"]),
        ("3.12", ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.5.0", "1.6.0", "1.8.0", "2.0.0", "2.1.0"]),
        ("3.10", ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.7.0", "1.8.0", "1.9.0"]),
    ],
)
def test_python_keeps_the_releases_that_support_it(pythons, tmp_path, python, expected):
    option = [] if python is None else ["--python", python]
    result = release_history(pythons, tmp_path, *option, "--print", "tags")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"v{v}" for v in expected]
    repo = tmp_path / "repo"
    assert sorted(tags(repo)) == sorted(f"v{v}" for v in expected)
    assert len(commits(repo)) == len(expected)
    assert "warning" not in result.stderr
    left_out = [v for v in REQUIRES_PYTHON if v not in expected]
    if left_out:
        assert f"--python {python} leaves out {len(left_out)} release(s): {' '.join(left_out)}" in result.stderr
    # Only the releases in the history are downloaded.
    assert pythons.file_requests() == len(expected)


def test_admits_filters_what_is_printed_and_leaves_the_history_whole(pythons, tmp_path):
    result = release_history(pythons, tmp_path, "--print", "tags", "--admits", "3.12")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "v1.0.0",
        "v1.1.0",
        "v1.2.0",
        "v1.3.0",
        "v1.5.0",
        "v1.6.0",
        "v1.8.0",
        "v2.0.0",
        "v2.1.0",
    ]
    whole = commits(tmp_path / "repo")
    assert len(whole) == len(REQUIRES_PYTHON)
    # It applies after --select: of the newest three, only 1.9.0 runs on 3.11.
    result = release_history(pythons, tmp_path, "--print", "hashes", "--select", "3", "--admits", "3.11")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [tags(tmp_path / "repo")["v1.9.0"]]
    assert commits(tmp_path / "repo") == whole


@pytest.mark.parametrize("requires_python", [">=3.6.*", "python 3", 3.11, ["<3"]])
def test_invalid_requires_python_is_kept_with_a_warning(index, tmp_path, requires_python):
    index.add("1.0.0", "2024-01-01T00:00:00Z", requires_python=">=3.12")
    index.add("1.1.0", "2024-01-02T00:00:00Z", requires_python=requires_python)
    result = release_history(index, tmp_path, "--python", "3.11", "--print", "tags")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["v1.1.0"]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "1.1.0" in warnings[0] and repr(requires_python) in warnings[0]
    assert ("(not a string)" in warnings[0]) is not isinstance(requires_python, str)
    # Without --python, requires_python is not read at all.
    result = release_history(index, tmp_path, "--print", "tags", repo="all")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["v1.0.0", "v1.1.0"]
    assert "warning" not in result.stderr


def test_python_that_no_release_supports_changes_nothing(pythons, tmp_path):
    assert release_history(pythons, tmp_path).returncode == 0
    repo = tmp_path / "repo"
    before, downloads = snapshot(repo), pythons.file_requests()
    result = release_history(pythons, tmp_path, "--python", "3.11", "--since", "2.0")
    assert result.returncode == 2
    bounds = "(--since 2.0, --until any, --python 3.11)"
    assert f"{pythons.url}/pkg/json lists no final release with an sdist {bounds}" in result.stderr
    assert snapshot(repo) == before
    assert pythons.file_requests() == downloads
    result = release_history(pythons, tmp_path, "--until", "0.1")
    assert (
        result.returncode == 2 and "lists no final release with an sdist (--since any, --until 0.1)\n" in result.stderr
    )


@pytest.mark.parametrize("python", ["3", "3.11.2", "three", "3.11+", ""])
def test_python_must_be_a_series(pythons, tmp_path, python):
    result = release_history(pythons, tmp_path, "--python", python)
    assert result.returncode == 2
    assert f"--python: {python!r} is not a Python version X.Y, such as 3.11" in result.stderr
    assert not (tmp_path / "repo").exists()
    assert pythons.requests["/pypi/pkg/json"] == 0


@pytest.mark.network
def test_real_equinox_history(tmp_path):
    try:
        with urllib.request.urlopen("https://pypi.org/pypi/equinox/json", timeout=15) as response:
            releases = json.load(response)["releases"]
        sdist = next(f for f in releases["0.13.8"] if f["packagetype"] == "sdist")
        urllib.request.urlopen(urllib.request.Request(sdist["url"], method="HEAD"), timeout=15).close()
    except OSError as e:
        pytest.skip(f"PyPI cannot be reached: {e}")
    result = subprocess.run(
        [
            *tool("release-history"),
            "--since",
            "0.13.7",
            "--until",
            "0.13.8",
            "--print",
            "hashes",
            "--repo",
            str(tmp_path / "repo"),
            "--cache",
            str(tmp_path / "cache"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    repo = tmp_path / "repo"
    assert sorted(tags(repo)) == ["v0.13.7", "v0.13.8"]
    assert "equinox/__init__.py" in git(repo, "ls-tree", "-r", "--name-only", "v0.13.8").splitlines()
    assert 'version = "0.13.8"' in git(repo, "show", "v0.13.8:pyproject.toml")
    # Pinned: a change here changes every commit hash, so every asv result's key.
    assert result.stdout.split() == [tags(repo)["v0.13.7"], tags(repo)["v0.13.8"]] == PINNED_HASHES


# The same hashes as extracting each sdist and running `git add -fA; git commit`
# with the script's identity, dates and message.
PINNED_HASHES = ["c8f14d90d85e4c24b291819163d24f8da3e2c5db", "224c86ed75668bc7d16366eb140da9d5b07729bf"]


# The pure functions.


def releases(*versions):
    return [history_module.Release(Version(v), f"p-{v}.tar.gz", "", "", None) for v in versions]


def test_select_releases():
    history = releases("0.12.0", "0.13.7", "0.13.8")
    assert history_module.select(history, None) == history
    assert [str(r.version) for r in history_module.select(history, "2")] == ["0.13.7", "0.13.8"]
    assert [str(r.version) for r in history_module.select(history, ">=0.13")] == ["0.13.7", "0.13.8"]
    assert [str(r.version) for r in history_module.select(history, "0.12.0,0.13.8")] == ["0.12.0", "0.13.8"]
    for bad, message in [
        ("0", "--releases 0 selects no release"),
        ("0.13.99,0.12.0,0.1", "--releases names versions that are not in the history: 0.1, 0.13.99 (the history has "),
        (">=9", "--releases '>=9' matches no release of the history ("),
        ("=<1", "--releases '=<1' is not a valid version specifier"),
        ("0.13,x", "--releases '0.13,x': Invalid version: 'x'"),
        ("X", "--releases 'X': Invalid version: 'X'"),
    ]:
        with pytest.raises(BadInput) as refused:
            history_module.select(history, bad, option="--releases")
        assert str(refused.value) in (message, f"{message}3 releases, 0.12.0 to 0.13.8)")
    with pytest.raises(BadInput, match="^--select "):
        history_module.select(history, "0")


def requiring(spec):
    uploaded = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    return history_module.Release(Version("1"), "pkg-1.tar.gz", "", "0" * 64, uploaded, requires_python=spec)


@pytest.mark.parametrize(
    "spec,admits",
    [
        (">=3.11", True),
        (">3.11", True),
        (">=3.11.2", True),
        ("<3.11", False),
        ("!=3.11.*", False),
        (">=3.12", False),
        ("<3.12,!=3.11.0", True),
        ("<3.11.1", True),  # X.Y.0 is always tried
        ("==3.11.2", True),  # the micro a clause names is tried
        (">3.11,<3.11.2", True),  # and the one after it
    ],
)
def test_supports_python(spec, admits):
    assert requiring(spec).admits((3, 11)) is admits


def test_requires_python_missing_or_invalid_admits():
    assert requiring(None).admits((3, 11))
    assert requiring("").admits((3, 11))
    assert requiring("not a spec").admits((3, 11))
    assert not requiring(">=3.12").admits((3, 11))


@pytest.mark.parametrize(("locked", "holder"), [("cache", "using the sdist cache"), ("repo", "building")])
def test_a_build_waits_for_the_sdist_cache_or_its_repository_saying_who_holds_it(three, tmp_path, locked, holder):
    cache_lock = lock.beside(tmp_path / locked)
    cache_lock.parent.mkdir(parents=True, exist_ok=True)
    results = []
    with open(cache_lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        build = threading.Thread(target=lambda: results.append(release_history(three, tmp_path)))
        build.start()
        for _ in range(600):  # until the build says it waits (the lock is held until then): sys.stderr is its
            if "waiting for" in getattr(sys.stderr, "getvalue", str)():
                break
            time.sleep(0.1)
        fcntl.flock(held, fcntl.LOCK_UN)
        build.join(timeout=120)
    assert results[0].returncode == 0, results[0].stderr
    assert f"waiting for another scripts/release-history {holder} {tmp_path / locked}\n" in results[0].stderr


def test_concurrent_builds_into_one_cache_wait_and_all_succeed(three, tmp_path):
    # Three builds of one repository from one sdist cache, started together: each waits for the one
    # before it (the lock on the repository, then the one on the cache), and all make the same history.
    # Three rounds, each into a new repository and cache: one round alone often missed the race.
    assert release_history(three, tmp_path, repo="alone").returncode == 0
    for round_ in range(3):
        where = tmp_path / f"round{round_}"
        where.mkdir()
        command = history_command(three, where)
        builds = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)
        ]
        for build in builds:
            _stdout, stderr = build.communicate(timeout=120)
            assert "Traceback" not in stderr
            assert build.returncode == 0, stderr
        repo = where / "repo"
        assert commits(repo) == commits(tmp_path / "alone")
        assert tags(repo) == tags(tmp_path / "alone")
        assert git(repo, "status", "--porcelain", "--ignored") == ""
        assert cache_listing(where) == sorted(f"pkg-{version}.tar.gz" for version in UPLOADS)


def tarball(path, *members):
    """A gzipped tar of MEMBERS, each (name, type, data or link target, mode), at PATH; names kept as bytes (GNU)."""
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as tar:
        for name, kind, data, mode in members:
            info = tarfile.TarInfo(name)
            info.type, info.mode = kind, mode
            if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = data
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_an_sdists_files_are_read_with_gits_modes_under_its_one_top_folder(tmp_path):
    sdist = tarball(
        tmp_path / "p-1.tar.gz",
        ("./p-1", tarfile.DIRTYPE, b"", 0o755),
        ("./p-1/a.py", tarfile.REGTYPE, b"a", 0o644),
        ("p-1/run", tarfile.REGTYPE, b"run", 0o744),
        ("p-1/group-only", tarfile.REGTYPE, b"g", 0o655),
        ("p-1/link", tarfile.SYMTYPE, "\udce9t\udce9", 0o777),
        ("p-1/hard", tarfile.LNKTYPE, "p-1/a.py", 0o644),
        ("p-1/after/a directory", tarfile.REGTYPE, b"last", 0o600),
    )
    assert list(history_module.sdist_files(sdist)) == [
        ("a.py", b"100644", b"a"),
        ("run", b"100755", b"run"),
        ("group-only", b"100644", b"g"),
        ("link", b"120000", b"\xe9t\xe9"),
        ("hard", b"100644", b"a"),
        ("after/a directory", b"100644", b"last"),
    ]


@pytest.mark.parametrize(
    ("member", "kind", "why"),
    [
        ("q-1/x", tarfile.REGTYPE, "is not a single top-level folder: it has q-1/x"),
        ("x", tarfile.REGTYPE, "is not a single top-level folder: it has x"),
        ("p-1/../x", tarfile.REGTYPE, "contains an unsafe path: p-1/../x"),
        ("p-1/./x", tarfile.REGTYPE, "contains an unsafe path: p-1/./x"),
        ("p-1/a//x", tarfile.REGTYPE, "contains an unsafe path: p-1/a//x"),
        ("p-1/.git/config", tarfile.REGTYPE, "contains an unsafe path: p-1/.git/config"),
        ("p-1/fifo", tarfile.FIFOTYPE, "contains p-1/fifo, neither a file nor a link"),
    ],
)
def test_an_sdist_with_a_member_out_of_its_folder_or_no_file_is_refused_naming_it(tmp_path, member, kind, why):
    sdist = tarball(tmp_path / "p-1.tar.gz", ("p-1/a.py", tarfile.REGTYPE, b"a", 0o644), (member, kind, b"", 0o644))
    with pytest.raises(BadInput, match=f"^p-1.tar.gz {re.escape(why)}$"):
        list(history_module.sdist_files(sdist))


def test_a_file_that_is_no_tar_is_refused_naming_it(tmp_path):
    (tmp_path / "p-1.tar.gz").write_bytes(b"no tar")
    with pytest.raises(BadInput, match=f"^cannot read {re.escape(str(tmp_path / 'p-1.tar.gz'))}: "):
        list(history_module.sdist_files(tmp_path / "p-1.tar.gz"))


def test_a_file_whose_name_needs_quoting_is_committed_under_its_own_name(three, tmp_path):
    odd = ['say "hi".txt', "back\\slash.txt", "new\nline.txt", "\u00e9t\u00e9.txt", "latin-1 \udce9t\udce9.txt"]
    raw = [name.encode("utf-8", "surrogateescape") for name in odd]  # the last no UTF-8: its bytes are its name
    sdist = tarball(tmp_path / "odd.tar.gz", *[(f"pkg-2.1.0/{name}", tarfile.REGTYPE, b"", 0o644) for name in odd])
    three.files[three.add("2.1.0", "2024-04-01T00:00:00Z")] = sdist.read_bytes()
    three.releases["2.1.0"][0]["digests"]["sha256"] = hashlib.sha256(sdist.read_bytes()).hexdigest()
    assert release_history(three, tmp_path).returncode == 0
    listed = subprocess.run(
        ["git", "-C", str(tmp_path / "repo"), "ls-tree", "-z", "--name-only", "v2.1.0"], capture_output=True, check=True
    ).stdout
    assert sorted(listed.split(b"\0")[:-1]) == sorted(raw)


@pytest.mark.parametrize("filename", ["../pkg-2.1.0.tar.gz", ".pkg-2.1.0.tar.gz"])
def test_a_suspicious_file_name_from_the_index_is_refused_and_nothing_is_made(three, tmp_path, filename):
    three.add("2.1.0", "2024-04-01T00:00:00Z")
    three.releases["2.1.0"][0]["filename"] = filename
    result = release_history(three, tmp_path)
    assert result.returncode == 2 and not (tmp_path / "repo").exists()
    assert f"the index gives a suspicious file name: {filename!r}" in result.stderr


def test_the_history_is_every_final_sdist_within_the_bounds_by_upload_and_the_pythons_left_out_in_order():
    def sdist(name, uploaded, **more):
        return {"filename": name, "packagetype": "sdist", "url": f"files/{name}", "upload_time_iso_8601": uploaded,
                "digests": {"sha256": name}, **more}  # fmt: skip

    metadata = {
        "releases": {
            "legacy": [sdist("p-legacy.tar.gz", "2024-01-01T00:00:00")],  # first: the versions after it are read too
            "0.9": [sdist("p-0.9.tar.gz", "2024-01-01T00:00:00")],  # below --since
            "1.0": [sdist("p-1.0.zip", "2024-01-02T00:00:00"), sdist("p-1.0.tar.gz", "2024-01-02T00:00:00")],
            "1.1": [sdist("p-1.1.tar.gz", "2024-01-01T00:00:00+00:00", requires_python=">=3.12")],
            "1.2": [sdist("p-1.2.tar.gz", "2024-01-05T00:00:00Z"), sdist("p-1.2.zip", "2024-01-04T00:00:00Z")],
            "1.3": [sdist("p-1.3.tar.gz", "2024-01-06T00:00:00", yanked=True)],
            "1.4": [{**sdist("p-1.4-py3-none-any.whl", "2024-01-06T00:00:00"), "packagetype": "bdist_wheel"}],
            "1.5rc1": [sdist("p-1.5rc1.tar.gz", "2024-01-07T00:00:00")],
            "1.0.5": [sdist("p-1.0.5.tar.gz", "2024-01-08T00:00:00", requires_python="<3")],
            "2.0": [sdist("p-2.0.tar.gz", "2024-01-02T01:00:00+02:00")],  # an hour before 1.0's, in UTC
            "2.1": [sdist("p-2.1.tar.gz", "2024-01-09T00:00:00")],  # above --until
        }
    }
    since, until = Version("1.0"), Version("2.0")
    history, left_out = history_module.release_history(metadata, since, until, (3, 11), base="https://i.example/p/json")
    assert [(str(r.version), r.filename, r.url, r.uploaded.isoformat()) for r in history] == [
        ("2.0", "p-2.0.tar.gz", "https://i.example/p/files/p-2.0.tar.gz", "2024-01-02T01:00:00+02:00"),
        ("1.0", "p-1.0.tar.gz", "https://i.example/p/files/p-1.0.tar.gz", "2024-01-02T00:00:00+00:00"),
        ("1.2", "p-1.2.zip", "https://i.example/p/files/p-1.2.zip", "2024-01-04T00:00:00+00:00"),
    ]
    assert [r.sha256 for r in history] == ["p-2.0.tar.gz", "p-1.0.tar.gz", "p-1.2.zip"]
    assert left_out == [Version("1.0.5"), Version("1.1")]
    every, none_left_out = history_module.release_history(metadata, None, None, base="https://i.example/p/json")
    assert [str(r.version) for r in every] == [
        "0.9",
        "1.1",
        "2.0",
        "1.0",
        "1.2",
        "1.0.5",
        "2.1",
    ] and none_left_out == []
    assert every[1].requires_python == ">=3.12" and every[0].requires_python is None
    assert history_module.describe(every) == "7 releases, 0.9 to 2.1"


def test_a_selection_that_names_no_release_is_refused_naming_the_option_it_came_by(three, tmp_path):
    """scripts/bench and scripts/commits select releases by their own --releases: the refusal names it."""
    options = history_module.Options(
        package="pkg", index=three.url, repo=tmp_path / "repo", cache=tmp_path / "cache", select="9.9.9"
    )
    options.select_option = "--releases"
    with pytest.raises(BadInput, match="^--releases names versions that are not in the history: 9.9.9 "):
        history_module.build(options)
