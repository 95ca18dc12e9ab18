"""publishing/blocks.py: each generated block of README.md and docs/here.md, whole, against its golden file
(tests/golden.py), from fixed rows; and which blocks a document gets."""

import pytest

from benchtools import settings
from benchtools.publishing import blocks, operation_markdown
from benchtools.publishing.rows import history, investigate
from tests.golden import assert_golden, fixed_rows


@pytest.fixture
def report():
    """The fixed rows, their history's steps and every operation's steps, as scripts/overhead-report has them."""
    rows = fixed_rows()
    by_operation = investigate(rows, None)
    return rows, history(rows, by_operation), by_operation


def test_each_block_matches_its_golden_file(report):
    rows, found, by_operation = report
    assert [step.after.label for steps in found.values() for step in steps] == ["v0.13.8", "v0.13.8"]
    assert_golden(f"{blocks.SUMMARY_BLOCK}.md", blocks.summary_markdown(rows))
    assert_golden(f"{blocks.HISTORY_BLOCK}.md", blocks.operations_history_markdown(rows, by_operation))
    assert_golden(
        f"{blocks.HISTORY_SUMMARY_BLOCK}.md",
        operation_markdown.summary_markdown(by_operation, settings.load().project_url),
    )
    assert_golden("answer.md", blocks.answer_markdown(rows))


def test_a_document_gets_each_block_it_holds_and_keeps_the_rest(report, tmp_path):
    rows, found, by_operation = report
    names = [blocks.SUMMARY_BLOCK, blocks.HISTORY_BLOCK, blocks.HISTORY_SUMMARY_BLOCK]
    document = tmp_path / "doc.md"
    document.write_text("# Doc\n\n" + "".join(f"<!-- {name}:start -->\n<!-- {name}:end -->\n\n" for name in names))
    assert sorted(blocks.update_markdown(document, rows, by_operation, None)) == sorted(names)
    text = document.read_text()
    assert text.startswith("# Doc\n\n")
    summary = text.split(f"<!-- {blocks.SUMMARY_BLOCK}:start -->")[1].split(f"<!-- {blocks.SUMMARY_BLOCK}:end -->")[0]
    assert summary.strip() == blocks.summary_markdown(rows)
    # The newest commit is no release: the README's summary stays the newest release's, for another folder.
    for row in rows:
        row.release = False
    assert blocks.SUMMARY_BLOCK not in blocks.update_markdown(document, rows, by_operation, None)
