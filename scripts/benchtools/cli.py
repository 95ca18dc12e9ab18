"""The one door of every command, as asv's ``asv/main.py``: a table of the commands, and one runner."""

import argparse
import copy
import functools
import importlib
import sys
import textwrap
import traceback
from collections.abc import Callable
from pathlib import Path

from . import settings
from .errors import Error, ExitCode
from .project import ROOT

COMMANDS = {
    "bench": "histories.md",
    "release-history": "histories.md#releases",
    "overhead-report": "here.md",
    "regressions": "gate.md",
    "check-pr": "pull-requests.md",
    "instruction-spread": "instructions.md",
    "instruction-history": "instructions.md#on-the-commit-level-history",
    "codspeed-check": "adopt.md",
    "bisect": "bisections.md",
    "fit-cost": "cost-metric.md#refitting-the-weight",
    "detector-trial": "detector.md",
    "timing-noise": "timing-noise.md",
    "timing-load": "timing-load.md",
    "nightly": "automation.md#the-nightly",
    "commits": "automation.md#the-backfill",
    "shard": "automation.md#the-backfill",
    "merge-results": "automation.md#the-results-branch",
    "push-results": "automation.md#the-results-branch",
    "open-regression-issue": "automation.md#the-alarms-life",
    "replay": "replay.md",
    "mutants": "mutants.md",
}

EXIT_CODES = textwrap.fill(
    "exit codes, the same for every command (docs/exit-codes.md): 0 success; 1 the finding "
    "documented above; 2 bad input, named in one line; 3 an operation failed (a command run, the "
    "network); 4 a crash, with its traceback",
    79,
)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """A default inside the project is shown relative to it, the same on every clone."""

    def _expand_help(self, action):
        if isinstance(action.default, Path) and action.default.is_relative_to(ROOT):
            action = copy.copy(action)
            action.default = action.default.relative_to(ROOT)
        return super()._expand_help(action)


def module(name: str):
    return importlib.import_module(f"benchtools.commands.{name.replace('-', '_')}")


def parser(name: str, config: settings.Configuration, width: int | None = None) -> argparse.ArgumentParser:
    command = module(name)
    made = argparse.ArgumentParser(
        prog=f"scripts/{name}",
        description=command.__doc__.format_map(config.facts()),
        epilog=f"More: docs/{COMMANDS[name]}\n\n{EXIT_CODES}",
        formatter_class=functools.partial(HelpFormatter, width=width),
    )
    command.add_arguments(made, config)
    return made


def guard(prog: str, work: Callable[[], int | None]) -> int:
    try:
        return int(work() or 0)
    except Error as error:
        # One line whatever the message quotes (a file's bytes can hold any line break).
        print(f"{prog}: {' '.join(str(error).split())}", file=sys.stderr, flush=True)
        return int(error.code)
    except Exception:  # noqa: BLE001 - anything else is a crash, never a finding
        traceback.print_exc()
        print(f"{prog}: crashed (exit {int(ExitCode.CRASHED)}); the traceback is above", file=sys.stderr)
        return int(ExitCode.CRASHED)


def parse(name: str, argv: list[str], config: settings.Configuration | None = None) -> argparse.Namespace:
    """Command NAME's arguments, ``argv`` among them, checked together where its module has a ``check``."""
    made = parser(name, config or settings.load())
    args = made.parse_args(argv, argparse.Namespace(argv=list(argv)))
    if hasattr(command := module(name), "check"):
        command.check(made, args)
    return args


def run(name: str, argv: list[str]) -> int:
    # settings.load is cached: parse and the command read the one configuration.
    return guard(f"scripts/{name}", lambda: module(name).run(parse(name, argv), settings.load()))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: benchtools NAME [ARGS], NAME one of: {', '.join(COMMANDS)}", file=sys.stderr)
        sys.exit(0 if argv[:1] in (["-h"], ["--help"]) else int(ExitCode.BAD_INPUT))
    sys.stdout.flush()
    sys.exit(run(argv[0], argv[1:]))


def reference(config: settings.Configuration) -> str:
    """docs/commands.md's generated block: a table of the commands, then each one's --help, as 100 columns show it."""
    parsers = {name: parser(name, config, width=100) for name in COMMANDS}
    rows = [
        f"| [`scripts/{name}`](#scripts{name}) | {parsers[name].description.splitlines()[0]} "
        f"| [{page.split('#')[0].removesuffix('.md')}]({page}) |"
        for name, page in COMMANDS.items()
    ]
    helps = [f"### scripts/{name}\n\n```text\n{made.format_help().rstrip()}\n```" for name, made in parsers.items()]
    return "\n".join(["| command | what it does | page |", "|---|---|---|", *rows, "", *helps])
