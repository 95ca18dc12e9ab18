"""benchtools/settings.py: each setting read from its one file, and bad files refused by name."""

import json
import re
from pathlib import Path

import asv
import pytest
from packaging.version import Version

from benchtools import settings
from benchtools.errors import BadInput
from benchtools.publishing import site
from tests.helpers import ROOT


def test_the_reference_jax_is_the_oldest_of_asv_conf_jsons_matrix():
    releases = settings.load().jax_releases
    assert list(releases) == sorted(releases, key=Version) and len(releases) >= 2
    assert settings.load().reference_jax == releases[0]
    assert settings.load().upstream["matrix"]["req"]["jax"].count(settings.load().reference_jax) == 1


def test_the_reference_equinox_is_the_one_asv_jax_conf_json_holds_fixed():
    assert settings.load().reference_equinox == settings.load().jax["matrix"]["req"]["equinox"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", settings.load().reference_equinox)


def test_the_upstream_and_its_page_come_from_asv_conf_json():
    assert settings.load().upstream_url.endswith(".git")
    assert settings.load().upstream_url.startswith(settings.load().project_url)


def test_the_configuration_is_read_once(monkeypatch):
    read = []
    real = settings.util.load_asv_config
    monkeypatch.setattr(settings.util, "load_asv_config", lambda path: read.append(path) or real(path))
    settings.load.cache_clear()
    try:
        settings.load(), settings.load(), settings.load().jax_releases
    finally:
        settings.load.cache_clear()
    assert read == [settings.UPSTREAM_CONFIG, settings.JAX_CONFIG]


def test_the_newest_python_is_the_newest_of_asv_conf_jsons_pythons():
    config = settings.load()
    assert config.newest_python == max(config.upstream["pythons"], key=Version)
    assert config.facts()["newest_python"] == config.newest_python


def test_a_caller_changing_its_copy_changes_nothing_for_the_next():
    copied = {**settings.load().upstream}
    copied["repo"] = "elsewhere"
    assert settings.load().upstream["repo"] == settings.load().upstream_url != "elsewhere"
    settings.site_packages().clear()
    assert settings.site_packages()


@pytest.mark.parametrize(
    "req, message",
    [
        ({"jax": []}, "matrix.req.jax must name one or more versions"),
        ({"jax": ["0.4.33", ""]}, "matrix.req.jax must name one or more versions"),
        ({}, "matrix.req.jax must name one or more versions, not None"),
    ],
)
def test_a_matrix_without_jax_releases_is_refused_naming_the_file(tmp_path, req, message):
    config = tmp_path / "asv.conf.json"
    config.write_text(json.dumps({"matrix": {"req": req}}))
    with pytest.raises(BadInput, match=f"{re.escape(str(config))}: {re.escape(message)}"):
        settings.read(upstream=config)


def test_an_equinox_that_is_not_held_at_one_release_is_refused(tmp_path):
    config = tmp_path / "asv.jax.conf.json"
    config.write_text(json.dumps({"matrix": {"req": {"equinox": ["0.13.7", "0.13.8"]}}}))
    with pytest.raises(BadInput, match="must hold Equinox at one release"):
        settings.read(jax=config)


def test_the_site_packages_are_package_jsons_at_the_locked_versions():
    declared = json.loads((ROOT / "package.json").read_text())["dependencies"]
    locked = settings.site_packages()
    assert set(locked) == set(declared)
    assert all(locked[name] == version for name, version in declared.items())


def test_a_lock_without_a_dependency_is_refused_naming_the_file(tmp_path, monkeypatch):
    lock = tmp_path / "package-lock.json"
    lock.write_text(json.dumps({"packages": {"": {"dependencies": {"jquery": "3.3.1"}}}}))
    monkeypatch.setattr(settings, "PACKAGE_LOCK", lock)
    with pytest.raises(BadInput, match=re.escape(str(lock))):
        settings.site_packages()


def test_every_cdn_address_of_asvs_page_has_its_local_file():
    page = (Path(asv.__file__).parent / "www" / "index.html").read_text(encoding="utf-8")
    wanted = {match["url"] for match in site.EXTERNAL.finditer(page)}
    local = site.assets()
    assert wanted and wanted <= set(local), wanted - set(local)
    assert all((site.NODE_MODULES / local[url]).is_file() for url in wanted), "run scripts/setup"


def test_a_version_asvs_page_asks_for_differs_from_the_served_one_only_where_declared():
    locked = settings.site_packages()
    assert all(locked[package] != version for package, version in site.ASV_VERSIONS.items())
    assert set(site.ASV_VERSIONS) <= set(locked)
