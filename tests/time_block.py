"""``scripts/test --time-block FILE``: a passing run writes what it took into FILE's ``test-time`` block, or,
for a lane chosen by its ``-m`` alone (the fast lane's ``"not slow"``, the history lane's ``history``), its own block.

The README's first screen gives the time of its two commands here, each written by the command
itself: ``scripts/bench --docs README.md`` for the first, this option for the second. The block says
what was selected (the whole suite, or the ``-m`` expression), how many tests passed and were
skipped, pytest's wall time (``scripts/setup`` and ``scripts/lint`` run before it), and the load
before and after. A run that fails or was interrupted writes nothing: its time is not the suite's.
"""

import os
import time
from pathlib import Path

import pytest

from benchtools.errors import BadInput
from benchtools.publishing import generated

BLOCK = "test-time"
SUITE = "not history"  # scripts/test's own -m: every test but the history lane's
LANES = {"not slow": "fast-lane-time", "history": "history-time"}  # each lane's -m and its block (docs/cost.md)
OUTCOMES = ("passed", "skipped")  # the terminal reporter's stats that are reports of a test's setup or call
STARTED = pytest.StashKey[tuple]()  # pytest's start, and the load then


def pytest_addoption(parser):
    parser.addoption(
        "--time-block",
        metavar="FILE",
        help=f"write what a passing run took into FILE's {BLOCK} block (README.md's first screen), or a lane's "
        f"(-m {' or -m '.join(map(repr, LANES))}) into its own block (docs/cost.md)",
    )


def block(config) -> str:
    """The block this run's time goes in: a lane's, or the suite's."""
    chosen_only_by_mark = config.args_source != pytest.Config.ArgsSource.ARGS and not config.option.keyword
    return LANES.get(config.option.markexpr, BLOCK) if chosen_only_by_mark else BLOCK


def pytest_configure(config):
    page = config.getoption("--time-block")
    if page:
        try:
            generated.write_blocks(Path(page), {block(config): ""}, write=False)
        except BadInput as error:
            raise pytest.UsageError(f"--time-block: {error}") from None
        config.stash[STARTED] = (time.monotonic(), os.getloadavg()[0])


def took_markdown(
    selected: str, passed: int, skipped: int, seconds: float, loads: tuple[float, float], workers: int
) -> str:
    return (
        f"`scripts/test` ({selected}) took {seconds / 60:.1f} min of pytest here: {passed} passed, {skipped} "
        f"skipped, {workers or 'no'} pytest-xdist worker(s); scripts/setup and scripts/lint run before it. Load "
        f"average before and after: {loads[0]:.2f} and {loads[1]:.2f}, on {os.cpu_count()} cores."
    )


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    config = session.config
    page = config.getoption("--time-block")
    if not page or exitstatus != pytest.ExitCode.OK or hasattr(config, "workerinput"):  # a worker: its part only
        return
    started, load_before = config.stash[STARTED]
    stats = config.pluginmanager.get_plugin("terminalreporter").stats
    count = {outcome: len([r for r in stats.get(outcome, []) if r.when in ("call", "setup")]) for outcome in OUTCOMES}
    chosen = [f'-m "{config.option.markexpr}"' * (config.option.markexpr not in ("", SUITE))]
    chosen.append(f'-k "{config.option.keyword}"' * bool(config.option.keyword))
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        chosen += config.args
    every = "every test" if config.option.markexpr != SUITE else "every test but the history lane's, -m history"
    selected = " ".join(part for part in chosen if part) or every
    text = took_markdown(
        selected,
        count["passed"],
        count["skipped"],
        time.monotonic() - started,
        (load_before, os.getloadavg()[0]),
        config.getoption("numprocesses", None) or 0,
    )
    generated.write_blocks(Path(page), {block(config): text})
