"""scripts/mutants: the modules it mutates, how a module's score is counted, and docs/mutants.md's table, which its
record writes. The mutation run itself takes hours: it is no test (docs/mutants.md, .github/workflows/mutants.yml)."""

import ast
import json
import re
import shutil
import subprocess

import pytest
import yaml

from benchtools import cli
from benchtools.errors import Failed
from benchtools.publishing import generated
from benchtools.running import mutants
from tests.helpers import ROOT, command


def test_every_module_that_makes_or_carries_a_verdict_is_mutated():
    named = ["judging/bisect.py", "judging/pairs.py", "running/bisection.py", "history/probes.py"]
    named += ["history/release_history.py", "asvtools/sides.py", "asvtools/runs.py"]
    # judging/*'s glob also matches the bytecode folder that importing the package leaves
    (ROOT / "scripts" / "benchtools" / "judging" / "__pycache__").mkdir(exist_ok=True)
    found = mutants.modules()
    assert {f"benchtools/{name}" for name in named} <= set(found) and len(found) == len(set(found))
    assert {"benchmarks/bench_answer.py", "benchmarks/instruments.py", "benchmarks/metrics.py"} <= set(found)
    assert all(name.endswith(".py") for name in found)
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "mutants.yml").read_text())
    assert workflow["jobs"]["mutants"]["strategy"]["matrix"]["module"] == found
    [slips] = [step for step in workflow["jobs"]["mutants"]["steps"] if "--engine slips" in step.get("run", "")]
    assert re.findall(r"!= '(\S+)'", slips["if"]) == list(mutants.SLIPLESS)


def test_the_second_engine_refuses_a_module_that_mutmut_alone_mutates():
    assert "benchtools/history/release_history.py" not in cli.parse("mutants", ["--engine", "slips"]).modules
    ran = command("mutants", "--engine", "slips", "scripts/benchtools/history/release_history.py")
    assert ran.returncode == 2 and "mutmut alone mutates it" in ran.stderr


def test_a_module_is_named_by_its_path_and_one_outside_the_list_is_refused(capsys):
    args = cli.parse("mutants", ["scripts/benchtools/judging/bisect.py", str(ROOT / "benchmarks" / "metrics.py")])
    assert args.modules == ["benchtools/judging/bisect.py", "benchmarks/metrics.py"]
    assert cli.parse("mutants", ["benchtools/judging/bisect.py"]).modules == ["benchtools/judging/bisect.py"]
    with pytest.raises(SystemExit) as refused:
        cli.parse("mutants", ["scripts/benchtools/cli.py"])
    assert refused.value.code == 2 and "benchtools/cli.py: not among" in capsys.readouterr().err


def test_the_stage_forgets_a_module_the_project_deleted_keeps_the_rest_and_takes_the_data_as_it_is_now(
    tmp_path, monkeypatch
):
    root, stage = tmp_path / "project", tmp_path / "project" / ".cache" / "mutants"
    for module in ("scripts/benchtools/kept.py", "benchmarks/kept.py"):
        (root / module).parent.mkdir(parents=True, exist_ok=True)
        (root / module).write_text("")
    for copied in ("benchtools/kept.py", "benchtools/deleted.py", "benchmarks/kept.py", "benchmarks/deleted.py"):
        (stage / "mutants" / copied).parent.mkdir(parents=True, exist_ok=True)
        (stage / "mutants" / copied).write_text("")
    (root / "benchmarks" / "spread.json").write_text("now")
    (stage / "mutants" / "benchmarks" / "spread.json").write_text("as mutmut copied it")
    (root / "benchmarks" / "__pycache__").mkdir()
    (root / "benchmarks" / "__pycache__" / "kept.cpython-311.pyc").write_text("")
    subprocess.run(["git", "init", "-q", root], check=True)
    (stage / ".git").symlink_to(root / ".git")  # an earlier stage linked it
    monkeypatch.setattr(mutants, "ROOT", root)
    monkeypatch.setattr(mutants, "STAGE", stage)
    mutants.stage()
    left = sorted(str(p.relative_to(stage / "mutants")) for p in (stage / "mutants").rglob("*.py"))
    assert left == ["benchmarks/kept.py", "benchtools/kept.py"]
    assert (stage / "mutants" / "benchmarks" / "spread.json").read_text() == "now"
    assert not (stage / "mutants" / "benchmarks" / "__pycache__").exists()  # mutmut's, or the tests', to make
    # a fresh clone has no .asv yet; asv's linked configuration resolves its environments there all the same
    assert (stage / "mutants" / ".asv").resolve() == (stage / ".asv").resolve() == root / ".asv"
    # git run where a mutant's tests stand finds no repository, neither the project's nor one above the stage, and
    # makes none (a mutant's git init there, then another's clean -fdx, once wiped the stage)
    for arguments in (["rev-parse", "--git-dir"], ["init", "-q"], ["rev-parse", "--git-dir"]):
        ran = subprocess.run(["git", *arguments], cwd=stage / "mutants", env=mutants.environment(), capture_output=True)
        assert ran.returncode == 128, ran.stderr
    assert not (stage / ".git").exists() and not (stage / "mutants" / ".git").exists()


def test_a_score_counts_a_time_out_as_killed_and_leaves_out_the_equivalent():
    entry = {"made": 10, "killed": 6, "timeout": 1, "survived": 2, "no tests": 1, "survivors": {"a": "", "b": ""}}
    assert mutants.score(entry, {}) == pytest.approx(0.7)
    assert mutants.score(entry, {"a": "equivalent: …"}) == pytest.approx(7 / 9)
    assert mutants.score({**entry, "made": 2, "killed": 0, "timeout": 0}, {"a": "", "b": ""}) == 1.0


def test_a_run_of_the_survivors_alone_updates_them_and_keeps_every_other_mutant_s_result():
    entry = {"made": 10, "killed": 6, "timeout": 1, "survived": 3, "no tests": 0, "not checked": 0, "other": 0}
    entry["survivors"] = {"a": "x → y", "b": "x → z", "c": "x → w"}
    again = {"made": 10, "killed": 1, "timeout": 1, "survived": 1, "no tests": 0, "not checked": 7, "other": 0}
    merged = mutants.rerun(entry, {**again, "survivors": {"b": "x → z"}})
    assert merged == {**entry, "killed": 7, "timeout": 2, "survived": 1, "survivors": {"b": "x → z"}}
    assert mutants.score(merged, {}) == pytest.approx(9 / 10)


SLIPPED = """import math


def looks(pairs, start):
    warm()
    return 1 + math.ceil((pairs - start) / 10), min(pairs, start)


class Search:
    def middle(self, lo, hi):
        return sum(range(lo, hi)), zip(lo, hi), max(lo, hi)
"""


def test_the_second_engine_makes_each_slip_once_where_it_applies_and_names_its_function_as_mutmut_does():
    made = {(what, where): (change, source) for what, where, change, source in mutants.slips(SLIPPED)}
    assert {key: change for key, (change, _) in made.items()} == {
        ("min ↔ max", "6:48"): "min(pairs, start) → max(pairs, start)",
        ("min ↔ max", "11:48"): "max(lo, hi) → min(lo, hi)",
        ("ceil(a / b) → a // b", "6:15"): "math.ceil((pairs - start) / 10) → (pairs - start) // 10",
        ("a call's statement dropped", "5:4"): "warm() → pass",
        ("two names passed swapped", "11:19"): "range(lo, hi) → range(hi, lo)",
        ("two names passed swapped", "11:35"): "zip(lo, hi) → zip(hi, lo)",  # min's and max's order is no slip
        ("a pair returned swapped", "6:4"): (
            "return (1 + math.ceil((pairs - start) / 10), min(pairs, start))"
            " → return (min(pairs, start), 1 + math.ceil((pairs - start) / 10))"
        ),  # not the three that middle returns
        ("a range's end one further", "11:19"): "range(lo, hi) → range(lo, hi + 1)",
    }
    assert "return (1 + (pairs - start) // 10, min(pairs, start))" in made["ceil(a / b) → a // b", "6:15"][1]
    assert "    pass\n" in made["a call's statement dropped", "5:4"][1]
    assert all(compile(source, "slipped", "exec") for _, source in made.values())
    tree = ast.parse(SLIPPED)
    assert (
        mutants.function_at(tree, 6, "m") == "m.x_looks" and mutants.function_at(tree, 11, "m") == "m.xǁSearchǁmiddle"
    )
    assert mutants.function_at(tree, 1, "m") == ""


def test_the_page_shows_each_engine_s_table_and_survivors():
    slip = "benchtools.m.3:15: min ↔ max"
    entry = {"made": 2, "killed": 1, "survived": 1, "timeout": 0, "survivors": {slip: "min(a, b) → max(a, b)"}}
    page = mutants.markdown({"modules": {}, "slips": {"benchtools/m.py": entry}}, {slip: "equivalent: one value"}, {})
    assert "### mutmut" not in page and page.startswith("### The second engine")
    assert "| `3:15: min ↔ max` | `min(a, b) → max(a, b)` | equivalent: one value |" in page and "| 100% |" in page
    assert "(0 of the 1 judged equivalent are shown by a test)" in page
    shown = mutants.markdown({"slips": {"benchtools/m.py": entry}}, {slip: "equivalent: one value"}, {slip: "t.py::t"})
    assert "| equivalent: one value; shown by `t.py::t` |" in shown and "(1 of the 1 judged" in shown
    unjudged = mutants.markdown({"slips": {"benchtools/m.py": entry}}, {}, {})
    assert "| **not judged**: a hole |" in unjudged and "| 50% |" in unjudged


def test_a_module_run_at_other_code_than_today_s_is_marked():
    entry = {"made": 1, "killed": 1, "survived": 0, "timeout": 0, "survivors": {}}
    module = "benchtools/judging/pairs.py"
    today = mutants.markdown({"modules": {module: entry | {"source": mutants.source_digest(module)}}}, {}, {})
    assert f"| `{module}` | 1 |" in today
    for earlier in (entry | {"source": "0" * 64}, entry):  # other code, or a run that recorded none
        assert f"| `{module}` (earlier code) | 1 |" in mutants.markdown({"modules": {module: earlier}}, {}, {})


def test_a_test_marked_equivalent_is_found_by_the_names_its_mark_gives(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import pytest\n\n\n@pytest.mark.equivalent('m.x_f__mutmut_1', 'm.x_f__mutmut_2')\ndef test_same(): ...\n\n\n"
        "@pytest.mark.slow(minutes=1)\ndef test_other(): ...\n"
    )
    (tmp_path / "helpers.py").write_text(
        "@pytest.mark.equivalent('m.x_g__mutmut_1')\ndef test_not_a_test_file(): ...\n"
    )
    where = f"{tmp_path.name}/test_a.py::test_same"
    assert mutants.shown(tmp_path) == {"m.x_f__mutmut_1": where, "m.x_f__mutmut_2": where}
    (tmp_path / "test_b.py").write_text(
        "NAMES = ['m.x_h__mutmut_1']\n\n\n@pytest.mark.equivalent(*NAMES)\ndef test_b(): ...\n"
    )
    with pytest.raises(Failed, match="test_b's pytest.mark.equivalent names a mutant by no literal string"):
        mutants.shown(tmp_path)


def test_a_crashed_test_run_is_no_kill_and_lowers_the_score(tmp_path, monkeypatch):
    """mutmut files a worker whose tests raised (exit 255, a stage wiped under it) as a time-out: here it is a crash."""
    meta = tmp_path / "mutants" / "benchmarks" / "metrics.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"m.x_f__mutmut_1": 1, "m.x_f__mutmut_2": 255, "m.x_f__mutmut_3": None, "m.x_f__mutmut_4": -24}
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    monkeypatch.setattr(mutants, "STAGE", tmp_path)
    entry = mutants.counted("benchmarks/metrics.py")
    assert {name: entry[name] for name in ("made", "killed", "timeout", "not checked", "other")} == {
        "made": 4,
        "killed": 1,
        "timeout": 1,
        "not checked": 1,
        "other": 1,
    }
    assert mutants.score(entry, {}) == pytest.approx(2 / 3)


def test_a_mutant_a_stopped_run_never_reached_is_out_of_the_score_and_no_survivor():
    entry = {
        "made": 10,
        "killed": 3,
        "timeout": 0,
        "survived": 1,
        "no tests": 0,
        "not checked": 6,
        "survivors": {"a": ""},
    }
    assert mutants.score(entry, {}) == pytest.approx(3 / 4)
    assert mutants.score({**entry, "not checked": 0}, {}) == pytest.approx(3 / 10)
    assert "| 10 | 3 | 1 | 0 | 0 | 6 | 0 | 75% |" in mutants.markdown({"modules": {"m.py": entry}}, {}, {})


def test_the_page_is_what_the_record_makes(tmp_path):
    """docs/mutants.md's table is what docs/mutants.json and docs/mutants.toml's reasons make: no figure is typed."""
    page = tmp_path / "mutants.md"
    shutil.copy(ROOT / "docs" / "mutants.md", page)
    record, reasons, shown = mutants.read(mutants.RECORD), mutants.reasons(), mutants.shown()
    generated.write_blocks(page, {mutants.BLOCK: mutants.markdown(record, reasons, shown)})
    assert page.read_text() == (ROOT / "docs" / "mutants.md").read_text(), "REGEN: scripts/mutants --readme FILE"
    # A reason kept for a mutant that a later run killed, or that a change of its code renamed, would judge another.
    survivors = {
        name for key in mutants.ENGINES for entry in record.get(key, {}).values() for name in entry["survivors"]
    }
    assert set(reasons) <= survivors, sorted(set(reasons) - survivors)
    # A test's mark shows only what is judged: a mark left for a reason removed would show nothing.
    assert set(shown) <= set(reasons), sorted(set(shown) - set(reasons))
