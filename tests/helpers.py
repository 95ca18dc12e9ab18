"""What the tests share: the project's paths, running a command (in-process or as its executable), and git."""

import contextlib
import importlib
import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from benchtools import cli

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
# Upstream Equinox's real history (main and its tags), beside the project where the workplace keeps it.
BUNDLE = ROOT.parent / "shared" / "upstream" / "equinox.bundle"


def git(repo, *args, env=None) -> str:
    """``git -C repo ARGS``'s output, stripped; a failure raises."""
    return subprocess.run(
        ["git", "-C", str(repo), *map(str, args)], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def script(name: str, *args, **kwargs) -> subprocess.CompletedProcess:
    """scripts/NAME ARGS run as an executable with this Python (.venv's), output captured as text.

    For what needs a separate process: the executable itself, locks between runs, a killed run, an
    environment the command reads at start.  Everything else calls ``command``.
    """
    return subprocess.run(
        [sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True, **kwargs
    )


@dataclass
class Ran:
    """What a command run in-process did: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def command(name: str, *args) -> Ran:
    """scripts/NAME ARGS run in this process, as the executable runs it: ``cli.run`` on
    ``benchtools.commands.NAME.main``, its exit code as docs/exit-codes.md gives it, an argparse
    exit (usage error, --help) included; what it prints to sys.stdout and sys.stderr captured."""
    module = importlib.import_module(f"benchtools.commands.{name.replace('-', '_')}")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.run(module.main, [str(arg) for arg in args], f"scripts/{name}")
        except SystemExit as exit_:  # argparse's usage errors and --help, as the executable exits
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    return Ran(code, out.getvalue(), err.getvalue())


def track_result(values: list):
    """asv's result of a track benchmark that gave ``values``, one per parameter combination."""
    from asv import runner

    count = len(values)
    return runner.BenchmarkResult(
        result=values, samples=[None] * count, number=[None] * count, errcode=0, stderr="", profile=None
    )


def markdown_rows(text: str) -> dict[str, list[str]]:
    """The rows of the Markdown tables in ``text``, by their first cell: each row's cells, stripped."""
    found = {}
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            found[cells[0]] = cells
    return found


def numbers(cell: str) -> list[float]:
    """The figures of a table cell, "1,069 (16×)" as [1069.0, 16.0]."""
    import re

    return [float(found.replace(",", "")) for found in re.findall(r"[-+]?\d[\d,]*\.?\d*", cell)]
