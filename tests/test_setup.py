"""scripts/setup's Python 3.13 (docs/python313.md).

scripts/setup's 3.13 step is tested on a copy of the script in a scratch
project, with fake apt-get, dpkg and interpreters on PATH, so that nothing is
built or installed; the real build is timed in docs/python313.md.  The asv
environments it feeds are tested in tests/test_environments.py.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import PY313_VERSION, ROOT, executable, fake_python313

SETUP = ROOT / "scripts" / "setup"
SKIP_LINE = "scripts/setup: Python 3.13 environments skipped: "


@pytest.fixture
def project(tmp_path):
    """A scratch project with a copy of scripts/setup, a cache folder and fake apt tools first on PATH."""
    root = tmp_path / "project"
    shutil.copy(SETUP, executable(root / "scripts" / "setup", ""))
    fake_bin = tmp_path / "bin"
    calls = tmp_path / "calls"
    # Every apt tool records its call and fails, as on a machine cut off from Debian.
    for tool in ("apt-get", "apt-cache"):
        executable(fake_bin / tool, f'#!/bin/sh\necho "{tool} $*" >> {calls}\necho "E: cannot reach" >&2\nexit 100\n')
    executable(fake_bin / "dpkg", "#!/bin/sh\nexit 0\n")  # every build dependency is installed
    sources = tmp_path / "debian.sources"
    sources.write_text("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n")
    env = {k: v for k, v in os.environ.items() if k not in ("EQXB_PYTHON313", "EQXB_CACHE")}
    env.update(
        PATH=f"{fake_bin}{os.pathsep}{env['PATH']}",
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        EQXB_APT_SOURCES=str(sources),
    )

    class Project:
        pass

    p = Project()
    p.root, p.env, p.calls, p.sources = root, env, calls, sources
    p.cache = tmp_path / "cache" / "equinox-benchmarks"
    p.prefix = p.cache / f"cpython-{PY313_VERSION}"
    p.link = root / ".asv" / "python" / "bin" / "python3.13"
    p.skipped = root / ".asv" / "python" / "skipped-3.13"
    p.apt_calls = lambda: calls.read_text().splitlines() if calls.exists() else []

    def run(*args, **env):
        return subprocess.run(
            [str(root / "scripts" / "setup"), "--python313", *args],
            capture_output=True,
            text=True,
            env={**p.env, **env},
            timeout=60,
        )

    p.run = run
    return p


def skip_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(SKIP_LINE)]


def test_a_failing_build_skips_the_313_environments_in_one_line_and_exits_0(project):
    result = project.run()
    assert result.returncode == 0, result.stderr
    lines = skip_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert "apt-get update from http://deb.debian.org/debian trixie failed" in lines[0]
    assert "--retry" in lines[0]
    assert not project.link.exists()
    assert project.skipped.read_text().startswith("apt-get update")
    # The system's apt configuration is not used: its own source list and lists folder.
    (update,) = project.apt_calls()
    assert "Dir::Etc::sourceparts=-" in update and "Dir::State::Lists=" in update and "update" in update


def test_a_remembered_failure_skips_at_once_and_retry_tries_again(project):
    project.run()
    assert len(project.apt_calls()) == 1
    again = project.run()
    assert again.returncode == 0 and len(skip_lines(again.stderr)) == 1
    assert len(project.apt_calls()) == 1, "a remembered failure must not try apt again"
    retried = project.run("--retry")
    assert retried.returncode == 0 and len(skip_lines(retried.stderr)) == 1
    assert len(project.apt_calls()) == 2


def test_no_debian_mirror_is_a_clear_reason(project):
    result = project.run(EQXB_APT_SOURCES=str(project.sources.parent / "missing.sources"))
    assert result.returncode == 0
    (line,) = skip_lines(result.stderr)
    assert "no Debian mirror" in line
    assert project.apt_calls() == []


def test_a_finished_build_is_linked_without_building_again(project):
    fake_python313(project.prefix / "bin" / "python3.13")
    # Without the stamp a build is attempted (and fails here)...
    assert skip_lines(project.run().stderr)
    assert not project.link.exists()
    # ...with it, the build is done: linked at once, the skip forgotten.
    (project.prefix / ".built").write_text("2026-01-01T00:00:00Z\n")
    result = project.run("--retry")
    assert result.returncode == 0 and skip_lines(result.stderr) == [], result.stderr
    assert project.link.resolve() == (project.prefix / "bin" / "python3.13").resolve()
    assert not project.skipped.exists()
    assert len(project.apt_calls()) == 1


def test_eqxb_python313_overrides_the_build(project, tmp_path):
    other = fake_python313(tmp_path / "elsewhere" / "python3.13")
    result = project.run(EQXB_PYTHON313=str(other))
    assert result.returncode == 0 and skip_lines(result.stderr) == [], result.stderr
    assert project.link.resolve() == other.resolve()
    assert project.apt_calls() == []
    # An interpreter that is not 3.13 is refused, visibly, and unlinked.
    not_313 = project.run(EQXB_PYTHON313=sys.executable)
    (line,) = skip_lines(not_313.stderr)
    assert "is not a working Python 3.13" in line
    assert not project.link.exists()


def test_setup_help_lists_the_313_options():
    result = subprocess.run([str(SETUP), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for option in ("--python313", "--retry"):
        assert option in result.stdout


def unwritable_cache(how: str, tmp_path: Path) -> dict:
    """The environment changes that leave scripts/setup no writable cache (root ignores permission bits)."""
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    return {
        "under a file": {"XDG_CACHE_HOME": "/dev/null/x"},
        "a file where the folder goes": {"XDG_CACHE_HOME": str(a_file)},
        "HOME unwritable": {"XDG_CACHE_HOME": None, "HOME": "/dev/null"},
        "neither HOME nor XDG_CACHE_HOME": {"XDG_CACHE_HOME": None, "HOME": None},
    }[how]


def with_changes(env: dict, changes: dict) -> dict:
    env = {**env, **{k: v for k, v in changes.items() if v is not None}}
    return {k: v for k, v in env.items() if changes.get(k, "") is not None}


UNWRITABLE = ["under a file", "a file where the folder goes", "HOME unwritable", "neither HOME nor XDG_CACHE_HOME"]


@pytest.mark.parametrize("how", UNWRITABLE)
def test_an_unwritable_cache_skips_the_313_environments_in_one_line(project, tmp_path, how):
    project.env = with_changes(project.env, unwritable_cache(how, tmp_path))
    result = project.run()
    assert result.returncode == 0, result.stderr
    (line,) = skip_lines(result.stderr)
    assert "XDG_CACHE_HOME" in line, line
    assert "Traceback" not in result.stderr and "mkdir" not in result.stderr, result.stderr
    assert project.skipped.read_text().strip() in line
    assert not project.link.exists()
    assert project.apt_calls() == []


def fake_tools(root: Path, tmp_path: Path, lock: str) -> Path:
    """A scratch project's lock files, and .venv's python and uv and npm as fakes that record their arguments in
    the file returned."""
    (root / "requirements.lock").write_text(lock)
    (root / "package-lock.json").write_text("{}\n")
    (root / "pyproject.toml").write_text("[project]\n")
    calls = tmp_path / "tool-calls"
    for tool in (root / ".venv" / "bin" / "python", root / ".venv" / "bin" / "uv", tmp_path / "bin" / "npm"):
        executable(tool, f'#!/bin/sh\necho "{tool.name} $*" >> {calls}\n')
    return calls


@pytest.mark.parametrize("how", UNWRITABLE)
def test_the_whole_setup_succeeds_without_a_writable_cache(project, tmp_path, how):
    # .venv's python and uv, and npm, are fakes that record their arguments: setup exits 0, with the one
    # skip line, and uv and npm are each given a cache they can write.
    root = project.root
    calls = fake_tools(root, tmp_path, "uv==0.1 \\\n    --hash=sha256:00\nsix==1 \\\n    --hash=sha256:11\n")
    env = with_changes(project.env, {"PYTHON": sys.executable, **unwritable_cache(how, tmp_path)})
    result = subprocess.run([str(root / "scripts" / "setup")], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert len(skip_lines(result.stderr)) == 1, result.stderr
    pip, uv, project, npm = calls.read_text().splitlines()
    # This Python's pip (--python) runs in .venv's python: .venv has no pip of its own until the lock's.
    assert pip.startswith("python ") and " install " in pip and pip.endswith(f"-r {root}/.venv/uv.requirements.lock")
    assert (root / ".venv" / "uv.requirements.lock").read_text() == "uv==0.1 \\\n    --hash=sha256:00\n"
    assert uv.startswith("uv pip install") and uv.endswith(f"-r {root}/requirements.lock")
    assert project.startswith("uv pip install") and project.endswith(f"-e {root}")
    assert npm.startswith("npm ci ")
    if how != "under a file" and how != "a file where the folder goes":
        assert f"--cache {root}/.cache/npm" in npm
    assert f"--cache-dir {root}/.cache/uv" in uv and f"--cache-dir {root}/.cache/uv" in project


def test_a_python_without_pip_gets_pip_into_the_venv_from_ensurepip(project, tmp_path):
    """Debian's python3.11 without python3-pip: .venv gets pip from ensurepip, and that pip installs the lock's uv."""
    root = project.root
    calls = fake_tools(root, tmp_path, "uv==0.1 \\\n    --hash=sha256:00\n")
    pipless = executable(tmp_path / "python3.11", '#!/bin/sh\ncase "$*" in *"-m pip"*) exit 1 ;; esac\nexit 0\n')
    env = {**project.env, "PYTHON": str(pipless), "EQXB_PYTHON313": "/nonexistent"}
    result = subprocess.run([str(root / "scripts" / "setup")], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    ensurepip, pip = calls.read_text().splitlines()[:2]
    assert ensurepip == "python -m ensurepip --default-pip"
    assert pip.startswith("python -m pip install") and pip.endswith(f"-r {root}/.venv/uv.requirements.lock")


LOCK = ROOT / "requirements.lock"


def pyproject_pins() -> dict[str, str]:
    """{normalized name: version} of every pin in pyproject.toml's bootstrap and dev groups, includes followed."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]

    def flatten(group):
        for entry in groups[group]:
            yield from flatten(entry["include-group"]) if isinstance(entry, dict) else [entry]

    pins = {}
    for text in [*flatten("bootstrap"), *flatten("dev")]:
        requirement = Requirement(text)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"pyproject.toml: {text} is not pinned exactly"
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def lock_pins() -> dict[str, tuple[str, int]]:
    """{normalized name: (version, number of hashes)} of requirements.lock."""
    from packaging.utils import canonicalize_name

    pins = {}
    for entry in re.split(r"\n(?=\S)", LOCK.read_text()):
        lines = [line.split("#")[0].strip(" \\") for line in entry.splitlines()]
        head = lines[0]
        if not head:
            continue
        name, version = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+?)(?:\s*;.*)?", head).groups()
        hashes = sum(1 for line in lines[1:] if re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", line))
        pins[canonicalize_name(name)] = (version, hashes)
    return pins


def test_the_lock_pins_exactly_pyprojects_versions_each_with_hashes():
    """requirements.lock is generated from pyproject.toml (the command: CONTRIBUTING.md); run it again when
    this fails."""
    locked = lock_pins()
    wrong = {name: (version, locked.get(name, ("missing",))[0]) for name, version in pyproject_pins().items()}
    assert {name: pair for name, pair in wrong.items() if pair[0] != pair[1]} == {}, "pyproject vs lock"
    assert all(hashes for _version, hashes in locked.values()), "every locked package has its hashes"


def test_setup_installs_only_from_the_lock_with_hashes_and_then_the_project():
    text = SETUP.read_text()
    commands = [line.strip() for line in text.splitlines() if not line.lstrip().startswith("#")]
    installs = [line for line in commands if line.startswith('"') and " install " in line]
    # The project itself, from this checkout: nothing from a registry, no build isolation to fetch a backend.
    assert installs.pop().endswith('--no-deps --no-build-isolation ${cache[@]+"${cache[@]}"} -e "$root"'), installs
    assert len(installs) == 2 and all("--require-hashes" in line for line in installs), installs
    assert '-r "$uv_lock"' in installs[0] and '-r "$root/requirements.lock"' in installs[1], installs
    # pip installs uv alone, its block cut from the lock with its hashes; uv then installs the whole lock.
    [cut] = re.findall(r"awk '([^']+)' \"\$root/requirements.lock\" > \"\$uv_lock\"", text)
    block = subprocess.run(["awk", cut, LOCK], capture_output=True, text=True, check=True).stdout
    assert re.match(r"uv==[\d.]+ \\\n", block) and block.count("--hash=sha256:") >= 2, block
    assert not block.rstrip().endswith("\\"), block


def test_when_stale_does_nothing_once_every_step_is_current(project, tmp_path):
    """What each scripts/NAME door runs first: silent once .venv, node_modules and the 3.13 step are current, the
    whole setup when one of them is not (a fresh clone: all of them)."""
    root = project.root
    calls = fake_tools(root, tmp_path, "uv==0.1 \\\n    --hash=sha256:00\n")
    env = {**project.env, "PYTHON": sys.executable, "EQXB_PYTHON313": "/nonexistent"}

    def door():
        return subprocess.run(
            [str(root / "scripts" / "setup"), "--when-stale"], capture_output=True, text=True, env=env
        )

    first = door()
    assert first.returncode == 0 and len(calls.read_text().splitlines()) == 4, first.stderr
    again = door()
    assert again.returncode == 0 and again.stderr == "" and len(calls.read_text().splitlines()) == 4
    (root / "pyproject.toml").write_text("[project]\nname = 'changed'\n")
    assert door().returncode == 0 and len(calls.read_text().splitlines()) == 7  # .venv again: pip, uv, the project
