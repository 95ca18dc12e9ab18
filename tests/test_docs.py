"""The README's first screen starts a newcomer: the question, the answer on the device it ran on, the commands
and their time here; the maintainers' exact and steady figures after it, under their own heading."""

import re

from tests.helpers import ROOT

FIRST_SCREEN = 66  # lines: what a terminal or GitHub's page shows before any scrolling to speak of (two answer tables)


def test_the_first_screen_asks_answers_on_a_device_and_gives_the_commands_with_their_time():
    text = (ROOT / "README.md").read_text()
    screen = "\n".join(text.splitlines()[:FIRST_SCREEN])
    order = [
        "Does `eqx.tree_at`",
        "## The answer, on the device it ran on",
        "<!-- here-answer:start -->",  # written by scripts/bench --here --docs README.md
        "## Start here",
    ]
    assert [screen.find(part) for part in order] == sorted(screen.find(part) for part in order)
    assert all(part in screen for part in order)
    commands = re.search(r"```sh\n(.*?)```", screen, re.S)
    assert commands, "the commands, in a shell block"
    assert [line.split()[:2] for line in commands[1].splitlines()] == [
        ["scripts/bench", "--here"],
        ["scripts/bench", "#"],
        ["scripts/test", "#"],
        ["scripts/test", "-m"],  # the history lane: .ci/run runs both test commands as typed here
    ]
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("scripts/")]
    assert ci == [line.split("#")[0].strip() for line in commands[1].splitlines() if line.startswith("scripts/test")]
    for block in ("here-time", "bench-time", "test-time"):  # written by the runs themselves
        assert f"<!-- {block}:start -->" in screen and f"<!-- {block}:end -->" in screen, block
    maintainers = text.index("## For the maintainers: the exact and steady figures")
    assert text.index("<!-- test-time:end -->") < maintainers < text.index("<!-- overhead-summary:start -->")
    assert len(text.splitlines()) <= 200
