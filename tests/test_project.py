"""benchtools/project.py: the project's root and the names of its environments."""

from benchtools import project
from tests.helpers import ROOT


def test_env_label():
    params = {"machine": "m", "python": "3.11", "jax": "0.4.33", "jaxlib": "0.4.33", "hatchling": "", "cpu": "x"}
    assert project.env_label(params) == "Python 3.11, jax 0.4.33, jaxlib 0.4.33"
    # The JAX history's two environments differ by their Python alone.
    assert {project.env_label({"python": python, "equinox": "0.13.8"}) for python in ("3.11", "3.13")} == {
        "Python 3.11, equinox 0.13.8",
        "Python 3.13, equinox 0.13.8",
    }
    # The gate's step detection gets only the params that differ between environments (asv's regressions.json).
    assert project.env_label({"python": "3.13"}) == "Python 3.13"
    assert project.env_label({}) == ""


def test_the_root_is_the_project():
    assert project.ROOT == ROOT and (project.ROOT / "asv.conf.json").is_file()
