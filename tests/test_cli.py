"""benchtools/cli.py: one door, its command table, its generated reference, and one exit code per outcome."""

import json
import os
import pkgutil
import subprocess
from pathlib import Path

import pytest

from benchtools import cli, commands, project, settings
from benchtools.errors import BadInput, Error, ExitCode, Failed
from tests.helpers import ROOT, SCRIPTS, command

DOORS = sorted(p.name for p in SCRIPTS.iterdir() if p.is_symlink())
COMMANDS_PAGE = ROOT / "docs" / "commands.md"


def test_every_command_of_the_table_has_its_module_and_its_link_to_the_door():
    modules = {module.name for module in pkgutil.iter_modules(commands.__path__)} - {"common_args"}
    assert {name.replace("-", "_") for name in cli.COMMANDS} == modules
    assert DOORS == sorted(cli.COMMANDS)
    assert all((SCRIPTS / name).readlink() == Path("door") for name in DOORS)
    assert {"setup", "test", "lint"} < {p.name for p in SCRIPTS.iterdir()}


def plain_environment() -> dict:
    """A shell's environment outside .venv: the machine's python3 first on PATH, no VIRTUAL_ENV."""
    path = os.pathsep.join(
        p
        for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
        if not Path(p).resolve().is_relative_to(project.VENV.resolve())
    )
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    return dict(env, PATH=path)


@pytest.mark.parametrize("name", [*cli.COMMANDS, "setup", "test", "lint", "actionlint"])
def test_every_command_answers_help_from_a_plain_shell(name, tmp_path):
    # Typed as docs/index.md types it, from another folder: the door runs the installed command.
    result = subprocess.run(
        [str(SCRIPTS / name), "--help"], cwd=tmp_path, env=plain_environment(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith(f"usage: scripts/{name}"), result.stdout[:300]
    assert "Traceback" not in result.stderr


def test_the_installed_command_and_python_m_are_the_same_door():
    for door in (
        [str(project.VENV / "bin" / "benchtools")],
        [str(project.VENV / "bin" / "python"), "-m", "benchtools"],
    ):
        ran = subprocess.run([*door, "shard", "--help"], capture_output=True, text=True)
        assert ran.returncode == 0 and ran.stdout.startswith("usage: scripts/shard"), ran.stderr
        unknown = subprocess.run([*door, "no-such-command"], capture_output=True, text=True)
        assert unknown.returncode == 2 and "bench" in unknown.stderr


def test_outside_the_venv_the_door_runs_python3_on_path_with_the_tools_on_pythonpath(tmp_path):
    """BENCHTOOLS_OUTSIDE_VENV=1: no scripts/setup, and the python3 of PATH (a machine's own, docs/here.md)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "record"
    (bin_dir / "python3").write_text(f'#!/bin/sh\necho "$PYTHONPATH $*" > {record}\n')
    (bin_dir / "python3").chmod(0o755)
    env = {**plain_environment(), "BENCHTOOLS_OUTSIDE_VENV": "1", "PYTHONPATH": "/tmp/site"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    ran = subprocess.run([str(SCRIPTS / "bench"), "--here", "python3"], env=env, capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stderr == "", ran.stderr
    assert record.read_text().split() == [
        f"/tmp/site:{SCRIPTS}:{ROOT}",
        "-m",
        "benchtools",
        "bench",
        "--here",
        "python3",
    ]


def test_the_commands_page_is_written_from_the_parsers():
    """docs/commands.md's reference is each parser's --help; REGEN_GOLDEN=1 writes it again (CONTRIBUTING.md)."""
    from benchtools.publishing import generated

    text = cli.reference(settings.load())
    page = COMMANDS_PAGE.read_text()
    if os.environ.get("REGEN_GOLDEN"):
        generated.write_blocks(COMMANDS_PAGE, {"commands": text})
        page = COMMANDS_PAGE.read_text()
    start, end = generated.markers("commands")
    assert page[page.index(start) + len(start) : page.index(end)].strip() == text.strip()
    assert str(ROOT) not in text
    for name in cli.COMMANDS:
        assert f"usage: scripts/{name}" in text and f"| [`scripts/{name}`](#scripts{name}) |" in text


def test_help_names_the_configurations_versions_never_typed_ones():
    config = settings.load()
    bench_help = cli.parser("bench", config).format_help()
    assert f"held at {config.reference_equinox}" in bench_help and f"Python {config.newest_python} is" in bench_help
    changed = settings.Configuration(**{**vars(config), "reference_equinox": "9.9.9", "newest_python": "3.99"})
    bench_help = cli.parser("bench", changed).format_help()
    assert "held at 9.9.9" in bench_help and "Python 3.99 is" in bench_help
    assert "9.9.9" in cli.parser("detector-trial", changed).format_help()


# The runner: one exit code per outcome.


def run(command, capsys):
    code = cli.guard("scripts/demo", lambda: command([]))
    return code, capsys.readouterr()


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
