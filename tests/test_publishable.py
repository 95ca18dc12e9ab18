"""benchtools/asvtools/publishable.py: what a stored asv file may hold (docs/exit-codes.md, "Bad input").

A results file that asv itself writes is accepted as it is, NaN (asv's mark of
a skipped benchmark) and the infinite confidence bounds of a single sample
included; anything asv's publish or step detection cannot take, markup that
the site would render, a file naming another commit or a benchmark the suite
lacks, and a file too big to push are refused: exit 2, one line, nothing
merged.
"""

import json
import math
from pathlib import Path, PurePath

import fastjsonschema
import pytest
from asv import results, runner

from benchtools.asvtools import publishable, shapes
from benchtools.errors import BadInput
from tests.helpers import asv_layout, command

MACHINE = "m"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
ENV = "virtualenv-py3.11-jax0.4.33"
NAME = "bench_x.T.time_x"
BENCHMARK = {"name": NAME, "version": "1", "params": [["'jit'", "'scan'"]], "param_names": ["wrapping"]}
MARKUP = "<img src=x onerror=window.__pwned=1>"


def asv_written(folder: Path, values=(1.0e-3, math.nan), samples=None, commit=COMMIT, env=ENV) -> Path:
    """A results file written by asv's own Results.save: a skipped value (NaN) and one sample each (±Infinity)."""
    result = results.Results({"machine": MACHINE, "python": "3.11"}, {"jax": "0.4.33"}, commit, 1, "3.11", env, {})
    result.add_result(
        BENCHMARK,
        runner.BenchmarkResult(
            result=list(values),
            samples=samples or [[v] if not math.isnan(v) else None for v in values],
            number=[1 if not math.isnan(v) else None for v in values],
            errcode=0,
            stderr="",
            profile=None,
        ),
        duration=2.5,
    )
    result.set_build_duration(3.0)
    result.save(str(folder))
    (folder / MACHINE / "machine.json").write_text(
        json.dumps({"machine": MACHINE, "arch": "x86_64", "cpu": "Intel(R) Xeon(R) CPU @ 2.20GHz", "version": 1})
    )
    return folder / results.get_filename(MACHINE, commit, env)


def stored(path: Path, **kwargs) -> bytes:
    return publishable.stored_file(path, PurePath(path.parent.name, path.name), **kwargs)


def edit(path: Path, change) -> Path:
    """PATH's JSON changed by CHANGE(data), written back as Python's json writes it (NaN and Infinity included)."""
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def refused_by_merge(tmp_path: Path, *needles: str) -> str:
    dest = tmp_path / "dest"
    merged = command("merge-results", tmp_path / "src", dest)
    assert merged.returncode == 2, (merged.stdout, merged.stderr)
    assert len(merged.stderr.strip().splitlines()) == 1, merged.stderr
    assert "Traceback" not in merged.stderr
    for needle in needles:
        assert needle in merged.stderr, merged.stderr
    assert not dest.exists() or not any(dest.rglob("*.json"))
    return merged.stderr


@pytest.fixture
def written(tmp_path) -> Path:
    return asv_written(tmp_path / "src")


def column(data: dict, name: str) -> list:
    row = data["results"][NAME]
    index = data["result_columns"].index(name)
    row.extend([None] * (index + 1 - len(row)))
    return row


def set_column(name, value):
    def change(data):
        column(data, name)[data["result_columns"].index(name)] = value

    return change


# What asv writes is accepted.


def test_what_asv_writes_is_accepted_nan_and_infinite_bounds_included(written, tmp_path):
    text = written.read_text()
    assert "NaN" in text and "-Infinity" in text and "Infinity" in text  # asv's own spellings
    assert stored(written) == written.read_bytes()
    merged = command("merge-results", tmp_path / "src", tmp_path / "dest")
    assert merged.returncode == 0, merged.stderr
    assert (tmp_path / "dest" / MACHINE / written.name).read_bytes() == written.read_bytes()


def test_the_columns_are_asv_own():
    """The rule of each column covers exactly the columns asv's Results.save writes, derived from asv."""
    layout = asv_layout()
    stored = json.loads((shapes.SCHEMAS / "stored.schema.json").read_text())["definitions"]
    assert set(layout["result_columns"]) == set(stored["cells"]["properties"])
    assert set(layout["result_columns"]) == set(stored["result"]["properties"]["result_columns"]["items"]["enum"])
    assert layout["keys"] == set(stored["result"]["properties"])
    assert {"result", "stats_ci_99_a", "samples", "profile"} <= set(layout["result_columns"])
    assert {"commit_hash", "env_name", "date", "results", "durations"} <= layout["keys"]


# 3. Values that break the site for good.


@pytest.mark.parametrize(
    "spelling",
    ["Infinity", "-Infinity", "1e400", "-1e400", "1.7e308", "true", "false", '"1.0"'],
)
def test_a_result_value_asv_cannot_publish_is_refused(written, tmp_path, spelling):
    text = written.read_text()
    # The timing 0.001 replaced by the spelling, as it stands in the file.
    assert text.count("[0.001, NaN]") == 1
    written.write_text(text.replace("[0.001, NaN]", f"[{spelling}, NaN]"))
    refused_by_merge(tmp_path, str(written), "result")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("stats_ci_99_a", ["x", None]),  # a string in a stats column crashes publish (get_weight)
        ("stats_ci_99_a", [math.inf, None]),  # the lower bound may be -Infinity only
        ("stats_ci_99_b", [-math.inf, None]),
        ("stats_ci_99_b", [math.nan, None]),
        ("stats_q_25", [math.nan, None]),
        ("stats_q_75", "x"),
        ("stats_number", [True, None]),
        ("stats_repeat", [1.5, None]),
        ("samples", [[1.0, math.inf], None]),
        ("samples", [1.0, None]),
        ("profile", 5),
        ("profile", MARKUP),
        ("version", 5),
        ("started_at", "x"),
        ("started_at", math.nan),
        ("duration", math.inf),
        ("duration", True),
        ("params", [[1, 2]]),
        ("params", None),
        ("result", [1.0]),  # fewer values than params
        ("result", {"a": 1}),
    ],
)
def test_a_wrong_typed_or_non_finite_column_is_refused(written, tmp_path, name, value):
    edit(written, set_column(name, value))
    refused_by_merge(tmp_path, str(written), name)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("date", math.nan),
        ("date", True),
        ("date", "1"),
        ("params", {"machine": MACHINE, "ram": math.inf}),
        ("params", {"machine": MACHINE, "ram": True}),
        ("requirements", {"jax": math.nan}),
        ("durations", {"<build>": "x"}),
        ("durations", {"<build>": math.nan}),
        ("durations", {MARKUP: 1.0}),
        ("env_vars", {"X": 1}),
        ("python", 3.11),
        ("result_columns", ["result", "params", "bogus"]),
        ("result_columns", ["result", "params", "params"]),
        ("planted", "anything"),
    ],
)
def test_a_wrong_typed_or_non_finite_field_is_refused(written, tmp_path, key, value):
    edit(written, lambda data: data.update({key: value}))
    refused_by_merge(tmp_path, str(written), key)


def test_values_so_large_that_step_detection_never_returns_are_refused(written, tmp_path):
    # asv's detect_steps never returns on 1.7e308 beside -1.7e308 (their difference overflows).
    edit(written, set_column("result", [1.7e308, -1.7e308]))
    refused_by_merge(tmp_path, str(written), "1e+100")


# 4. Markup the site would render.


@pytest.mark.parametrize(
    ("plant", "field"),
    [
        (lambda data: column(data, "params").__setitem__(1, [["'jit'", MARKUP]]), f"[{NAME!r}].params[0][1]"),
        (lambda data: data["results"].__setitem__(f"bench_x.T.{MARKUP}", data["results"].pop(NAME)), "benchmark name"),
        (lambda data: data["params"].update({MARKUP: "1"}), "params: the key"),
        (lambda data: data["params"].update({"cpu": "<script>window.__pwned=1</script>"}), "params.cpu"),
        (lambda data: data["env_vars"].update({"X": '"&quot;'}), "env_vars.X"),
        (lambda data: data.update(python="3.11\\x3c"), "python"),
    ],
    ids=["params value", "benchmark name", "machine param key", "machine param value", "env var", "python"],
)
def test_markup_in_a_results_file_is_refused_naming_its_field(written, tmp_path, plant, field):
    edit(written, plant)
    refused_by_merge(tmp_path, f"{written}: ", field)


@pytest.mark.parametrize("env", [f"env{MARKUP}" * 4, "env" + "<script>" * 20])
def test_markup_in_an_environment_name_is_refused(tmp_path, env):
    # asv names the file after the md5 of an environment name of 128 characters or more.
    path = asv_written(tmp_path / "src", env=env)
    assert path.name.startswith(COMMIT[:8] + "-env-")
    refused_by_merge(tmp_path, str(path), "env_name")


@pytest.mark.parametrize("field", ["machine", "os", "cpu", "arch", "num_cpu", "ram", "planted"])
def test_markup_in_machine_json_is_refused(written, tmp_path, field):
    machine = written.parent / "machine.json"
    edit(machine, lambda data: data.update({field: "<script>window.__pwned=1</script>"}))
    refused_by_merge(tmp_path, f"{machine}: {field}: ")


def test_machine_json_fields_are_text(written, tmp_path):
    machine = written.parent / "machine.json"
    edit(machine, lambda data: data.update(ram=math.nan))
    refused_by_merge(tmp_path, str(machine), "ram")


def test_markup_in_benchmarks_json_names_and_params_is_refused(written, tmp_path):
    listed = tmp_path / "src" / "benchmarks.json"
    listed.write_text(json.dumps({"version": 2, NAME: {**BENCHMARK, "type": "time", "params": [[MARKUP]]}}))
    refused_by_merge(tmp_path, str(listed), f"{NAME}.params[0][0]")


def test_the_allowed_text_holds_what_asv_writes_for_this_suite():
    text = shapes.validator("stored#/definitions/text")
    for allowed in ["'jit'", "Intel(R) Xeon(R) CPU @ 2.20GHz", "Linux 6.18.44-fc-v657", "[1, 2]", "x=1", "a/b:c"]:
        text(allowed)
    for markup in ["<", ">", "&", '"', "\\", "\n", "\t", "`", "é"]:
        with pytest.raises(fastjsonschema.JsonSchemaValueException):
            text(markup)


def test_a_results_file_naming_what_the_suite_lacks_is_refused(written):
    suite = {"version": 2, NAME: {**BENCHMARK, "type": "time"}}
    assert stored(written, suite=suite)
    with pytest.raises(BadInput, match=f"{written}: .*{NAME!r}"):
        stored(written, suite={"version": 2})
    with pytest.raises(BadInput, match=f"{written}: .*{NAME!r}"):
        stored(written, suite={"version": 2, NAME: {**BENCHMARK, "params": [["'jit'"]]}})
    with pytest.raises(BadInput, match=f"{written}: .*{NAME!r}"):
        stored(written, suite={"version": 2, NAME: {**BENCHMARK, "params": [["'jit'", "'scan'"], ["1"]]}})


# 10a. A file of another commit that shares its first 8 hex digits.


def test_a_file_of_another_full_commit_is_refused_where_the_full_hash_is_asked_for(written):
    assert stored(written, commit=COMMIT)
    other = COMMIT[:8] + "f" * 32
    with pytest.raises(BadInput) as refused:
        stored(written, commit=other)
    assert str(written) in str(refused.value) and COMMIT in str(refused.value) and other in str(refused.value)


def test_the_gate_never_reads_a_results_file_of_another_commit_with_the_same_prefix(written):
    """asvtools/results.py's of_commit, asked for a full hash, leaves out a file of another that shares its
    first 8 hex digits (the file name's), so that none is read as the asked-for commit's."""
    from benchtools.asvtools import results

    folder = written.parent.parent
    assert [found.commit_hash for found in results.of_commit(folder, MACHINE, COMMIT)] == [COMMIT]
    assert results.of_commit(folder, MACHINE, COMMIT[:8] + "f" * 32) == []


# 10b. A file too big to push.


def test_a_file_bigger_than_the_cap_is_refused_before_it_is_read(written, tmp_path):
    text = written.read_text()
    written.write_text(text + " " * (publishable.MAX_STORED_BYTES - len(text.encode())))
    assert stored(written)  # at the cap: accepted
    with written.open("a") as file:
        file.write(" ")
    refused_by_merge(tmp_path, str(written), str(publishable.MAX_STORED_BYTES + 1))  # its size


def test_the_cap_leaves_room_for_the_whole_suite_with_samples():
    # The largest real file (29 benchmarks, no samples) is 11 KB; with every sample of a full run it
    # stays far below the cap, and the cap far below GitHub's 100 MB.
    assert 1 << 20 < publishable.MAX_STORED_BYTES < 100_000_000 // 5
