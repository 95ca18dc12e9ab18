"""publishing/pull_requests.toml: upstream's pull requests that no commit names, read and checked."""

import re

import pytest

from benchtools.errors import BadInput
from benchtools.publishing import operation_history


def test_the_file_is_read_and_well_formed():
    found = operation_history.pull_requests()
    assert found.module_speed_ups and all(isinstance(pull, int) for pull in found.module_speed_ups)
    assert found.rebased and set(found.rebased.values()) <= set(found.module_speed_ups)
    assert found.not_merged and set(found.not_merged) <= set(found.module_speed_ups)
    assert all(isinstance(pull, int) and why for pull, why in found.not_merged.items())


def test_a_rebased_subject_names_its_pull_request_and_a_squashed_one_its_own():
    subject, pull = next(iter(operation_history.pull_requests().rebased.items()))
    assert operation_history.pull_request_of(subject) == pull
    assert operation_history.pull_request_of("perf: cache per-class field metadata in _ModuleInfo (#1220)") == 1220
    assert operation_history.pull_request_of("docs: a typo") is None


@pytest.mark.parametrize(
    "text, wrong",
    [
        ("module_speed_ups = [1]\n[rebased]\n[not_merged]\n", None),
        ("module_speed_ups = ['994']\n[rebased]\n[not_merged]\n", "module_speed_ups[0]: expected an integer"),
        ("module_speed_ups = [1]\n[rebased]\n'a subject' = 2\n[not_merged]\n", "pull requests [2] are not among"),
        ("module_speed_ups = [1]\n[rebased]\n[not_merged]\nx = 'why'\n", "not_merged: every key must match"),
        ("module_speed_ups = [1]\n[rebased]\n", "the key 'not_merged' is missing"),
        ("module_speed_ups = [1\n", "Unclosed array"),
    ],
)
def test_a_malformed_file_is_refused_naming_it_and_what_is_wrong(tmp_path, text, wrong):
    path = tmp_path / "pull_requests.toml"
    path.write_text(text)
    if wrong is None:
        assert operation_history.pull_requests(path).module_speed_ups == (1,)
    else:
        with pytest.raises(BadInput, match=re.escape(f"{path}: ") + ".*" + re.escape(wrong)):
            operation_history.pull_requests(path)
