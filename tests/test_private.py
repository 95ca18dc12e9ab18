"""benchtools/asvtools/private.py: asv's private names, used only with the asv pyproject.toml pins."""

import inspect
import re

import pytest

from benchtools.asvtools import private
from benchtools.errors import Failed
from tests.helpers import ROOT


def test_the_pin_is_pyproject_tomls_exact_asv_and_is_installed():
    wanted = private.pinned()
    assert str(wanted.specifier).startswith("==")
    private.checked.cache_clear()
    private.checked()  # the installed asv is the pinned one


def test_another_asv_is_refused_naming_both_versions(monkeypatch):
    monkeypatch.setattr(private.metadata, "version", lambda name: "9.9.9")
    private.checked.cache_clear()
    try:
        with pytest.raises(Failed, match=r"asv 9\.9\.9 is installed, .* as asv ==0\.6\.6 has them"):
            private.matrix_entry_parts({("python", None): "3.11"})
    finally:
        private.checked.cache_clear()


def test_the_private_functions_take_what_the_tools_pass():
    from asv import runner

    parameters = inspect.signature(runner._run_benchmark_single_param).parameters
    assert list(parameters) == ["benchmark", "spawner", "param_idx", "profile", "extra_params", "cwd"]
    python, requirements, tagged = private.matrix_entry_parts({("python", None): "3.11", ("req", "jax"): "1.0"})
    assert (python, requirements, tagged) == ("3.11", {"jax": "1.0"}, {})


def test_no_other_module_names_a_private_asv_name():
    pattern = re.compile(r"\basv\w*\.\w+\._[a-z]|\benv\._[a-z]|environment\._[a-z]|runner\._[a-z]")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "scripts" / "benchtools").rglob("*.py"))
        if path.name != "private.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line.split("#", 1)[0])
    ]
    assert found == []
