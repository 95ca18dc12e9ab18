"""scripts/setup's Python 3.13 (docs/python313.md).

scripts/setup's 3.13 step is tested on a copy of the script in a scratch
project, with fake apt-get, dpkg and interpreters on PATH, so that nothing is
built or installed; the real build is timed in docs/python313.md.  The asv
environments it feeds are tested in tests/test_environments.py.
"""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

SETUP = ROOT / "scripts" / "setup"
PY313_VERSION = "3.13.5"
SKIP_LINE = "scripts/setup: Python 3.13 environments skipped: "


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


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


def fake_python313(path: Path) -> Path:
    """A stand-in that answers every `python3.13 -c ...` with success, as a working 3.13 does."""
    return executable(path, "#!/bin/sh\nexit 0\n")


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
