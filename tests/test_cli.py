"""benchtools/cli.py: the runner's one exit code per outcome, and every command typed in a plain shell."""

import importlib
import json
import os
import pkgutil
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchtools import cli, commands, project
from benchtools.errors import BadInput, Error, ExitCode, Failed
from tests.helpers import SCRIPTS, command

COMMANDS = sorted(p.name for p in SCRIPTS.iterdir() if p.is_file() and os.access(p, os.X_OK))
PYTHON_COMMANDS = [name for name in COMMANDS if (SCRIPTS / name).read_text().startswith("#!/usr/bin/env python3")]


def test_every_python_command_runs_its_commands_module_and_every_module_has_a_command():
    modules = {module.name for module in pkgutil.iter_modules(commands.__path__)} - {"common_args"}
    assert {name.replace("-", "_") for name in PYTHON_COMMANDS} == modules
    for name in PYTHON_COMMANDS:
        module = importlib.import_module(f"benchtools.commands.{name.replace('-', '_')}")
        assert callable(module.main), name
    assert {"setup", "test"} < set(COMMANDS)


def plain_environment() -> dict:
    """A shell's environment outside .venv: the machine's python3 first on PATH, no VIRTUAL_ENV."""
    path = os.pathsep.join(
        p
        for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
        if not Path(p).resolve().is_relative_to(project.VENV.resolve())
    )
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    return dict(env, PATH=path)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_answers_help_from_a_plain_shell(name, tmp_path):
    env = plain_environment()
    python3 = shutil.which("python3", path=env["PATH"])
    if python3 is None:
        pytest.skip("no python3 on this machine's PATH")
    assert not Path(python3).resolve().is_relative_to(project.VENV.resolve())
    # Typed as docs/index.md types it, from another folder.
    result = subprocess.run(
        [str(SCRIPTS / name), "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith(f"usage: scripts/{name}"), result.stdout[:300]
    assert "Traceback" not in result.stderr


# The runner: one exit code per outcome.


def run(command, capsys):
    code = cli.run(command, [], "scripts/demo")
    return code, capsys.readouterr()


def test_the_commands_page_lists_every_command():
    from tests.helpers import ROOT

    page = (ROOT / "docs" / "commands.md").read_text()
    listed = set(re.findall(r"^\| `scripts/([a-z-]+)` \|", page, re.MULTILINE))
    assert listed == set(COMMANDS) - {"actionlint"}  # the linter of the workflows, run by scripts/lint


def test_success_exits_0(capsys):
    assert run(lambda argv: ExitCode.OK, capsys)[0] == 0
    assert run(lambda argv: None, capsys)[0] == 0


def test_a_finding_exits_1(capsys):
    code, out = run(lambda argv: ExitCode.FOUND, capsys)
    assert code == 1 and out.err == ""


def test_bad_input_exits_2_with_one_line(capsys):
    def command(argv):
        raise BadInput("--releases 0.13.99: no such release")

    code, out = run(command, capsys)
    assert code == 2
    assert out.err == "scripts/demo: --releases 0.13.99: no such release\n"


def test_a_failed_operation_exits_3_with_one_line(capsys):
    def command(argv):
        raise Failed("git fetch failed: no route to host")

    code, out = run(command, capsys)
    assert code == 3 and out.err.splitlines() == ["scripts/demo: git fetch failed: no route to host"]


@pytest.mark.parametrize("line_break", ["\n", "\r\n", "\u2028", "\x0b", "\x85"])
def test_an_error_that_quotes_a_line_break_still_prints_one_line(capsys, line_break):
    """A message that quotes a corrupt file's bytes (found by tests/test_properties.py) stays one line."""

    def command(argv):
        raise BadInput(f"asv configuration is corrupt: x.json (Unexpected {line_break!s} at column 1)")

    code, out = run(command, capsys)
    assert code == 2 and len(out.err.splitlines()) == 1 and out.err.startswith("scripts/demo: asv configuration")


def test_an_error_can_carry_a_documented_code(capsys):
    def command(argv):
        raise Error("gh issue list failed", ExitCode.FOUND)

    assert run(command, capsys)[0] == 1


def test_an_unexpected_exception_exits_4_with_its_traceback_never_1(capsys):
    def command(argv):
        return {}["missing"]

    code, out = run(command, capsys)
    assert code == 4
    assert "Traceback (most recent call last)" in out.err and "KeyError: 'missing'" in out.err


def test_a_crash_in_a_real_command_exits_4(tmp_path, monkeypatch):
    # An unexpected exception where the gate reads its run record (valid JSON of the wrong shape is bad
    # input now, exit 2, so the crash is injected: json.loads raises what no code expects).
    (tmp_path / ".asv").mkdir()
    (tmp_path / ".asv" / "last-run.json").write_text("{}")

    def boom(*args, **kwargs):
        raise RuntimeError("injected")

    monkeypatch.setattr(json, "loads", boom)
    result = command("regressions", "--output", tmp_path)
    monkeypatch.undo()
    assert result.returncode == 4, result.stderr
    assert "Traceback" in result.stderr and "RuntimeError: injected" in result.stderr


def test_valid_json_of_the_wrong_shape_is_bad_input_not_a_crash(tmp_path):
    (tmp_path / ".asv").mkdir()
    (tmp_path / ".asv" / "last-run.json").write_text("[]")
    result = command("regressions", "--output", tmp_path)
    assert result.returncode == 2, result.stderr
    assert "last-run.json" in result.stderr and "Traceback" not in result.stderr


def test_argparse_usage_errors_exit_2():
    result = command("shard", "--shards", "0", "--index", "0")
    assert result.returncode == 2 and "usage:" in result.stderr
