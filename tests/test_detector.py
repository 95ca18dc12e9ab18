"""benchtools/trial/detector.py: the regression gate catches an injected tree_at slowdown, and stays quiet on
identical code.

scripts/detector-trial builds a real history (Equinox 0.13.8, an A/A copy, and
a copy whose tree_at makes 20,000 extra Python calls, several times the cost
of a call) and runs the real suite over it in an asv virtualenv.

Only the deterministic metrics are held to silence on the A/A copy: a quick
run takes one timing sample, and on a shared machine one sample of a
microsecond benchmark can move by more than any threshold (CI saw an A/A
time flagged at +100%).  The injected slowdown is several times the +100%
ratio threshold, so the ratio metric must see it.  False-alarm rates at the
thresholds the nightly uses are measured, not tested (see docs/detector.md).
"""

import subprocess
import sys

import pytest

from benchtools import cli
from tests.asv_sites import ROOT
from tests.helpers import table_cells, tool

INJECTED = 20_000


def flagged(table: str) -> dict[str, list[str]]:
    """{variant: [deterministic, ratio, time, any timing, any]} from detector-trial's Markdown table."""
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 7 and "/" in cells[2]:
            rows[cells[0]] = cells[2:]
    return rows


@pytest.mark.slow(minutes=0.9)
def test_gate_flags_an_injected_slowdown_and_not_identical_code(asv_env_dir, tmp_path):
    result = subprocess.run(
        [
            *tool("detector-trial"),
            "--trials",
            "1",
            "--quick",
            "--calls",
            str(INJECTED),
            "--c-slowdowns",
            "",
            "--no-confirm",
            "-b",
            r"bench_counts\.",
            "-b",
            r"bench_overhead\.",
            "-b",
            r"bench_eager\.",
            "--threshold",
            "1.0",
            "--time-threshold",
            "1.0",
            "--output",
            str(tmp_path),
            "--env-dir",
            str(asv_env_dir),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    rows = flagged(result.stdout)
    assert rows["A/A copy"][0] == "0/1", rows
    deterministic, ratio, _time, _any_timing, any_kind = rows[f"+{INJECTED} calls"]
    assert deterministic == "1/1"
    assert ratio == "1/1"
    assert any_kind == "1/1"


# The timing-only variant: work in C alone.

VARIANT_CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
import equinox, equinox._tree
from benchmarks import instruments, params, workloads
assert equinox.__file__.startswith(sys.argv[1]), equinox.__file__
import gc
# As bench_counts counts: one update, after a first call that fills the caches; no collection
# (a garbage collection can run a finalizer's Python calls in the middle).
surgery = workloads.Surgery("tree_at", params.DEFAULT_STATE_SIZE, params.DEFAULT_DEPTH, 1)
surgery()
out = surgery()
gc.collect()
gc.disable()
print(instruments.count_python_calls(surgery), instruments.count_bytecodes(surgery),
      type(equinox.tree_at).__name__, len(getattr(equinox.tree_at, "keywords", {})),
      [float(leaf.sum()) for leaf in workloads.leaves(out)])
"""


def test_the_timing_only_variant_makes_the_same_calls_and_bytecodes(tmp_path):
    import shutil

    import equinox

    from benchtools.trial import detector

    package = __import__("pathlib").Path(equinox.__file__).parent
    counts = {}
    for name, pads in (("original", None), ("variant", 300)):
        copy = tmp_path / name
        shutil.copytree(package, copy / "equinox")
        if pads is not None:
            tree_file = copy / "equinox" / "_tree.py"
            tree_file.write_text(detector.inject_c_work(tree_file.read_text(), pads))
        ran = subprocess.run([sys.executable, "-c", VARIANT_CHECK, str(copy)], capture_output=True, text=True, cwd=ROOT)
        assert ran.returncode == 0, ran.stderr[-2000:]
        counts[name] = ran.stdout.split(" ", 4)
    calls, bytecodes, kind, keywords, values = counts["variant"]
    assert (calls, bytecodes, values) == (counts["original"][0], counts["original"][1], counts["original"][4])
    assert kind == "partial" and keywords == "300"
    assert counts["original"][2] == "function"


# The campaign's shape: a chain of A/A copies, counts per comparison, the calibration's line.


def test_the_a_a_copies_form_a_chain_of_identical_trees(history, tmp_path, monkeypatch):
    from benchtools import git
    from benchtools.history import release_history
    from benchtools.trial import detector

    monkeypatch.setattr(detector, "HISTORY", history)
    monkeypatch.setattr(release_history, "build", lambda options: None)  # the fixture's history is built
    args = cli.parse(
        "detector-trial", ["--aa-copies", "3", "--calls", "7", "--c-slowdowns", "", "--output", str(tmp_path)]
    )
    repo, release, variants = detector.build_repository(args)
    assert [(v.tag, v.row, v.base) for v in variants] == [
        ("trial-aa1", detector.AA, "v0.13.8"),
        ("trial-aa2", detector.AA, "trial-aa1"),
        ("trial-aa3", detector.AA, "trial-aa2"),
        ("trial-7", "+7 calls", "v0.13.8"),
    ]

    def changed(base, tag):
        return git.out("diff", "--name-only", base, tag, repo=repo).split()

    commits = {git.out("rev-parse", v.tag, repo=repo).strip() for v in variants}
    assert len(commits) == 4 and release == "v0.13.8"
    for variant in variants[:3]:
        assert changed(variant.base, variant.tag) in ([detector.MARKER], []), variant  # the marker names the copy
        assert not git.out("diff", variant.base, variant.tag, "--", "equinox", repo=repo)
    assert changed("v0.13.8", "trial-7") == [detector.MARKER, "equinox/_tree.py"]


def test_copies_must_be_at_least_one(capsys):

    with pytest.raises(SystemExit) as exit_:
        cli.parse("detector-trial", ["--aa-copies", "0"])
    assert exit_.value.code == 2 and "--aa-copies" in capsys.readouterr().err


def test_the_tables_count_every_comparison_of_a_row(capsys):
    from benchtools.judging import changes, confirm, pairs
    from benchtools.trial import detector

    args = cli.parse("detector-trial", ["--trials", "2", "--aa-copies", "2", "--calls", "", "--c-slowdowns", ""])
    passes = detector.CALIBRATION[0]

    def verdict(name, outcome, estimate):
        change = changes.Change(name, "", "Python 3.11", 1.0, 1.1, "a" * 40, "b" * 40, True, "")
        return confirm.Confirmation(
            change, outcome, pairs.Interval(estimate, estimate - 0.02, estimate + 0.02, 12, 0.01, 0.99), 30.0
        )

    comparisons = [
        [verdict(passes, pairs.SAME, -0.01)],
        [],
        [verdict(passes, pairs.SLOWER, 0.05)],
        [verdict("bench_construct.ConstructionTime.time_tuple", pairs.UNDECIDED, 0.3)],
    ]
    slowdowns = [0.01, -0.02, None, None]
    compared = [detector.Comparison([], set(), found, slow) for found, slow in zip(comparisons, slowdowns, strict=True)]
    text = detector.tables(args, {detector.AA: compared})
    rows = [cells for cells in table_cells(text) if cells[0] == detector.AA]
    assert rows[0][2:4] == ["0/4", "0/4"]
    # 1 of 4 comparisons had a slower verdict; the key metric: 1 slower, 1 same, 2 not suspect; median +2%.
    assert rows[1][1:5] == ["1/4", "1 / 1 / 0 / 2", "+2.0%", "1 / 1 / 1"]
