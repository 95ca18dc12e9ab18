"""A JAX or Equinox commit's instruction counts: a bisection's probe. A commit costs seconds, not a virtualenv: a kept
one per (interpreter, jaxlib), and a folder per (jax, Equinox) of their wheels. What a count depends on keys its file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from benchmarks import callgrind

from .. import git, util
from ..asvtools import shapes
from ..errors import BadInput, Failed
from . import release_history

JAX_PROJECT, EQUINOX_PROJECT = "jax", "equinox"
EQUINOX_DEPENDENCIES = ("jaxtyping", "typing_extensions", "wadler_lindig")
BUILDER_PACKAGES = ("setuptools", "wheel", "hatchling")
JAXLIB_TRIES = 3  # releases tried for a commit whose first admitted jaxlib does not import
RELEASE_TAG = {JAX_PROJECT: re.compile(r"^jax-v(\d+(?:\.\d+)+)$"), EQUINOX_PROJECT: re.compile(r"^v(\d+(?:\.\d+)+)$")}
PULL_REQUEST = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)")
UPSTREAM = {JAX_PROJECT: "https://github.com/jax-ml/jax", EQUINOX_PROJECT: "https://github.com/patrick-kidger/equinox"}
IMPORT_CHECK = "import jax, equinox; jax.block_until_ready(jax.jit(lambda x: x + 1)(1.0))"
IMPORT_SECONDS = 600  # an import that hangs this long is that jaxlib's failure, and the next is tried
PYPI_JSON = "https://pypi.org/pypi/{}/json"
# Two builds of one version (two 3.11.7s) count apart.
IDENTITY = (
    "import hashlib, json, sys; print(json.dumps({'series': '%d.%d' % sys.version_info[:2], 'version': sys.version,"
    " 'build': hashlib.sha256(open(sys.executable, 'rb').read()).hexdigest()}))"
)


class NotImported(Exception):
    """The next jaxlib is tried."""


@dataclass(frozen=True)
class Source:
    project: str
    commit: str | None = None
    repo: Path | None = None
    version: str | None = None

    @property
    def key(self) -> str:
        """What its files are named by: a commit built as a release is another build than by its hash."""
        return self.version if self.commit is None else self.commit + ("-release" if self.version else "")

    @property
    def label(self) -> str:
        return self.version if self.version else self.commit[:10]


def pull_request(subject: str) -> str | None:
    found = PULL_REQUEST.search(subject)
    return next((number for number in found.groups() if number), None) if found else None


def commit_source(project: str, repo: Path, revision: str) -> Source:
    tag = RELEASE_TAG[project].match(revision)
    return Source(project, git.commit(repo, revision), repo, tag.group(1) if tag else None)


def jaxlib_candidates(jax: Source, releases: list[str]) -> list[str]:
    """The jaxlibs to try, from the later of ``_minimum_jaxlib_version`` and the newest release the commit contains."""
    if jax.commit is None or (jax.version and jax.version not in releases):
        raise BadInput(f"jax {jax.version} is no jaxlib release; name a jax release that has one")
    text = git.out("show", f"{jax.commit}:jax/version.py", repo=jax.repo)
    if not (found := re.search(r"""^_minimum_jaxlib_version\s*=\s*['"]([^'"]+)['"]""", text, re.MULTILINE)):
        raise Failed(f"jax/version.py at {jax.commit[:10]} names no _minimum_jaxlib_version")
    contained = git.out("tag", "--merged", jax.commit, "--list", "jax-v*", repo=jax.repo).split()
    released = [tagged.group(1) for tag in contained if (tagged := RELEASE_TAG[JAX_PROJECT].match(tag))]
    floor = max([found.group(1), *released], key=Version)
    return [release for release in releases if Version(release) >= Version(floor)][: 1 if jax.version else JAXLIB_TRIES]


@dataclass
class Probes:
    cache: Path
    python: str
    names: tuple[str, ...]  # counted in one process (a count depends a little on the others)
    jaxlib_releases: list[str] = field(default_factory=list)  # asked of PyPI when empty

    def __post_init__(self):
        self.cache = Path(self.cache).resolve()
        self.cache.mkdir(parents=True, exist_ok=True)
        self.made = 0  # records made, not read back
        try:
            self.interpreter = json.loads(util.run([self.python, "-c", IDENTITY], capture_output=True).stdout)
        except (OSError, ValueError):
            raise BadInput(f"--python {self.python}: no Python interpreter runs by that name here") from None
        self.series = self.interpreter["series"]
        built = hashlib.sha256(json.dumps(self.interpreter, sort_keys=True).encode()).hexdigest()[:12]
        self.interpreter_key = f"py{self.series}-{built}"

    def path_folder(self, equinox: str) -> Path:
        recipe = hashlib.sha256("\n".join(sorted(self.names)).encode()).hexdigest()[:12]
        return self.cache / "probes" / self.interpreter_key / f"equinox-{equinox}" / recipe

    def path(self, jax: Source, equinox: Source, run: int = 0, jaxlib: str | None = None) -> Path:
        """A jaxlib given (a split) is named first, so that no glob of the rule's probes (``jax-*``) takes it."""
        given = f"jaxlib-{jaxlib}-" if jaxlib else ""
        return self.path_folder(equinox.key) / f"{given}jax-{jax.key}-{run}.json"

    def probe(self, jax: Source, equinox: Source, run: int = 0, jaxlib: str | None = None) -> dict:
        """Kept, a failure included, and read back; ``jaxlib`` replaces the rule's choice (a step across a change)."""
        if (path := self.path(jax, equinox, run, jaxlib)).is_file():
            kept = shapes.read_json(path, "kept probe record (remove it to probe again)")
            if "jaxlib" not in kept or kept.get("locked") == self.locked(kept["jaxlib"]):
                return kept  # one counted in a base since made again is counted again
        started, load = time.monotonic(), os.getloadavg()[0]
        record = {"jax": jax.key, "equinox": equinox.key, "python": self.series, "interpreter": self.interpreter}
        record.update(run=run, release=bool(jax.version), jaxlib_given=jaxlib, **self.count(jax, equinox, run, jaxlib))
        if "jaxlib" in record:
            record["locked"] = self.locked(record["jaxlib"])
        record.update(seconds=round(time.monotonic() - started, 1), load=[load, os.getloadavg()[0]])
        util.write_json(path, record, sort_keys=True)
        self.made += 1
        return record

    def count(self, jax: Source, equinox: Source, run: int, jaxlib: str | None) -> dict:
        self.builder()
        for source in (jax, equinox):
            if source.commit is None:  # a download that fails is this run's failure (Failed), never the commit's
                self.wheel(source)
        try:
            target = self.target(jax, equinox)
        except Failed as error:
            return {"failed": f"build: {error}", "tried": {}}
        if jaxlib:
            candidates = [jaxlib]
        elif run:
            first = self.probe(jax, equinox)
            candidates = [first["jaxlib"]] if "jaxlib" in first else []
        else:
            candidates = jaxlib_candidates(jax, self.releases())
        tried = {}
        for jaxlib in candidates:
            try:
                return {"jaxlib": jaxlib, "tried": tried, **self.measure(target, jaxlib)}
            except (NotImported, subprocess.TimeoutExpired) as error:
                tried[jaxlib] = " ".join(str(error).split())[-500:]
            except RuntimeError as error:
                said = str(error)
                return {"failed": f"count with jaxlib {jaxlib}: {said[:200]} … {said[-1800:]}", "tried": tried}
        why = "no jaxlib release admits it" if not candidates else "it imports with none of the jaxlibs tried"
        return {"failed": f"import: {why}", "tried": tried}

    def measure(self, target: Path, jaxlib: str) -> dict:
        python = self.base(jaxlib)  # a base that cannot be made is this machine's failure, not the commit's
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(target), "JAX_PLATFORMS": "cpu"}
        try:
            _checked([python, "-c", IMPORT_CHECK], env=env, timeout=IMPORT_SECONDS)
        except Failed as error:
            raise NotImported(str(error)) from None
        try:
            return {"counts": callgrind.count(list(self.names), python=python, path=[str(target)])}
        except callgrind.Unavailable as error:
            raise Failed(f"cannot count instructions here: {error}") from None
        except callgrind.Killed as error:  # the run was stopped, not the commit: nothing is recorded
            raise Failed(f"counting {target.name} with jaxlib {jaxlib}: {error}") from None
        except callgrind.CrashedAfterCounting as error:  # every window counted; kept, with how it ended
            return {"counts": error.counts, "crashed_after_counting": f"{str(error)[:200]} … {str(error)[-1500:]}"}

    def releases(self) -> list[str]:
        if not self.jaxlib_releases:
            tag = f"cp{self.series.replace('.', '')}"
            found = []
            for version, wheels in self.pypi_releases("jaxlib").items():
                with contextlib.suppress(InvalidVersion):  # a legacy version is no release to pair with
                    if not Version(version).is_prerelease and any(tag in w and "manylinux" in w for w in wheels):
                        found.append(version)
            self.jaxlib_releases = sorted(found, key=Version)
        return self.jaxlib_releases

    def pypi_releases(self, package: str) -> dict[str, list[str]]:
        if not (kept := self.cache / f"{package}-releases.json").is_file():
            releases = release_history.fetch(PYPI_JSON.format(package), as_json=True)["releases"]
            names = {version: [file["filename"] for file in files] for version, files in releases.items()}
            util.write_atomic(kept, json.dumps(names).encode())
        return json.loads(kept.read_text())

    def placed(self, folder: Path, make) -> Path:
        """FOLDER, made by MAKE where missing: it appears only complete."""
        if not folder.is_dir():
            with tempfile.TemporaryDirectory(dir=self.cache, prefix=f".{folder.name}.") as work:
                make(Path(work) / folder.name)
                folder.parent.mkdir(parents=True, exist_ok=True)
                try:
                    (Path(work) / folder.name).rename(folder)
                except OSError:  # another process may have placed an equal one there first
                    if not folder.is_dir():
                        raise
        return folder

    def venv(self, folder: Path, packages: list[list[str]], then: list[list[str]] = ()) -> str:
        def make(made: Path):
            _checked([self.python, "-m", "venv", made])
            pip = [str(made / "bin" / "python"), "-m", "pip", "-q", "--disable-pip-version-check"]
            for arguments in [["install", *arguments] for arguments in packages] + list(then):
                _checked([*pip, *arguments])
            (made / "locked.txt").write_text(_checked([*pip, "freeze", "--all"]).stdout)

        return str(self.placed(folder, make) / "bin" / "python")

    def locked(self, jaxlib: str) -> list[str]:
        """The base's packages, as pip froze them when it was made."""
        return (Path(self.base(jaxlib)).parents[1] / "locked.txt").read_text().split()

    def builder(self) -> str:
        return self.venv(self.cache / "envs" / f"builder-{self.interpreter_key}", [["-U", "pip", *BUILDER_PACKAGES]])

    def base(self, jaxlib: str) -> str:
        jax_release = [f"jax=={jaxlib}"] if jaxlib in self.pypi_releases(JAX_PROJECT) else []
        return self.venv(
            self.cache / "envs" / f"{self.interpreter_key}-jaxlib-{jaxlib}",
            [[f"jaxlib=={jaxlib}", *jax_release, *EQUINOX_DEPENDENCIES]],
            then=[["uninstall", "-y", "jax"]] if jax_release else [],
        )

    def target(self, jax: Source, equinox: Source) -> Path:
        def make(made: Path):
            wheels = [self.wheel(source) for source in (jax, equinox)]
            _checked([self.builder(), "-m", "pip", "-q", "install", "--no-deps", "--target", made, *wheels])

        return self.placed(self.cache / "targets" / self.interpreter_key / f"jax-{jax.key}-equinox-{equinox.key}", make)

    def wheel(self, source: Source) -> Path:
        def make(made: Path):
            if source.commit is None:
                get = ["download", "--no-deps", "--only-binary=:all:", f"{source.project}=={source.version}"]
                _checked([self.builder(), "-m", "pip", "-q", *get, "-d", made])
                return
            work = made.parent
            tree = work / source.project  # setup.py names what it builds after its folder
            tree.mkdir()
            git.run("archive", f"--output={work / 'source.tar'}", source.commit, repo=source.repo)
            # Our own git archive, so no extraction filter: Debian 12's Python 3.11.2 has no filter argument.
            shutil.unpack_archive(work / "source.tar", tree)
            build = ["wheel", "--no-deps", "--no-build-isolation", "-w", made, tree]
            # No git above the tree (the suite's own) may lend jax's version its hash; a release is its version.
            env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(work)}
            if source.version:
                env.update(JAX_RELEASE="1")
            _checked([self.builder(), "-m", "pip", "-q", *build], env=env)

        [built] = self.placed(self.cache / "wheels" / source.project / source.key, make).glob("*.whl")
        return built


def _checked(cmd, **kwargs) -> subprocess.CompletedProcess:
    if (done := util.run(cmd, capture_output=True, text=True, errors="replace", **kwargs)).returncode != 0:
        said = " ".join((done.stderr or done.stdout).split()[-80:])
        raise Failed(f"{Path(str(cmd[0])).name} {' '.join(map(str, cmd[1:3]))} exited {done.returncode}: {said}")
    return done
