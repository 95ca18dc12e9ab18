"""benchtools/asvtools/shapes.py: each JSON file the tools read, checked against the JSON Schema named after it.

A file of the wrong shape is BadInput (exit 2) naming the file and the first
wrong field; the checks below read those two out of the error, not its wording.
"""

import json

import pytest

from benchtools.asvtools import shapes
from benchtools.errors import BadInput, ExitCode
from benchtools.judging import verdicts
from benchtools.running import pr_check, season
from tests.helpers import ROOT

SCHEMAS = sorted(path.name.removesuffix(".schema.json") for path in shapes.SCHEMAS.glob("*.schema.json"))
CHANGE = {
    "kind": "cost",
    "benchmark": "b.T.t",
    "params": "",
    "environment": "e",
    "before": 1.0,
    "after": 2.0,
    "change": 1.0,
    "threshold": 0.0,
    "good": "a",
    "bad": "b",
    "single_commit": True,
    "unit": None,
    "latest": 2.0,
    "unmeasured_between": [],
    "diagnostics": [],
    "cause": None,
}


def refused(tmp_path, schema: str, value) -> str:
    """The message of the BadInput that VALUE, written to a file, gets when read against SCHEMA."""
    path = tmp_path / "file.json"
    path.write_text(json.dumps(value))
    with pytest.raises(BadInput) as error:
        shapes.read_checked(path, schema, "a file")
    message = str(error.value)
    assert error.value.code == ExitCode.BAD_INPUT and str(path) in message and "\n" not in message
    return message


# JSON Schema draft-07's keywords (json-schema.org/draft-07/json-schema-validation.html and -core.html).
KEYWORDS = {
    *("$schema", "$id", "$ref", "$comment", "definitions", "title", "description", "default", "examples"),
    *("type", "enum", "const", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "format"),
    *("properties", "required", "additionalProperties", "propertyNames", "patternProperties", "dependencies"),
    *("minProperties", "maxProperties", "items", "additionalItems", "contains", "minItems", "maxItems"),
    *("uniqueItems", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum"),
    *("exclusiveMaximum", "multipleOf"),
}


def schema_of(name: str) -> dict:
    return json.loads((shapes.SCHEMAS / f"{name}.schema.json").read_text())


@pytest.mark.parametrize("name", SCHEMAS)
def test_each_schema_is_a_draft_07_json_schema_that_compiles(name):
    assert schema_of(name)["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert callable(shapes.validator(name))


@pytest.mark.parametrize(
    ("schema", "value", "field"),
    [
        ("index", [], "the top level"),
        ("index", {"revision_to_hash": {}}, "'tags'"),
        ("index", {"revision_to_hash": {"x": "abc"}, "tags": {}}, "revision_to_hash"),
        ("index", {"revision_to_hash": {}, "tags": {"v0": "abc"}}, "tags.v0"),
        ("regressions", {"regressions": [[1]]}, "regressions[0]"),
        ("regressions", {"regressions": [["a.b", "g", {}, 0, 1, 1, [["1", 2, 3, 4]]]]}, "regressions[0][6][0][0]"),
        ("graph", [[1, 2], ["x", 3]], "[1][0]"),
        ("benchmarks", {"version": 2, "b.T.t": {"name": "b.T.t"}}, "b.T.t"),
        ("results", {"commit_hash": "a"}, "'env_name'"),
        ("asv-config", {"regressions_thresholds": {".*": "x"}}, "regressions_thresholds"),
        ("last-run", {"config": 5}, "config"),
        ("verdict", {"schema": 1, "status": "failed", "regression": False, "summary": "", "stage": "run"}, "'exit'"),
    ],
)
def test_a_wrong_field_is_named_with_its_file(tmp_path, schema, value, field):
    message = refused(tmp_path, schema, value)
    assert field in message.split(str(tmp_path), 1)[1], message


def test_true_and_false_are_no_numbers(tmp_path):
    assert "date" in refused(tmp_path, "results", {**json.loads(json.dumps(MINIMAL_RESULT)), "date": True})


MINIMAL_RESULT = {
    "commit_hash": "0" * 40,
    "env_name": "e",
    "params": {},
    "requirements": {},
    "python": "3.11",
    "date": 1,
    "results": {},
    "result_columns": [],
    "version": 2,
}


def test_what_the_readers_need_is_required_and_the_rest_is_open(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**MINIMAL_RESULT, "something asv adds later": [1]}))
    assert shapes.read_checked(path, "results", "asv results file")["version"] == 2


def test_a_judged_verdict_is_checked_row_by_row(tmp_path):
    document = {
        **{"schema": verdicts.SCHEMA, "status": verdicts.JUDGED, "regression": True, "summary": "s"},
        **{"mode": "m", "confirmed": True, "results": "r", "machine": None, "suspects": None},
        **{key: [] for key in ("improvements", "overruled", "not_alerting", "unjudged", "unchanged_commits")},
        **{"failed_commits": [], "explain_errors": [], "counted": [CHANGE]},
    }
    path = tmp_path / "verdict.json"
    verdicts.write(path, document)
    assert verdicts.read(path) == document
    verdicts.write(path, {**document, "counted": [{k: v for k, v in CHANGE.items() if k != "good"}]})
    with pytest.raises(BadInput, match="counted\\[0\\]") as error:
        verdicts.read(path)
    assert str(path) in str(error.value) and "'good'" in str(error.value)


def test_the_verdict_schema_branches_on_the_status_the_gate_writes():
    assert schema_of("verdict")["if"]["properties"]["status"]["const"] == verdicts.JUDGED
    failed = {"schema": 1, "status": verdicts.FAILED, "regression": False, "summary": "", "stage": "run"}
    with pytest.raises(BadInput, match="'exit'"):  # no exit, no message
        shapes.check(failed, "verdict", "v.json", "gate verdict")
    assert shapes.check({**failed, "exit": None, "message": "m"}, "verdict", "v.json", "gate verdict")


def test_the_record_of_pull_request_checks_is_read_against_its_schema(tmp_path):
    assert pr_check.read(ROOT / "docs" / "pull-requests.json")  # the real record
    path = tmp_path / "record.json"
    path.write_text(json.dumps([{"title": "t", "mode": "m"}]))
    with pytest.raises(BadInput, match="'jax'") as error:
        pr_check.read(path)
    assert str(path) in str(error.value)


def test_a_season_s_events_are_text(tmp_path):
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"000": [["502"]]}))
    with pytest.raises(BadInput, match=r"000\[0\]"):
        season.read_events(path)
    path.write_text(json.dumps({"000": ["502"]}))
    assert season.read_events(path) == {"000": ["502"]}


def test_json_nested_too_deeply_is_bad_input(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(BadInput, match="nested too deeply"):
        shapes.read_checked(path, "graph", "asv graph file")


def test_the_schemas_use_only_draft_07_keywords():
    """A misspelt keyword ("require" for "required") is silently no check: every key of every schema object is a
    keyword of draft-07 or a property name under "properties"/"definitions"."""

    def walk(node, where):
        if isinstance(node, dict):
            for key, inner in node.items():
                assert key in KEYWORDS, (where, key)
                if key in ("properties", "definitions"):
                    for name, schema in inner.items():
                        walk(schema, f"{where}.{name}")
                else:
                    walk(inner, f"{where}.{key}")
        elif isinstance(node, list):
            for i, inner in enumerate(node):
                walk(inner, f"{where}[{i}]")

    for name in SCHEMAS:
        walk(schema_of(name), name)
