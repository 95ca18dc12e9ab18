"""The README's first screen starts a newcomer: the question, the answer, the two commands and their time here."""

import re

from tests.helpers import ROOT

FIRST_SCREEN = 60  # lines: what a terminal or GitHub's page shows before any scrolling to speak of


def test_the_first_screen_asks_answers_and_gives_the_two_commands_with_their_time():
    lines = (ROOT / "README.md").read_text().splitlines()
    screen = "\n".join(lines[:FIRST_SCREEN])
    assert "Does `eqx.tree_at`" in screen
    assert "## The answer, in short" in screen
    commands = re.search(r"```sh\n(.*?)```", screen, re.S)
    assert commands, "the two commands, in a shell block"
    assert [line.split()[0] for line in commands[1].splitlines()] == ["scripts/bench", "scripts/test"]
    for block in ("bench-time", "test-time"):  # written by the runs themselves (scripts/bench --docs, --time-block)
        assert f"<!-- {block}:start -->" in screen and f"<!-- {block}:end -->" in screen, block
    assert "## The headline" not in screen.split("<!-- test-time:end -->")[0]
