"""scripts/timing-load: the answer's pairs timed quiet and beside busy loops, each batch's readings, and the page
written from its record (docs/timing-load.md)."""

import shutil

import pytest

from benchmarks import params
from benchtools.publishing import generated
from benchtools.trial import load
from tests.helpers import ROOT, command

# tree_at's wall, CPU and switches, then the tuple's: an untouched pair, one whose thread lost 10% of a batch, one
# switched out once
UNTOUCHED_PAIR = [10.0, 9.8, 0, 1.0, 1.0, 0]
LOST_TIME = [12.0, 10.8, 0, 1.0, 1.0, 0]
SWITCHED = [10.0, 10.0, 1, 1.0, 0.99, 0]


def test_a_pair_is_untouched_only_where_neither_batch_lost_time_or_was_switched_out():
    assert load.untouched(UNTOUCHED_PAIR)
    assert not load.untouched(LOST_TIME) and not load.untouched(SWITCHED)
    assert not load.untouched(UNTOUCHED_PAIR[3:] + LOST_TIME[:3])  # either side


def test_each_reading_of_a_process_s_pairs():
    read = load.readings([UNTOUCHED_PAIR, LOST_TIME, SWITCHED])
    assert read["wall"] == 10.0 and read["cpu"] == pytest.approx(10 / 0.99) and read["untouched"] == 10.0
    assert read["kept"] == pytest.approx(1 / 3)
    assert read["taken"] == pytest.approx(1 - (9.8 + 1 + 10.8 + 1 + 10 + 0.99) / (10 + 1 + 12 + 1 + 10 + 1))
    assert load.readings([LOST_TIME])["untouched"] is None and load.median_of([None, 2.0, None, 4.0]) == 3.0


def test_a_batch_makes_its_calls_and_counts_its_switches():
    calls = []
    wall, cpu, switched = load.timed_batch(lambda: calls.append(1), 7)
    assert len(calls) == 7 and wall > 0 and cpu >= 0 and isinstance(switched, int) and switched >= 0


def test_the_busy_loops_spin_until_the_block_ends():
    with load.busy(2, seconds=60) as spinning:
        assert [process.poll() for process in spinning] == [None, None]
    assert all(process.returncode is not None for process in spinning)


def test_a_record_that_is_not_there_is_bad_input(tmp_path):
    ran = command("timing-load", "--from-record", "--record", str(tmp_path / "none.json"))
    assert ran.returncode == 2 and "none.json: no such file" in ran.stderr


def test_the_page_is_what_the_record_makes(tmp_path):
    page = tmp_path / "timing-load.md"
    shutil.copy(ROOT / "docs" / "timing-load.md", page)
    generated.write_blocks(page, {load.BLOCK: load.table(load.read(load.RECORD))})
    assert page.read_text() == (ROOT / "docs" / "timing-load.md").read_text(), "REGEN: scripts/timing-load --docs"


def test_the_answer_s_threshold_lies_between_the_quiet_and_the_busy_shares_of_the_record():
    """docs/timing-load.md's claim: params.BUSY tells each quiet process's share taken from each busy one's."""
    runs = load.read(load.RECORD)["runs"]
    taken = {
        condition: [load.readings(rows)["taken"] for processes in run["steps"].values() for rows in processes]
        for condition, run in runs.items()
    }
    assert max(taken["quiet"]) < params.BUSY < min(taken["busy"])
