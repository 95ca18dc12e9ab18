"""tests/time_block.py: a passing run writes its time into the block; a failing one, or a file without it, does not."""

import os
import subprocess
import sys

from tests.helpers import ROOT

README = "# r\n\n<!-- test-time:start -->\nold\n<!-- test-time:end -->\n\nafter\n"
TESTS = """
import pytest

def test_one(): pass
def test_two(): pass
@pytest.mark.skip(reason="x")
def test_skipped(): pass
def test_failing_when_asked():
    import os
    assert not os.environ.get("FAIL")
"""


def run(tmp_path, *args, fail=False):
    (tmp_path / "test_tiny.py").write_text(TESTS)
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'scripts'}", "FAIL": "1" if fail else ""}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.time_block", "-q", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )


def test_a_passing_run_writes_what_it_took_and_what_was_selected(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README)
    result = run(tmp_path, "--time-block", "README.md", "-k", "not failing")
    assert result.returncode == 0, result.stdout
    text = readme.read_text()
    assert "old" not in text and text.endswith("<!-- test-time:end -->\n\nafter\n")
    assert '`scripts/test` (-k "not failing") took ' in text
    assert "2 passed, 1 skipped" in text and "Load average before and after" in text


def test_a_failing_run_leaves_the_block_as_it_was(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README)
    result = run(tmp_path, "--time-block", "README.md", fail=True)
    assert result.returncode == 1
    assert readme.read_text() == README


def test_a_file_without_the_block_is_a_usage_error_before_any_test_runs(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no block\n")
    result = run(tmp_path, "--time-block", "README.md")
    assert result.returncode == 4
    assert "--time-block" in result.stderr and "README.md has no block to write" in result.stderr
    assert "passed" not in result.stdout
    assert readme.read_text() == "# no block\n"


def test_the_fast_lane_writes_its_own_block_and_needs_it(tmp_path):
    page = tmp_path / "cost.md"
    page.write_text(README)
    refused = run(tmp_path, "--time-block", "cost.md", "-m", "not slow")
    assert refused.returncode == 4 and "cost.md has no block to write" in refused.stderr
    fast_block = "<!-- fast-lane-time:start -->\nold\n<!-- fast-lane-time:end -->\n"
    page.write_text(README + fast_block)
    result = run(tmp_path, "--time-block", "cost.md", "-m", "not slow")
    assert result.returncode == 0, result.stdout
    suite, fast = page.read_text().split("<!-- test-time:end -->")
    assert "old" in suite and "old" not in fast and '`scripts/test` (-m "not slow") took ' in fast
    # Chosen by more than the mark (-k here): the suite's block, which names the choice.
    result = run(tmp_path, "--time-block", "cost.md", "-m", "not slow", "-k", "not failing")
    assert result.returncode == 0, result.stdout
    assert '(-m "not slow" -k "not failing")' in page.read_text().split("<!-- test-time:end -->")[0]


def test_the_history_lane_writes_its_own_block_and_the_suite_says_that_it_left_that_lane_out(tmp_path):
    (tmp_path / "test_replayed.py").write_text("import pytest\n\n@pytest.mark.history\ndef test_replayed(): pass\n")
    page = tmp_path / "cost.md"
    page.write_text(README + "<!-- history-time:start -->\nold\n<!-- history-time:end -->\n")
    result = run(tmp_path, "--time-block", "cost.md", "-m", "history")
    assert result.returncode == 0, result.stdout
    suite, history = page.read_text().split("<!-- test-time:end -->")
    assert "old" in suite and '`scripts/test` (-m "history") took ' in history and "1 passed, 0 skipped" in history
    result = run(tmp_path, "--time-block", "cost.md", "-m", "not history")  # scripts/test's own choice
    assert result.returncode == 0, result.stdout
    suite, history = page.read_text().split("<!-- test-time:end -->")
    assert "`scripts/test` (every test but the history lane's, -m history) took " in suite
    assert "3 passed, 1 skipped" in suite and '(-m "history")' in history
